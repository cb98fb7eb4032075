#!/usr/bin/env bash
# Builds SlabHash's test programs (owensgroup/SlabHash, a warp-cooperative GPU hash table, one of
# iGUARD's evaluation programs) outside the repository:
#   build_slabhash.sh SLABHASH_DIR OUT_DIR [SLABALLOC_DIR]
# SLABHASH_DIR is a checkout of SlabHash; SLABALLOC_DIR one of owensgroup/SlabAlloc, its allocator
# (a git submodule: SLABHASH_DIR/SlabAlloc when the submodule was checked out). Fetch both
# yourself; nothing of them is copied into this repository. Builds OUT_DIR/NAME for the four test
# programs that need no GoogleTest (test/NAME.cu), with -O2 -lineinfo -arch=sm_75 -cudart shared
# (so that `predatar run` can load them). A binary that already exists is kept; compiler output
# is NAME.buildlog beside it.
set -u
[ $# -ge 2 ] || { echo "usage: $0 SLABHASH_DIR OUT_DIR [SLABALLOC_DIR]" >&2; exit 2; }
root=$(cd "$1" && pwd) || exit 2
alloc=${3:-$root/SlabAlloc}
[ -f "$root/src/slab_hash.cuh" ] || { echo "$root is not a SlabHash checkout (no src/slab_hash.cuh)" >&2; exit 2; }
[ -f "$alloc/src/slab_alloc.cuh" ] ||
  { echo "$alloc holds no src/slab_alloc.cuh: check out SlabAlloc there, or name it as SLABALLOC_DIR" >&2; exit 2; }
alloc=$(cd "$alloc" && pwd)
mkdir -p "$2" && out=$(cd "$2" && pwd) || exit 2
command -v nvcc >/dev/null || { echo "nvcc not found on PATH" >&2; exit 2; }
flags="-O2 -lineinfo -arch=sm_75 -cudart shared -std=c++14"
status=0
for name in test_slab_hash iterator_test concurrent_set concurrent_map; do
  [ -x "$out/$name" ] && { echo "kept   $name"; continue; }
  # shellcheck disable=SC2086  # word splitting of the flag list is intended
  if (cd "$root/test" && nice -n 19 nvcc $flags -I../src -I../src/concurrent -I"$alloc/src" \
        -o "$out/$name" "$name.cu") >"$out/$name.buildlog" 2>&1; then
    echo "built  $name"
  else
    echo "FAILED $name (see $out/$name.buildlog)"; status=1
  fi
done
exit $status
