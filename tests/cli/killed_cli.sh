#!/usr/bin/env bash
# A program under `predatar run` killed from outside (kill -9, a CPU limit, the
# OOM killer) cannot write its report at exit: predatar says so, with the
# signal, keeps what the program reported before (the racy launch, written
# when its race was found, and the API error before it), and exits non-zero,
# so the run never passes for a clean one.
set -u
. "$(dirname "$0")/spinning_run.sh"
fail=0
bad() { echo "FAIL: $*"; fail=1; }
killProgram
[ "$rc" = 1 ] || bad "exit $rc (expected 1, races found): $(cat "$tmp/err")"
grep -q "the program was killed by signal 9 " "$tmp/err" || bad "no message naming the signal: $(cat "$tmp/err")"
python3 -c "
import json; d=json.load(open('$tmp/report.json'))
assert d['races'] and d['races'][0]['kernel'] == 'racy(int*)', d['races']
e=d['api_errors']  # (written with the report when the racy launch's race was found)
assert len(e) == 1 and e[0].startswith('cudaMemcpy returned cudaErrorInvalidMemcpyDirection'), e" \
  || bad "report: $(head -c 600 "$tmp/report.json"; cat "$tmp/err")"
[ $fail -eq 0 ] && echo "killed cli: passed"
exit $fail
