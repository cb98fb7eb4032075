#!/usr/bin/env bash
# Prints the benchmark figures: detector throughput on synthetic streams
# (Google Benchmark) and the compression table (metadata memory and speed,
# compression on/off, 10^3..10^6 threads).
set -eu
build=${1:-build}
events=${PREDATAR_BENCH_EVENTS:-2000000}
echo "== detector throughput, $events warp events per run"
PREDATAR_BENCH_EVENTS=$events "$build/bench/detector_benchmark" --benchmark_counters_tabular=true
echo "== compression table"
"$build/bench/compression_table" --shapes barrier-stencil,warp-lock
# Lock- and atomics-heavy streams stop at 10^4 threads: every critical section
# keeps two full clocks, and concurrent atomics one record per thread (see
# docs/ARCHITECTURE.md, known limits).
"$build/bench/compression_table" --shapes lock-heavy,atomics-heavy --threads 1000,10000
