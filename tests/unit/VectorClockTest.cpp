#include "clock/VectorClock.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace predatar {
namespace {

// A plain map as the model of a vector clock.
using Model = std::map<std::pair<uint32_t, uint32_t>, Clock>;

Clock at(const Model& m, uint32_t b, uint32_t t) {
  auto it = m.find({b, t});
  return it == m.end() ? 0 : it->second;
}

class VectorClockTest : public ::testing::TestWithParam<bool> {};

TEST_P(VectorClockTest, MatchesAPlainMapUnderRandomOperations) {
  // Blocks in several chunks of the block list, some at a chunk's edge, for
  // chunks of 64 blocks (the default), 4 (a 16-block grid) and 16 (256).
  const uint32_t kBlocks[] = {0, 1, 3, 4, 15, 16, 63, 64, 65, 200};
  for (uint64_t gridBlocks : {0, 16, 256}) {
    for (int round = 0; round < 200; ++round) {
      ClockGeometry g = ClockGeometry::make(80, GetParam(), gridBlocks);  // a partial third warp
      std::mt19937 rng(uint32_t(7 + round + 1000 * gridBlocks));
      VectorClock a(&g), b(&g);
      Model ma, mb;
      std::vector<std::pair<VectorClock, Model>> kept;
      for (int op = 0; op < 60; ++op) {
        uint32_t block = kBlocks[rng() % std::size(kBlocks)], thread = rng() % 80;
        Clock v = rng() % 6;
        switch (rng() % 7) {
          case 0: a.set(block, thread, v), ma[{block, thread}] = v; break;
          case 1: b.set(block, thread, v), mb[{block, thread}] = v; break;
          case 2:
            a.setBlock(block, v);
            for (uint32_t t = 0; t < 80; ++t) ma[{block, t}] = v;
            break;
          case 3:
            b.setWarp(block, thread / 32, v);
            for (uint32_t t = thread / 32 * 32; t < std::min(80u, thread / 32 * 32 + 32); ++t) mb[{block, t}] = v;
            break;
          case 4:
            // (a copy of a kept alive makes a's list shared: the join then
            // compares before it copies, and must leave the copy as it was)
            if (rng() % 2) kept.emplace_back(a, ma);
            a.join(b);
            for (auto& [k, x] : mb) ma[k] = std::max(at(ma, k.first, k.second), x);
            break;
          case 6:  // join but for one block
            a.join(b, block);
            for (auto& [k, x] : mb)
              if (k.first != block) ma[k] = std::max(at(ma, k.first, k.second), x);
            break;
          case 5:  // a shared copy: later writes to either must not show in the other
            if (rng() % 2) b = a, mb = ma;
            else a = b, ma = mb;
            break;
        }
      }
      bool leq = true, leqExcept = true;
      for (uint32_t block : kBlocks)
        for (uint32_t t = 0; t < 80; ++t) {
          ASSERT_EQ(a.get(block, t), at(ma, block, t));
          ASSERT_EQ(b.get(block, t), at(mb, block, t));
          if (at(ma, block, t) > at(mb, block, t)) leq = false;
          Clock theirs = block == 1 && t == 33 ? 3 : at(mb, block, t);
          if (at(ma, block, t) > theirs) leqExcept = false;
        }
      for (const auto& [clock, model] : kept)
        for (uint32_t block : kBlocks)
          for (uint32_t t = 0; t < 80; ++t) ASSERT_EQ(clock.get(block, t), at(model, block, t));
      ASSERT_EQ(a.leq(b), leq);
      ASSERT_EQ(a.leq(b, 1, 33, 3), leqExcept);
    }
  }
}

TEST_P(VectorClockTest, UniformBlocksStaySmall) {
  ClockGeometry g = ClockGeometry::make(256, GetParam());
  VectorClock a(&g), b(&g);
  a.setBlock(3, 5);
  b.set(3, 17, 5);
  a.join(b);
  if (GetParam()) EXPECT_LT(a.bytes(), 100u);  // one compressed block entry
  else EXPECT_GT(a.bytes(), 256u * sizeof(Clock));
  EXPECT_EQ(a.get(3, 255), 5u);
}

// After a barrier built from atomics every thread of a grid holds the same
// clock, with an entry per block: copies share one block list and its
// arrays, and joining what a copy already covers keeps it shared.
TEST_P(VectorClockTest, CopiesShareTheirBlockList) {
  ClockGeometry g = ClockGeometry::make(1024, GetParam());
  VectorClock grid(&g);
  for (uint32_t block = 0; block < 264; ++block)
    for (uint32_t t = 0; t < 1024; t += 97) grid.set(block, t, block + t);  // expanded blocks
  const uint64_t one = grid.bytes();  // before anything shares it
  VectorClock dominated(&g);
  dominated.set(7, 0, 1);  // grid has 7 there
  std::vector<VectorClock> threads(1000, VectorClock(&g));
  for (VectorClock& t : threads) {
    t = grid;
    t.join(grid);
    t.join(dominated);
    t.set(5, 97, 5 + 97);  // unchanged
  }
  uint64_t all = 0;
  for (const VectorClock& t : threads) all += t.bytes();
  EXPECT_LE(all, one);  // each counts its share of one list (a private list each: 1000 times that)
  threads[0].set(5, 0, 1000);
  EXPECT_EQ(threads[1].get(5, 0), 5u);
  EXPECT_EQ(threads[0].get(5, 0), 1000u);
  EXPECT_EQ(grid.get(5, 0), 5u);
}

// One device lock taken in turn by a thread of each of 4096 blocks: each
// holder joins the lock's clock and releases its own time into it. A holder's
// clock differs from the lock's in one block, so it holds one chunk of the
// block list of its own, not a copy of the whole list (which would make the
// clocks quadratic in blocks: 4096 holders of lists up to 4096 blocks).
TEST_P(VectorClockTest, LockHoldersShareAllButOneChunk) {
  ClockGeometry g = ClockGeometry::make(128, GetParam());
  constexpr uint32_t kHolders = 4096;
  VectorClock lock(&g);
  std::vector<VectorClock> holders(kHolders, VectorClock(&g));
  for (uint32_t b = 0; b < kHolders; ++b) {
    holders[b].join(lock);       // acquire
    VectorClock release = holders[b];
    release.set(b, 0, 2);        // its own time
    lock.join(release);          // release
  }
  for (uint32_t b = 0; b < kHolders; ++b) ASSERT_EQ(lock.get(b, 0), 2u);
  EXPECT_EQ(holders[100].get(99, 0), 2u);
  EXPECT_EQ(holders[100].get(100, 0), 0u);
  uint64_t all = lock.bytes();
  for (const VectorClock& h : holders) all += h.bytes();
  // A private copy of the list each would be kHolders^2 / 2 block entries.
  uint64_t perHolder = all / kHolders;
  EXPECT_LT(perHolder, 16u * 1024) << "bytes of clocks per lock holder";
}

// stamp(): equal stamps mean equal clocks (ThreadClocks::SteadySince relies
// on it to skip lookups): every write renews it, copies share it, an empty
// clock has 0.
TEST_P(VectorClockTest, StampsChangeWithEveryWrite) {
  ClockGeometry g = ClockGeometry::make(256, GetParam());
  VectorClock a(&g), b(&g);
  EXPECT_EQ(a.stamp(), 0u);
  a.set(1, 3, 4);
  uint64_t afterSet = a.stamp();
  EXPECT_NE(afterSet, 0u);
  b = a;
  EXPECT_EQ(b.stamp(), afterSet);  // a copy: the same clock
  b.set(1, 3, 5);
  EXPECT_NE(b.stamp(), afterSet);
  EXPECT_EQ(a.stamp(), afterSet);  // the source is unchanged
  uint64_t beforeJoin = a.stamp();
  a.join(b);
  EXPECT_NE(a.stamp(), beforeJoin);
  for (auto write : {+[](VectorClock& c) { c.setBlock(2, 9); }, +[](VectorClock& c) { c.setWarp(2, 1, 11); }}) {
    uint64_t before = a.stamp();
    write(a);
    EXPECT_NE(a.stamp(), before);
  }
  VectorClock moved = std::move(a);
  EXPECT_NE(moved.stamp(), 0u);
  EXPECT_EQ(a.stamp(), 0u);  // NOLINT(bugprone-use-after-move): moved-from is empty
  moved.clear();
  EXPECT_EQ(moved.stamp(), 0u);
}

INSTANTIATE_TEST_SUITE_P(Compression, VectorClockTest, ::testing::Values(true, false));

}  // namespace
}  // namespace predatar
