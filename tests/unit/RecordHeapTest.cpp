// AccessHistory counts the heap its words' record vectors hold (whole
// capacity and malloc's header), gives back what a shrunken vector no longer
// needs, and charges each history with its own heap when two share a thread
// (hb and gwcp with --threads 1).
#include <gtest/gtest.h>

#include "AccessHistoryFixture.h"
#include "analysis/AccessHistory.h"

namespace predatar {
namespace {

constexpr uint64_t kWord = 0x100;
using Allocator = CountedRecordAllocator<PackedRecord>;

AccessRecord access(uint32_t block, uint64_t pc, AccessType type = AccessType::Read) {
  AccessRecord r;
  r.block = block;
  r.thread = 0;
  r.clock = 1;
  r.type = type;
  r.origin.pc = pc;
  r.origin.seq = pc;
  return r;
}

class RecordHeapTest : public AccessHistoryFixture {
 protected:
  RecordHeapTest() : AccessHistoryFixture(64) { other_.beginLaunch(kernel_); }
  // Blocks [0, n) read the word; none is ordered with another.
  void readByBlocks(AccessHistory& history, uint32_t n) {
    for (uint32_t b = 0; b < n; ++b)
      history.access(kWord, access(b, 10), [](const AccessRecord&) { return false; }, log_);
  }
  AccessHistory other_;  // a second detector's, on the same thread
};

TEST_F(RecordHeapTest, AWordsRecordVectorIsCountedWholeWithItsHeader) {
  readByBlocks(history_, 1);
  EXPECT_EQ(history_.recordHeapBytes(), 0) << "one record stays in its word";
  readByBlocks(history_, 5);  // blocks 0-4: block 0 again joins its own record
  ASSERT_EQ(history_.records(), 5u);
  EXPECT_GE(history_.recordHeapBytes(), Allocator::heapBytes(5));
  EXPECT_LE(history_.recordHeapBytes(), Allocator::heapBytes(8));
  EXPECT_GE(history_.peakBytes(), uint64_t(history_.recordHeapBytes())) << "--stats shows what RSS shows";
}

TEST_F(RecordHeapTest, AVectorLeftWithAFewRecordsGivesItsHeapBack) {
  readByBlocks(history_, 40);
  int64_t grown = history_.recordHeapBytes();
  EXPECT_GE(grown, Allocator::heapBytes(40));
  // A write of block 0 ordered after every read stands for them all.
  history_.access(kWord, access(0, 20, AccessType::Write), [](const AccessRecord&) { return true; }, log_);
  EXPECT_EQ(history_.records(), 1u);
  EXPECT_EQ(history_.recordHeapBytes(), 0) << "back in the word's inline slot";
  EXPECT_GE(history_.peakBytes(), uint64_t(grown)) << "the peak remembers the grown vector";
}

TEST_F(RecordHeapTest, TwoHistoriesOnOneThreadAreChargedApart) {
  readByBlocks(history_, 20);
  readByBlocks(other_, 3);
  EXPECT_GE(history_.recordHeapBytes(), Allocator::heapBytes(20));
  EXPECT_LE(other_.recordHeapBytes(), Allocator::heapBytes(4));
  KernelInfo next = kernel_;
  next.launch = 2;
  next.liveLaunches = {};  // nothing outlives launch 1
  history_.beginLaunch(next);
  EXPECT_EQ(history_.recordHeapBytes(), 0);
  EXPECT_GE(other_.recordHeapBytes(), Allocator::heapBytes(3));
}

// A word's strong device-scoped records are kept by block (a histogram's
// atomics): in block order whatever order the blocks came in, so that the
// report of a later conflicting access names the same earlier access in
// every detector instance; and their heap is counted like other records'.
TEST_F(RecordHeapTest, StrongDeviceRecordsAreKeptInBlockOrderAndCounted) {
  auto atomicOf = [](uint32_t block) {
    AccessRecord r = access(block, 30, AccessType::AtomicRmw);
    r.strong = true;
    r.origin.seq = 100 + block;
    return r;
  };
  for (uint32_t block : {5u, 2u, 7u, 3u})
    history_.access(kWord, atomicOf(block), [](const AccessRecord&) { return false; }, log_);
  for (uint32_t block = 8; block < 40; ++block)
    history_.access(kWord, atomicOf(block), [](const AccessRecord&) { return false; }, log_);
  EXPECT_TRUE(log_.races().empty()) << "device-scoped atomics do not race with each other";
  EXPECT_EQ(history_.records(), 36u);
  EXPECT_GE(history_.recordHeapBytes(), int64_t(36 * sizeof(PackedRecord))) << "they live on the record heap";
  // A plain write of block 0, ordered after none of them: one report (one per
  // earlier instruction), naming block 2's atomic, the first in block order.
  history_.access(kWord, access(0, 40, AccessType::Write), [](const AccessRecord&) { return false; }, log_);
  ASSERT_EQ(log_.races().size(), 1u);
  EXPECT_EQ(log_.races()[0].first.block, 2u);
  EXPECT_EQ(log_.races()[0].first.origin.seq, 102u);
}

}  // namespace
}  // namespace predatar
