#!/usr/bin/env bash
# Builds the memory test programs: nvcc -cudart shared -lineinfo -arch=sm_75 -o bin/NAME NAME.cu
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-$here/bin}"
mkdir -p "$out"
nvcc="${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}"
for src in "$here"/*.cu; do
  "$nvcc" -cudart shared -lineinfo -arch=sm_75 -o "$out/$(basename "$src" .cu)" "$src"
done
