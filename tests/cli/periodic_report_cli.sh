#!/usr/bin/env bash
# A program that runs clean launches for a while and is then killed outright
# (kill -9, as a CPU limit does) keeps the launches the runtime's periodic
# report rewrite (every 10 s) saw: predatar counts them, names the signal,
# and exits non-zero. Before the rewrite, such a run said "0 kernel launches
# checked"; while replayed launches (exact repeats, as these are after the
# first) skipped it, "1 kernel launch checked". (About 15 s: the fault
# program's clean-spin mode.)
set -u
p=$1; root=$2; tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
. "$root/tests/cuda/faults/program.sh"  # (sets fp)
"$p" run --format json -o "$tmp/report.json" -- "$fp" clean-spin >"$tmp/out" 2>"$tmp/err" &
pid=$!
fail=0
bad() { echo "FAIL: $*"; fail=1; }
# wait until the clean launches are done (12 s of them) and the spin runs
for _ in $(seq 600); do grep -q "^pid " "$tmp/err" && break; sleep 0.1; done
sleep 1
child=$(sed -n 's/^pid \([0-9]*\)$/\1/p' "$tmp/err")
if [ -n "$child" ]; then kill -KILL "$child"
else bad "the program printed no pid: $(cat "$tmp/err")"; kill -TERM "$pid"  # (else the wait never ends)
fi
wait "$pid"; rc=$?
[ "$rc" = 4 ] || bad "exit $rc (expected 4, the program failed): $(cat "$tmp/err")"
grep -q "the program was killed by signal 9 " "$tmp/err" || bad "no message naming the signal: $(cat "$tmp/err")"
launches=$(sed -n 's/^predatar: \([0-9]*\) kernel launch.* checked.*/\1/p' "$tmp/err")
[ "${launches:-0}" -ge 2 ] || bad "launches checked: '${launches}' (expected the clean ones up to the 10 s rewrite): $(cat "$tmp/err")"
[ $fail -eq 0 ] && echo "periodic report cli: passed ($launches launches kept)"
exit $fail
