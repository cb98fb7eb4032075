#!/usr/bin/env bash
# Builds the paper's applications from the Barracuda suite (upenn-acg/barracuda, benchmarks/)
# outside the repository:  build_barracuda.sh BARRACUDA_DIR OUT_DIR
# BARRACUDA_DIR is a checkout of upenn-acg/barracuda (fetch it yourself; nothing of it is copied
# here). Flags: -O2 -lineinfo -arch=sm_75 -cudart shared, plus what CUDA 13 needs of code written
# for CUDA 8, given as macros on the command line, not as edits: cudaThreadSynchronize became
# cudaDeviceSynchronize, and cudaDeviceProp lost clockRate and computeMode (only printed or
# compared with "prohibited" there; gaussian prints deviceOverlap). kmeans, hybridsort and CUB's
# device histogram are not built: they use texture references, which CUDA 12 removed; CUB's two
# block-level load/store examples call a BlockLoad signature today's CUB no longer has.
# shim/ holds our own stand-ins for what the suite's checkout lacks: cutil's seven functions for
# the gpu-tm programs (its header is there, its library is not), an empty GL/glew.h (hybridsort),
# and two macros of the 2016 CUB for the CUB examples' test_util.h. The CUB examples are built
# against CUDA 13's CUB, from a copy outside the suite (the suite's own CUB of 2016 uses shfl
# without .sync, which ptxas refuses for sm_70 on). Compiler output goes to OUT_DIR/NAME.buildlog.
set -u
[ $# -ge 2 ] || { echo "usage: $0 BARRACUDA_DIR OUT_DIR" >&2; exit 2; }
root=$(cd "$1/benchmarks" && pwd) || { echo "$1 has no benchmarks/ folder" >&2; exit 2; }
mkdir -p "$2" && out=$(cd "$2" && pwd) || exit 2
command -v nvcc >/dev/null || { echo "nvcc not found on PATH" >&2; exit 2; }
flags="-O2 -lineinfo -D_FORCE_INLINES -arch=sm_75 -cudart shared"
old_api="-DcudaThreadSynchronize=cudaDeviceSynchronize -DclockRate=minor -DcomputeMode=major"
old_api+=" -DdeviceOverlap=major -DmemoryClockRate=major"
shim=$(cd "$(dirname "$0")/shim" && pwd)

build() {  # NAME DIR SOURCES...
  local name=$1 dir=$2; shift 2
  # shellcheck disable=SC2086  # flag lists are split on purpose
  if (cd "$root/$dir" && nice -n 19 nvcc $flags $old_api -I"$root/common/inc" -I"$shim" -o "$out/$name" "$@") \
       >"$out/$name.buildlog" 2>&1; then
    echo "built  $name"
  else
    echo "FAILED $name (see $out/$name.buildlog)"
  fi
}
build hotspot rodinia/hotspot hotspot.cu
build pathfinder rodinia/pathfinder pathfinder.cu
build needle rodinia/needle needle.cu
build streamcluster rodinia/streamcluster streamcluster_cuda_cpu.cu
build shoc_bfs shoc/shocbfs main.cu Graph.cpp Timer.cpp OptionParser.cpp ResultDatabase.cpp Option.cpp
build threadFenceReduction cudasamples/threadFenceReduction threadFenceReduction.cu
build bfs rodinia/bfs bfs.cu
build dwt2d rodinia/dwt2d main.cu
build gaussian rodinia/gaussian gaussian.cu
build nn rodinia/nn nn.cu
build srad rodinia/srad srad.cu
build hashtable gpu-tm/hashtable hashtable.cu "$shim/cutil_shim.cpp"
build interac gpu-tm/interac interac.cu "$shim/cutil_shim.cpp"
# CUB's examples, from a copy where their quoted includes cannot find the suite's own CUB.
mkdir -p "$out/cub-src" && cp "$root"/cub/*.cu "$root"/cub/*.h "$out/cub-src/" && cp "$root/benchmark.h" "$out/" &&
  root=$out dir_flags="--pre-include $shim/cub_compat.h" || exit 2
for example in block_reduce device_partition_flagged device_partition_if device_radix_sort device_reduce \
               device_scan device_select_flagged device_select_if device_select_unique \
               device_sort_find_non_trivial_runs; do
  # shellcheck disable=SC2086
  flags="$flags $dir_flags" build "cub_$example" cub-src "example_$example.cu"
done
