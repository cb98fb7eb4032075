// LocksetDetector keeps a thread's state (locks, last barriers and fences)
// only once the thread takes part in a barrier, fence or lock operation: a
// big grid whose threads only load and store keeps none, and a state that
// exists still decides check 3 (a fence after the earlier access).
#include <gtest/gtest.h>

#include "analysis/Detector.h"
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

}  // namespace
}  // namespace predatar
