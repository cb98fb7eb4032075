# Sourced by the run-interruption tests: starts `predatar run` ($1) on the
# fault program in $mode (default `spin`: a racy launch, then one that spins;
# `clean-spin`: 12 s of clean launches, then one that spins) with a JSON
# report in $tmp/report.json, and returns once the spinning launch runs.
# Sets tmp (removed at exit), pid (predatar's) and child (the program's).
p=$1; root=$2; tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
. "$root/tests/cuda/faults/program.sh"  # (sets fp)
"$p" run --format json -o "$tmp/report.json" -- "$fp" "${mode:-spin}" >"$tmp/out" 2>"$tmp/err" &
pid=$!
# wait until the launches before the spinning one are done and it runs
for _ in $(seq 600); do grep -q "^pid " "$tmp/err" && break; sleep 0.1; done
sleep 1.5
child=$(sed -n 's/^pid \([0-9]*\).*$/\1/p' "$tmp/err")

# Kills the program outright (SIGKILL, as a CPU limit or the OOM killer does)
# and sets rc to predatar's exit status. Without a pid it says so (the
# caller's `bad`) and stops predatar instead, else the wait never ends.
killProgram() {
  if [ -n "$child" ]; then kill -KILL "$child"
  else bad "the program printed no pid: $(cat "$tmp/err")"; kill -TERM "$pid"
  fi
  wait "$pid"; rc=$?
}
