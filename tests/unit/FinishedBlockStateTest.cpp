// What the vector-clock detectors keep of a block's shared memory: its
// atomics are checked like any other access of the block, a barrier of the
// whole block drops its words' records, and once the block has finished, its
// words' message-passing state goes with it.
#include "AccessHistoryFixture.h"
#include "analysis/MessagePassing.h"
#include "analysis/ThreadClocks.h"

namespace predatar {
namespace {

class SharedAtomicsTest : public AccessHistoryFixture {
 protected:
  static constexpr uint64_t kSharedWord = 0x40;
  void access(const AccessRecord& a) {
    uint64_t key = locationKey(MemorySpace::Shared, a.block, kSharedWord);
    history_.access(key, a, [](const AccessRecord&) { return false; }, log_);
  }
  static AccessRecord atomicAdd(uint32_t thread, uint64_t pc) {
    AccessRecord r = record(thread, pc, AccessType::AtomicRmw);
    r.strong = true;  // device scope: the default of an atomic on shared memory
    return r;
  }
};

TEST_F(SharedAtomicsTest, AtomicsOfOneBlockRaceWithAPlainWriteAndNotWithEachOther) {
  access(atomicAdd(3, 10));
  access(atomicAdd(5, 11));
  access(atomicAdd(3, 12));  // stands for thread 3's first
  EXPECT_TRUE(log_.races().empty());
  EXPECT_EQ(history_.records(), 2u);
  access(record(4, 13, AccessType::Write));
  ASSERT_EQ(log_.races().size(), 2u);
  EXPECT_EQ(log_.races()[0].first.origin.pc, 11u);
  EXPECT_EQ(log_.races()[1].first.origin.pc, 12u);
}

TEST_F(SharedAtomicsTest, AFinishedBlockLeavesNoRecords) {
  access(atomicAdd(3, 10));
  access(atomicAdd(5, 11));
  for (uint32_t warp = 0; warp < 4; ++warp) history_.exited(ExitEvent{WarpLanes{0, warp, ~0u}, {}});
  EXPECT_EQ(history_.records(), 0u);
}

// A barrier of all of a block's threads orders everything before it: the
// block's shared words drop their records (not another block's, not global
// words'); a barrier of some of its threads orders only those, and drops none.
TEST_F(SharedAtomicsTest, AWholeBlockBarrierDropsItsSharedRecords) {
  access(atomicAdd(3, 10));
  access(record(5, 11, AccessType::Write));  // (races with the add)
  AccessRecord otherBlock = record(5, 12, AccessType::Write);
  otherBlock.block = 1;
  access(otherBlock);
  history_.access(0x1000 >> 2, record(5, 13, AccessType::Write), [](const AccessRecord&) { return false; }, log_);
  ASSERT_EQ(history_.records(), 4u);
  history_.barrier(0, 127);  // one thread short
  EXPECT_EQ(history_.records(), 4u);
  history_.barrier(0, 128);
  EXPECT_EQ(history_.records(), 2u);  // block 1's shared word and the global word
  size_t races = log_.races().size();
  access(record(6, 14, AccessType::Write));  // after the barrier: nothing left to race with
  EXPECT_EQ(log_.races().size(), races);
  EXPECT_EQ(history_.records(), 3u);
}

// A tile in shared memory that every warp of the block reads between two
// barriers (a GEMM's B tile): the word's records grow to a heap block each
// interval. The barrier empties it but keeps the block for the next interval
// (freeing it and growing it again was a fifth of matrixMul's run in malloc).
TEST_F(SharedAtomicsTest, AWholeBlockBarrierKeepsItsSharedWordsHeapBlocks) {
  auto readByEveryWarp = [&](uint64_t pc) {
    for (uint32_t warp = 0; warp < 4; ++warp) access(record(warp * 32, pc, AccessType::Read));
  };
  readByEveryWarp(20);
  ASSERT_EQ(history_.records(), 4u);
  int64_t heap = history_.recordHeapBytes();
  ASSERT_GT(heap, 0) << "four warps' reads outgrow the word's inline record";
  history_.barrier(0, 128);
  EXPECT_EQ(history_.records(), 0u);
  EXPECT_EQ(history_.recordHeapBytes(), heap);
  readByEveryWarp(30);
  EXPECT_EQ(history_.records(), 4u);
  EXPECT_EQ(history_.recordHeapBytes(), heap) << "the next interval reuses the heap block";
  EXPECT_TRUE(log_.races().empty());
  // An outsized pile (every thread's read at its own epoch: a record each) is
  // not kept for the next interval.
  history_.barrier(0, 128);
  for (uint32_t thread = 0; thread < 128; ++thread) access(record(thread, 40, AccessType::Read, thread + 1));
  ASSERT_GT(history_.records(), ShadowPages::kKeptRecords);
  history_.barrier(0, 128);
  EXPECT_EQ(history_.recordHeapBytes(), 0);
}

// A block's strong writes to its shared words form chains; they are dropped
// when its last thread exits (AccessHistory::exited says so), and another
// block's are kept.
TEST(MessagePassingTest, AFinishedBlocksSharedChainsAreDropped) {
  KernelInfo kernel;
  kernel.grid = Dim3{2, 1, 1};
  kernel.block = Dim3{32, 1, 1};
  ClockGeometry geometry = ClockGeometry::make(32, true, 2);
  ThreadTable threads;
  threads.reset(kernel, &geometry);
  MessagePassing messages;
  messages.reset(32, &geometry);
  FinishedBlocks finished;  // the access history's, which saw every word
  finished.reset(kernel);
  auto publish = [&](uint32_t block) {
    ThreadClocks& t = threads.at(block, 0);
    messages.fence(t, Scope::Device, true);  // a release: the chain keeps H at the fence
    uint64_t key = locationKey(MemorySpace::Shared, block, 0x10);
    finished.used(key);
    messages.chainAdd(t, key, Scope::Device, Origin{});
  };
  publish(0);
  publish(1);
  for (uint32_t block : {0u, 1u}) messages.exit(threads.at(block, 0));
  uint64_t twoChains = messages.bytes();
  ASSERT_TRUE(finished.finishes(ExitEvent{WarpLanes{0, 0, ~0u}, {}}));  // block 0 finishes
  messages.blockFinished(0, finished);
  EXPECT_LT(messages.bytes(), twoChains);

  // Block 1's chain is still there: its thread 1 takes the release it holds.
  ThreadClocks& reader = threads.at(1, 1);
  messages.strongRead(reader, locationKey(MemorySpace::Shared, 1, 0x10), Scope::Device, 100, false, Origin{});
  messages.fence(reader, Scope::Device, true);
  EXPECT_GE(reader.hb.get(1, 0), 1u);
}

}  // namespace
}  // namespace predatar
