#!/usr/bin/env bash
# A `predatar run` ended by SIGTERM still writes its report of what it saw (the
# races of the launches before, the interrupted launch as an error), stops the
# emulated program and removes its temporary folder; exit 128+15.
set -u
. "$(dirname "$0")/spinning_run.sh"
kill -TERM "$pid"
wait "$pid"; rc=$?
fail=0
bad() { echo "FAIL: $*"; fail=1; }
[ "$rc" = 143 ] || bad "exit $rc (expected 143): $(cat "$tmp/err")"
python3 -c "
import json; d=json.load(open('$tmp/report.json'))
assert d['races'] and d['races'][0]['kernel'] == 'racy(int*)', d['races']
e=d['errors']
assert len(e) == 1 and e[0]['kernel'] == 'spin(int volatile*)' and 'interrupted by a signal' in e[0]['message'], e" \
  || bad "report: $(head -c 600 "$tmp/report.json"; cat "$tmp/err")"
report=$(sed -n 's/^pid \([0-9]*\) report \(.*\)$/\2/p' "$tmp/err")
[ -n "$child" ] && ! kill -0 "$child" 2>/dev/null || bad "the program $child still runs"
[ -n "$report" ] && [ ! -e "$(dirname "$report")" ] || bad "temporary folder $(dirname "$report") left behind"
grep -q "interrupted by signal 15" "$tmp/err" || bad "no interruption message: $(cat "$tmp/err")"
[ $fail -eq 0 ] && echo "interrupt cli: passed"
exit $fail
