// gwcp against hb on lock- and atomics-heavy synthetic streams, as ratios
// measured in one run (issue 13's targets: gwcp time <= 1.5x hb, peak
// metadata <= 2x hb, time linear in blocks: <= 2.2x per doubling), each
// configuration in a child process (CPU time of the analysis, peak RSS).
//
//   detector_ratios [--rounds 32] [--max-blocks 64] [--big-threads 100000]
//                   [--shapes block-locks,...] [--threads 8192,100000] [--max-blocks 0: no scaling table]
//                   [--order rounds|blocks] [--repeat 3] [--pairs in-turn|together]
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "ChildRun.h"
#include "SyntheticStream.h"

using namespace predatar;
using namespace predatar::bench;

namespace {

bool blocksInTurn = false;  // --order blocks
unsigned repeat = 3;        // --repeat
bool together = false;      // --pairs together

StreamSpec spec(Shape shape, uint64_t threads, uint32_t blockSize, uint64_t rounds) {
  StreamSpec s;
  s.blocksInTurn = blocksInTurn;
  s.shape = shape;
  s.threads = threads;
  s.blockSize = blockSize;
  s.exits = true;
  uint64_t blocks = std::max<uint64_t>(1, threads / blockSize), warps = (blockSize + 31) / 32;
  s.targetEvents = rounds * blocks * warps * 5;  // about `rounds` rounds of every shape
  return s;
}

double mib(uint64_t bytes) { return double(bytes) / (1 << 20); }

std::string ratio(double a, double b) { return b > 0 ? fmt::format("{:.2f}x", a / b) : "-"; }

// Where each detector's peak metadata is, printed after the ratio table.
std::vector<std::string> breakdownRows;

void addBreakdown(const StreamSpec& s, const char* detector, const ChildResult& r) {
  breakdownRows.push_back(fmt::format("| {} | {} | {} | {:.1f} | {:.1f} | {:.1f} | {:.1f} | {:.1f} |",
                                      toString(s.shape), s.threads, detector, mib(r.threadClockBytes),
                                      mib(r.lockClockBytes), mib(r.queueBytes), mib(r.shadowBytes),
                                      mib(r.metadataBytes)));
}

// hb and gwcp in turn on one workload, `repeat` times each: the least CPU
// time of each, and the median of the pairs' ratios. On this 2-core VM a run
// takes its usual time or up to 1.8x it, whichever the detector, for minutes
// at a time, so two least-of-N times taken apart can still be 1.8x off; the
// two runs of a pair are back to back (their order alternates), so a pair's
// ratio is taken in one mode, and the median drops pairs split by a switch.
// With --pairs together a pair's two runs go at once, one a core: the whole
// of each run sees the same mode.
// Metadata and RSS are those of the first run: the same every run.
struct PairedRuns {
  ChildResult hb, gwcp;
  double medianRatio = 0;
};

PairedRuns runBoth(const StreamSpec& s) {
  PairedRuns runs;
  auto keepLeast = [](ChildResult& best, const ChildResult& r) {
    if (best.events == 0) best = r;
    else if (r.events != 0) best.seconds = std::min(best.seconds, r.seconds);
  };
  std::vector<double> ratios;
  for (unsigned i = 0; i < repeat; ++i) {
    bool hbFirst = i % 2 == 0;
    const char* firstName = hbFirst ? "hb" : "gwcp";
    const char* secondName = hbFirst ? "gwcp" : "hb";
    ChildResult first, second;
    if (together) {
      StartedChild a = startChild(s, firstName, true), b = startChild(s, secondName, true);
      first = finishChild(a);
      second = finishChild(b);
    } else {
      first = runChild(s, firstName, true);
      second = runChild(s, secondName, true);
    }
    const ChildResult& hb = hbFirst ? first : second;
    const ChildResult& gwcp = hbFirst ? second : first;
    keepLeast(runs.hb, hb);
    keepLeast(runs.gwcp, gwcp);
    if (hb.seconds > 0) ratios.push_back(gwcp.seconds / hb.seconds);
  }
  if (!ratios.empty()) {
    std::sort(ratios.begin(), ratios.end());
    size_t n = ratios.size();
    runs.medianRatio = n % 2 ? ratios[n / 2] : (ratios[n / 2 - 1] + ratios[n / 2]) / 2;
  }
  return runs;
}

// One workload under hb and gwcp: times, metadata, RSS and the ratios.
void compare(const StreamSpec& s) {
  auto [hb, gwcp, medianRatio] = runBoth(s);
  addBreakdown(s, "hb", hb);
  addBreakdown(s, "gwcp", gwcp);
  fmt::print("| {} | {} | {} | {:.3f} | {:.3f} | {} | {:.2f}x | {:.1f} | {:.1f} | {} | {:.0f} / {:.0f} |\n",
             toString(s.shape), s.threads, hb.events, hb.seconds, gwcp.seconds, ratio(gwcp.seconds, hb.seconds),
             medianRatio, mib(hb.metadataBytes),
             mib(gwcp.metadataBytes), ratio(double(gwcp.metadataBytes), double(hb.metadataBytes)),
             hb.maxRssKiB / 1024.0, gwcp.maxRssKiB / 1024.0);
  std::fflush(stdout);
}

// Time per doubling of the grid (128 threads per block, the same rounds per block).
void scaling(Shape shape, uint32_t maxBlocks, uint64_t rounds) {
  ChildResult prevHb, prevGwcp;
  for (uint32_t blocks = 1; blocks <= maxBlocks; blocks *= 2) {
    StreamSpec s = spec(shape, uint64_t(blocks) * 128, 128, rounds);
    auto [hb, gwcp, medianRatio] = runBoth(s);
    auto growth = [&](const ChildResult& now, const ChildResult& prev) {
      return blocks > 1 ? ratio(now.seconds, prev.seconds) : std::string("-");
    };
    double perEvent = gwcp.events ? gwcp.seconds * 1e6 / double(gwcp.events) : 0;
    fmt::print("| {} | {} | {} | {:.3f} | {} | {:.3f} | {} | {:.2f} | {:.1f} | {:.1f} |\n", toString(shape), blocks,
               hb.events, hb.seconds, growth(hb, prevHb), gwcp.seconds, growth(gwcp, prevGwcp), perEvent,
               mib(hb.metadataBytes), mib(gwcp.metadataBytes));
    std::fflush(stdout);
    prevHb = hb;
    prevGwcp = gwcp;
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"gwcp against hb on lock- and atomics-heavy streams, as ratios"};
  uint64_t rounds = 32, bigThreads = 100000;
  uint32_t maxBlocks = 64;
  app.add_option("--rounds", rounds, "Rounds of every block")->capture_default_str();
  app.add_option("--max-blocks", maxBlocks, "Largest grid of the scaling table")->capture_default_str();
  app.add_option("--big-threads", bigThreads, "Thread count of the large workloads")->capture_default_str();
  std::string shapes = "block-locks,slot-locks,warp-lock,lock-heavy,atomics-heavy,grid-sync", threadList;
  app.add_option("--shapes", shapes,
                 "Shapes of the ratio table (and of the scaling table, among block-locks, slot-locks, grid-sync)")
      ->capture_default_str();
  app.add_option("--threads", threadList, "Comma-separated thread counts (default: 8192 and --big-threads)");
  std::string order = "rounds";
  app.add_option("--order", order,
                 "rounds: every block's first round, then every block's second...; blocks: each block's rounds and "
                 "exits before the next block's (predatar's round-robin schedule)")
      ->check(CLI::IsMember({"rounds", "blocks"}))
      ->capture_default_str();
  app.add_option("--repeat", repeat, "Runs of each detector per workload (hb and gwcp in turn): the least CPU time is shown")
      ->check(CLI::Range(1u, 100u))
      ->capture_default_str();
  std::string pairs = "in-turn";
  app.add_option("--pairs", pairs,
                 "in-turn: a pair's hb and gwcp runs one after the other; together: at once, one a core (on a "
                 "machine whose speed changes for minutes at a time, both runs of a pair then see the same speed; "
                 "needs two idle cores)")
      ->check(CLI::IsMember({"in-turn", "together"}))
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  blocksInTurn = order == "blocks";
  together = pairs == "together";
  auto wanted = [&](Shape s) { return shapes.find(toString(s)) != std::string::npos; };
  std::vector<uint64_t> threadCounts{8192, bigThreads};
  if (!threadList.empty()) {
    threadCounts.clear();
    for (size_t at = 0; at < threadList.size();) {
      size_t comma = std::min(threadList.find(',', at), threadList.size());
      threadCounts.push_back(std::stoull(threadList.substr(at, comma - at)));
      at = comma + 1;
    }
  }

  fmt::print("== gwcp / hb (CPU s of the analysis, least of {}; paired: median of the {} back-to-back pairs' ratios;\n"
             "   peak metadata MiB; targets: time <= 1.5x, metadata <= 2x)\n",
             repeat, repeat);
  fmt::print("| shape | threads | events | hb s | gwcp s | time | paired | hb MiB | gwcp MiB | metadata | RSS hb / gwcp MiB |\n");
  fmt::print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  for (Shape shape : {Shape::BlockLocks, Shape::SlotLocks, Shape::WarpLock, Shape::LockHeavy, Shape::AtomicsHeavy})
    for (uint64_t threads : threadCounts)
      if (wanted(shape)) compare(spec(shape, threads, 128, shape == Shape::LockHeavy ? 2 : rounds));
  fmt::print("\n== where the peak metadata is (MiB; each a peak of its own, so the parts may exceed the whole's peak)\n");
  fmt::print("| shape | threads | detector | thread clocks | lock clocks | rule (ii) log | shadow | sum |\n");
  fmt::print("|---|---:|---|---:|---:|---:|---:|---:|\n");
  for (const std::string& row : breakdownRows) fmt::print("{}\n", row);
  if (maxBlocks == 0) return 0;
  fmt::print("\n== time per doubling of the grid (128 threads per block; target <= 2.2x; grid-sync's events grow\n"
             "   about 3.8x per doubling, every block spinning after each later arrival: its gwcp us an event\n"
             "   is what should stay flat)\n");
  fmt::print("| shape | blocks | events | hb s | hb growth | gwcp s | gwcp growth | gwcp us/event | hb MiB "
             "| gwcp MiB |\n");
  fmt::print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  for (Shape shape : {Shape::SlotLocks, Shape::BlockLocks, Shape::GridSync})
    if (wanted(shape)) scaling(shape, maxBlocks, rounds);
  return 0;
}
