#!/usr/bin/env bash
# `predatar check` as a user drives it: exit codes, formats, --output, and
# errors on bad input.
set -u
p=$1; root=$2; tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
pass=0; fail=0
ok() { pass=$((pass+1)); }
bad() { echo "FAIL: $*"; fail=$((fail+1)); }
expect_code() { local want=$1; shift; "$@" >"$tmp/out" 2>"$tmp/err"; local got=$?
  [ "$got" -eq "$want" ] && ok || bad "exit $got (want $want): $*"; }

racy=$root/examples/wcp_figure.litmus
cat >"$tmp/clean.litmus" <<'L'
launch blocks=1 threads=64
t0: wr x
b0: bar
t32: rd x
L
expect_code 0 "$p" check "$tmp/clean.litmus" -d all
expect_code 1 "$p" check "$racy"
expect_code 0 "$p" check "$racy" -d hb
expect_code 7 "$p" check "$racy" --error-exitcode 7
expect_code 2 "$p" check "$tmp/missing.litmus"
expect_code 2 "$p" check "$racy" -d nosuch
expect_code 2 "$p" check "$racy" --format xml
expect_code 2 "$p" check
printf 't0: wr x\nt1 rd x\n' >"$tmp/bad.litmus"
expect_code 2 "$p" check "$tmp/bad.litmus"
grep -q "bad.litmus:2:" "$tmp/err" && ok || bad "error does not name file:line: $(cat "$tmp/err")"

# JSON: the documented shape.
"$p" check "$racy" -d all --format json >"$tmp/r.json"
python3 - "$tmp/r.json" <<'PY' && ok || bad "json shape"
import json, sys
d = json.load(open(sys.argv[1]))
races = d["races"]
assert {r["detector"] for r in races} == {"gwcp", "lockset"}, races
for r in races:
    assert r["location"] == "x" and r["space"] == "global" and r["count"] >= 1
    for side in ("first", "second"):
        a = r[side]
        for k in ("block", "thread", "warp", "lane", "line", "file", "operation", "position"):
            assert k in a, (k, a)
    assert r["first"]["line"] == 5 and r["second"]["line"] == 10, r
PY
# SARIF 2.1.0 with a result per race, and --output.
"$p" check "$racy" --format sarif --output "$tmp/r.sarif"
python3 - "$tmp/r.sarif" <<'PY' && ok || bad "sarif"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["version"] == "2.1.0"
res = d["runs"][0]["results"]
assert len(res) == 1 and res[0]["locations"][0]["physicalLocation"]["region"]["startLine"] == 10
PY
# Text names both accesses with their positions and ends with a summary.
"$p" check "$racy" >"$tmp/r.txt"
grep -q "wcp_figure.litmus:5" "$tmp/r.txt" && grep -q "wcp_figure.litmus:10" "$tmp/r.txt" && grep -q "RACE SUMMARY: 1 unique race" "$tmp/r.txt" && ok || bad "text report: $(cat "$tmp/r.txt")"
# --stats prints figures on stderr.
"$p" check "$racy" -d all --stats >/dev/null 2>"$tmp/stats"
grep -q "predatar stats \[gwcp\]: 8 events" "$tmp/stats" && ok || bad "stats: $(cat "$tmp/stats")"
# With gwcp, hb is checked by gwcp on its history (--stats says so); --hb-apart runs it on its own: the
# same racy locations either way.
grep -q "predatar stats \[hb\]: checked by gwcp" "$tmp/stats" && ok || bad "stats of hb on gwcp: $(cat "$tmp/stats")"
"$p" check "$racy" -d all --hb-apart --stats >/dev/null 2>"$tmp/stats"
grep -q "predatar stats \[hb\]: 8 events" "$tmp/stats" && ok || bad "stats with --hb-apart: $(cat "$tmp/stats")"
cat >"$tmp/locks.litmus" <<'L'
launch blocks=2 threads=2
b0.t0: wr x
b0.t0: acq m
b0.t0: wr y
b0.t0: rel m
b1.t0: acq m
b1.t0: rd w
b1.t0: rel m
b1.t0: wr x
b1.t1: wr z
b0.t1: rd z
L
for apart in "" --hb-apart; do
  "$p" check "$tmp/locks.litmus" -d all $apart --format json >"$tmp/locks$apart.json"
done
python3 - "$tmp/locks.json" "$tmp/locks--hb-apart.json" <<'PY' && ok || bad "hb on gwcp and --hb-apart differ"
import json, sys
def racy(path):
    return sorted({(r["detector"], r["location"]) for r in json.load(open(path))["races"]})
shared, apart = racy(sys.argv[1]), racy(sys.argv[2])
assert shared == apart, (shared, apart)
assert ("gwcp", "x") in shared and ("hb", "x") not in shared and ("hb", "z") in shared, shared
PY
# A folder is searched for .litmus files.
expect_code 1 "$p" check "$root/examples"
echo "cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
