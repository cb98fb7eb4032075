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
[ "$(run "$p" kernel "$cuda/figures.ptx" -e intraWarpSynced -g 1 -b 32 -a buf:int:32 -a buf:int:32 --progress 0.000001)" = 0 ] &&
  grep -q "predatar: kernel intraWarpSynced still running after [0-9]* s: [0-9]* of 1 blocks done, [0-9]* warp instructions" "$tmp/err" &&
  ok || bad "kernel --progress: $(cat "$tmp/err")"
# races inside inlined __device__ functions: the function's own line and the inlining chain
[ "$(run "$p" kernel "$cuda/inlined.ptx" -e inlinedReduce -g 1 -b 32 -a buf:int:1 --format json)" = 1 ] && ok || bad "inlined exit"
python3 -c "
import json; r=json.load(open('$tmp/out'))['races']
a=[x for race in r for x in (race['first'], race['second']) if x.get('line') == 5]
assert a, r
chain=[(c['function'], c['line']) for c in a[0]['inlined_into']]
assert chain == [('step', 9), ('inlinedReduce', 16)], chain" && ok || bad "inlined json: $(head -c 800 "$tmp/out")"
run "$p" kernel "$cuda/inlined.ptx" -e inlinedReduce -g 1 -b 32 -a buf:int:1 >/dev/null
grep -q "inlined.cu:5:[0-9]*, inlined into step at [^ ]*inlined.cu:9, inlined into inlinedReduce at [^ ]*inlined.cu:16" "$tmp/out" && ok || bad "inlined text: $(head -12 "$tmp/out")"
# --dump prints the buffers
run "$p" kernel "$cuda/figures.ptx" -e itsRacy -g 1 -b 2 -a buf:int:2 --dump >/dev/null
grep -q "i32\[2\]: 1 1" "$tmp/err" && ok || bad "dump: $(cat "$tmp/err")"
# kernel faults: exit 3 with a message naming what is wrong, and the report carries them
[ "$(run "$p" kernel "$cuda/errors.ptx" -e outOfBounds -g 1 -b 32 -a buf:int:4 -a scalar:int:64)" = 3 ] && grep -qi "out of bounds\|out-of-bounds" "$tmp/err" && grep -q "outOfBounds" "$tmp/err" && grep -q "KERNEL FAULT (cudaErrorIllegalAddress)" "$tmp/out" && ok || bad "out of bounds: $(cat "$tmp/err")"
[ "$(run "$p" kernel "$cuda/errors.ptx" -e barrierDeadlock -g 1 -b 64 -a buf:int:64 --format json)" = 3 ] && grep -qi "deadlock" "$tmp/err" && ok || bad "deadlock: $(cat "$tmp/err")"
python3 -c "
import json; e=json.load(open('$tmp/out'))['errors']
assert len(e) == 1 and e[0]['cuda_error'] == 'cudaErrorLaunchTimeout' and 'thread_index' in e[0], e" && ok || bad "deadlock json errors: $(cat "$tmp/out")"
# demangled --entry names, as documented
mm="-g 1 -b 16,16 -a buf:f32:256 -a buf:f32:256 -a buf:f32:256 -a scalar:int:16"
[ "$(run "$p" kernel "$cuda/matmul.ptx" -e 'matmulTiled(float const*, float const*, float*, int)' $mm)" = 0 ] && ok || bad "demangled --entry: $(cat "$tmp/err")"
[ "$(run "$p" kernel "$cuda/matmul.ptx" -e matmulTiled $mm)" = 0 ] && ok || bad "demangled --entry without parameters: $(cat "$tmp/err")"
[ "$(run "$p" kernel "$cuda/figures.ptx" -e nosuch)" = 2 ] && grep -q "no kernel 'nosuch'" "$tmp/err" && ok || bad "unknown entry: $(cat "$tmp/err")"
[ "$(run "$p" kernel "$cuda/figures.ptx" -e itsRacy -a buf:int)" = 2 ] && ok || bad "bad arg spec"
printf '.version 8.0\n.target sm_75\n.address_size 64\n.visible .entry k() { frobnicate.b32 %%r1; ret; }\n' >"$tmp/bad.ptx"
[ "$(run "$p" kernel "$tmp/bad.ptx" -e k)" = 3 ] && grep -q "bad.ptx:4" "$tmp/err" && grep -q "unsupported instruction 'frobnicate.b32'" "$tmp/err" && ok || bad "unsupported PTX: $(cat "$tmp/err")"

# --fmad: a mul/mul/sub nvcc leaves to ptxas is fused (2^-24 with inputs 1 + 2^-12), or rounded twice (0)
fused() { "$p" kernel "$cuda/contraction.ptx" -e residual -a buf:float:1:zeros -a buf:float:4:fill:1.000244140625 \
  --dump -d none "$@" 2>&1 | grep "residual_param_0"; }
fused | grep -q "f32\[1\]: 5.96046448e-08$" && ok || bad "kernel --fmad on: $(fused)"
fused --fmad off | grep -q "f32\[1\]: 0$" && ok || bad "kernel --fmad off: $(fused --fmad off)"
[ "$(run "$p" kernel "$cuda/contraction.ptx" -e residual -a buf:float:1 -a buf:float:4 --fmad maybe)" = 2 ] && ok || bad "kernel --fmad maybe accepted"
# run: an unmodified CUDA program (committed binary) with races at lines 23/25/27.
app=$root/tests/cuda/run/bin/shared_race
[ "$(run "$p" run --format json -- "$app")" = 1 ] && ok || bad "run exit"
python3 -c "
import json; d=json.load(open('$tmp/out'))
lines={a['line'] for r in d['races'] for a in (r['first'], r['second'])}
assert lines == {23, 25, 27}, lines" && ok || bad "run json lines: $(head -c 300 "$tmp/out")"
grep -q "shiftSum: out\[0\]" "$tmp/err" && ok || bad "program stdout should move to stderr with --format json"
[ "$(run "$p" run --error-exitcode 9 -- "$app")" = 9 ] && ok || bad "run --error-exitcode"
[ "$(run "$p" run --fmad off -- "$app")" = 1 ] && ok || bad "run --fmad off: $(tail -2 "$tmp/err")"
[ "$(run "$p" run --fmad maybe -- "$app")" = 2 ] && ok || bad "run --fmad maybe accepted"
# --detectors none runs the program and says that nothing was checked (never "0 races")
[ "$(run "$p" run --detectors none -- "$app")" = 0 ] && grep -q "RACE SUMMARY: not checked" "$tmp/out" &&
  grep -q "executed, none checked for races (--detectors none)" "$tmp/err" && ! grep -q "0 unique races" "$tmp/out" &&
  ok || bad "run --detectors none: $(cat "$tmp/out" "$tmp/err" | tail -4)"
printf '# hide the shared-memory race\nrace:*shared_race.cu:25\nrace:launches*\n' >"$tmp/supp"
[ "$(run "$p" run --suppressions "$tmp/supp" -- "$app")" = 0 ] && grep -q "suppressed" "$tmp/err" && ok || bad "suppressions: $(tail -2 "$tmp/err")"
[ "$(run "$p" run --kernel-name nosuchkernel -- "$app")" = 0 ] && grep -q "0 kernel launches checked" "$tmp/err" && ok || bad "kernel-name filter: $(tail -1 "$tmp/err")"
[ "$(run "$p" run --kernel-name 'shiftSum(int const*, int*)' -- "$app")" = 1 ] && grep -q "1 kernel launch checked" "$tmp/err" && ok || bad "demangled --kernel-name: $(tail -1 "$tmp/err")"
# --progress: a long launch says how far it got (here every microsecond, so even this one does)
[ "$(run "$p" run --progress 0.000001 -- "$app")" = 1 ] && grep -q "predatar: launch 0 shiftSum(int const\*, int\*) still running after [0-9]* s: [0-9]* of [0-9]* blocks done, [0-9]* warp instructions" "$tmp/err" &&
  ok || bad "run --progress: $(cat "$tmp/err")"
[ "$(run "$p" run --progress 0 -- "$app")" = 1 ] && ! grep -q "still running" "$tmp/err" && ok || bad "run --progress 0: $(cat "$tmp/err")"
[ "$(run "$p" run -- "$app")" = 1 ] && ! grep -q "still running" "$tmp/err" && ok || bad "run: a short launch printed progress: $(cat "$tmp/err")"
[ "$(run "$p" run --progress -1 -- "$app")" != 0 ] && ok || bad "run --progress -1 was accepted"
# kernel --cooperative: cooperative_groups' grid.sync() works in a cooperative launch; in another it traps,
# and the fault says how to launch it
[ "$(run "$p" kernel "$cuda/gridsync.ptx" -e gridShift -g 2 -b 32 -a buf:int:65)" = 3 ] &&
  grep -q "grid.sync() traps in a launch that is not cooperative.*--cooperative" "$tmp/err" &&
  ok || bad "kernel gridShift without --cooperative: $(cat "$tmp/err")"
[ "$(run "$p" kernel "$cuda/gridsync.ptx" -e gridShift -g 2 -b 32 -a buf:int:65:iota --cooperative --dump)" = 0 ] &&
  grep -q "i32\[65\]: 1 2 3 .* 63 64 " "$tmp/err" && ok || bad "kernel gridShift --cooperative: $(cat "$tmp/err")"
# (a cooperative grid larger than the device holds at once fails, as cudaLaunchCooperativeKernel does)
[ "$(run "$p" kernel "$cuda/gridsync.ptx" -e gridShift -g 10000 -b 1024 -a buf:int:65 --cooperative)" = 2 ] &&
  grep -q "10000 blocks, but the device holds 264 at once (2 per SM)" "$tmp/err" && ok ||
  bad "kernel gridShift --cooperative, too large: $(cat "$tmp/err")"
[ "$(run "$p" kernel "$cuda/gridsync.ptx" -e gridShiftUnsynced -g 2 -b 32 -a buf:int:65 --cooperative)" = 1 ] &&
  ok || bad "kernel gridShiftUnsynced --cooperative: no race"
# ... and the refusal says what a value must be, in one short line (not a 309-digit bound)
[ "$(run "$p" run --timeout -3 -- "$app")" = 2 ] && grep -qx -- "--timeout: -3 is not a number of seconds above 0" "$tmp/err" &&
  [ "$(wc -c < "$tmp/err")" -lt 200 ] && ok || bad "run --timeout -3: $(head -c 300 "$tmp/err")"
# run --stats: per launch and in total, as kernel --stats
run "$p" run --stats -- "$app" >/dev/null
grep -q "predatar stats: launch 0 shiftSum(int const\*, int\*) \[gwcp\]: [0-9]* events; peak metadata" "$tmp/err" && grep -q "predatar stats: total \[gwcp\]" "$tmp/err" && grep -q "predatar stats: total: 1 launches" "$tmp/err" && ok || bad "run --stats: $(cat "$tmp/err")"
# -d all: hb is checked by gwcp, and says so; --hb-apart gives it figures of its own
run "$p" run --stats -d all -- "$app" >/dev/null
grep -q "predatar stats: total \[hb\]: [0-9]* events.*(checked by gwcp: its metadata)" "$tmp/err" && ok || bad "run --stats -d all: $(cat "$tmp/err")"
run "$p" run --stats -d all --hb-apart -- "$app" >/dev/null
grep "predatar stats: total \[hb\]" "$tmp/err" | grep -vq "checked by" && ok || bad "run --stats --hb-apart: $(cat "$tmp/err")"
[ "$(run "$p" run -- "$staticApp")" = 2 ] && grep -q "cudart shared" "$tmp/err" && ok || bad "static runtime: $(cat "$tmp/err")"
[ "$(run "$p" run -- /nonexistent/app)" = 2 ] && ok || bad "missing program"
# Loud failure: a faulting kernel makes the program's CUDA calls return the
# sticky error, the report carries it (text, JSON, SARIF) and predatar exits 3
# although the program exits 0; exit 4 when the program itself fails.
. "$root/tests/cuda/faults/program.sh"  # (sets fp)
[ "$(run "$p" run --format json -- "$fp" oob)" = 3 ] && grep -q "synchronize: cudaErrorIllegalAddress" "$tmp/err" && grep -q "memcpy: cudaErrorIllegalAddress" "$tmp/err" && ok || bad "fault run: $(cat "$tmp/err")"
python3 -c "
import json; e=json.load(open('$tmp/out'))['errors']
assert len(e) == 1, e
e=e[0]
assert e['cuda_error'] == 'cudaErrorIllegalAddress' and e['kernel'] == 'storeOutOfBounds(int*, int)', e
assert e['file'].endswith('fault_program.cu') and e['line'] == 17 and e['thread_index'] == [1, 0, 0], e" && ok || bad "fault json: $(cat "$tmp/out")"
[ "$(run "$p" run --format sarif -- "$fp" oob)" = 3 ] && ok || bad "fault sarif exit"
python3 -c "
import json; inv=json.load(open('$tmp/out'))['runs'][0]['invocations'][0]
n=inv['toolExecutionNotifications']
assert not inv['executionSuccessful'] and len(n) == 1, inv
assert 'storeOutOfBounds' in n[0]['message']['text'] and 'cudaErrorIllegalAddress' in n[0]['message']['text'], n
assert n[0]['locations'][0]['physicalLocation']['region']['startLine'] == 17, n" && ok || bad "fault sarif: $(cat "$tmp/out")"
[ "$(run "$p" run -- "$fp" oob)" = 3 ] && grep -q "KERNEL FAULT (cudaErrorIllegalAddress) in storeOutOfBounds" "$tmp/out" && ok || bad "fault text: $(cat "$tmp/out")"
# an unsupported instruction (Volta's m8n8k4 f16 mma) is refused by name, with kernel, line and thread; nothing aborts
[ "$(run "$p" run --format json -- "$fp" unsupported)" = 3 ] && grep -q "launch: cudaErrorLaunchFailure" "$tmp/err" && ok || bad "unsupported run: $(cat "$tmp/err")"
python3 -c "
import json; e=json.load(open('$tmp/out'))['errors'][0]
assert 'mma.sync.aligned.m8n8k4' in e['message'] and e['kernel'].startswith('voltaMma') and e['line'] == 34, e" && ok || bad "unsupported json: $(cat "$tmp/out")"
# the program's own failure (exit 5, no race, no fault): exit 4, its status in the summary
[ "$(run "$p" run -- "$fp" exit 5)" = 4 ] && grep -q "program exited with 5" "$tmp/err" && ok || bad "program failure: $(cat "$tmp/err")"
[ "$(run "$p" run -- "$fp" exit 0)" = 0 ] && ok || bad "clean program: $(cat "$tmp/err")"
# a kernel launched in a loop finds the same race each launch: printed once as found, with one line
# saying so; the report at exit names each race's launch
rl=$root/tests/programs/bin/repeated_launches
[ "$(run "$p" run -- "$rl")" = 1 ] &&
  [ "$(grep -c "write-write race (gwcp) in racy(int\*)" "$tmp/err")" = 1 ] &&
  [ "$(grep -c "racy(int\*) finds races again that launch 70 found" "$tmp/err")" = 1 ] &&
  grep -q "data race on .* in racy(int\*), launch 71$" "$tmp/out" &&
  grep -q "RACE SUMMARY: 5 unique races ([0-9]* occurrences) in 1 pair of instructions" "$tmp/out" &&
  grep -q "5 unique races in 1 pair of instructions; program exited with" "$tmp/err" &&
  ok || bad "repeated races: $(grep predatar "$tmp/err" | head -5)"

echo "kernel/run cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
