// Helpers for the emulator tests: a recording sink, PTX loading and buffers.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "events/EventSink.h"
#include "sim/Device.h"

namespace predatar::sim::testing {

inline std::string readFile(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// The committed PTX of tests/cuda/NAME.cu. PREDATAR_TEST_PTX_DIR (and
// PREDATAR_TEST_PTX_SUFFIX) select other builds of the same kernels, e.g. made
// with -G or for another -arch, to run every test on them.
inline std::string cudaPtx(const std::string& name) {
  const char* dir = std::getenv("PREDATAR_TEST_PTX_DIR");
  const char* suffix = std::getenv("PREDATAR_TEST_PTX_SUFFIX");
  return readFile(std::string(dir ? dir : PREDATAR_CUDA_DIR) + "/" + name + (suffix ? suffix : "") + ".ptx");
}

// Records every event, in order.
class RecordingSink final : public EventSink {
 public:
  void kernelBegin(const KernelInfo& k) override { kernel = k; ++begins; }
  void memory(const MemoryEvent& e) override { memoryEvents.push_back(e); order.push_back('M'); }
  void barrier(const BarrierEvent& e) override { barriers.push_back(e); order.push_back('B'); }
  void syncWarp(const SyncWarpEvent& e) override { syncWarps.push_back(e); order.push_back('W'); }
  void fence(const FenceEvent& e) override { fences.push_back(e); order.push_back('F'); }
  void acquire(const LockEvent& e) override { acquires.push_back(e); order.push_back('A'); }
  void release(const LockEvent& e) override { releases.push_back(e); order.push_back('R'); }
  void exit(const ExitEvent& e) override { exits.push_back(e); order.push_back('X'); }
  void kernelEnd() override { ++ends; }

  KernelInfo kernel;
  int begins = 0, ends = 0;
  std::vector<MemoryEvent> memoryEvents;
  std::vector<BarrierEvent> barriers;
  std::vector<SyncWarpEvent> syncWarps;
  std::vector<FenceEvent> fences;
  std::vector<LockEvent> acquires, releases;
  std::vector<ExitEvent> exits;
  std::string order;
};

using NullSink = NullEventSink;

// PTX written in a test, and the file name its errors give.
struct PtxText {
  std::string_view text;
  std::string name;
};

// A loaded PTX file, device memory and argument storage.
struct Fixture {
  DeviceMemory memory;
  std::unique_ptr<Module> module;
  std::vector<std::vector<uint8_t>> argStorage;

  Fixture() = default;
  explicit Fixture(const std::string& cudaName) { load(cudaPtx(cudaName), cudaName + ".ptx"); }
  explicit Fixture(const PtxText& ptx) { load(ptx.text, ptx.name); }
  void load(std::string_view text, const std::string& name, const LoadOptions& options = {}) {
    auto m = loadPtx(text, name, memory, options);
    EXPECT_TRUE(m.ok()) << m.status();
    if (m.ok()) module = std::move(*m);
  }
  template <class T>
  T* buffer(const std::vector<T>& init) {
    uint64_t a = memory.allocate(init.size() * sizeof(T), "buf");
    std::memcpy(reinterpret_cast<void*>(a), init.data(), init.size() * sizeof(T));
    return reinterpret_cast<T*>(a);
  }
  template <class T>
  T* zeros(size_t n) { return buffer(std::vector<T>(n)); }
  template <class... A>
  std::vector<const void*> args(A... a) {
    std::vector<const void*> out;
    (push(out, a), ...);
    return out;
  }
  template <class T>
  void push(std::vector<const void*>& out, T v) {
    argStorage.emplace_back(sizeof(T));
    std::memcpy(argStorage.back().data(), &v, sizeof(T));
    out.push_back(argStorage.back().data());
  }
  absl::Status run(std::string_view kernel, Dim3 grid, Dim3 block, std::vector<const void*> a, EventSink& sink,
                   uint32_t dynShared = 0, ScheduleOptions sched = {}) {
    LaunchConfig cfg;
    cfg.grid = grid;
    cfg.block = block;
    cfg.args = std::move(a);
    cfg.dynamicSharedBytes = dynShared;
    cfg.schedule = sched;
    return run(kernel, cfg, sink);
  }
  absl::Status run(std::string_view kernel, const LaunchConfig& cfg, EventSink& sink) {
    if (!module) return absl::FailedPreconditionError("module failed to load");
    return launch(*module, kernel, cfg, memory, sink);
  }
};

}  // namespace predatar::sim::testing
