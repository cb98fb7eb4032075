#!/usr/bin/env bash
# `predatar check` on RAPID's STD traces: the format found by extension or by
# content or forced, the same races as the same trace written as litmus, and
# malformed lines refused with file:line and exit 2.
set -u
p=$1; root=$2; tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
traces=$root/tests/traces
pass=0; fail=0
ok() { pass=$((pass+1)); }
bad() { echo "FAIL: $*"; fail=$((fail+1)); }
expect_code() { local want=$1; shift; "$@" >"$tmp/out" 2>"$tmp/err"; local got=$?
  [ "$got" -eq "$want" ] && ok || bad "exit $got (want $want): $* : $(head -3 "$tmp/err")"; }
summary() { "$p" check "$@" 2>/dev/null | grep "RACE SUMMARY"; }

expect_code 1 "$p" check "$traces/std/wcp_figure.std"
grep -q "data race on x" "$tmp/out" && grep -q "at loc:6" "$tmp/out" && ok || bad "no race on x at loc:6: $(cat "$tmp/out")"
expect_code 0 "$p" check -d hb "$traces/std/wcp_figure.std"
expect_code 1 "$p" check -d all "$traces/std/wcp_figure.std"       # lockset too (threads as warps)
expect_code 0 "$p" check -d all "$traces/std/fork_join.std"         # fork/join and re-entrant locks order everything
# The same trace in both formats: the same report.
[ "$(summary "$traces/std/wcp_figure.std")" = "$(summary "$traces/std/wcp_figure.litmus")" ] && ok ||
  bad "litmus and STD summaries differ: $(summary "$traces/std/wcp_figure.std") / $(summary "$traces/std/wcp_figure.litmus")"
"$p" check --format json "$traces/std/wcp_figure.std" >"$tmp/a.json" 2>/dev/null
"$p" check --format json "$traces/std/wcp_figure.litmus" >"$tmp/b.json" 2>/dev/null
sed 's/"kernel": "[^"]*"//' "$tmp/a.json" >"$tmp/a2"; sed 's/"kernel": "[^"]*"//' "$tmp/b.json" >"$tmp/b2"
cmp -s "$tmp/a2" "$tmp/b2" && ok || bad "JSON reports differ: $(diff "$tmp/a2" "$tmp/b2" | head -5)"
# Found by content without the extension; forced either way.
cp "$traces/std/wcp_figure.std" "$tmp/trace.txt"
expect_code 1 "$p" check "$tmp/trace.txt"
expect_code 1 "$p" check --trace-format std "$tmp/trace.txt"
expect_code 2 "$p" check --trace-format litmus "$tmp/trace.txt"
grep -q "trace.txt:1:" "$tmp/err" && ok || bad "forced litmus error does not name file:line: $(cat "$tmp/err")"
expect_code 2 "$p" check --trace-format xml "$tmp/trace.txt"
# A folder is searched for .std files as well as .litmus files.
expect_code 1 "$p" check "$traces/std"
# Malformed lines: exit 2, file and line, and no report.
for f in "$traces"/std-errors/*.std; do
  expect_code 2 "$p" check "$f"
  grep -qE "$(basename "$f"):2: " "$tmp/err" && ok || bad "$f: error does not name file:2: $(cat "$tmp/err")"
  grep -q "RACE SUMMARY" "$tmp/out" && bad "$f: a report was written despite the error" || ok
done
echo "check_std: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
