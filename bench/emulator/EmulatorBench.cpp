// Emulator speed in thread-instructions per second (counter "thread_insts/s")
// for an ALU-bound, a global-memory-bound and a shared-memory-bound kernel,
// and a grid of many short blocks, with no sink work (detectors off).
#include <benchmark/benchmark.h>

#include <fstream>
#include <sstream>

#include "sim/Device.h"
#ifdef PREDATAR_BENCH_DETECTORS
#include "analysis/Detector.h"
#endif

namespace {

using namespace predatar;
using namespace predatar::sim;

using NullSink = NullEventSink;

struct Env {
  DeviceMemory memory;
  std::unique_ptr<Module> module;
  Env() {
    std::ifstream f(PREDATAR_BENCH_PTX);
    std::stringstream ss;
    ss << f.rdbuf();
    auto m = loadPtx(ss.str(), "kernels.ptx", memory);
    if (!m.ok()) throw std::runtime_error(std::string(m.status().message()));
    module = std::move(*m);
  }
};

Env& env() {
  static Env e;
  return e;
}

// detector: "" for none, else a detector name (when built with the detectors);
// "NAME/lanes": with DetectorOptions::sameWordReads off (every lane through
// the per-lane path), the figure before it in the same run.
void run(benchmark::State& state, const char* kernel, Dim3 grid, Dim3 block, std::vector<const void*> args,
         const std::string& detector = "") {
  NullSink nullSink;
  EventSink* sinkPtr = &nullSink;
#ifdef PREDATAR_BENCH_DETECTORS
  std::unique_ptr<Detector> det;
  if (!detector.empty()) {
    DetectorOptions options;
    std::string name = detector;
    if (auto slash = name.find("/lanes"); slash != std::string::npos) {
      name.resize(slash);
      options.sameWordReads = false;
    }
    det = makeDetector(name, options);
    sinkPtr = det.get();
  }
#else
  (void)detector;
#endif
  EventSink& sink = *sinkPtr;
  LaunchConfig cfg;
  cfg.grid = grid;
  cfg.block = block;
  cfg.args = std::move(args);
  uint64_t threadInsts = 0;
  for (auto _ : state) {
    LaunchStats stats;
    auto st = launch(*env().module, kernel, cfg, env().memory, sink, &stats);
    if (!st.ok()) {
      state.SkipWithError(std::string(st.message()).c_str());
      return;
    }
    threadInsts += stats.threadInstructions;
  }
  state.counters["thread_insts/s"] = benchmark::Counter(double(threadInsts), benchmark::Counter::kIsRate);
}

void BM_AluBound(benchmark::State& state) {
  uint64_t out = env().memory.allocate(64 * 256 * 4);
  int iters = 2000;
  run(state, "aluBound", {64, 1, 1}, {256, 1, 1}, {&out, &iters});
}
BENCHMARK(BM_AluBound)->Unit(benchmark::kMillisecond);

void BM_GlobalMemoryBound(benchmark::State& state) {
  static int n = 1 << 18;
  uint64_t in = env().memory.allocate(n * 4), out = env().memory.allocate(n * 4);
  int reps = 8;
  run(state, "memoryBound", {64, 1, 1}, {256, 1, 1}, {&in, &out, &n, &reps});
}
BENCHMARK(BM_GlobalMemoryBound)->Unit(benchmark::kMillisecond);

void BM_SharedMemoryBound(benchmark::State& state) {
  uint64_t out = env().memory.allocate(64 * 256 * 4);
  int reps = 500;
  run(state, "sharedBound", {64, 1, 1}, {256, 1, 1}, {&out, &reps});
}
BENCHMARK(BM_SharedMemoryBound)->Unit(benchmark::kMillisecond);

// 4096 blocks of 512 threads, each adding to its word 5 times (~22 warp
// instructions a warp): what starting a block and its warps costs.
void BM_TinyBlocks(benchmark::State& state) {
  constexpr int kThreads = 4096 * 512;
  uint64_t data = env().memory.allocate(kThreads * 4), factor = env().memory.allocate(4);
  int iters = 5;
  run(state, "tinyBlocks", {4096, 1, 1}, {512, 1, 1}, {&data, &factor, &iters});
}
BENCHMARK(BM_TinyBlocks)->Unit(benchmark::kMillisecond);

// A module of library code, as Thrust and CUB make (a kernel of thousands of
// lines, each inlined through a chain of template functions), launched with
// one warp: what a launch costs beyond its instructions. (Every launch made
// the module's whole source table: segmentationTreeThrust's 514 launches of
// a 12,601-line module spent ~450 of its 564 s there.)
std::string libraryModulePtx(int groups, int depth) {
  std::string body, strings;
  for (int d = 0; d < depth; ++d) {
    // ns::Stage<d, int, ... int>::Process(): long demangled names.
    strings += "$L__info_string" + std::to_string(d) + ":\n.b8 ";
    std::string mangled = "_ZN2ns5StageILi" + std::to_string(d) + "EiiiiiiiiiiiiiiiE7ProcessEv";
    for (char c : mangled) strings += std::to_string(int(c)) + ",";
    strings += "0\n";
  }
  for (int g = 0; g < groups; ++g) {
    int line = 10 + g * depth;
    body += "\t.loc\t1 " + std::to_string(line) + " 1\n\tadd.u32 %r1, %r1, 1;\n";
    for (int d = 0; d < depth; ++d)
      body += "\t.loc\t1 " + std::to_string(line + d + 1) + " 1, function_name $L__info_string" + std::to_string(d) +
              ", inlined_at 1 " + std::to_string(line + d) + " 1\n\tadd.u32 %r1, %r1, 1;\n";
  }
  return ".version 9.0\n.target sm_75\n.address_size 64\n\n.visible .entry libraryKernel(\n"
         "\t.param .u64 libraryKernel_param_0\n)\n{\n\t.reg .b32 %r<2>;\n\t.reg .b64 %rd<3>;\n"
         "\tmov.u32 %r1, 0;\n" + body +
         "\tld.param.u64 %rd1, [libraryKernel_param_0];\n\tcvta.to.global.u64 %rd2, %rd1;\n"
         "\tst.global.u32 [%rd2], %r1;\n\tret;\n}\n\t.file\t1 \"/usr/local/cuda/include/cccl/cub/agent/agent.cuh\"\n"
         "\t.section\t.debug_str\n\t{\n" + strings + "\t}\n";
}

void BM_LaunchOfALibraryModule(benchmark::State& state) {
  constexpr int kGroups = 1500, kDepth = 8;  // a group: a line and its chain of kDepth inlined lines
  static DeviceMemory memory;
  static auto module = loadPtx(libraryModulePtx(kGroups, kDepth), "library.ptx", memory);
  if (!module.ok()) {
    state.SkipWithError(std::string(module.status().message()).c_str());
    return;
  }
  uint64_t out = memory.allocate(4);
  NullSink sink;
  LaunchConfig cfg;
  cfg.grid = {1, 1, 1};
  cfg.block = {32, 1, 1};
  cfg.args = {&out};
  for (auto _ : state) {
    auto st = launch(**module, "libraryKernel", cfg, memory, sink);
    if (!st.ok()) {
      state.SkipWithError(std::string(st.message()).c_str());
      return;
    }
  }
  state.counters["source_lines"] = double(kGroups * (kDepth + 1));
}
BENCHMARK(BM_LaunchOfALibraryModule)->Unit(benchmark::kMillisecond);

#ifdef PREDATAR_BENCH_DETECTORS
void BM_AluBoundDetector(benchmark::State& state, const char* detector) {
  uint64_t out = env().memory.allocate(64 * 256 * 4);
  int iters = 2000;
  run(state, "aluBound", {64, 1, 1}, {256, 1, 1}, {&out, &iters}, detector);
}
void BM_GlobalMemoryBoundDetector(benchmark::State& state, const char* detector) {
  static int n = 1 << 16;
  uint64_t in = env().memory.allocate(n * 4), out = env().memory.allocate(n * 4);
  int reps = 4;
  run(state, "memoryBound", {32, 1, 1}, {256, 1, 1}, {&in, &out, &n, &reps}, detector);
}
void BM_SharedMemoryBoundDetector(benchmark::State& state, const char* detector) {
  uint64_t out = env().memory.allocate(32 * 256 * 4);
  int reps = 100;
  run(state, "sharedBound", {32, 1, 1}, {256, 1, 1}, {&out, &reps}, detector);
}
// Broadcast reads: every thread reads one word (`*factor`) five times, and
// its own word; and a tiled matrix product, whose lanes read one word of a
// shared tile together.
void BM_TinyBlocksDetector(benchmark::State& state, const char* detector) {
  constexpr int kThreads = 256 * 512;
  uint64_t data = env().memory.allocate(kThreads * 4), factor = env().memory.allocate(4);
  int iters = 5;
  run(state, "tinyBlocks", {256, 1, 1}, {512, 1, 1}, {&data, &factor, &iters}, detector);
}
void BM_TiledMatMulDetector(benchmark::State& state, const char* detector) {
  static int n = 128;
  uint64_t a = env().memory.allocate(n * n * 4), b = env().memory.allocate(n * n * 4),
           c = env().memory.allocate(n * n * 4);
  run(state, "tiledMatMul", {uint32_t(n / 32), uint32_t(n / 32), 1}, {32, 32, 1}, {&a, &b, &c, &n}, detector);
}
// 65,536 threads (128 blocks of 512) store one flag, unordered: a race per
// store after the first. (Each store walked every earlier thread's record
// before round 71: 50 s a launch under hb or gwcp.)
void BM_OneFlagDetector(benchmark::State& state, const char* detector) {
  constexpr int kThreads = 128 * 512;
  uint64_t flag = env().memory.allocate(4);
  int n = kThreads;
  run(state, "storeFlag", {128, 1, 1}, {512, 1, 1}, {&flag, &n}, detector);
}
BENCHMARK_CAPTURE(BM_AluBoundDetector, gwcp, "gwcp")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_AluBoundDetector, hb, "hb")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_AluBoundDetector, lockset, "lockset")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_GlobalMemoryBoundDetector, gwcp, "gwcp")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_GlobalMemoryBoundDetector, hb, "hb")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_GlobalMemoryBoundDetector, lockset, "lockset")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_SharedMemoryBoundDetector, gwcp, "gwcp")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_SharedMemoryBoundDetector, hb, "hb")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_SharedMemoryBoundDetector, lockset, "lockset")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_TinyBlocksDetector, gwcp, "gwcp")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_TinyBlocksDetector, gwcp_lanes, "gwcp/lanes")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_TinyBlocksDetector, hb, "hb")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_TinyBlocksDetector, hb_lanes, "hb/lanes")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_TiledMatMulDetector, gwcp, "gwcp")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_TiledMatMulDetector, gwcp_lanes, "gwcp/lanes")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_TiledMatMulDetector, hb, "hb")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_TiledMatMulDetector, hb_lanes, "hb/lanes")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_OneFlagDetector, gwcp, "gwcp")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_OneFlagDetector, hb, "hb")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_OneFlagDetector, lockset, "lockset")->Unit(benchmark::kMillisecond);
#endif

}  // namespace

BENCHMARK_MAIN();
