#!/usr/bin/env bash
# Regenerates the committed PTX of predatar's library kernels (cuRAND, cuBLAS)
# from their .cu sources, or with --check compares it (exit 1 on a
# difference, 77 when nvcc is missing). The .file path is made relative to the
# repository (src/libraries/...), so the PTX does not depend on where the
# repository lives, and a race report names the file a reader can find.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
check=0
[ "${1:-}" = "--check" ] && check=1
nvcc="${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}"
if [ ! -x "$nvcc" ]; then
  echo "regenerate_ptx.sh: nvcc not found (set NVCC); the committed PTX is used as it is" >&2
  exit 77
fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
status=0
for src in "$here"/*/*Kernels.cu; do
  name="$(basename "$src" .cu)"
  dir="$(dirname "$src")"
  # -fmad=false: the kernels round each mul and add (mul.rn, add.rn), so that
  # no contraction, ptxas' or the emulator's (ptx/Contraction.h), changes
  # their results from what the GPU comparisons validated.
  "$nvcc" -ptx -lineinfo -fmad=false -arch=compute_75 "$src" -o "$tmp/$name.ptx"
  sed -i "s|\.file\([[:space:]]*[0-9]*\)[[:space:]]*\"$here/|.file\1 \"src/libraries/|" "$tmp/$name.ptx"
  if [ $check = 1 ]; then
    if ! cmp -s "$tmp/$name.ptx" "$dir/$name.ptx"; then
      echo "regenerate_ptx.sh: $dir/$name.ptx differs from what nvcc makes of $name.cu (run src/libraries/regenerate_ptx.sh)" >&2
      status=1
    fi
  else
    cp "$tmp/$name.ptx" "$dir/$name.ptx"
  fi
done
exit $status
