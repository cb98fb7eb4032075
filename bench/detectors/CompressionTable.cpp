// Peak metadata memory and throughput of gwcp and hb with vector clock
// compression on and off, on synthetic streams at 10^3 .. 10^6 threads.
// Each configuration runs in a child process so its peak RSS is its own.
//
//   compression_table [--threads 1000,10000,100000,1000000] [--shapes all]
//                     [--rounds 2] [--detectors gwcp,hb]
#include <fmt/format.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <sstream>

#include "ChildRun.h"
#include "SyntheticStream.h"
#include "analysis/Detector.h"

using namespace predatar;
using namespace predatar::bench;

namespace {

using Result = ChildResult;

// Events per round of each shape, to size a run as whole rounds over all threads.
uint64_t eventsPerRound(Shape shape, uint64_t threads, uint32_t blockSize) {
  uint64_t blocks = std::max<uint64_t>(1, threads / blockSize), warps = (blockSize + 31) / 32;
  switch (shape) {
    case Shape::BarrierStencil: return blocks * (warps * 5 + 2);
    case Shape::LockHeavy: return blocks * warps * 5;
    case Shape::AtomicsHeavy: return blocks * warps * 2;
    case Shape::WarpLock: return blocks * warps * 5;
    case Shape::BlockLocks: return blocks * (warps * 5 + 1);
    case Shape::SlotLocks: return blocks * warps * 4;
    case Shape::GridSync: return blocks * (2 * warps + 8) + blocks * blocks;  // (spin reads: blocks^2 / 2, each with its fence)
    case Shape::TiledGemm: return blocks * (warps * 68 + 2);
  }
  return 0;
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string x; std::getline(in, x, ',');) out.push_back(x);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Peak metadata memory and throughput with vector clock compression on and off"};
  std::string threadList = "1000,10000,100000,1000000", shapes = "all", detectors = "gwcp,hb";
  uint32_t rounds = 2;
  app.add_option("--threads", threadList, "Comma-separated thread counts")->capture_default_str();
  app.add_option("--shapes", shapes, "barrier-stencil,lock-heavy,atomics-heavy,warp-lock,block-locks,slot-locks or all")->capture_default_str();
  app.add_option("--detectors", detectors, "Comma-separated detectors")->capture_default_str();
  app.add_option("--rounds", rounds, "Rounds over all threads")->capture_default_str();
  CLI11_PARSE(app, argc, argv);

  std::vector<Shape> shapeList;
  for (Shape s : {Shape::BarrierStencil, Shape::LockHeavy, Shape::AtomicsHeavy, Shape::WarpLock, Shape::BlockLocks,
                  Shape::SlotLocks})
    if (shapes == "all" || shapes.find(toString(s)) != std::string::npos) shapeList.push_back(s);

  fmt::print("| shape | threads | detector | events | metadata on (MiB) | metadata off (MiB) | saved | RSS on / off (MiB) | events/s on | events/s off | time on/off |\n");
  fmt::print("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  for (Shape shape : shapeList)
    for (const std::string& t : split(threadList))
      for (const std::string& detector : split(detectors)) {
        StreamSpec spec;
        spec.shape = shape;
        spec.threads = std::stoull(t);
        spec.blockSize = uint32_t(std::min<uint64_t>(256, spec.threads));
        spec.targetEvents = rounds * eventsPerRound(shape, spec.threads, spec.blockSize);
        Result on = runChild(spec, detector, true);
        Result off = runChild(spec, detector, false);
        auto mib = [](double b) { return b / (1 << 20); };
        auto rate = [](const Result& r) { return r.seconds > 0 ? double(r.events) / r.seconds : 0.0; };
        fmt::print("| {} | {} | {} | {} | {:.1f} | {} | {} | {:.0f} / {} | {:.0f} | {} | {} |\n", toString(shape),
                   spec.threads, detector, on.events, mib(double(on.metadataBytes)),
                   off.events ? fmt::format("{:.1f}", mib(double(off.metadataBytes))) : "failed",
                   off.events && on.metadataBytes ? fmt::format("{:.2f}x", double(off.metadataBytes) / on.metadataBytes) : "-",
                   on.maxRssKiB / 1024.0, off.events ? fmt::format("{:.0f}", off.maxRssKiB / 1024.0) : "-", rate(on),
                   off.events ? fmt::format("{:.0f}", rate(off)) : "-",
                   off.events && on.seconds > 0 ? fmt::format("{:.2f}x", off.seconds / on.seconds) : "-");
        std::fflush(stdout);
      }
  return 0;
}
