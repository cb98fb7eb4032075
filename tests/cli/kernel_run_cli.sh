#!/usr/bin/env bash
# `predatar kernel` and `predatar run` as a user drives them: races with
# source lines, exit codes, clear errors for faulting kernels, bad arguments
# and statically linked programs, suppressions and launch filters.
set -u
p=$1; root=$2; staticApp=$3; tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
pass=0; fail=0
ok() { pass=$((pass+1)); }
bad() { echo "FAIL: $*"; fail=$((fail+1)); }
run() { "$@" >"$tmp/out" 2>"$tmp/err"; echo $?; }
cuda=$root/tests/cuda

# kernel: the ITS figure races between figures.cu lines 7 and 8.
[ "$(run "$p" kernel "$cuda/figures.ptx" -e itsRacy -g 1 -b 2 -a buf:int:2 --format json)" = 1 ] && ok || bad "kernel itsRacy exit"
python3 -c "
import json,sys; d=json.load(open('$tmp/out')); r=d['races']
assert r and {r[0]['first']['line'], r[0]['second']['line']} == {7, 8}, r" && ok || bad "kernel itsRacy lines"
[ "$(run "$p" kernel "$cuda/figures.ptx" -e intraWarpSynced -g 1 -b 32 -a buf:int:32 -a buf:int:32 -d all)" = 0 ] && ok || bad "kernel synced exit"
# --dump prints the buffers
run "$p" kernel "$cuda/figures.ptx" -e itsRacy -g 1 -b 2 -a buf:int:2 --dump >/dev/null
grep -q "i32\[2\]: 1 1" "$tmp/err" && ok || bad "dump: $(cat "$tmp/err")"
# faults and bad input: exit 2 with a message naming what is wrong
[ "$(run "$p" kernel "$cuda/errors.ptx" -e outOfBounds -g 1 -b 32 -a buf:int:4 -a scalar:int:64)" = 2 ] && grep -qi "out of bounds\|out-of-bounds" "$tmp/err" && grep -q "outOfBounds" "$tmp/err" && ok || bad "out of bounds: $(cat "$tmp/err")"
[ "$(run "$p" kernel "$cuda/errors.ptx" -e barrierDeadlock -g 1 -b 64 -a buf:int:64)" = 2 ] && grep -qi "deadlock" "$tmp/err" && ok || bad "deadlock: $(cat "$tmp/err")"
[ "$(run "$p" kernel "$cuda/figures.ptx" -e nosuch)" = 2 ] && grep -q "no kernel 'nosuch'" "$tmp/err" && ok || bad "unknown entry: $(cat "$tmp/err")"
[ "$(run "$p" kernel "$cuda/figures.ptx" -e itsRacy -a buf:int)" = 2 ] && ok || bad "bad arg spec"
printf '.version 8.0\n.target sm_75\n.address_size 64\n.visible .entry k() { frobnicate.b32 %%r1; ret; }\n' >"$tmp/bad.ptx"
[ "$(run "$p" kernel "$tmp/bad.ptx" -e k)" = 2 ] && grep -q "bad.ptx:4" "$tmp/err" && ok || bad "unsupported PTX: $(cat "$tmp/err")"

# run: an unmodified CUDA program (committed binary) with races at lines 23/25/27.
app=$root/tests/cuda/run/bin/shared_race
[ "$(run "$p" run --format json -- "$app")" = 1 ] && ok || bad "run exit"
python3 -c "
import json; d=json.load(open('$tmp/out'))
lines={a['line'] for r in d['races'] for a in (r['first'], r['second'])}
assert lines == {23, 25, 27}, lines" && ok || bad "run json lines: $(head -c 300 "$tmp/out")"
grep -q "shiftSum: out\[0\]" "$tmp/err" && ok || bad "program stdout should move to stderr with --format json"
[ "$(run "$p" run --error-exitcode 9 -- "$app")" = 9 ] && ok || bad "run --error-exitcode"
printf '# hide the shared-memory race\nrace:*shared_race.cu:25\nrace:launches*\n' >"$tmp/supp"
[ "$(run "$p" run --suppressions "$tmp/supp" -- "$app")" = 0 ] && grep -q "suppressed" "$tmp/err" && ok || bad "suppressions: $(tail -2 "$tmp/err")"
[ "$(run "$p" run --kernel-name nosuchkernel -- "$app")" = 0 ] && grep -q "0 kernel launches checked" "$tmp/err" && ok || bad "kernel-name filter: $(tail -1 "$tmp/err")"
[ "$(run "$p" run -- "$staticApp")" = 2 ] && grep -q "cudart shared" "$tmp/err" && ok || bad "static runtime: $(cat "$tmp/err")"
[ "$(run "$p" run -- /nonexistent/app)" = 2 ] && ok || bad "missing program"
echo "kernel/run cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
