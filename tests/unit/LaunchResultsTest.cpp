// Each detector's results at each launch's end, taken in its feed's thread
// (analysis/LaunchResults.h) and read only after later launches were fed
// (the runtime completes a launch at the next one's end): the same races and
// figures as detectors fed serially and read at each launch's end. Tiny
// batches and rings make workers and producer interleave at every point.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <sstream>
#include <thread>

#include "analysis/LaunchResults.h"
#include "events/ParallelFanout.h"
#include "support/EnvNumber.h"
#include "support/RandomTrace.h"

namespace predatar {
namespace {

std::string describe(const Race& r) {
  std::ostringstream out;
  out << r.detector << " " << int(r.kind) << " " << int(r.space) << " " << r.sharedBlock << " " << r.address << " "
      << r.first.origin.pc << " " << r.second.origin.pc << " " << r.first.thread << " " << r.second.thread << " x"
      << r.count;
  return out.str();
}

// One launch's results, as the runtime records them.
std::string describe(const std::vector<DetectorLaunchResult>& results) {
  std::ostringstream out;
  for (const DetectorLaunchResult& d : results) {
    out << d.events << " " << d.stats.peakThreadClockBytes << " " << d.stats.peakLockClockBytes << " "
        << d.stats.peakQueueBytes << " " << d.stats.peakShadowBytes << ":";
    for (const Race& r : d.races) out << " [" << describe(r) << "]";
    out << "\n";
  }
  return out.str();
}

std::vector<std::unique_ptr<Detector>> detectors(uint64_t seed) {
  DetectorOptions options;
  options.compression = seed % 2 == 0;
  options.hbOnGwcp = seed % 3 != 0;  // hb taken in gwcp's thread, or a detector of its own
  return makeDetectors(allDetectorNames(), options);
}

TEST(LaunchResults, ReadLateSameAsReadAtEachLaunchEnd) {
  const uint64_t seeds = std::min<uint64_t>(testsupport::envNumber("PREDATAR_DIFF_SEEDS", 300), 200);
  constexpr uint32_t kLaunches = 4;
  for (uint64_t seed = 0; seed < seeds; ++seed) {
    Trace trace = testsupport::randomTrace(seed);
    // Serially, read at each launch's end: what each launch found and each detector's figures then.
    std::vector<std::string> expected;
    {
      auto serial = detectors(seed);
      LaunchResults results(serial);
      EventFanout fanout;
      for (EventSink* s : results.sinks()) fanout.add(s);
      for (uint32_t l = 0; l < kLaunches; ++l) {
        std::vector<size_t> racesBefore;
        std::vector<uint64_t> eventsBefore;
        for (const auto& d : serial) {
          racesBefore.push_back(d->races().races().size());
          eventsBefore.push_back(d->stats().events);
        }
        trace.kernel.launch = l;
        replay(trace, fanout);
        std::vector<DetectorLaunchResult> direct(serial.size());
        for (size_t i = 0; i < serial.size(); ++i) {
          direct[i].stats = serial[i]->stats();
          direct[i].events = direct[i].stats.events - eventsBefore[i];
          const auto& races = serial[i]->races().races();
          direct[i].races.assign(races.begin() + racesBefore[i], races.end());
        }
        expected.push_back(describe(direct));
        ASSERT_EQ(expected.back(), describe(results.take(l))) << "seed " << seed << " launch " << l;
      }
    }
    // On worker threads, each launch read after the next one was fed.
    auto parallel = detectors(seed);
    LaunchResults results(parallel);
    ParallelFanout threads(results.sinks(), seed % 2 ? 1 : 3, ParallelLimits{1 + seed % 4, 1 + seed % 3});
    std::vector<uint64_t> marks;
    for (uint32_t l = 0; l < kLaunches; ++l) {
      trace.kernel.launch = l;
      replay(trace, threads);
      marks.push_back(threads.mark());
      if (l == 0) continue;
      threads.waitFor(marks[l - 1]);
      ASSERT_EQ(expected[l - 1], describe(results.take(l - 1))) << "seed " << seed << " launch " << l - 1;
    }
    threads.waitFor(marks.back());
    ASSERT_EQ(expected.back(), describe(results.take(kLaunches - 1))) << "seed " << seed;
  }
}

// A launch no detector saw (no events: it failed before it began) has no
// races and the figures of the latest launch they saw.
TEST(LaunchResults, LaunchWithoutEventsKeepsTheLatestFigures) {
  auto all = detectors(1);
  LaunchResults results(all);
  EventFanout fanout;
  for (EventSink* s : results.sinks()) fanout.add(s);
  Trace trace = testsupport::randomTrace(7);
  trace.kernel.launch = 0;
  replay(trace, fanout);
  std::vector<DetectorLaunchResult> first = results.take(0);
  std::vector<DetectorLaunchResult> none = results.take(1);
  ASSERT_EQ(none.size(), all.size());
  for (size_t i = 0; i < all.size(); ++i) {
    EXPECT_EQ(none[i].events, 0u);
    EXPECT_TRUE(none[i].races.empty());
    EXPECT_EQ(none[i].stats.events, first[i].stats.events);
    EXPECT_EQ(none[i].stats.peakShadowBytes, first[i].stats.peakShadowBytes);
  }
}

}  // namespace
}  // namespace predatar
