#!/usr/bin/env bash
# The same CPU-shaped trace (32 threads, 100 locks, 10^4 variables) in both
# formats, through `predatar check` (litmus and STD, reading alone and gwcp)
# and through RAPID's WCP (Java; skipped when RAPID is not built). Prints per
# run: wall and CPU seconds, peak RSS, RSS per event, and RAPID's CPU time
# over ours.
#
# usage: bench/traces/compare_rapid.sh [PREDATAR] [EVENTS...]
#   PREDATAR  default build/predatar; EVENTS default 1000000
#   RAPID_DIR RAPID checkout with classes compiled into bin/ (default /work/ext/rapid):
#             javac -d bin -cp "$(ls lib/*.jar lib/jgrapht/*.jar | tr '\n' :)" -sourcepath src src/WCP.java
#   TRACE_DIR where traces are written (default /tmp/predatar-traces); kept for reuse
#   SKIP_RAPID_ABOVE  events above which RAPID is not run (default 1000000: it needs ~100 s CPU per 10^6 here)
set -u
here=$(cd "$(dirname "$0")" && pwd)
predatar=${1:-build/predatar}
shift || true
sizes=("$@")
[ ${#sizes[@]} -eq 0 ] && sizes=(1000000)
rapid=${RAPID_DIR:-/work/ext/rapid}
traces=${TRACE_DIR:-/tmp/predatar-traces}
skipAbove=${SKIP_RAPID_ABOVE:-1000000}
mkdir -p "$traces"

# measure LABEL EVENTS CMD...: one row; sets CPU to the run's user+sys seconds.
# The command's output goes to TRACE_DIR/<label>.<events>.log (RAPID's race
# counts and "Analysis complete" are there), its exit status to the row.
measure() {
  local label=$1 events=$2; shift 2
  local log; log=$(mktemp)
  local out="$traces/$(echo "$label" | tr -c 'A-Za-z0-9\n' '-' | tr -s '-' | sed 's/-$//').$events.log"
  /usr/bin/time -f "%x %e %U %S %M" -o "$log" "$@" >"$out" 2>&1
  read -r rc wall user sys rss < <(tail -1 "$log")  # after "Command exited with non-zero status 1" (races)
  rm -f "$log"
  CPU=$(awk -v u="$user" -v s="$sys" 'BEGIN{printf "%.2f", u+s}')
  printf "%-34s %10s %8.1f %8.2f %9.1f %9.0f %4s\n" "$label" "$events" "$wall" "$CPU" "$(awk -v r="$rss" 'BEGIN{print r/1024}')" \
    "$(awk -v r="$rss" -v n="$events" 'BEGIN{print r*1024/n}')" "$rc"
}

printf "%-34s %10s %8s %8s %9s %9s %4s\n" "run" "events" "wall s" "CPU s" "RSS MiB" "RSS B/ev" "exit"
for n in "${sizes[@]}"; do
  base=$traces/cpu$n
  [ -f "$base.std" ] && [ -f "$base.litmus" ] || python3 "$here/gen_cpu_trace.py" "$n" "$base" >/dev/null
  measure "predatar read only (litmus)" "$n" "$predatar" check --detectors none "$base.litmus"
  measure "predatar read only (std)" "$n" "$predatar" check --detectors none "$base.std"
  measure "predatar gwcp (litmus)" "$n" "$predatar" check --detectors gwcp --print-limit 0 "$base.litmus"
  measure "predatar gwcp (std)" "$n" "$predatar" check --detectors gwcp --print-limit 0 "$base.std"
  ours=$CPU
  if [ ! -f "$rapid/bin/WCP.class" ]; then
    echo "RAPID not found in $rapid (bin/WCP.class): skipped"
  elif [ "$n" -gt "$skipAbove" ]; then
    echo "RAPID skipped at $n events (SKIP_RAPID_ABOVE=$skipAbove)"
  else
    cp="$rapid/bin:$(ls "$rapid"/lib/*.jar "$rapid"/lib/jgrapht/*.jar 2>/dev/null | tr '\n' ':')"
    measure "RAPID WCP (std)" "$n" java -cp "$cp" WCP -f std -p "$base.std"
    awk -v r="$CPU" -v o="$ours" 'BEGIN{printf "RAPID WCP CPU / predatar gwcp CPU (std, whole process): %.1fx\n", r/o}'
  fi
done
