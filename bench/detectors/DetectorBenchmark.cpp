// Detector throughput (warp events per second) on synthetic streams shaped
// like real kernels, at 10^4 to 10^6 threads. PREDATAR_BENCH_EVENTS sets
// the stream length (default 2*10^6 warp events; the closing figures use 10^7;
// tiled-gemm's whole 512 x 512 product at 262,144 threads is 8,921,088).
#include <benchmark/benchmark.h>

#include <cstdlib>

#include "SyntheticStream.h"
#include "analysis/Detector.h"

namespace predatar::bench {
namespace {

const char* kDetectors[] = {"gwcp", "hb", "lockset"};

void BM_Detector(benchmark::State& state) {
  StreamSpec spec;
  spec.shape = Shape(state.range(0));
  spec.threads = uint64_t(state.range(1));
  spec.targetEvents = uint64_t(state.range(3));
  if (spec.shape == Shape::TiledGemm) {  // (a block of 32x32 threads a tile, blocks in turn, as predatar runs it)
    spec.blockSize = 1024;
    spec.blocksInTurn = true;
    spec.exits = true;
  }
  if (const char* env = std::getenv("PREDATAR_BENCH_EVENTS")) spec.targetEvents = std::strtoull(env, nullptr, 10);
  const char* name = kDetectors[state.range(2)];
  uint64_t events = 0;
  DetectorStats stats;
  for (auto _ : state) {
    auto detector = makeDetector(name, DetectorOptions{state.range(4) != 0, false});
    events += generate(spec, *detector);
    stats = detector->stats();
  }
  state.SetLabel(std::string(name) + "/" + toString(spec.shape) + (state.range(4) ? "" : "/uncompressed"));
  state.counters["events/s"] = benchmark::Counter(double(events), benchmark::Counter::kIsRate);
  state.counters["peak_MiB"] = double(stats.peakThreadClockBytes + stats.peakLockClockBytes +
                                      stats.peakQueueBytes + stats.peakShadowBytes) / (1 << 20);
}

void Args(benchmark::internal::Benchmark* b) {
  for (int shape = 0; shape < 4; ++shape)
    for (int64_t threads : {10'000, 100'000, 1'000'000})
      for (int detector = 0; detector < 3; ++detector) b->Args({shape, threads, detector, 2'000'000, 1});
  for (int64_t threads : {16'384, 262'144})
    for (int detector = 0; detector < 2; ++detector)
      b->Args({int(Shape::TiledGemm), threads, detector, 2'000'000, 1});
}

BENCHMARK(BM_Detector)->Apply(Args)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace
}  // namespace predatar::bench

BENCHMARK_MAIN();
