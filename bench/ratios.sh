#!/usr/bin/env bash
# Issue 13's figures as ratios measured in one run:
#  1. gwcp / hb on lock- and atomics-heavy synthetic streams (CPU time of the
#     analysis, peak metadata), and time per doubling of the grid
#     (bench/detectors/DetectorRatios.cpp);
#  2. bench/apps programs (default rule-110 at the large size) under
#     --detectors none / hb / gwcp: CPU s and peak RSS of the whole process,
#     gwcp/hb and gwcp/none; with --before PREDATAR, the same for an older
#     build and after/before ratios;
#  3. the lock-heavy CUDA programs of bench/locks under none / lockset / hb /
#     gwcp (CPU s, peak metadata, gwcp/hb; with --before, the older build too);
#  4. the compression table on lock- and atomics-heavy streams at
#     PREDATAR_TABLE_THREADS (default 100000; 1000000 takes long on 2 cores).
#
# usage: bench/ratios.sh [--build DIR] [--before PREDATAR] [--apps "rule-110 ..."] [--size large]
#                        [--quick]   (smaller streams, no compression table)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="$here/../build"
before=""
apps="rule-110"
size=large
quick=0
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build="$2"; shift 2 ;;
    --before) before="$2"; shift 2 ;;
    --apps) apps="$2"; shift 2 ;;
    --size) size="$2"; shift 2 ;;
    --quick) quick=1; shift ;;
    -h|--help) sed -n 2,16p "$0"; exit 0 ;;
    *) echo "ratios.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
for f in "$build/bench/detector_ratios" "$build/predatar"; do
  [ -x "$f" ] || { echo "ratios.sh: missing $f (configure with -DPREDATAR_BENCHMARKS=ON and build it)" >&2; exit 2; }
done

if [ $quick -eq 1 ]; then
  "$build/bench/detector_ratios" --rounds 16 --max-blocks 16 --big-threads 16384
else
  "$build/bench/detector_ratios"
fi

# CPU seconds and peak RSS (MiB) of one run: "cpu rss".
measure() {
  local predatar="$1" detectors="$2" program="$3" t
  t=$(mktemp)
  /usr/bin/time -q -f "%U %S %M" -o "$t" "$predatar" run --detectors "$detectors" -- "$program" "$size" \
    >/dev/null 2>&1 || true
  awk '{printf "%.2f %.0f\n", $1 + $2, $3 / 1024}' "$t"
  rm -f "$t"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2fx", a / b; else print "-" }'; }

echo
echo "== bench/apps at size $size: CPU s / peak RSS MiB of the whole process"
echo "| app | build | none | hb | gwcp | gwcp/hb time | gwcp/none time | gwcp/hb RSS |"
echo "|---|---|---:|---:|---:|---:|---:|---:|"
for app in $apps; do
  program="$here/apps/bin/$app"
  declare -A cpu=() rss=()
  for which in after ${before:+before}; do
    p="$build/predatar"
    [ "$which" = before ] && p="$before"
    for d in none hb gwcp; do
      read -r c r < <(measure "$p" "$d" "$program")
      cpu[$which$d]=$c
      rss[$which$d]=$r
    done
    echo "| $app | $which | ${cpu[${which}none]} / ${rss[${which}none]} | ${cpu[${which}hb]} / ${rss[${which}hb]} |" \
         "${cpu[${which}gwcp]} / ${rss[${which}gwcp]} | $(ratio "${cpu[${which}gwcp]}" "${cpu[${which}hb]}") |" \
         "$(ratio "${cpu[${which}gwcp]}" "${cpu[${which}none]}") | $(ratio "${rss[${which}gwcp]}" "${rss[${which}hb]}") |"
  done
  if [ -n "$before" ]; then
    echo "| $app | after/before | $(ratio "${cpu[afternone]}" "${cpu[beforenone]}") |" \
         "$(ratio "${cpu[afterhb]}" "${cpu[beforehb]}") | $(ratio "${cpu[aftergwcp]}" "${cpu[beforegwcp]}") | | | |"
  fi
  unset cpu rss
done

echo
python3 "$here/locks/locks.py" --predatar "$build/predatar" --size "$size"
if [ -n "$before" ]; then
  python3 "$here/locks/locks.py" --predatar "$before" --size "$size" | sed 's/^== /== before: /'
fi

if [ $quick -eq 0 ]; then
  echo
  echo "== compression table, lock- and atomics-heavy"
  "$build/bench/compression_table" --shapes lock-heavy,atomics-heavy,block-locks \
    --threads "${PREDATAR_TABLE_THREADS:-100000}"
fi
