#!/usr/bin/env bash
# Out of memory is loud: bin/out_of_memory caps its address space and runs out
# inside a kernel launch; `predatar run` must name the kernel and the memory
# in use, suggest what to do and exit with 5 (out of memory), and neither
# abort ("terminate called", SIGABRT) nor pass. bin/host_bad_alloc's own host
# code asks for 64 TiB and catches std::bad_alloc: that must still work.
# usage: out_of_memory.sh PREDATAR_BINARY
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
predatar="${1:?usage: out_of_memory.sh PREDATAR_BINARY}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
bin="$here/bin"
nvcc="${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}"
if [ -x "$nvcc" ]; then "$here/build.sh" "$work/bin" && bin="$work/bin"; fi
program="$bin/out_of_memory"
(cd "$work" && timeout 120 "$predatar" run -- "$program" >"$work/out" 2>"$work/err")
status=$?
fail() { echo "FAIL: $*"; sed 's/^/  stderr: /' "$work/err" | head -20; exit 1; }
[ $status -eq 5 ] || fail "predatar exited $status, expected 5"
grep -q "terminate called" "$work/err" && fail "the program aborted"
grep -q "^predatar: error: out of memory while running kernel fill(int\*, int) (launch 0" "$work/err" ||
  fail "no out-of-memory message naming the kernel"
grep -q "resident memory [0-9]* MiB.*try --detectors none" "$work/err" || fail "no figures or advice"
grep -q "KERNEL FAULT (cudaErrorMemoryAllocation) in fill" "$work/out" || fail "the report does not show the launch"
grep -q "not reached" "$work/out" && fail "the program went on"
# --stats says the stopped launch has no figures, not "0 warp instructions".
(cd "$work" && timeout 120 "$predatar" run --stats -- "$program" >"$work/out" 2>"$work/err")
grep -q "^predatar stats: launch 0 fill(int\*, int): no figures (stopped: out of memory while running kernel fill" "$work/err" &&
  grep -q "^predatar stats: total: 1 launches, 0 warp instructions, 0.000 s (1 stopped with no figures)" "$work/err" ||
  fail "--stats of a launch stopped out of memory"

# The program's own host allocation that fails is the program's: it gets
# std::bad_alloc as it would natively, catches it and goes on (exit 0).
(cd "$work" && timeout 120 "$predatar" run -- "$bin/host_bad_alloc" >"$work/out" 2>"$work/err")
status=$?
[ $status -eq 0 ] || fail "host_bad_alloc: predatar exited $status, expected 0"
grep -q "caught std::bad_alloc" "$work/out" || fail "host_bad_alloc: the program did not get std::bad_alloc"
grep -q "^predatar: note: an allocation of the program's host code failed: it gets std::bad_alloc" "$work/err" ||
  fail "host_bad_alloc: no note"
# A cudaMalloc over the process's data limit (the program sets 2 GiB and asks
# for 3) fails as a refusal (exit 3): not a SIGSEGV at the first copy into
# device memory, as when the arena could not be made accessible.
(cd "$work" && timeout 120 "$predatar" run -- "$bin/device_alloc_over_limit" >"$work/out" 2>"$work/err")
status=$?
[ $status -eq 3 ] || fail "device_alloc_over_limit: predatar exited $status, expected 3"
grep -q "1 MiB: cudaSuccess, 3 GiB: cudaErrorMemoryAllocation" "$work/out" &&
  grep -q "copy into the 1 MiB block: cudaSuccess" "$work/out" || fail "device_alloc_over_limit: wrong output"
grep -q "^predatar: cudaMalloc of 3221225472 bytes failed: predatar could not map that much memory" "$work/err" ||
  fail "device_alloc_over_limit: no note"
echo "ok: out of memory is reported (exit 5); the program's own failed allocation is the program's;" \
  "a device allocation over the process's limit is refused"
