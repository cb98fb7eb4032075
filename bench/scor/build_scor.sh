#!/usr/bin/env bash
# Builds the ScoR suite (csl-iisc/ScoR: the race suite of ScoRD, ISCA 2020) outside the repository:
#   build_scor.sh SCOR_DIR OUT_DIR [-j N]
# SCOR_DIR is a checkout of ScoR (fetch it yourself; nothing of it is copied into this repository).
# Builds OUT_DIR/micro/NAME for each microbenchmark (microbenchmarks/src/NAME.cu) and, for each
# application of benchmarks/, OUT_DIR/apps/NAME (race-free) and OUT_DIR/apps/NAME-racy (-D RACEY),
# with the grid the application's own Makefile sets (NBLOCKS, NTHREADS). Flags: -cudart shared
# -lineinfo -arch=sm_75 (so that `predatar run` can load them), where ScoR's Makefiles say
# -arch=compute_60. A binary that already exists is kept; compiler output is NAME.buildlog beside it.
set -u
[ $# -ge 2 ] || { echo "usage: $0 SCOR_DIR OUT_DIR [-j N]" >&2; exit 2; }
root=$(cd "$1" && pwd) || exit 2
[ -d "$root/microbenchmarks/src" ] && [ -d "$root/benchmarks" ] ||
  { echo "$root is not a ScoR checkout (no microbenchmarks/src or benchmarks/)" >&2; exit 2; }
mkdir -p "$2/micro" "$2/apps" && out=$(cd "$2" && pwd) || exit 2
shift 2
jobs=1
if [ "${1:-}" = -j ]; then jobs=$2; shift 2; fi
command -v nvcc >/dev/null || { echo "nvcc not found on PATH" >&2; exit 2; }
NVCC_FLAGS=${NVCC_FLAGS:--cudart shared -lineinfo -arch=sm_75 -std=c++11}

compile() {  # BINARY DIR SOURCES... (from DIR, so that relative includes resolve)
  local binary=$1 dir=$2; shift 2
  [ -x "$binary" ] && { echo "kept   ${binary#"$out"/}"; return 0; }
  # shellcheck disable=SC2086  # word splitting of the flag list is intended
  if (cd "$dir" && nice -n 19 nvcc $NVCC_FLAGS -I. "$@" -o "$binary") >"$binary.buildlog" 2>&1; then
    echo "built  ${binary#"$out"/}"
  else
    echo "FAILED ${binary#"$out"/} (see $binary.buildlog)"
  fi
}

makefile_value() {  # MAKEFILE NAME: the value of "NAME ?= value" (or "NAME := value")
  sed -n "s/^$2[[:space:]]*[?:]=[[:space:]]*//p" "$1" | head -1 | tr -d '[:space:]'
}

build_app() {  # DIR of benchmarks/
  local dir=$root/benchmarks/$1 name files blocks threads
  name=$(makefile_value "$dir/Makefile" EXEC)
  files=$(sed -n 's/^FILES[[:space:]]*:=[[:space:]]*//p' "$dir/Makefile" | head -1)
  blocks=$(makefile_value "$dir/Makefile" NBLOCKS)
  threads=$(makefile_value "$dir/Makefile" NTHREADS)
  [ -n "$name" ] && [ -n "$files" ] || { echo "FAILED $1 (no EXEC or FILES in its Makefile)"; return 0; }
  # shellcheck disable=SC2086  # FILES is a list
  compile "$out/apps/$name" "$dir" -DNBLOCKS="$blocks" -DNTHREADS="$threads" $files
  # shellcheck disable=SC2086
  compile "$out/apps/$name-racy" "$dir" -DRACEY -DNBLOCKS="$blocks" -DNTHREADS="$threads" $files
}

export -f compile makefile_value build_app
export root out NVCC_FLAGS
{
  for f in "$root"/microbenchmarks/src/*.cu; do
    n=$(basename "$f" .cu)
    printf 'compile %q %q %q\n' "$out/micro/$n" "$root/microbenchmarks/src" "$n.cu"
  done
  for d in "$root"/benchmarks/*/; do
    [ -f "$d/Makefile" ] && printf 'build_app %q\n' "$(basename "$d")"
  done
} | xargs -P "$jobs" -I{} bash -c '{}'
