#!/usr/bin/env bash
# gwcp / hb in instructions executed (valgrind's callgrind), on the streams of
# detector_ratios: a count that does not move with the machine's load. CPU
# times on the 2-core build machine are bimodal (a run takes its usual time
# or ~1.6x it, for minutes at a time), so a least-of-N time ratio can still
# be off by 1.6x; this one is the same on every run. It leaves out what
# instructions do not show (cache misses, malloc's locking), so read it with
# detector_ratios' CPU times, not instead of them.
#
# usage: bench/detectors/instruction_ratios.sh [--build DIR] [--before DETECTOR_RATIOS]
#                                              [--shapes "block-locks slot-locks ..."] [--threads N]
# (about 20 s a shape at the default 8192 threads; needs valgrind)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="$here/../../build"
before=""
shapes="block-locks slot-locks warp-lock lock-heavy atomics-heavy"
threads=8192
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build="$2"; shift 2 ;;
    --before) before="$2"; shift 2 ;;
    --shapes) shapes="$2"; shift 2 ;;
    --threads) threads="$2"; shift 2 ;;
    -h|--help) sed -n 2,12p "$0"; exit 0 ;;
    *) echo "instruction_ratios.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
command -v valgrind >/dev/null || { echo "instruction_ratios.sh: needs valgrind (apt-get install valgrind)" >&2; exit 2; }
after="$build/bench/detector_ratios"
[ -x "$after" ] || { echo "instruction_ratios.sh: missing $after (configure with -DPREDATAR_BENCHMARKS=ON)" >&2; exit 2; }

out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

# Prints "HB GWCP" (instructions) for one binary and shape: detector_ratios
# runs hb, then gwcp, each in a child process of its own, one after the other.
count() {
  local binary="$1" shape="$2"
  rm -f "$out"/cg.*
  valgrind --tool=callgrind --trace-children=yes --callgrind-out-file="$out/cg.%p" "$binary" \
    --rounds 16 --max-blocks 0 --order blocks --repeat 1 --shapes "$shape" --threads "$threads" 2>&1 >/dev/null |
    awk '/Collected :/ { gsub(",", "", $4); n[++k] = $4 } END { if (k < 3) exit 1; print n[1], n[2] }'
}

echo "== gwcp / hb, instructions (callgrind), $threads threads, blocks in turn, 16 rounds"
if [ -n "$before" ]; then
  echo "| shape | hb M before | hb M after | gwcp M before | gwcp M after | gwcp/hb before | gwcp/hb after |"
  echo "|---|---:|---:|---:|---:|---:|---:|"
else
  echo "| shape | hb M | gwcp M | gwcp/hb |"
  echo "|---|---:|---:|---:|"
fi
for shape in $shapes; do
  read -r hb gwcp < <(count "$after" "$shape")
  if [ -n "$before" ]; then
    read -r hb0 gwcp0 < <(count "$before" "$shape")
    awk -v s="$shape" -v a="$hb0" -v b="$hb" -v c="$gwcp0" -v d="$gwcp" \
      'BEGIN { printf "| %s | %.0f | %.0f | %.0f | %.0f | %.2fx | %.2fx |\n", s, a/1e6, b/1e6, c/1e6, d/1e6, c/a, d/b }'
  else
    awk -v s="$shape" -v a="$hb" -v b="$gwcp" 'BEGIN { printf "| %s | %.0f | %.0f | %.2fx |\n", s, a/1e6, b/1e6, b/a }'
  fi
done
