#!/usr/bin/env bash
# Runs the CUDA programs of this folder, unmodified, on PreDataR's replacement
# libcudart.so.13: built with nvcc (-cudart shared -lineinfo, both default
# zstd-compressed and --no-compress fat binaries) when nvcc is installed, else
# the committed binaries in bin/ (built the same way, default compression).
#
# usage: run.sh LIBDIR [WORKDIR]
#   LIBDIR   folder holding the built libcudart.so.13
#   WORKDIR  scratch folder for builds and reports (default: a temp dir)
#
# Checks per program: exit status 0, stdout equal to NAME.expected when that
# file exists, and for NAME.races (lines "FILE LINE") a race in the JSON report
# whose accesses are at those lines. Exits 77 (skipped) when the emulator
# cannot run kernels yet.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
libdir="$(cd "${1:?usage: run.sh LIBDIR [WORKDIR]}" && pwd)"
work="${2:-$(mktemp -d)}"
mkdir -p "$work"
nvcc="${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}"

programs=()
for src in "$here"/*.cu; do
  name="$(basename "$src" .cu)"
  if [ -x "$nvcc" ]; then
    "$nvcc" -cudart shared -lineinfo -o "$work/$name" "$src" || { echo "FAIL: nvcc $name"; exit 1; }
    "$nvcc" -cudart shared -lineinfo --no-compress -o "$work/$name.nocompress" "$src" ||
      { echo "FAIL: nvcc --no-compress $name"; exit 1; }
    programs+=("$work/$name" "$work/$name.nocompress")
  elif [ -x "$here/bin/$name" ]; then
    programs+=("$here/bin/$name")
  fi
done
[ ${#programs[@]} -gt 0 ] || { echo "no programs (no nvcc and no bin/)"; exit 77; }

failures=0
unavailable=0
for program in "${programs[@]}"; do
  base="$(basename "$program")"
  name="${base%.nocompress}"
  report="$work/$base.json"
  rm -f "$report"
  LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" PREDATAR_REPORT="$report" PREDATAR_QUIET=1 \
    PREDATAR_DETECTORS="${PREDATAR_DETECTORS:-gwcp}" "$program" >"$work/$base.out" 2>"$work/$base.err"
  status=$?
  if grep -q "not implemented by the emulator" "$work/$base.err"; then
    echo "SKIP: $base (emulator not implemented yet)"
    unavailable=$((unavailable + 1))
    continue
  fi
  ok=1
  [ $status -eq 0 ] || { echo "FAIL: $base exited with $status"; ok=0; }
  if [ -f "$here/$name.expected" ] && ! diff -u "$here/$name.expected" "$work/$base.out"; then
    echo "FAIL: $base output differs"
    ok=0
  fi
  if [ ! -s "$report" ]; then
    echo "FAIL: $base wrote no report"
    ok=0
  elif [ -f "$here/$name.races" ]; then
    while read -r file line; do
      [ -n "$file" ] || continue
      if ! grep -q "\"file\": \"[^\"]*$file\"" "$report" || ! grep -q "\"line\": $line\b" "$report"; then
        echo "FAIL: $base: no race at $file:$line in $report"
        ok=0
      fi
    done <"$here/$name.races"
  fi
  if [ $ok -eq 1 ]; then
    echo "ok: $base"
  else
    failures=$((failures + 1))
    sed 's/^/  stderr: /' "$work/$base.err" | head -20
  fi
done
# Launch selection (PREDATAR_KERNEL_NAME / _LAUNCH_SKIP / _LAUNCH_COUNT): the
# racy kernel still runs, unchecked, when it is not selected.
racy="${programs[0]%/*}/shared_race"
[ -x "$racy" ] || racy="$here/bin/shared_race"
if [ $unavailable -eq 0 ] && [ -x "$racy" ]; then
  for selection in "PREDATAR_KERNEL_NAME=noSuchKernel" "PREDATAR_LAUNCH_SKIP=1" "PREDATAR_LAUNCH_COUNT=0"; do
    report="$work/selection.json"
    rm -f "$report"
    env LD_LIBRARY_PATH="$libdir" PREDATAR_REPORT="$report" PREDATAR_QUIET=1 "$selection" "$racy" >/dev/null 2>&1
    if grep -q '"checked": false' "$report" 2>/dev/null && ! grep -q '"detector"' "$report"; then
      echo "ok: shared_race with $selection"
    else
      echo "FAIL: shared_race with $selection: expected an unchecked launch and no races"
      failures=$((failures + 1))
    fi
  done
  report="$work/selection.json"
  env LD_LIBRARY_PATH="$libdir" PREDATAR_REPORT="$report" PREDATAR_QUIET=1 PREDATAR_KERNEL_NAME=shiftSum \
    PREDATAR_DETECTORS=gwcp,hb,lockset "$racy" >/dev/null 2>&1
  for d in gwcp hb lockset; do
    if grep -q "\"detector\": \"$d\"" "$report" 2>/dev/null; then
      echo "ok: shared_race races found by $d"
    else
      echo "FAIL: shared_race: no race from $d"
      failures=$((failures + 1))
    fi
  done
fi

# A process that inherits the library through LD_PRELOAD but never uses the
# CUDA runtime must not write (or clobber) the report.
report="$work/preload.json"
rm -f "$report"
LD_PRELOAD="$libdir/libcudart.so.13" PREDATAR_REPORT="$report" sh -c true
if [ -e "$report" ]; then
  echo "FAIL: a process without CUDA calls wrote $report"
  failures=$((failures + 1))
else
  echo "ok: no report from a process that does not use CUDA"
fi

[ $failures -eq 0 ] || exit 1
[ $unavailable -eq 0 ] || exit 77
exit 0
