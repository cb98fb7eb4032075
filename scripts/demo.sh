#!/usr/bin/env bash
# The README's first command ends here: run a bundled CUDA program, unmodified,
# through predatar on the CPU. Its observed run hides a race that another
# schedule shows; gwcp predicts it, hb (Barracuda+) does not.
set -u
build=${1:-build}
src=examples/cuda/predicted_race.cu
app=examples/cuda/predicted_race
if command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; then
  nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
  mkdir -p "$build/examples"
  "$nvcc" -cudart shared -lineinfo -arch=sm_75 -o "$build/examples/predicted_race" "$src" && app="$build/examples/predicted_race"
fi
echo "\$ predatar run --detectors gwcp,hb -- $app"
"$build/predatar" run --detectors gwcp,hb -- "$app"
code=$?
# Exit code 1 means "races found": the example is meant to have one.
[ "$code" -le 1 ] || exit "$code"
exit 0
