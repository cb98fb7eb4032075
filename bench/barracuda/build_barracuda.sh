#!/usr/bin/env bash
# Builds the paper's applications from the Barracuda suite (upenn-acg/barracuda, benchmarks/)
# outside the repository:  build_barracuda.sh BARRACUDA_DIR OUT_DIR
# BARRACUDA_DIR is a checkout of upenn-acg/barracuda (fetch it yourself; nothing of it is copied
# here). Flags: -O2 -lineinfo -arch=sm_75 -cudart shared, plus what CUDA 13 needs of code written
# for CUDA 8, given as macros on the command line, not as edits: cudaThreadSynchronize became
# cudaDeviceSynchronize, and cudaDeviceProp lost clockRate and computeMode (only printed or
# compared with "prohibited" there). kmeans is not built: it uses texture references, which
# CUDA 12 removed. Compiler output goes to OUT_DIR/NAME.buildlog.
set -u
[ $# -ge 2 ] || { echo "usage: $0 BARRACUDA_DIR OUT_DIR" >&2; exit 2; }
root=$(cd "$1/benchmarks" && pwd) || { echo "$1 has no benchmarks/ folder" >&2; exit 2; }
mkdir -p "$2" && out=$(cd "$2" && pwd) || exit 2
command -v nvcc >/dev/null || { echo "nvcc not found on PATH" >&2; exit 2; }
flags="-O2 -lineinfo -D_FORCE_INLINES -arch=sm_75 -cudart shared"
old_api="-DcudaThreadSynchronize=cudaDeviceSynchronize -DclockRate=minor -DcomputeMode=major"

build() {  # NAME DIR SOURCES...
  local name=$1 dir=$2; shift 2
  # shellcheck disable=SC2086  # flag lists are split on purpose
  if (cd "$root/$dir" && nice -n 19 nvcc $flags $old_api -I"$root/common/inc" -o "$out/$name" "$@") \
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
