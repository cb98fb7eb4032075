// Races between kernel launches: the detectors keep the global accesses of
// the launches KernelInfo::liveLaunches names and report conflicts with those
// this launch is not ordered after (KernelInfo::unorderedLaunches).
#include <gtest/gtest.h>

#include <algorithm>

#include "analysis/Detector.h"
#include "cudart/StreamOrder.h"

namespace predatar {
namespace {

KernelInfo launchInfo(uint32_t launch, std::vector<uint32_t> live, std::vector<uint32_t> unordered) {
  KernelInfo k;
  k.name = "k" + std::to_string(launch);
  k.grid = {1, 1, 1};
  k.block = {32, 1, 1};
  k.launch = launch;
  k.liveLaunches = std::move(live);
  k.unorderedLaunches = std::move(unordered);
  return k;
}

MemoryEvent access(AccessType type, uint64_t address, uint64_t seq, bool atomic = false) {
  MemoryEvent e;
  e.lanes = {0, 0, 1};
  e.type = atomic ? AccessType::AtomicRmw : type;
  e.strong = atomic;
  e.address[0] = address;
  e.origin = {seq, seq, Origin::kNoSource};
  return e;
}

// Launch 0 writes 0x1000 (and atomically adds to 0x2000); launch 1 reads
// 0x1000 (and adds to 0x2000), ordered after 0 or not.
std::vector<Race> twoLaunches(const std::string& detector, bool ordered, bool retain = true) {
  auto d = makeDetector(detector, {});
  d->kernelBegin(launchInfo(0, {}, {}));
  d->memory(access(AccessType::Write, 0x1000, 1));
  d->memory(access(AccessType::Write, 0x2000, 2, /*atomic=*/true));
  d->kernelEnd();
  d->kernelBegin(launchInfo(1, retain ? std::vector<uint32_t>{0} : std::vector<uint32_t>{},
                            ordered ? std::vector<uint32_t>{} : std::vector<uint32_t>{0}));
  d->memory(access(AccessType::Read, 0x1000, 1));
  d->memory(access(AccessType::Write, 0x2000, 2, /*atomic=*/true));
  d->kernelEnd();
  return d->races().races();
}

TEST(LaunchOrder, UnorderedLaunchesRaceInEveryDetector) {
  for (const std::string& detector : allDetectorNames()) {
    auto races = twoLaunches(detector, /*ordered=*/false);
    ASSERT_EQ(races.size(), 1u) << detector;  // the atomics do not race
    EXPECT_EQ(races[0].address, 0x1000u) << detector;
    EXPECT_EQ(races[0].first.launch, 0u) << detector;
    EXPECT_EQ(races[0].second.launch, 1u) << detector;
    EXPECT_EQ(races[0].kind, RaceKind::WriteRead) << detector;
  }
}

TEST(LaunchOrder, OrderedOrForgottenLaunchesDoNotRace) {
  for (const std::string& detector : allDetectorNames()) {
    EXPECT_TRUE(twoLaunches(detector, /*ordered=*/true).empty()) << detector;
    EXPECT_TRUE(twoLaunches(detector, /*ordered=*/true, /*retain=*/false).empty()) << detector;
  }
}

// Launch 1 is ordered after launch 0, launch 2 after neither: launch 1's
// write stands for launch 0's, and launch 2 races with it.
TEST(LaunchOrder, LiveLaunchesAreKeptForLaterOnes) {
  for (const std::string& detector : allDetectorNames()) {
    auto d = makeDetector(detector, {});
    d->kernelBegin(launchInfo(0, {}, {}));
    d->memory(access(AccessType::Write, 0x1000, 1));
    d->kernelEnd();
    d->kernelBegin(launchInfo(1, {0}, {}));
    d->memory(access(AccessType::Write, 0x1000, 1));
    d->kernelEnd();
    EXPECT_TRUE(d->races().races().empty()) << detector;
    d->kernelBegin(launchInfo(2, {0, 1}, {0, 1}));
    d->memory(access(AccessType::Write, 0x1000, 1));
    d->kernelEnd();
    EXPECT_FALSE(d->races().races().empty()) << detector;
  }
}

// Launches the detectors did not see (replays, launches run without them)
// retire what their order leaves dead (Detector::retainLaunches): launch 0's
// accesses (a write, an atomic) go unless kept live, and then still race
// with a later launch unordered with them.
TEST(LaunchOrder, LaunchesTheDetectorsDidNotSeeRetireDeadRecords) {
  for (const std::string& detector : allDetectorNames())
    for (bool keep : {false, true}) {
      auto d = makeDetector(detector, {});
      d->kernelBegin(launchInfo(0, {}, {}));
      d->memory(access(AccessType::Write, 0x1000, 1));
      d->memory(access(AccessType::Write, 0x2000, 2, /*atomic=*/true));
      d->kernelEnd();
      d->retainLaunches(keep ? std::vector<uint32_t>{0} : std::vector<uint32_t>{});  // launch 1, unseen
      // (Launch 2 claims launch 0 live and unordered: only its records, kept or not, tell.)
      d->kernelBegin(launchInfo(2, {0}, {0}));
      d->memory(access(AccessType::Read, 0x1000, 1));
      d->memory(access(AccessType::Write, 0x2000, 2));
      d->kernelEnd();
      EXPECT_EQ(d->races().races().size(), keep ? 2u : 0u) << detector << (keep ? ", kept" : ", retired");
    }
}

// A launch's start walks the shadow only when a launch it holds records of
// is no longer live (AccessHistory::retain): launch 0's write survives
// launch 1's start (live, no walk), goes at launch 2's (dead), and does not
// come back when launch 3 claims it live and unordered; kept live all
// along, it races with launch 3's read.
TEST(LaunchOrder, ARecordSurvivesStartsWhereItsLaunchIsLiveAndGoesAtTheFirstWhereNot) {
  for (const std::string& detector : allDetectorNames())
    for (bool keep : {false, true}) {
      auto d = makeDetector(detector, {});
      d->kernelBegin(launchInfo(0, {}, {}));
      d->memory(access(AccessType::Write, 0x1000, 1));
      d->kernelEnd();
      d->kernelBegin(launchInfo(1, {0}, {}));
      d->memory(access(AccessType::Write, 0x2000, 1));
      d->kernelEnd();
      d->kernelBegin(launchInfo(2, keep ? std::vector<uint32_t>{0, 1} : std::vector<uint32_t>{1}, {}));
      d->memory(access(AccessType::Write, 0x3000, 1));
      d->kernelEnd();
      d->kernelBegin(launchInfo(3, {0, 1, 2}, {0}));
      d->memory(access(AccessType::Read, 0x1000, 1));
      d->kernelEnd();
      EXPECT_EQ(d->races().races().size(), keep ? 1u : 0u) << detector << (keep ? ", kept" : ", retired");
    }
}

// A block that did not finish (its launch stopped early: no exit events)
// leaves its shared words' records; the next launch's start drops them even
// when every launch stays live (shared memory does not outlive its launch).
TEST(LaunchOrder, SharedWordsOfABlockThatDidNotFinishGoAtTheNextLaunch) {
  for (const std::string& detector : allDetectorNames()) {
    auto d = makeDetector(detector, {});
    d->kernelBegin(launchInfo(0, {}, {}));
    MemoryEvent write = access(AccessType::Write, 0x10, 1);
    write.space = MemorySpace::Shared;
    d->memory(write);
    d->kernelEnd();
    d->kernelBegin(launchInfo(1, {0}, {0}));
    MemoryEvent read = access(AccessType::Read, 0x10, 1);
    read.space = MemorySpace::Shared;
    d->memory(read);
    d->kernelEnd();
    EXPECT_TRUE(d->races().races().empty()) << detector;
  }
}

using cudart::StreamOrder;

// A programmatic dependent launch (KernelInfo::overlappedLaunch): launch 1 is
// ordered after launch 0 on its stream, but its accesses before
// griddepcontrol.wait (MemoryEvent::beforeDependencyWait) overlap launch 0.
// Launch 0 writes 0x1000 and 0x2000; launch 1 reads 0x1000 before its wait,
// 0x2000 after it, and writes 0x3000 (which launch 0 read) before it.
TEST(LaunchOrder, AccessesBeforeTheDependencyWaitOverlapThePredecessor) {
  for (const std::string& detector : allDetectorNames()) {
    auto d = makeDetector(detector, {});
    d->kernelBegin(launchInfo(0, {}, {}));
    d->memory(access(AccessType::Write, 0x1000, 1));
    d->memory(access(AccessType::Write, 0x2000, 2));
    d->memory(access(AccessType::Read, 0x3000, 3));
    d->kernelEnd();
    KernelInfo dependent = launchInfo(1, {0}, {});
    dependent.overlappedLaunch = 0;
    d->kernelBegin(dependent);
    MemoryEvent early = access(AccessType::Read, 0x1000, 1);
    early.beforeDependencyWait = 1;
    d->memory(early);
    MemoryEvent earlyWrite = access(AccessType::Write, 0x3000, 2);
    earlyWrite.beforeDependencyWait = 1;
    d->memory(earlyWrite);
    d->memory(access(AccessType::Read, 0x2000, 3));  // after the wait: ordered
    d->kernelEnd();
    auto races = d->races().races();
    ASSERT_EQ(races.size(), 2u) << detector;
    std::sort(races.begin(), races.end(), [](const Race& a, const Race& b) { return a.address < b.address; });
    EXPECT_EQ(races[0].address, 0x1000u) << detector;
    EXPECT_EQ(races[0].kind, RaceKind::WriteRead) << detector;
    EXPECT_EQ(races[1].address, 0x3000u) << detector;
    EXPECT_EQ(races[1].kind, RaceKind::ReadWrite) << detector;
    for (const Race& r : races) {
      EXPECT_EQ(r.first.launch, 0u) << detector;
      EXPECT_EQ(r.second.launch, 1u) << detector;
    }
  }
}

TEST(StreamOrderTest, StreamsEventsAndTheLegacyStream) {
  StreamOrder order;
  const uintptr_t s1 = 0x1000, s2 = 0x1010, nb = 0x1020, event = 0x2000;
  order.createStream(s1, false);
  order.createStream(s2, false);
  order.createStream(nb, true);
  EXPECT_TRUE(order.launch(s1, 0).unordered.empty());
  EXPECT_EQ(order.launch(s2, 1).unordered, std::vector<uint32_t>{0});  // two streams: unordered
  order.recordEvent(event, s1);
  order.waitEvent(s2, event);
  EXPECT_TRUE(order.launch(s2, 2).unordered.empty());  // waited for s1 through the event
  // The legacy stream waits for every blocking stream, and they for it.
  EXPECT_TRUE(order.launch(StreamOrder::kDefault, 3).unordered.empty());
  EXPECT_TRUE(order.launch(s1, 4).unordered.empty());
  // The non-blocking stream takes no part.
  EXPECT_EQ(order.launch(nb, 5).unordered, (std::vector<uint32_t>{0, 1, 2, 3, 4}));
  order.synchronizeDevice();
  EXPECT_FALSE(order.isLive(5));
  auto after = order.launch(nb, 6);
  EXPECT_TRUE(after.unordered.empty());
  EXPECT_TRUE(after.live.empty());
}

// A launch that let dependents start early (keptForDependents) stays live
// until its stream's next launch, which overlaps it only when programmatic.
TEST(StreamOrderTest, ALaunchThatTriggeredIsOverlappedByTheNextProgrammaticOne) {
  StreamOrder order;
  order.launch(StreamOrder::kDefault, 0);
  order.keptForDependents(StreamOrder::kDefault, 0);
  EXPECT_TRUE(order.isLive(0));
  auto dependent = order.launch(StreamOrder::kDefault, 1, /*programmatic=*/true);
  EXPECT_EQ(dependent.overlapped, 0u);
  EXPECT_EQ(dependent.live, std::vector<uint32_t>{0});
  EXPECT_TRUE(dependent.unordered.empty());
  EXPECT_FALSE(order.isLive(0));
  order.keptForDependents(StreamOrder::kDefault, 1);
  auto ordinary = order.launch(StreamOrder::kDefault, 2);  // not programmatic: ordered, and the hold ends
  EXPECT_EQ(ordinary.overlapped, UINT32_MAX);
  EXPECT_FALSE(order.isLive(1));
  EXPECT_EQ(order.launch(StreamOrder::kDefault, 3, /*programmatic=*/true).overlapped, UINT32_MAX);
}

// A stream created (or first named) after a launch starts from the host's
// frontier, and a blocking one from the legacy stream's too: a launch no
// existing stream can race with stays live while such a stream could.
TEST(StreamOrderTest, StreamsCreatedLaterKeepEarlierLaunchesLive) {
  StreamOrder order;
  const uintptr_t s1 = 0x1000, s2 = 0x1010, nb = 0x1020;
  EXPECT_FALSE(order.createStream(s1, false));
  order.launch(s1, 0);
  EXPECT_TRUE(order.isLive(0));  // the only stream is ordered after it; one created next is not
  EXPECT_FALSE(order.mayRaceWithExistingStreams(0));  // (so its repeats may be replayed)
  EXPECT_FALSE(order.createStream(s2, false));
  EXPECT_EQ(order.launch(s2, 1).unordered, std::vector<uint32_t>{0});
  EXPECT_EQ(order.launch(StreamOrder::kPerThread, 2).unordered, (std::vector<uint32_t>{0, 1}));
  order.synchronizeDevice();
  // The legacy stream's launch: any blocking stream created later waits for it.
  order.launch(StreamOrder::kDefault, 3);
  EXPECT_FALSE(order.isLive(3));
  // A non-blocking one does not: creating it says the launch went unchecked.
  EXPECT_TRUE(order.createStream(nb, true));
  order.synchronizeDevice();
  EXPECT_FALSE(order.createStream(0x1030, true));  // the host has waited for it since

  StreamOrder overlapping;  // a launch that let its stream's next one start early
  overlapping.createStream(s1, false);
  overlapping.launch(s1, 0);
  overlapping.keptForDependents(s1, 0);
  EXPECT_TRUE(overlapping.mayRaceWithExistingStreams(0));
}

TEST(StreamOrderTest, OnlyTheDefaultStreamKeepsNothingLive) {
  StreamOrder order;
  for (uint32_t i = 0; i < 3; ++i) {
    auto l = order.launch(StreamOrder::kDefault, i);
    EXPECT_TRUE(l.live.empty());
    EXPECT_FALSE(order.isLive(i));
  }
}

}  // namespace
}  // namespace predatar
