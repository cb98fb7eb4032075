#!/usr/bin/env bash
# `predatar run --initcheck` (run/initcheck_app.cu): a kernel read of
# cudaMalloc'd bytes that no copy, memset or kernel store wrote is reported
# once per instruction, with file:line, kernel, thread, address, allocation
# and count, in text, JSON and SARIF, and the run exits 1 (--error-exitcode);
# a D2D copy carries over which bytes were written, an atomic reads, a freed
# and reallocated block is unwritten again; a program that writes all it reads
# (memset, host, device, pitched and symbol copies, kernel stores, a replayed
# launch) stays clean; without --initcheck nothing is reported.
# `--leak-check full`: device and managed allocations live at exit, or at a
# cudaDeviceReset, are listed with the host function that allocated them (not
# pinned host memory), exit 1; none when all were freed. PREDATAR_INITCHECK/PREDATAR_LEAK_CHECK set by hand take on/1 or
# off/0; anything else stops the run with an error.
set -u
p=$1; dir=$2
source "$dir/run/check_lib.sh"
app=$(app_binary initcheck_app) || exit 1
read_line() { grep -c "UNINITIALIZED READ" "$tmp/out"; }

# A memset of 64 bytes where 256 were meant: threads 16-63 read unwritten ints.
[ "$(run "$p" run --initcheck -- "$app" memset-short)" = 1 ] && [ "$(read_line)" = 1 ] &&
  grep -q "UNINITIALIZED READ (launch 0, 48 reads at this instruction): uninitialized __global__ memory read of 4 bytes at .*initcheck_app.cu:14 .* in addIndex(int\*) by block (0,0,0) thread (16,0,0): address 0x[0-9a-f]* (byte 64 of cudaMalloc #1 (256 bytes)) was never written" "$tmp/out" &&
  grep -q "0 unique races, 1 uninitialized read (--initcheck)" "$tmp/err" && ok || bad "memset-short: $(cat "$tmp/out" "$tmp/err")"
[ "$(run "$p" run --initcheck --error-exitcode 7 -- "$app" memset-short)" = 7 ] && ok || bad "memset-short --error-exitcode"
[ "$(run "$p" run -- "$app" memset-short)" = 0 ] && [ "$(read_line)" = 0 ] && ok || bad "without --initcheck: $(cat "$tmp/out")"
[ "$(run "$p" run --initcheck --format json -- "$app" memset-short)" = 1 ] && ok || bad "memset-short json exit"
python3 -c "
import json; u=json.load(open('$tmp/out'))['uninitialized_reads']
assert len(u) == 1 and u[0]['count'] == 48 and u[0]['launch'] == 0 and u[0]['kernel'] == 'addIndex(int*)', u
assert 'byte 64 of cudaMalloc #1' in u[0]['message'], u" && ok || bad "memset-short json: $(cat "$tmp/out")"
[ "$(run "$p" run --initcheck --format sarif -- "$app" memset-short)" = 1 ] && ok || bad "memset-short sarif exit"
python3 -c "
import json; r=json.load(open('$tmp/out'))['runs'][0]['results']
assert [x['ruleId'] for x in r] == ['uninitialized-read'] and r[0]['properties']['count'] == 48, r" &&
  ok || bad "memset-short sarif: $(cat "$tmp/out")"

# A device copy of a half-written array: the copy's second half is unwritten.
[ "$(run "$p" run --initcheck -- "$app" copy-half)" = 1 ] && [ "$(read_line)" = 1 ] &&
  grep -q "launch 1, 32 reads at this instruction.* thread (32,0,0): address 0x[0-9a-f]* (byte 128 of cudaMalloc #2" "$tmp/out" &&
  ok || bad "copy-half: $(cat "$tmp/out")"
# An atomic reads the counter it adds to.
[ "$(run "$p" run --initcheck -- "$app" atomic)" = 1 ] && grep -q "launch 0, 1 read at this instruction.*initcheck_app.cu:21 .* in count(int\*)" "$tmp/out" &&
  ok || bad "atomic: $(cat "$tmp/out")"
# Freed and allocated again: unwritten again, though a kernel wrote those bytes before.
[ "$(run "$p" run --initcheck -- "$app" reused)" = 1 ] && grep -q "initcheck_app.cu:18 .* in sum(int const\*, int, int\*)" "$tmp/out" &&
  grep -q "4 uninitialized reads (--initcheck)" "$tmp/err" && ok || bad "reused: $(cat "$tmp/out" "$tmp/err")"
# Everything read was written first: clean, and the program's answers are right.
[ "$(run "$p" run --initcheck -- "$app" all-written)" = 0 ] && [ "$(read_line)" = 0 ] &&
  grep -q "count 32 sums 2144 2144" "$tmp/out" && grep -q "1 of them exact repeats" "$tmp/err" &&
  ok || bad "all-written: $(cat "$tmp/out" "$tmp/err")"

# Leaks.
[ "$(run "$p" run --leak-check full -- "$app" leaks)" = 1 ] &&
  grep -q "LEAK: 256 bytes at 0x[0-9a-f]* (cudaMalloc #3) never freed before the program exited; allocated by main (.*initcheck_app+0x[0-9a-f]*)" "$tmp/out" &&
  grep -q "LEAK: 64 bytes at 0x[0-9a-f]* (cudaMallocManaged #4) never freed" "$tmp/out" &&
  [ "$(grep -c "LEAK:" "$tmp/out")" = 2 ] && grep -q "LEAK SUMMARY: 2 allocations never freed" "$tmp/out" &&
  grep -q "0 unique races, 2 leaks (--leak-check full)" "$tmp/err" && ok || bad "leaks: $(cat "$tmp/out" "$tmp/err")"
[ "$(run "$p" run --leak-check full -- "$app" reset)" = 1 ] && [ "$(grep -c "never freed before cudaDeviceReset" "$tmp/out")" = 3 ] &&
  [ "$(grep -c "LEAK:" "$tmp/out")" = 3 ] && ok || bad "reset: $(cat "$tmp/out" "$tmp/err")"
[ "$(run "$p" run --leak-check full --format json -- "$app" leaks)" = 1 ] &&
  python3 -c "import json; l=json.load(open('$tmp/out'))['leaks']; assert len(l) == 2 and any('cudaMalloc #3' in x for x in l), l" &&
  ok || bad "leaks json: $(cat "$tmp/out")"
[ "$(run "$p" run --leak-check full -- "$app" freed)" = 0 ] && ! grep -q "LEAK" "$tmp/out" && ok || bad "freed: $(cat "$tmp/out")"
[ "$(run "$p" run -- "$app" leaks)" = 0 ] && ! grep -q "LEAK" "$tmp/out" && ok || bad "leaks without the flag: $(cat "$tmp/out")"

# A switch misspelt by hand is an error, not off: the run would look clean unchecked.
for var in PREDATAR_INITCHECK PREDATAR_LEAK_CHECK; do
  [ "$(env "$var=yes" timeout 120 "$p" run -- "$app" memset-short >"$tmp/out" 2>"$tmp/err"; echo $?)" != 0 ] &&
    grep -q "$var='yes' is not on or off" "$tmp/err" && ok || bad "$var=yes: $(cat "$tmp/err")"
done
[ "$(env PREDATAR_INITCHECK=on timeout 120 "$p" run -- "$app" memset-short >"$tmp/out" 2>"$tmp/err"; echo $?)" = 1 ] &&
  [ "$(read_line)" = 1 ] && ok || bad "PREDATAR_INITCHECK=on: $(cat "$tmp/out" "$tmp/err")"

echo "initcheck: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
