#!/usr/bin/env bash
# A program that runs clean launches for a while and is then killed outright
# (kill -9, as a CPU limit does) keeps the launches the runtime's periodic
# report rewrite (every 10 s) saw: predatar counts them, names the signal,
# and exits non-zero. Before the rewrite, such a run said "0 kernel launches
# checked"; while replayed launches (exact repeats, as these are after the
# first) skipped it, "1 kernel launch checked". (About 15 s: the fault
# program's clean-spin mode.)
set -u
mode=clean-spin
. "$(dirname "$0")/spinning_run.sh"
fail=0
bad() { echo "FAIL: $*"; fail=1; }
killProgram
[ "$rc" = 4 ] || bad "exit $rc (expected 4, the program failed): $(cat "$tmp/err")"
grep -q "the program was killed by signal 9 " "$tmp/err" || bad "no message naming the signal: $(cat "$tmp/err")"
launches=$(sed -n 's/^predatar: \([0-9]*\) kernel launch.* checked.*/\1/p' "$tmp/err")
[ "${launches:-0}" -ge 2 ] || bad "launches checked: '${launches}' (expected the clean ones up to the 10 s rewrite): $(cat "$tmp/err")"
[ $fail -eq 0 ] && echo "periodic report cli: passed ($launches launches kept)"
exit $fail
