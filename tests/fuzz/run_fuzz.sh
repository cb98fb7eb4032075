#!/usr/bin/env bash
# Builds the libFuzzer harnesses with clang (ASan + UBSan) and runs each for
# SECONDS, seeded from the repository's own PTX, litmus and fat binary files.
#   usage: run_fuzz.sh SOURCE_DIR BUILD_DIR [SECONDS] [HARNESS...]
# FUZZ_SEED=N fixes libFuzzer's random seed and FUZZ_RUNS=N bounds each
# harness by inputs instead of seconds: the test suite (ctest) sets both, so a
# CI run explores exactly the same inputs for the same code on any machine and
# fails only when the code changed (a random seed, or a time bound on a faster
# or slower machine, made CI fail at random on old bugs); SECONDS stays a cap.
# `make fuzz` leaves them unset, to explore anew each time.
# Exits 77 (skipped) without clang++. A crash leaves its input in
# BUILD_DIR/artifacts: fix it and keep the input under
# tests/reliability/fuzz/{ptx,litmus,fatbin}/ (replayed by FuzzRegression.*).
set -uo pipefail
src=$(cd "${1:?usage: run_fuzz.sh SOURCE_DIR BUILD_DIR [SECONDS] [HARNESS...]}" && pwd)
build=${2:?}; seconds=${3:-60}; shift $(( $# < 3 ? $# : 3 ))
harnesses=("$@"); ((${#harnesses[@]})) || harnesses=(ptx litmus fatbin)
clangxx=$(command -v clang++ || true); clangc=$(command -v clang || true)
[ -n "$clangxx" ] && [ -n "$clangc" ] || { echo "fuzz: clang++ not found, skipped"; exit 77; }
launcher=(); command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER="$clangxx" \
  -DCMAKE_C_COMPILER="$clangc" -DPREDATAR_FUZZ=ON -DPREDATAR_BENCHMARKS=OFF "${launcher[@]}" >/dev/null || exit 1
targets=(); for h in "${harnesses[@]}"; do targets+=("fuzz_$h"); done
cmake --build "$build" -j "${FUZZ_JOBS:-2}" --target "${targets[@]}" >"$build/fuzz-build.log" 2>&1 ||
  { tail -30 "$build/fuzz-build.log"; exit 1; }
seeds_ptx=("$src/tests/cuda" "$src/tests/reliability/ptx" "$src/tests/reliability/fuzz/ptx")
seeds_litmus=("$src/tests/litmus" "$src/bench/micro" "$src/tests/reliability/litmus" "$src/tests/reliability/fuzz/litmus")
seeds_fatbin=("$src/tests/cudart/fixtures" "$src/tests/reliability/fatbin" "$src/tests/reliability/fuzz/fatbin")
seed_args=(); [ -n "${FUZZ_SEED:-}" ] && seed_args=(-seed="$FUZZ_SEED")
[ -n "${FUZZ_RUNS:-}" ] && seed_args+=(-runs="$FUZZ_RUNS")
failed=0
for h in "${harnesses[@]}"; do
  corpus="$build/corpus/$h"; artifacts="$build/artifacts"; mkdir -p "$corpus" "$artifacts"
  declare -n seeds="seeds_$h"
  dirs=(); for d in "${seeds[@]}"; do [ -d "$d" ] && dirs+=("$d"); done
  echo "fuzz: $h for ${FUZZ_RUNS:+$FUZZ_RUNS inputs, at most }${seconds}s"
  # ASan's leak checker is off: parsers keep nothing across inputs, and an
  # ASan+LSan run under ptrace-less containers fails spuriously.
  ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    "$build/tests/fuzz/fuzz_$h" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
    -print_final_stats=1 "${seed_args[@]}" -artifact_prefix="$artifacts/$h-" "$corpus" "${dirs[@]}" >"$build/fuzz-$h.log" 2>&1
  code=$?
  grep -E "^stat::number_of_executed_units|^stat::new_units_added|^stat::peak_rss_mb" "$build/fuzz-$h.log" | tr '\n' ' '; echo
  if [ "$code" -ne 0 ]; then
    echo "FAIL fuzz_$h (exit $code):"; grep -E "ERROR|SUMMARY|artifact|Test unit written" "$build/fuzz-$h.log" | head -20
    failed=1
  fi
done
exit $failed
