#!/usr/bin/env bash
# Builds the NVIDIA cuda-samples named in samples.list with nvcc, outside the repository.
#   build_samples.sh CUDA_SAMPLES_DIR OUT_DIR [-j N] [--list FILE] [NAME...]
# (--list: another list of the same columns, e.g. domain.list; samples.list by default)
# Each binary is OUT_DIR/NAME; its compiler output is OUT_DIR/NAME.buildlog. A binary that already
# exists is kept (delete it to rebuild). Flags are the issue's: -cudart shared -lineinfo -arch=sm_75,
# plus what the sample's own CMakeLists.txt asks for (--extended-lambda always; -rdc=true -lcudadevrt
# for dynamic parallelism, libraries, include dirs: the third column of samples.list). The fourth
# column names the modules a driver-API sample loads itself (SOURCE>FILE): each is built into the
# sample's folder of the checkout, where the sample looks for it, with -fatbin (or -ptx for a .ptx);
# +PATH copies CUDA's include/PATH there (as its last component) (headers an NVRTC sample hands its compiler, as its CMake does).
set -u
here=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 2 ] || { echo "usage: $0 CUDA_SAMPLES_DIR OUT_DIR [-j N] [--list FILE] [NAME...]" >&2; exit 2; }
root=$(cd "$1" && pwd) || exit 2
mkdir -p "$2" && out=$(cd "$2" && pwd) || exit 2
shift 2
jobs=1
if [ "${1:-}" = -j ]; then jobs=$2; shift 2; fi
list="$here/samples.list"
if [ "${1:-}" = --list ]; then list=$2; shift 2; fi
[ -f "$list" ] || [ ! -f "$here/$list" ] || list="$here/$list"  # (a list of this folder by name)
[ -f "$list" ] || { echo "no such sample list: $list" >&2; exit 2; }
[ -d "$root/Samples" ] || { echo "$root has no Samples/ folder: not a cuda-samples checkout" >&2; exit 2; }
command -v nvcc >/dev/null || { echo "nvcc not found on PATH" >&2; exit 2; }
NVCC_FLAGS=${NVCC_FLAGS:--cudart shared -lineinfo -arch=sm_75 --extended-lambda}

build_modules() {  # DIR "SOURCE>FILE ...": the driver-API modules of one sample
  local spec src file mode
  for spec in $2; do
    if [ "${spec#+}" != "$spec" ]; then
      [ -e "$root/Samples/$1/$(basename "${spec#+}")" ] || cp -r "$cuda_include/${spec#+}" "$root/Samples/$1/"
      continue
    fi
    src=${spec%%>*}; file=${spec#*>}
    case "$file" in *.ptx) mode=-ptx ;; *) mode=-fatbin ;; esac
    [ -f "$root/Samples/$1/$file" ] && continue
    # shellcheck disable=SC2086  # word splitting of the flag list is intended
    (cd "$root/Samples/$1" && nice -n 19 nvcc $NVCC_FLAGS -I"$root/Common" $mode -o "$file" "$src") ||
      echo "FAILED module $file of $1"
  done
}

build_one() {  # line of samples.list
  local dir srcs extra modules name
  IFS='|' read -r dir srcs extra modules <<<"$1"
  dir=$(echo $dir); name=$(basename "$dir")
  build_modules "$dir" "$modules"
  [ -x "$out/$name" ] && { echo "kept   $name"; return 0; }
  # shellcheck disable=SC2086  # word splitting of the flag lists is intended
  if (cd "$root/Samples/$dir" && nice -n 19 nvcc $NVCC_FLAGS -I"$root/Common" $extra \
        -o "$out/$name" $srcs) >"$out/$name.buildlog" 2>&1; then
    echo "built  $name"
  else
    echo "FAILED $name (see $out/$name.buildlog)"
  fi
}
cuda_include="$(cd "$(dirname "$(command -v nvcc)")/../include" && pwd)"
export -f build_one build_modules; export root out NVCC_FLAGS cuda_include

entries() {  # the lines of the list to build: all, or those named, in the order named
  if [ $# -eq 0 ]; then grep -vE '^\s*(#|$)' "$list"; return; fi
  for n in "$@"; do grep -E "^[^ |]*/$n[ |]" "$list" || echo "not in $(basename "$list"): $n" >&2; done
}
entries "$@" | tr '\n' '\0' | xargs -0 -r -n1 -P "$jobs" bash -c 'build_one "$0"'
