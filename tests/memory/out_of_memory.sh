#!/usr/bin/env bash
# Out of memory is loud: bin/out_of_memory caps its address space and runs out
# inside a kernel launch; `predatar run` must name the kernel and the memory
# in use, suggest what to do and exit with 5 (out of memory), and neither
# abort ("terminate called", SIGABRT) nor pass.
# usage: out_of_memory.sh PREDATAR_BINARY
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
predatar="${1:?usage: out_of_memory.sh PREDATAR_BINARY}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
program="$here/bin/out_of_memory"
nvcc="${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}"
if [ -x "$nvcc" ]; then "$here/build.sh" "$work/bin" && program="$work/bin/out_of_memory"; fi
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
echo "ok: out of memory is reported (exit 5)"
