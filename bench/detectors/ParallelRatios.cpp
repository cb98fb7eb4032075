// The detectors serial (in the producer's thread, --threads 1) against
// parallel (each on its own thread beside the producer, events/ParallelFanout.h)
// on the synthetic streams of detector_ratios: wall-clock and CPU seconds of
// none / gwcp / hb / lockset / all, and issue 13's two ratios:
//   all three together (parallel) <= 1.2x the slowest alone (parallel), wall;
//   producer + gwcp: serial wall / parallel wall >= 1.6x.
// Here the producer is the stream generator (cheap), so the second ratio is
// about the queue's cost; bench/parallel.sh measures it with the emulator.
//
//   parallel_ratios [--events 2000000] [--threads 100000]
#include <fmt/format.h>
#include <sys/resource.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>

#include "SyntheticStream.h"
#include "analysis/Detector.h"
#include "events/ParallelFanout.h"

using namespace predatar;
using namespace predatar::bench;

namespace {

double cpuSeconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + double(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

struct Timing {
  double wall = 0, cpu = 0;
};

// One run of `detectors` ("none": the stream alone) over the stream.
Timing run(const StreamSpec& spec, const std::vector<std::string>& detectors, unsigned threads) {
  // (all: gwcp checks hb too, as under predatar run: GwcpDetector::checkHbToo)
  std::vector<std::unique_ptr<Detector>> owned = makeDetectors(detectors, DetectorOptions{});
  double cpu0 = cpuSeconds();
  auto wall0 = std::chrono::steady_clock::now();
  {
    DetectorFeed feed(eventSinksOf(owned), threads);
    NullEventSink none;
    generate(spec, owned.empty() ? static_cast<EventSink&>(none) : feed);
    feed.flush();
  }
  Timing t;
  t.wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  t.cpu = cpuSeconds() - cpu0;
  return t;
}

std::string ratio(double a, double b) { return b > 0 ? fmt::format("{:.2f}x", a / b) : "-"; }

void table(const StreamSpec& spec) {
  const std::vector<std::pair<std::string, std::vector<std::string>>> configs{
      {"none", {}}, {"gwcp", {"gwcp"}}, {"hb", {"hb"}}, {"lockset", {"lockset"}}, {"all", allDetectorNames()}};
  Timing serial[5], parallel[5];
  for (size_t i = 0; i < configs.size(); ++i) {
    serial[i] = run(spec, configs[i].second, 1);
    parallel[i] = run(spec, configs[i].second, 0);
  }
  fmt::print("| {} | {} |", toString(spec.shape), spec.threads);
  for (size_t i = 0; i < configs.size(); ++i)
    fmt::print(" {:.2f} / {:.2f} · {:.2f} / {:.2f} |", serial[i].wall, serial[i].cpu, parallel[i].wall,
               parallel[i].cpu);
  double slowest = std::max({parallel[1].wall, parallel[2].wall, parallel[3].wall});
  // What two free cores allow, from serial CPU seconds (a shared machine's
  // wall-clock mostly measures its other users): producer e, detector d =
  // its run - e; a parallel run takes at least max(e, max d, (e + sum d) / 2).
  // All three are two detector threads (gwcp with hb, lockset): all's d, of
  // which lockset's is one part.
  double e = serial[0].cpu, d[3];
  for (int i = 0; i < 3; ++i) d[i] = std::max(0.0, serial[i + 1].cpu - e);
  double all = std::max(0.0, serial[4].cpu - e);
  auto bound = [&](double sum, double top) { return std::max({e, top, (e + sum) / 2}); };
  double top = std::max(std::max(0.0, all - d[2]), d[2]);
  double single = std::max({bound(d[0], d[0]), bound(d[1], d[1]), bound(d[2], d[2])});
  fmt::print(" {} | {} | {} | {} |\n", ratio(parallel[4].wall, slowest), ratio(serial[1].wall, parallel[1].wall),
             ratio(bound(all, top), single), ratio(e + d[0], bound(d[0], d[0])));
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"detectors serial against parallel on synthetic streams"};
  uint64_t events = 2000000, threads = 100000;
  app.add_option("--events", events, "Events per stream")->capture_default_str();
  app.add_option("--threads", threads, "Threads of every stream")->capture_default_str();
  std::vector<std::string> shapes;
  const std::vector<Shape> shown{Shape::BarrierStencil, Shape::AtomicsHeavy, Shape::BlockLocks, Shape::LockHeavy};
  std::vector<std::string> shapeNames;
  for (Shape shape : shown) shapeNames.push_back(toString(shape));
  app.add_option("--shapes", shapes, "Only these shapes")->check(CLI::IsMember(shapeNames));
  std::string only;
  app.add_option("--only", only, "Run just this detector set serially and print its CPU s (to profile one)")
      ->check(CLI::IsMember({"gwcp", "hb", "lockset", "all"}));
  CLI11_PARSE(app, argc, argv);

  fmt::print("== synthetic streams: wall / CPU s, serial · parallel (PREDATAR_THREADS={})\n",
             std::getenv("PREDATAR_THREADS") ? std::getenv("PREDATAR_THREADS") : "auto");
  fmt::print("| shape | threads | none | gwcp | hb | lockset | all | all / slowest alone (target <= 1.2x) |"
             " gwcp serial / parallel (target >= 1.6x) | A bound, 2 free cores | B bound |\n");
  fmt::print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  for (Shape shape : shown) {
    if (!shapes.empty() && std::find(shapes.begin(), shapes.end(), toString(shape)) == shapes.end()) continue;
    StreamSpec spec;
    spec.shape = shape;
    spec.threads = threads;
    spec.blockSize = 128;
    spec.exits = true;
    spec.targetEvents = events;
    if (!only.empty()) {
      std::vector<std::string> set = only == "all" ? allDetectorNames() : std::vector<std::string>{only};
      fmt::print("| {} | {} | {}: {:.2f} s CPU |\n", toString(shape), spec.threads, only, run(spec, set, 1).cpu);
      continue;
    }
    table(spec);
  }
  return 0;
}
