#!/usr/bin/env bash
# The committed feature programs (bin/) on the sanitizer build's libcudart.so.13,
# loaded directly (predatar run puts its library before LD_PRELOAD, and the
# ASan runtime must come first): every program must exit 0, print its
# NAME.expected, and no sanitizer may report anything (but for those that are
# to crash, NAME.status 4; NAME.exit: the status the runtime ends the program
# with, when it stops one, as sticky_error_loop).
#
# usage: run_sanitized.sh LIBCUDART_SO [WORKDIR]
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
lib="${1:?usage: run_sanitized.sh LIBCUDART_SO [WORKDIR]}"
work="${2:-$(mktemp -d)}"
mkdir -p "$work"
asan="$(${CC:-gcc} -print-file-name=libasan.so)"
[ -f "$asan" ] || { echo "run_sanitized.sh: no libasan.so ($asan)"; exit 1; }

# shellcheck source=needs.sh
source "$here/needs.sh"

failed=0
for src in "$here"/*.cu; do
  name="$(basename "$src" .cu)"
  program="$here/bin/$name"
  # NAME.needs: libraries of NVIDIA's the program needs at run time (NVRTC compiles with NVIDIA's own).
  has_needs "$name" || continue
  # (a program that is to die of a signal, NAME.status 4: the sanitizer's own handler takes the signal)
  [ -f "$here/$name.status" ] && [ "$(grep -v '^#' "$here/$name.status" | head -1)" = 4 ] && continue
  [ -x "$program" ] || { echo "FAIL: $name: no binary"; failed=$((failed + 1)); continue; }
  # predatar's other libraries the program needs, preloaded as `predatar run` does (RunEnvironment.h).
  preload="$asan:$lib"
  for own in libcuda.so.1 libcurand.so.10 libcublas.so.13 libnvrtc.so.13; do
    readelf -d "$program" 2>/dev/null | grep -q "NEEDED.*\[$own\]" && preload="$preload:$(dirname "$lib")/$own"
  done
  (cd "$work" && LD_PRELOAD="$preload" LD_LIBRARY_PATH="$(dirname "$lib")" \
     ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=print_stacktrace=1 PREDATAR_DETECTORS=gwcp PREDATAR_QUIET=1 \
     timeout 300 "$program" >"$work/$name.out" 2>"$work/$name.err")
  status=$?
  ok=1
  expected_status=0
  [ -f "$here/$name.exit" ] && expected_status="$(grep -v '^#' "$here/$name.exit" | head -1)"
  [ "$status" -eq "$expected_status" ] || { echo "FAIL: $name: exited $status"; ok=0; }
  if grep -q "ERROR: AddressSanitizer\|runtime error:\|ERROR: LeakSanitizer" "$work/$name.err"; then
    echo "FAIL: $name: sanitizer report"
    ok=0
  fi
  if [ -f "$here/$name.expected" ] && ! diff -u "$here/$name.expected" <(grep -v '^predatar' "$work/$name.out"); then
    echo "FAIL: $name: output differs"
    ok=0
  fi
  if [ $ok -eq 1 ]; then echo "ok: $name"; else failed=$((failed + 1)); head -20 "$work/$name.err" | sed 's/^/  stderr: /'; fi
done
[ $failed -eq 0 ] || { echo "$failed program(s) failed"; exit 1; }
