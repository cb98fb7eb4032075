# Sourced by the run-interruption tests: starts `predatar run` ($1) on the
# fault program's `spin` mode (a racy launch, then one that spins) with a JSON
# report in $tmp/report.json, and returns once the spinning launch runs.
# Sets tmp (removed at exit), pid (predatar's) and child (the program's).
p=$1; root=$2; tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
. "$root/tests/cuda/faults/program.sh"  # (sets fp)
"$p" run --format json -o "$tmp/report.json" -- "$fp" spin >"$tmp/out" 2>"$tmp/err" &
pid=$!
# wait until the racy launch is done and the spinning one runs
for _ in $(seq 100); do grep -q "^pid " "$tmp/err" && break; sleep 0.1; done
sleep 1.5
child=$(sed -n 's/^pid \([0-9]*\) report \(.*\)$/\1/p' "$tmp/err")
