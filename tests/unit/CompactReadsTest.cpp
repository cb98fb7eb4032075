// AccessHistory::compactReads: a read-shared word keeps one read record per
// instruction for the blocks that finished without publishing anything, and
// every later access reports as it did with all of them.
#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>

#include "analysis/AccessHistory.h"

namespace predatar {
namespace {

constexpr uint64_t kWord = 0x100;
constexpr uint32_t kBlocks = 8, kThreads = 32;

class CompactReadsTest : public ::testing::Test {
 protected:
  CompactReadsTest() {
    setenv("PREDATAR_COMPACT_READS_AT", "2", 1);  // read when the history is made
    history_ = std::make_unique<AccessHistory>();
    unsetenv("PREDATAR_COMPACT_READS_AT");
    kernel_.grid = Dim3{kBlocks, 1, 1};
    kernel_.block = Dim3{kThreads, 1, 1};
    kernel_.launch = 1;
    history_->beginLaunch(kernel_);
    log_.beginKernel("k");
  }
  static AccessRecord access(uint32_t block, uint32_t thread, uint64_t pc, AccessType type = AccessType::Read) {
    AccessRecord r;
    r.block = block;
    r.thread = thread;
    r.clock = 1;
    r.type = type;
    r.origin.pc = pc;
    r.origin.seq = pc;
    return r;
  }
  // Every thread of `block` reads the word at `pc`, then exits.
  void readAndFinish(uint32_t block, uint64_t pc = 10) {
    for (uint32_t t = 0; t < kThreads; ++t) run(access(block, t, pc));
    ExitEvent exit;
    exit.lanes = WarpLanes{block, 0, ~LaneMask(0)};
    history_->exited(exit);
  }
  void run(const AccessRecord& a, uint32_t orderedBlock = UINT32_MAX) {
    history_->access(kWord, a, [&](const AccessRecord& r) { return r.block == orderedBlock; }, log_);
  }
  KernelInfo kernel_;
  std::unique_ptr<AccessHistory> history_;
  RaceLog log_;
};

// (A word is compacted whenever its record count reaches a power of two, by
// any plain read, so the counts below are bounds.)
TEST_F(CompactReadsTest, FinishedBlocksReadsMergeByInstruction) {
  for (uint32_t b = 0; b < 6; ++b) readAndFinish(b);
  EXPECT_LE(history_->records(), 2u) << "block 0's, and the last block's until the next doubling";
  run(access(7, 1, 30, AccessType::Write));
  ASSERT_EQ(log_.races().size(), 1u);
  EXPECT_EQ(log_.races()[0].first.block, 0u) << "the report names the first reader, as before";
  EXPECT_EQ(log_.races()[0].first.thread, 0u);
}

// Block 0 published (here a device-scoped fence) before it finished: a later
// access of another block may be ordered after its reads, so they stay apart,
// and the first of the others answers for them.
TEST_F(CompactReadsTest, APublishingBlockKeepsItsReads) {
  history_->notePublication(0, Scope::Device);  // a device-scoped fence, say
  for (uint32_t b = 0; b < 4; ++b) readAndFinish(b);
  EXPECT_LE(history_->records(), 3u);  // block 0's, block 1's for blocks 1-3, maybe block 3's
  run(access(5, 1, 30, AccessType::Write), /*orderedBlock=*/0);
  ASSERT_EQ(log_.races().size(), 1u) << "ordered after block 0's reads, not after block 1's";
  EXPECT_EQ(log_.races()[0].first.block, 1u);
}

// What stays in the block publishes nothing: a block-scoped fence, an atomic
// on shared memory, a plain global write.
TEST_F(CompactReadsTest, WhatStaysInTheBlockDoesNotPublish) {
  history_->notePublication(0, Scope::Block);
  MemoryEvent atomic;
  atomic.lanes = WarpLanes{0, 0, 1};
  atomic.type = AccessType::AtomicRmw;
  atomic.space = MemorySpace::Shared;
  history_->notePublication(atomic, /*strong=*/true);
  MemoryEvent store;
  store.lanes = WarpLanes{0, 0, 1};
  store.type = AccessType::Write;
  history_->notePublication(store, /*strong=*/false);
  for (uint32_t b = 0; b < 6; ++b) readAndFinish(b);
  EXPECT_LE(history_->records(), 2u) << "block 0's reads merged with the others'";
}

TEST_F(CompactReadsTest, RunningBlocksAndOtherInstructionsStayApart) {
  readAndFinish(0, 10);
  readAndFinish(1, 11);  // another instruction
  for (uint32_t t = 0; t < kThreads; ++t) run(access(2, t, 10));  // block 2 still runs
  run(access(3, 0, 10));
  EXPECT_EQ(history_->records(), 4u);
}

// firstReport remembers 8 (instruction, kind) pairs per access: a word with
// more would report duplicates, so it is left as it is.
TEST_F(CompactReadsTest, NineInstructionsAreLeftAlone) {
  for (uint32_t t = 0; t < 9; ++t) run(access(7, t, 20 + t));  // a running block, nine instructions
  for (uint32_t b = 0; b < 4; ++b) readAndFinish(b);
  run(access(6, 0, 10));
  EXPECT_EQ(history_->records(), 9u + 4u + 1u);
}

}  // namespace
}  // namespace predatar
