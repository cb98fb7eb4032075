#!/usr/bin/env bash
# CUDA misuse a GPU or compute-sanitizer catches is not a silent pass
# (run/misuse_app.cu):
#   * divergent __syncthreads() (threads of a block, or lanes of a warp, at
#     different barrier instructions): a kernel error as synccheck reports it,
#     with file:line, kernel, block and thread, in text, JSON and SARIF, exit 3;
#     a correct barrier after an early return stays clean; lanes that skip a
#     barrier their warp waits at and exit, and a __syncwarp whose mask leaves
#     out its caller, get a note (undefined behaviour, run on);
#   * a read one past the end of a cudaMalloc'd array faults as out of
#     bounds, even where the next array would follow it; one before the start
#     of the first array is named by that array;
#   * a host dereference of cudaMalloc'd memory faults (SIGSEGV) with a message
#     naming the pointer; managed and pinned memory stay host-accessible;
#   * a racy launch the host never waited for still has its races reported
#     when the program then faults or aborts;
#   * a fork() child's races are reported into the same run, with its pid;
#   * the errors the program's CUDA calls returned are listed (API ERROR).
set -u
p=$1; dir=$2
source "$dir/run/check_lib.sh"
app=$(app_binary misuse_app -O3) || exit 1  # (-O3: nvcc's host wrappers of kernels inlined, as HeCBench builds)

# Divergent barriers.
[ "$(run "$p" run -- "$app" barrier-block)" = 3 ] && grep -q "barrier error: divergent thread(s) in block" "$tmp/err" &&
  grep -q "misuse_app.cu:30" "$tmp/err" && grep -q "misuse_app.cu:33" "$tmp/err" && grep -q "divergentBlock" "$tmp/out" &&
  grep -q "KERNEL FAULT" "$tmp/out" && ok || bad "barrier-block text: $(cat "$tmp/out" "$tmp/err")"
[ "$(run "$p" run -- "$app" barrier-warp)" = 3 ] && grep -q "divergent thread(s) in warp 0" "$tmp/err" &&
  grep -q "misuse_app.cu:42" "$tmp/err" && grep -q "misuse_app.cu:45" "$tmp/err" && ok || bad "barrier-warp: $(cat "$tmp/err")"
[ "$(run "$p" run --format json -- "$app" barrier-block)" = 3 ] && ok || bad "barrier-block json exit"
python3 -c "
import json; e=json.load(open('$tmp/out'))['errors']
assert len(e) == 1, e
e=e[0]
assert 'divergent thread(s) in block' in e['message'] and e['kernel'] == 'divergentBlock(int*)', e
assert e['file'].endswith('misuse_app.cu') and e['line'] in (27, 30) and 'thread_index' in e and 'block_index' in e, e" &&
  ok || bad "barrier json: $(cat "$tmp/out")"
[ "$(run "$p" run --format sarif -- "$app" barrier-warp)" = 3 ] && ok || bad "barrier-warp sarif exit"
python3 -c "
import json; inv=json.load(open('$tmp/out'))['runs'][0]['invocations'][0]
n=inv['toolExecutionNotifications']
assert not inv['executionSuccessful'] and len(n) == 1 and 'divergent' in n[0]['message']['text'], inv" &&
  ok || bad "barrier sarif: $(cat "$tmp/out")"
[ "$(run "$p" run -- "$app" barrier-ok)" = 0 ] && grep -q "host\[0\] = 47" "$tmp/out" &&
  ! grep -q "barrier error" "$tmp/err" && ok || bad "barrier-ok: $(cat "$tmp/out" "$tmp/err")"
# A barrier skipped by lanes that then exit completes (exited threads count
# as arrived) with a note; a mask that leaves out its caller, a note too.
[ "$(run "$p" run -- "$app" barrier-skipped)" = 0 ] &&
  grep -q "barrier error: divergent thread(s) in warp 1: block (0,0,0) thread (48,0,0) and 15 more skipped the barrier (__syncthreads()) at .*misuse_app.cu:68" "$tmp/err" &&
  grep -q "16 threads of its warp wait at" "$tmp/err" && ok || bad "barrier-skipped: $(cat "$tmp/err")"
[ "$(run "$p" run -- "$app" syncwarp-outside)" = 0 ] &&
  grep -q "synchronization error: block (0,0,0) thread (16,0,0) ran __syncwarp (bar.warp.sync) at .*misuse_app.cu:80 .* with member mask 0x0000ffff, which leaves it out" "$tmp/err" &&
  grep -q "synchronization error: block (0,0,0) thread (16,0,0) ran __syncwarp (bar.warp.sync) at .*misuse_app.cu:81 " "$tmp/err" &&
  ok || bad "syncwarp-outside: $(cat "$tmp/err")"
# One element past an array whose size is a multiple of 256 bytes, with
# another array allocated after it: out of bounds, not a read of the other one.
[ "$(run "$p" run -- "$app" read-past-end)" = 3 ] &&
  grep -q "out-of-bounds load of 4 bytes at global address 0x[0-9a-f]* (0 bytes past the end of cudaMalloc #2 (1024 bytes))" "$tmp/err" &&
  grep -q "misuse_app.cu:85" "$tmp/err" && ok || bad "read-past-end: $(cat "$tmp/err")"
# Below the first array (nothing allocated under it): named by the array above.
[ "$(run "$p" run -- "$app" read-before-start)" = 3 ] &&
  grep -q "out-of-bounds load of 4 bytes at global address 0x[0-9a-f]* (64 bytes before the start of cudaMalloc #1 (256 bytes))" "$tmp/err" &&
  grep -q "misuse_app.cu:86" "$tmp/err" && ok || bad "read-before-start: $(cat "$tmp/err")"

# Host dereference of device memory.
code=$(run "$p" run -- "$app" host-deref)
[ "$code" = 4 ] && grep -q "host code dereferenced device pointer 0x[0-9a-f]* (byte 12 of a cudaMalloc'd block of 256 bytes" "$tmp/err" &&
  grep -q "cudaMallocManaged" "$tmp/err" && grep -q "program exited with 139" "$tmp/err" && ! grep -q "host reads" "$tmp/out" &&
  ok || bad "host-deref ($code): $(cat "$tmp/out" "$tmp/err")"
# A racy launch the host does not wait for, then the program dies (a fault,
# an abort, an _exit, _Exit or quick_exit that runs no exit handler): the
# launch's races are still reported (the detectors' results, read late, are
# settled before the report is written).
for mode_exit in race-then-deref:139 race-then-abort:134 race-then-_exit:0 race-then-_Exit:0 race-then-quick_exit:0; do
  mode=${mode_exit%:*}
  code=$(run "$p" run --format json -- "$app" $mode)
  [ "$code" = 1 ] && python3 -c "
import json; r=json.load(open('$tmp/out'))['races']
assert len(r) == 1 and r[0]['kernel'] == 'racy(int*)', r" && grep -q "program exited with ${mode_exit#*:}" "$tmp/err" &&
    ok || bad "$mode ($code): $(cat "$tmp/out" "$tmp/err")"
done
# Ended where no code of the runtime runs (a raw exit_group, SIGKILL): the
# launch is in no report, and the run says so (launch ledger) instead of
# looking clean: UNCHECKED, exit 3.
for mode in race-then-exit_group race-then-sigkill; do
  code=$(run "$p" run -- "$app" $mode)
  [ "$code" = 3 ] && grep -q "UNCHECKED: 1 of the 1 kernel launch the program ran is in no report" "$tmp/out" &&
    grep -q "0 kernel launches checked, 0 unique races, 1 launch never checked" "$tmp/err" &&
    ok || bad "$mode ($code): $(cat "$tmp/out" "$tmp/err")"
  code=$(run "$p" run --format json -- "$app" $mode)
  [ "$code" = 3 ] && python3 -c "
import json; u=json.load(open('$tmp/out'))['unchecked_launches']
assert len(u) == 1 and 'races are unknown' in u[0], u" && ok || bad "$mode json ($code): $(cat "$tmp/out")"
done
# The first launch's races, read at the second's end when the detectors are
# done with it, rewrite the report: the second launch, whose results nobody
# read, is left out of it (not shown clean); so is the first when its results
# were not read yet.
code=$(run "$p" run --threads 2 --format json -- "$app" races-then-sigkill)
[ "$code" = 3 ] && python3 -c "
import json; j=json.load(open('$tmp/out'))
r=j['races']; assert len(r) <= 1 and all(x['launch'] == 0 for x in r), r
u=j['unchecked_launches']; assert len(u) == 1 and u[0].startswith(f'{2 - len(r)} of the 2 kernel launch'), u" &&
  ok || bad "races-then-sigkill ($code): $(cat "$tmp/out" "$tmp/err")"

[ "$(run "$p" run -- "$app" managed-ok)" = 0 ] && grep -q "managed\[5\] = 5 pinned\[7\] = 7" "$tmp/out" && ok ||
  bad "managed-ok: $(cat "$tmp/out" "$tmp/err")"
# The same program without predatar's protection (escape hatch) reads zeros.
PREDATAR_HOST_MAPPED_DEVICE_MEMORY=1 "$p" run -- "$app" host-deref >"$tmp/out" 2>"$tmp/err"
grep -q "host reads data\[3\] = 0" "$tmp/out" && ok || bad "host-mapped escape hatch: $(cat "$tmp/out" "$tmp/err")"

# fork(): the child's racy launch is reported, with the child's pid.
[ "$(run "$p" run --format json -- "$app" fork-race)" = 1 ] && ok || bad "fork-race exit: $(cat "$tmp/err")"
python3 -c "
import json,re; r=json.load(open('$tmp/out'))['races']
k={x['kernel'] for x in r}
assert len(k) == 1 and re.fullmatch(r'racy\(int\*\) \[pid \d+\]', k.pop()), r" && ok || bad "fork json: $(head -c 1500 "$tmp/out")"
grep -q "child exit 0" "$tmp/err" && grep -q "2 kernel launches checked" "$tmp/err" && ok || bad "fork summary: $(cat "$tmp/err")"

# Replays before and after fork(): the child forgets the parent's (its launch numbers restart).
[ "$(run "$p" run -- "$app" fork-repeat)" = 1 ] && grep -q "child exit 0" "$tmp/out" &&
  grep -q "7 kernel launches checked (4 of them exact repeats" "$tmp/err" && ok || bad "fork-repeat: $(cat "$tmp/err")"

# Another CUDA program that the program runs (itself, between two clean
# launches) writes its own report beside the main one, which the first
# runtime claimed: all three launches are in the run's report, none unchecked.
[ "$(run "$p" run --format json -- "$app" runs-itself)" = 1 ] && python3 -c "
import json; j=json.load(open('$tmp/out'))
r=j['races']; assert len(r) == 1 and r[0]['kernel'].startswith('racy(int*) [pid '), r
assert not j['unchecked_launches'], j" && grep -q "3 kernel launches checked (.*), 1 unique race" "$tmp/err" &&
  ok || bad "runs-itself: $(cat "$tmp/out" "$tmp/err")"

# Errors the program's calls returned (as a GPU's would), which it checks and
# goes on from: listed per call and error with where the first was made
# (as compute-sanitizer's), informational (exit 0); --report-api-errors no hides them.
[ "$(run "$p" run -- "$app" api-errors)" = 0 ] &&
  grep -q "API ERROR: cudaMalloc returned cudaErrorMemoryAllocation (\"out of memory\"); called by main" "$tmp/out" &&
  grep -q "API ERROR: cudaMemcpy returned cudaErrorInvalidMemcpyDirection (.*), 2 times; first by main" "$tmp/out" &&
  grep -q "API ERROR: a kernel launch returned cudaErrorInvalidValue (.*); called by main" "$tmp/out" &&
  grep -q "0 unique races, 3 calls returned errors to the program; program exited with 0" "$tmp/err" &&
  ok || bad "api-errors: $(cat "$tmp/out" "$tmp/err")"
[ "$(run "$p" run --format json -- "$app" api-errors)" = 0 ] && python3 -c "
import json; e=json.load(open('$tmp/out'))['api_errors']
assert len(e) == 3 and e[0].startswith('cudaMalloc returned cudaErrorMemoryAllocation') and ', 2 times' in e[1], e" &&
  ok || bad "api-errors json: $(cat "$tmp/out")"
[ "$(run "$p" run --report-api-errors no -- "$app" api-errors)" = 0 ] && ! grep -q "API ERROR" "$tmp/out" &&
  ! grep -q "returned errors" "$tmp/err" && ok || bad "api-errors no: $(cat "$tmp/out" "$tmp/err")"
# A grid past the emulator's bound on warps a launch: refused by name, one line
# for its two launches, and the run does not look clean.
[ "$(run "$p" run -- "$app" grid-too-large)" = 3 ] && grep -q "huge grid: cudaErrorNotSupported" "$tmp/out" &&
  [ "$(grep -c "a grid of 2097153 blocks of 1024 threads (67108896 warps) is more than the emulator runs in one launch" "$tmp/err")" = 1 ] &&
  ok || bad "grid-too-large: $(cat "$tmp/out" "$tmp/err")"

echo "misuse: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
