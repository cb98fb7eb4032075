#!/usr/bin/env bash
# Issue 13 item 4 ("both cores"): the detectors serial (--threads 1: in the
# emulator's thread, as before) against parallel (each detector on its own
# thread beside the emulator, the default on a multi-core machine), as
# wall-clock and CPU seconds measured in one run, with the two targets:
#   A. all three detectors together <= 1.2x the slowest alone (parallel, wall);
#   B. emulation + gwcp >= 1.6x faster wall-clock than serial (today's mode).
# Parts: 1. bench/apps programs under predatar run (--detectors none / gwcp /
# hb / lockset / all); 2. the synthetic streams of detector_ratios
# (parallel_ratios, when the benchmarks are built). Each figure is the best
# of --repeat runs (the machine may be shared). Reports of serial and
# parallel runs are compared too: they must be identical.
#
# usage: bench/parallel.sh [--build DIR] [--apps "hotspot 1dconv pathfinder"] [--size large|paper]
#                          [--repeat 1] [--no-streams] [--stream-events 2000000] [--stream-threads 8192]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="$here/../build"
apps="hotspot 1dconv pathfinder"
size=large
repeat=1
streams=1
streamEvents=2000000
streamThreads=8192
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build="$2"; shift 2 ;;
    --apps) apps="$2"; shift 2 ;;
    --size) size="$2"; shift 2 ;;
    --repeat) repeat="$2"; shift 2 ;;
    --no-streams) streams=0; shift ;;
    --stream-events) streamEvents="$2"; shift 2 ;;
    --stream-threads) streamThreads="$2"; shift 2 ;;
    -h|--help) sed -n 2,16p "$0"; exit 0 ;;
    *) echo "parallel.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
[ -x "$build/predatar" ] || { echo "parallel.sh: missing $build/predatar" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bounds=""

# "wall cpu" of the best (least wall) of $repeat runs; the JSON report in $work/$tag.json.
measure() {
  local tag="$1" threads="$2" detectors="$3" program="$4" best="" t code
  for _ in $(seq "$repeat"); do
    t="$work/time"
    # (Exit 0: no race, 1: races; anything else is a failed run, whose time means nothing.)
    code=0
    /usr/bin/time -q -f "%e %U %S" -o "$t" "$build/predatar" run --threads "$threads" --detectors "$detectors" \
      --format json --output "$work/$tag.json" -- "$program" "$size" >/dev/null 2>"$work/err" || code=$?
    if [ "$code" -gt 1 ]; then
      echo "parallel.sh: predatar run --threads $threads --detectors $detectors -- $program $size exited $code:" >&2
      tail -5 "$work/err" >&2
      exit 3
    fi
    read -r w u s <"$t"
    line=$(awk -v w="$w" -v u="$u" -v s="$s" 'BEGIN { printf "%.2f %.2f\n", w, u + s }')
    if [ -z "$best" ] || awk -v a="${line%% *}" -v b="${best%% *}" 'BEGIN { exit !(a < b) }'; then best="$line"; fi
  done
  echo "$best"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2fx", a / b; else print "-" }'; }
max3() { printf '%s\n' "$@" | sort -g | tail -1; }

echo "== bench/apps at size $size under predatar run: wall / CPU s, serial (--threads 1) · parallel; $(nproc) cores," \
     "load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "| app | none | gwcp | hb | lockset | all | A: all / slowest alone (<= 1.2x) | B: gwcp serial / parallel (>= 1.6x) | reports |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---|"
for app in $apps; do
  program="$here/apps/bin/$app"
  [ -x "$program" ] || { echo "parallel.sh: no $program" >&2; exit 2; }
  declare -A wall=() cpu=()
  same=identical
  row="| $app |"
  for d in none gwcp hb lockset all; do
    for t in 1 auto; do
      m=$(measure "$app-$d-$t" "$t" "$d" "$program") || exit 3
      read -r w c <<<"$m"
      wall[$d$t]=$w
      cpu[$d$t]=$c
    done
    cmp -s "$work/$app-$d-1.json" "$work/$app-$d-auto.json" || same="DIFFER ($d)"
    row+=" ${wall[${d}1]} / ${cpu[${d}1]} · ${wall[${d}auto]} / ${cpu[${d}auto]} |"
  done
  slowest=$(max3 "${wall[gwcpauto]}" "${wall[hbauto]}" "${wall[locksetauto]}")
  echo "$row $(ratio "${wall[allauto]}" "$slowest") | $(ratio "${wall[gwcp1]}" "${wall[gwcpauto]}") | $same |"
  bounds+="$app ${cpu[none1]} ${cpu[gwcp1]} ${cpu[hb1]} ${cpu[lockset1]} ${cpu[all1]}"$'\n'
  unset wall cpu
done

# On a shared machine wall-clock mostly measures the other users. What two
# free cores allow, from the serial CPU seconds: emulation e = none, detector
# d = (its run) - e; the parallel wall of a set S is at least
# max(e, max d in S, (e + sum S) / 2); serial wall = e + sum S. With all
# three, gwcp checks hb too (GwcpDetector::checkHbToo: two detector threads,
# not three): S is all's run - e, gwcp's share of it that less lockset's.
echo
echo "== the same from serial CPU seconds: bound on the parallel wall-clock with two free cores"
echo "| app | emulation | gwcp | hb | lockset | all (gwcp with hb, lockset) | A bound: all / slowest alone | B bound: gwcp serial / parallel |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
printf '%s' "$bounds" | awk '
  function max(a, b) { return a > b ? a : b }
  function bound(e, sum, top) { return max(max(e, top), (e + sum) / 2) }
  NF == 6 {
    e = $2; g = max($3 - e, 0); h = max($4 - e, 0); l = max($5 - e, 0); a = max($6 - e, 0)
    top = max(max(a - l, 0), l)
    single = max(bound(e, g, g), max(bound(e, h, h), bound(e, l, l)))
    printf "| %s | %.2f | %.2f | %.2f | %.2f | %.2f | %.2fx | %.2fx |\n", $1, e, g, h, l, a,
           bound(e, a, top) / single, (e + g) / bound(e, g, g)
  }'

if [ $streams -eq 1 ]; then
  echo
  if [ -x "$build/bench/parallel_ratios" ]; then
    "$build/bench/parallel_ratios" --events "$streamEvents" --threads "$streamThreads"
  else
    echo "(no $build/bench/parallel_ratios: configure with -DPREDATAR_BENCHMARKS=ON and build it for the streams)"
  fi
fi
