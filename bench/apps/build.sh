#!/usr/bin/env bash
# Builds every application of this folder twice, the way a user would:
#   nvcc -cudart shared -lineinfo -arch=sm_75 -o OUTDIR/NAME NAME.cu            (race-free)
#   nvcc -cudart shared -lineinfo -arch=sm_75 -DRACEY -o OUTDIR/NAME-racy NAME.cu (injected races)
# usage: build.sh [OUTDIR] [NAME...]   (default OUTDIR: bin/ next to this script)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-$here/bin}"
shift || true
mkdir -p "$out"
nvcc="${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}"
[ -x "$nvcc" ] || { echo "build.sh: nvcc not found (set NVCC)" >&2; exit 1; }
if [ $# -gt 0 ]; then
  names=("$@")
else
  names=()
  for src in "$here"/*.cu; do names+=("$(basename "$src" .cu)"); done
fi
for name in "${names[@]}"; do
  "$nvcc" -cudart shared -lineinfo -arch=sm_75 -I"$here" -o "$out/$name" "$here/$name.cu"
  "$nvcc" -cudart shared -lineinfo -arch=sm_75 -I"$here" -DRACEY -o "$out/$name-racy" "$here/$name.cu"
done
