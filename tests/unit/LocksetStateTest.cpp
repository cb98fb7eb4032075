// LocksetDetector keeps a thread's state (locks, last barriers and fences)
// only once the thread takes part in a barrier, fence or lock operation: a
// big grid whose threads only load and store keeps none, and a state that
// exists still decides check 3 (a fence after the earlier access). Also: the
// records a warp event keeps (a broadcast read as one), and which of its
// lanes race with each other.
#include <gtest/gtest.h>

#include <array>

#include "analysis/Detector.h"
#include "analysis/LocksetDetector.h"
#include "events/Trace.h"

namespace predatar {
namespace {

constexpr uint32_t kBlocks = 64;

MemoryEvent write(uint32_t block, uint64_t address, uint64_t seq) {
  MemoryEvent e;
  e.lanes = {block, 0, 0xffffffffu};
  e.type = AccessType::Write;
  for (uint32_t lane = 0; lane < 32; ++lane) e.address[lane] = address + 4 * lane;
  e.origin = {seq, seq, Origin::kNoSource};
  return e;
}

// Every block writes its own 32 words; block 1 then writes block 0's (a race
// unless block 0 fenced device-wide after its write, `fenced`).
Trace grid(bool fenced) {
  Trace t;
  t.kernel.grid = {kBlocks, 1, 1};
  t.kernel.block = {32, 1, 1};
  uint64_t seq = 1;
  for (uint32_t b = 0; b < kBlocks; ++b) t.events.push_back(write(b, 0x10000 + 128 * b, seq++));
  if (fenced) t.events.push_back(FenceEvent{{0, 0, 0xffffffffu}, Scope::Device, {seq, seq, Origin::kNoSource}}), ++seq;
  t.events.push_back(write(1, 0x10000, seq++));
  return t;
}

TEST(LocksetState, ThreadsThatOnlyAccessMemoryKeepNoState) {
  auto d = makeDetector("lockset", {});
  replay(grid(false), *d);
  EXPECT_EQ(d->stats().peakThreadClockBytes, 0u);
  EXPECT_FALSE(d->races().locations().empty()) << "block 1's write races with block 0's";
}

TEST(LocksetState, AFencingThreadsStateIsKeptAndCounted) {
  auto d = makeDetector("lockset", {});
  replay(grid(true), *d);
  EXPECT_GT(d->stats().peakThreadClockBytes, 0u);
  EXPECT_TRUE(d->races().locations().empty()) << "block 0 fenced after its write (ScoRD's check 3)";
}

// Every lane of block 0's warp 0 reads one word, in one warp event or one
// event a lane; lane 5 then fences device-wide; block 1 writes the word when
// `write`.
Trace broadcastRead(bool oneEvent, bool write) {
  Trace t;
  t.kernel.grid = {2, 1, 1};
  t.kernel.block = {32, 1, 1};
  uint64_t seq = 1;
  auto read = [&](LaneMask mask) {
    MemoryEvent e;
    e.lanes = {0, 0, mask};
    e.type = AccessType::Read;
    for (uint32_t lane = 0; lane < 32; ++lane) e.address[lane] = 0x1000;
    e.origin = {seq, 7, Origin::kNoSource};  // (one instruction)
    ++seq;
    t.events.push_back(e);
  };
  if (oneEvent) read(0xffffffffu);
  for (uint32_t lane = 0; !oneEvent && lane < 32; ++lane) read(LaneMask(1) << lane);
  t.events.push_back(FenceEvent{{0, 0, 1u << 5}, Scope::Device, {seq, seq, Origin::kNoSource}}), ++seq;
  if (write) {
    MemoryEvent w = ::predatar::write(1, 0x1000, seq);
    w.lanes.mask = 1;
    t.events.push_back(w);
  }
  return t;
}

// A warp's broadcast read keeps one record, not 32, and each of its lanes
// still answers for itself: the same occurrences, the same first reader.
TEST(LocksetState, AWarpsBroadcastReadIsOneRecord) {
  auto shadowBytes = [](const Trace& t) {
    auto d = makeDetector("lockset", {});
    replay(t, *d);
    return d->stats().peakShadowBytes;
  };
  Trace oneLane = broadcastRead(true, false);
  std::get<MemoryEvent>(oneLane.events[0]).lanes.mask = 1;
  // (The word's page costs the same in all three.)
  EXPECT_EQ(shadowBytes(broadcastRead(true, false)), shadowBytes(oneLane)) << "one record, as one lane's read";
  EXPECT_GT(shadowBytes(broadcastRead(false, false)), shadowBytes(oneLane) + 16 * sizeof(LocksetDetector::Record))
      << "32 reads of their own: 32 records";
  for (bool oneEvent : {true, false}) {
    auto d = makeDetector("lockset", {});
    replay(broadcastRead(oneEvent, true), *d);
    ASSERT_EQ(d->races().races().size(), 1u);
    EXPECT_EQ(d->races().occurrences(), 31u) << "every lane but the fenced one, lane 5";
    EXPECT_EQ(d->races().races()[0].first.thread, 0u);
  }
}

// A lane that reads the word again leaves the warp event's record for its
// own; the others stay in it, and each lane races once.
TEST(LocksetState, ALaneThatReadsAgainLeavesItsWarpsRecord) {
  Trace t = broadcastRead(true, false);
  MemoryEvent again = std::get<MemoryEvent>(t.events[0]);
  again.lanes.mask = 1u << 3;
  again.origin = {10, 9, Origin::kNoSource};
  t.events.push_back(again);
  MemoryEvent w = write(1, 0x1000, 11);
  w.lanes.mask = 1;
  t.events.push_back(w);
  auto d = makeDetector("lockset", {});
  replay(t, *d);
  EXPECT_EQ(d->races().occurrences(), 31u);
  ASSERT_EQ(d->races().races().size(), 2u) << "lane 3's second read is another instruction";
  EXPECT_EQ(d->races().races()[0].count + d->races().races()[1].count, 31u);
}

// A barrier of every thread of a block drops its shared words' records
// (check 1 clears them with any later access); one that threads which
// exited missed keeps them: their accesses since their last barrier race
// with the barrier's threads' later ones.
Trace sharedWordAcrossBarrier(bool warp1Exits) {
  Trace t;
  t.kernel.grid = {1, 1, 1};
  t.kernel.block = {64, 1, 1};
  uint64_t seq = 1;
  auto access = [&](uint32_t warp, AccessType type) {
    MemoryEvent e;
    e.lanes = {0, warp, 1};
    e.type = type;
    e.space = MemorySpace::Shared;
    e.address[0] = 0x40;
    e.origin = {seq, 100 + seq, Origin::kNoSource};
    ++seq;
    t.events.push_back(e);
  };
  access(1, AccessType::Write);
  BarrierEvent barrier;
  for (uint32_t thread = 0; thread < (warp1Exits ? 32u : 64u); ++thread) barrier.threads.push_back(thread);
  if (warp1Exits) t.events.push_back(ExitEvent{{0, 1, 0xffffffffu}, {seq, seq, Origin::kNoSource}}), ++seq;
  barrier.origin = {seq, seq, Origin::kNoSource};
  ++seq;
  t.events.push_back(barrier);
  access(0, AccessType::Read);
  return t;
}

TEST(LocksetState, AWholeBarrierOrdersSharedWordsButNotAnExitedThreadsAccesses) {
  for (bool warp1Exits : {false, true}) {
    auto d = makeDetector("lockset", {});
    replay(sharedWordAcrossBarrier(warp1Exits), *d);
    EXPECT_EQ(d->races().races().size(), warp1Exits ? 1u : 0u) << (warp1Exits ? "exited before the barrier" : "both took part");
  }
}

// Lanes of one warp event that write the same word race (same-instruction
// intra-warp), whatever order the lanes' words come in; lanes whose words
// strictly increase or decrease (a tile's row, its anti-diagonal) share none.
TEST(LocksetState, LanesOfOneWriteRaceOnlyOnAWordTheyShare) {
  auto racesOf = [](std::array<uint64_t, 4> words) {
    MemoryEvent e = write(0, 0, 1);
    e.lanes.mask = 0xf;
    for (uint32_t lane = 0; lane < 4; ++lane) e.address[lane] = 0x10000 + 4 * words[lane];
    Trace t;
    t.kernel.grid = {1, 1, 1};
    t.kernel.block = {32, 1, 1};
    t.events.push_back(e);
    auto d = makeDetector("lockset", {});
    replay(t, *d);
    return d->races().occurrences();
  };
  EXPECT_EQ(racesOf({0, 1, 2, 3}), 0u);
  EXPECT_EQ(racesOf({48, 32, 16, 0}), 0u) << "decreasing";
  EXPECT_EQ(racesOf({48, 32, 32, 0}), 1u) << "lanes 1 and 2 share a word";
  EXPECT_EQ(racesOf({48, 0, 32, 0}), 1u) << "lanes 1 and 3";
  EXPECT_EQ(racesOf({5, 5, 5, 5}), 6u) << "every pair of the four";
}

// A launch whose blocks never finish (they run out of memory first, say)
// still has its metadata sampled as it grows.
TEST(LocksetState, MetadataIsSampledBeforeAnyBlockFinishes) {
  auto d = makeDetector("lockset", {});
  KernelInfo kernel;
  kernel.grid = {1, 1, 1};
  kernel.block = {32, 1, 1};
  d->kernelBegin(kernel);
  for (uint64_t seq = 1; seq <= (1 << 17); ++seq) {
    MemoryEvent e = write(0, 0x10000 + 4 * seq, seq);
    e.type = AccessType::Read;
    e.lanes.mask = 1;  // (a word an event)
    d->memory(e);
  }
  EXPECT_GT(d->stats().peakShadowBytes, 0u);
}

}  // namespace
}  // namespace predatar
