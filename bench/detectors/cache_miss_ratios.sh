#!/usr/bin/env bash
# gwcp / hb in last-level cache misses and instructions per round at steady
# state (valgrind's cachegrind, with a simulated last-level cache), on the
# streams of detector_ratios. On the lock shapes at 10^5 threads both
# detectors are bound by cache misses, so their time ratio follows the
# machine's last-level cache: warp-lock measured 1.66x on one build machine
# and 1.25x-1.4x on another with a 260 MiB L3. This gives the figure a
# machine with a smaller cache would see, the same on every run.
#
# A round's cost is the difference between two stream lengths divided by the
# rounds between them, so the first rounds (every thread's clocks made, the
# same for both detectors) do not dilute the ratio.
#
# usage: bench/detectors/cache_miss_ratios.sh [--build DIR] [--before DETECTOR_RATIOS]
#            [--shapes "warp-lock slot-locks"] [--threads N] [--rounds "8 32"] [--ll-mib 16]
# (warp-lock at 10^5 threads: about 4 min; slot-locks and block-locks: about 15 min each)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="$here/../../build"
before=""
shapes="warp-lock slot-locks"
threads=100000
rounds="8 32"
llMiB=16
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build="$2"; shift 2 ;;
    --before) before="$2"; shift 2 ;;
    --shapes) shapes="$2"; shift 2 ;;
    --threads) threads="$2"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    --ll-mib) llMiB="$2"; shift 2 ;;
    -h|--help) sed -n 2,17p "$0"; exit 0 ;;
    *) echo "cache_miss_ratios.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
command -v valgrind >/dev/null || { echo "cache_miss_ratios.sh: needs valgrind (apt-get install valgrind)" >&2; exit 2; }
after="$build/bench/detector_ratios"
[ -x "$after" ] || { echo "cache_miss_ratios.sh: missing $after (configure with -DPREDATAR_BENCHMARKS=ON)" >&2; exit 2; }
read -r short long <<<"$rounds"
[ -n "${long:-}" ] && [ "$long" -gt "$short" ] || { echo "cache_miss_ratios.sh: --rounds wants two counts, the second larger" >&2; exit 2; }

out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

# Prints "HB_IR HB_LL GWCP_IR GWCP_LL" for one binary, shape and round count:
# detector_ratios runs hb, then gwcp, each in a child process of its own,
# one after the other, and each child's summary comes before the parent's.
count() {
  local binary="$1" shape="$2" n="$3"
  rm -f "$out"/cg.*
  valgrind --tool=cachegrind --cache-sim=yes --LL=$((llMiB * 1048576)),16,64 --trace-children=yes \
    --cachegrind-out-file="$out/cg.%p" "$binary" \
    --rounds "$n" --max-blocks 0 --repeat 1 --shapes "$shape" --threads "$threads" 2>&1 >/dev/null |
    awk '/I +refs:/ { gsub(",", "", $4); ir[++i] = $4 }
         /LL misses:/ { gsub(",", "", $4); ll[++l] = $4 }
         END { if (i < 3 || l < 3) exit 1; print ir[1], ll[1], ir[2], ll[2] }'
}

# Prints "HB_IR HB_LL GWCP_IR GWCP_LL" per round (millions of instructions, thousands of misses).
perRound() {
  local binary="$1" shape="$2" a b
  a=$(count "$binary" "$shape" "$short")
  b=$(count "$binary" "$shape" "$long")
  awk -v a="$a" -v b="$b" -v r=$((long - short)) 'BEGIN {
    split(a, x, " "); split(b, y, " ");
    printf "%.2f %.1f %.2f %.1f\n", (y[1]-x[1])/r/1e6, (y[2]-x[2])/r/1e3, (y[3]-x[3])/r/1e6, (y[4]-x[4])/r/1e3 }'
}

echo "== gwcp / hb per round at steady state (cachegrind, ${llMiB} MiB last-level cache simulated),"
echo "   $threads threads, rounds $short -> $long; per round: M instructions, k last-level misses"
if [ -n "$before" ]; then
  echo "| shape | | hb M instr | gwcp M instr | instr gwcp/hb | hb k LL misses | gwcp k LL misses | LL misses gwcp/hb |"
  echo "|---|---|---:|---:|---:|---:|---:|---:|"
else
  echo "| shape | hb M instr | gwcp M instr | instr gwcp/hb | hb k LL misses | gwcp k LL misses | LL misses gwcp/hb |"
  echo "|---|---:|---:|---:|---:|---:|---:|"
fi
row() {
  awk -v s="$1" -v tag="$2" -v v="$3" 'BEGIN { split(v, x, " ");
    ll = x[2] >= 1 ? sprintf("%.2fx", x[4]/x[2]) : "- (fits the cache)";
    printf "| %s |%s %.2f | %.2f | %.2fx | %.1f | %.1f | %s |\n", s, tag, x[1], x[3], x[3]/x[1], x[2], x[4], ll }'
}
for shape in $shapes; do
  if [ -n "$before" ]; then
    row "$shape" " before |" "$(perRound "$before" "$shape")"
    row "$shape" " after |" "$(perRound "$after" "$shape")"
  else
    row "$shape" "" "$(perRound "$after" "$shape")"
  fi
done
