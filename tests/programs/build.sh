#!/usr/bin/env bash
# Builds the feature programs the way a user would:
#   nvcc -cudart shared -lineinfo -arch=sm_75 -o OUTDIR/NAME NAME.cu [flags of NAME.flags]
# (a first line "// build: -arch=sm_NN" in NAME.cu picks another architecture;
# NAME.flags may name more translation units, under units/; NAME.modules names
# units the program loads itself through the driver API, each built beside it
# as UNIT.fatbin and UNIT.ptx)
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
  arch="$(sed -n '1s|^// build: *-arch=\(sm_[0-9]*\).*|\1|p' "$here/$name.cu")"
  # NAME.flags: extra nvcc flags, e.g. -rdc=true -lcudadevrt (placed after the source for the libraries).
  extra=()
  [ -f "$here/$name.flags" ] && read -r -a extra < "$here/$name.flags"
  # Other translation units (NAME.flags names them, e.g. units/NAME_lib.cu) are relative to this folder.
  for i in "${!extra[@]}"; do
    case "${extra[$i]}" in *.cu) extra[$i]="$here/${extra[$i]}" ;; esac
  done
  "$nvcc" -cudart shared -lineinfo -arch="${arch:-sm_75}" -o "$out/$name" "$here/$name.cu" "${extra[@]}"
  if [ -f "$here/$name.modules" ]; then
    while read -r unit; do
      [ -n "$unit" ] || continue
      stem="$(basename "$unit" .cu)"
      "$nvcc" -lineinfo -arch="${arch:-sm_75}" -fatbin -o "$out/$stem.fatbin" "$here/$unit"
      "$nvcc" -lineinfo -arch="${arch:-sm_75}" -ptx -o "$out/$stem.ptx" "$here/$unit"
    done < "$here/$name.modules"
  fi
done
