// The detectors on worker threads (events/ParallelFanout.h) against the same
// detectors fed in the producer's thread: identical reports on random traces
// (tiny batches and a tiny ring, so workers and producer interleave at every
// point; memory events packed and unpacked on the way), exceptions of a sink reach flush(), and the ring stays bounded.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <chrono>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "analysis/Detector.h"
#include "events/ParallelFanout.h"
#include "report/Report.h"
#include "support/EnvNumber.h"
#include "support/RandomTrace.h"

namespace predatar {
namespace {

std::string jsonOf(const KernelInfo& kernel, const std::vector<std::unique_ptr<Detector>>& detectors) {
  Report report;
  for (const auto& d : detectors) report.add(kernel, d->races());
  std::ostringstream out;
  writeJson(out, report);
  for (const auto& d : detectors) {
    DetectorStats s = d->stats();
    out << d->name() << " " << s.events << " " << s.peakThreadClockBytes << " " << s.peakLockClockBytes << " "
        << s.peakQueueBytes << " " << s.peakShadowBytes << "\n";
  }
  return out.str();
}

std::vector<std::unique_ptr<Detector>> allDetectors(bool compression) {
  std::vector<std::unique_ptr<Detector>> result;
  DetectorOptions options;
  options.compression = compression;
  for (const auto& name : allDetectorNames()) result.push_back(makeDetector(name, options));
  return result;
}

std::vector<EventSink*> sinksOf(const std::vector<std::unique_ptr<Detector>>& detectors) {
  std::vector<EventSink*> sinks;
  for (const auto& d : detectors) sinks.push_back(d.get());
  return sinks;
}

TEST(ParallelFanout, SameReportsAsSerialOnRandomTraces) {
  const uint64_t seeds = std::min<uint64_t>(testsupport::envNumber("PREDATAR_DIFF_SEEDS", 300), 300);
  for (uint64_t seed = 0; seed < seeds; ++seed) {
    Trace trace = testsupport::randomTrace(seed);
    bool compression = seed % 2 == 0;
    auto serial = allDetectors(compression);
    EventFanout fanout;
    for (EventSink* s : sinksOf(serial)) fanout.add(s);
    replay(trace, fanout);
    // Two launches through one fanout, as the runtime does; 1 or 3 workers.
    replay(trace, fanout);
    std::string expected = jsonOf(trace.kernel, serial);

    auto parallel = allDetectors(compression);
    // (Some batches full by bytes before they are by events: one event each.)
    ParallelLimits limits{1 + seed % 4, 1 + seed % 3};
    if (seed % 5 == 0) limits = ParallelLimits{64, 1 + seed % 3, 1};
    ParallelFanout threads(sinksOf(parallel), seed % 3 == 0 ? 1 : 3, limits);
    replay(trace, threads);
    threads.flush();
    replay(trace, threads);
    threads.flush();
    ASSERT_EQ(expected, jsonOf(trace.kernel, parallel)) << "seed " << seed;
  }
}

// Counts events and checks they come in trace order; can throw or dawdle.
class CheckingSink final : public NullEventSink {
 public:
  uint64_t events = 0, kernels = 0;
  uint64_t throwAt = UINT64_MAX;
  bool slow = false;
  bool ordered = true;
  void kernelBegin(const KernelInfo&) override { ++kernels; }
  void memory(const MemoryEvent& e) override {
    ordered &= e.origin.seq == events;
    if (++events == throwAt) throw std::runtime_error("sink failed at event " + std::to_string(events));
    if (slow && events % 8 == 0) std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
};

void feed(EventSink& sink, uint64_t events) {
  KernelInfo kernel;
  kernel.name = "k";
  sink.kernelBegin(kernel);
  MemoryEvent e;
  e.lanes.mask = 1;
  for (uint64_t i = 0; i < events; ++i) {
    e.origin.seq = i;
    e.address[0] = i * 4;
    sink.memory(e);
  }
  sink.kernelEnd();
}

TEST(ParallelFanout, ExceptionOfASinkReachesFlush) {
  CheckingSink good, bad, alsoGood;
  bad.throwAt = 100;
  ParallelFanout threads({&good, &bad, &alsoGood}, 2, ParallelLimits{16, 4});
  feed(threads, 5000);  // the producer never blocks on the failed worker
  try {
    threads.flush();
    FAIL() << "flush did not rethrow";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "sink failed at event 100");
  }
  EXPECT_EQ(good.events, 5000u);
  EXPECT_EQ(bad.events, 100u);  // fed nothing after it threw
  // Worker 0 feeds good and alsoGood, worker 1 the failing sink alone.
  EXPECT_EQ(alsoGood.events, 5000u);
  EXPECT_NO_THROW(threads.flush());  // reported once
  feed(threads, 10);
  EXPECT_NO_THROW(threads.flush());
  EXPECT_EQ(good.events, 5010u);
}

TEST(ParallelFanout, SlowSinkKeepsTheRingBounded) {
  CheckingSink fast, slow;
  slow.slow = true;
  ParallelLimits limits{8, 3};
  ParallelFanout threads({&fast, &slow}, 2, limits);
  feed(threads, 4000);
  threads.flush();
  EXPECT_EQ(fast.events, 4000u);
  EXPECT_EQ(slow.events, 4000u);
  EXPECT_TRUE(fast.ordered);
  EXPECT_TRUE(slow.ordered);
  EXPECT_EQ(slow.kernels, 1u);
  EXPECT_LE(threads.peakQueuedBatches(), limits.batches);
  EXPECT_GE(threads.peakQueuedBatches(), 1u);
}

// waitFor(mark) returns once everything before the mark was seen, without
// waiting for what came after (the runtime reads a launch's results while the
// next launch's events are in flight): the sink holds the second launch until
// the test, past waitFor, lets it go (or 10 s pass: waitFor waited for it).
class GatedSink final : public NullEventSink {
 public:
  std::atomic<uint64_t> kernels = 0, ends = 0;
  bool letGoInTime = false;
  void kernelBegin(const KernelInfo&) override {
    if (++kernels != 2) return;
    std::unique_lock lock(mutex_);
    letGoInTime = gate_.wait_for(lock, std::chrono::seconds(10), [&] { return open_; });
  }
  void kernelEnd() override { ++ends; }
  void open() {
    {
      std::lock_guard lock(mutex_);
      open_ = true;
    }
    gate_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable gate_;
  bool open_ = false;
};

TEST(ParallelFanout, WaitForAMarkLeavesLaterEventsInFlight) {
  GatedSink sink;
  ParallelFanout threads({&sink}, 1, ParallelLimits{8, 64});
  feed(threads, 40);
  uint64_t first = threads.mark();
  feed(threads, 40);
  threads.waitFor(first);
  EXPECT_TRUE(threads.reached(first));
  EXPECT_EQ(sink.ends.load(), 1u);  // the first launch, whole
  uint64_t second = threads.mark();
  EXPECT_FALSE(threads.reached(second));  // (the sink holds the second launch)
  sink.open();
  threads.flush();
  EXPECT_TRUE(threads.reached(second));
  EXPECT_TRUE(sink.letGoInTime);
  EXPECT_EQ(sink.ends.load(), 2u);
}

TEST(ParallelFanout, DestructorDrainsWhatWasGiven) {
  CheckingSink sink;
  {
    ParallelFanout threads({&sink}, 1, ParallelLimits{7, 2});
    feed(threads, 1000);
  }
  EXPECT_EQ(sink.events, 1000u);
  EXPECT_TRUE(sink.ordered);
}

TEST(ParallelFanout, ThreadCounts) {
  EXPECT_EQ(parseThreadCount("auto"), 0u);
  EXPECT_EQ(parseThreadCount("1"), 1u);
  EXPECT_EQ(parseThreadCount("4"), 4u);
  EXPECT_FALSE(parseThreadCount("").has_value());
  EXPECT_FALSE(parseThreadCount("-1").has_value());
  EXPECT_FALSE(parseThreadCount("two").has_value());
  EXPECT_EQ(workerThreadsFor(1, 3), 0u);  // serial
  EXPECT_EQ(workerThreadsFor(2, 3), 1u);  // the producer and one worker for all three
  EXPECT_EQ(workerThreadsFor(8, 3), 3u);  // never more than one per sink
  EXPECT_EQ(workerThreadsFor(4, 0), 0u);
  CheckingSink sink;
  DetectorFeed serial({&sink}, 1);
  EXPECT_FALSE(serial.parallel());
  DetectorFeed parallel({&sink}, 2);
  EXPECT_TRUE(parallel.parallel());
  feed(parallel, 10);
  parallel.flush();
  EXPECT_EQ(sink.events, 10u);
}

}  // namespace
}  // namespace predatar
