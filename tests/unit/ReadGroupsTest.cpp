// AccessHistory's read groups: plain reads of a word by threads of one warp
// at one instruction and epoch share one record, and each thread of a group
// still answers for itself when a write comes.
#include "AccessHistoryFixture.h"

namespace predatar {
namespace {

constexpr uint64_t kWord = 0x100;

class ReadGroupsTest : public AccessHistoryFixture {
 protected:
  static AccessRecord read(uint32_t thread, uint64_t pc, Clock clock = 1) {
    return record(thread, pc, AccessType::Read, clock);
  }
  // Threads below `orderedBelow` are ordered before every access.
  void access(const AccessRecord& a, uint32_t orderedBelow = 0) {
    history_.access(kWord, a, [&](const AccessRecord& r) { return r.thread < orderedBelow; }, log_);
  }
};

TEST_F(ReadGroupsTest, ReadersOfAWarpShareOneRecord) {
  for (uint32_t t = 0; t < 64; ++t) access(read(t, 10));
  EXPECT_EQ(history_.records(), 2u);  // one per warp
  access(read(5, 10));  // the same read again: nothing to add
  EXPECT_EQ(history_.records(), 2u);
  for (uint32_t t = 127; t >= 64; t -= 2) access(read(t, 10));  // odd threads, downwards
  EXPECT_EQ(history_.records(), 4u);
  access(read(3, 10, /*clock=*/2));  // another epoch: thread 3 leaves its group
  EXPECT_EQ(history_.records(), 5u);
  access(read(4, 10, /*clock=*/2));  // and thread 4 joins it
  EXPECT_EQ(history_.records(), 5u);
  EXPECT_TRUE(log_.races().empty());
}

// Readers come mostly in warp order (blocks run one after another), not
// always: a warp's later lane finds its warp's record near the end of the
// word's reads and far from it, and a new warp goes in its place.
TEST_F(ReadGroupsTest, ReadersOutOfOrderFindTheirWarp) {
  for (uint32_t w = 0; w < 32; w += 2) access(read(w * 32, 10));  // lane 0 of even warps, in order
  EXPECT_EQ(history_.records(), 16u);
  access(read(28 * 32 + 5, 10));  // near the end
  access(read(2 * 32 + 1, 10));   // far from it
  access(read(30 * 32 + 7, 10));
  EXPECT_EQ(history_.records(), 16u);
  access(read(27 * 32, 10));  // new warps between them
  access(read(3 * 32, 10));
  EXPECT_EQ(history_.records(), 18u);
  access(read(27 * 32 + 9, 10));  // whose other lanes find them
  access(read(3 * 32 + 9, 10));
  access(read(0 * 32 + 9, 10));
  EXPECT_EQ(history_.records(), 18u);
  EXPECT_TRUE(log_.races().empty());
}

// The lanes of a warp event that all store one word (`*over = true`) share a
// record too, as a strong access's do; each lane still races with the
// others, one report per access, and a write ordered after them all drops
// the whole group.
TEST_F(ReadGroupsTest, WritersOfAWarpEventShareOneRecord) {
  auto store = [](uint32_t thread, uint64_t seq) {
    AccessRecord w = record(thread, 30, AccessType::Write);
    w.origin.seq = seq;  // one warp event per warp
    return w;
  };
  for (uint32_t t = 0; t < 64; ++t) access(store(t, t / 32 + 1));
  EXPECT_EQ(history_.records(), 2u);  // one per warp event
  EXPECT_EQ(log_.races().size(), 1u);  // one unique race (thread 0's store and thread 1's)
  EXPECT_EQ(log_.occurrences(), 63u);  // every store after the first found one
  access(store(5, 9));  // a later event of thread 5: ordered after no other lane
  EXPECT_EQ(history_.records(), 3u);
  AccessRecord last = store(100, 10);
  access(last, /*orderedBelow=*/64);
  EXPECT_EQ(history_.records(), 1u);  // all ordered before it and subsumed: only it stays
  EXPECT_EQ(log_.races().size(), 1u);
}

TEST_F(ReadGroupsTest, WriteChecksEveryThreadAndKeepsTheUnordered) {
  for (uint32_t t = 0; t < 64; ++t) access(read(t, 10));
  AccessRecord write = read(100, 20);
  write.type = AccessType::Write;
  access(write, /*orderedBelow=*/40);
  ASSERT_EQ(log_.races().size(), 1u);
  EXPECT_EQ(log_.races()[0].first.thread, 40u);  // the first thread the write is not ordered after
  EXPECT_EQ(log_.races()[0].first.origin.pc, 10u);
  EXPECT_EQ(history_.records(), 2u);  // threads 40..63, and the write
  // A second write ordered after all: the ordered threads are gone, 40..63 still race.
  AccessRecord second = read(101, 30);
  second.type = AccessType::Write;
  access(second, /*orderedBelow=*/50);
  ASSERT_EQ(log_.races().size(), 3u);  // with 50..63 and with the first write
}

TEST_F(ReadGroupsTest, WriteInTheMiddleSplitsTheGroup) {
  for (uint32_t t = 0; t < 64; ++t) access(read(t, 10));
  AccessRecord write = read(20, 20);  // thread 20 itself writes: its own read is ordered
  write.type = AccessType::Write;
  history_.access(kWord, write, [&](const AccessRecord& r) { return r.thread >= 10 && r.thread < 30; }, log_);
  ASSERT_EQ(log_.races().size(), 1u);
  EXPECT_EQ(log_.races()[0].first.thread, 0u);
  EXPECT_EQ(history_.records(), 3u);  // 0..9, 30..63, the write
  // The runs left are still groups: a read by thread 9 again at pc 10 adds nothing.
  access(read(9, 10));
  EXPECT_EQ(history_.records(), 3u);
}

TEST_F(ReadGroupsTest, OwnReadAtAnotherInstructionLeavesTheGroup) {
  for (uint32_t t = 0; t < 8; ++t) access(read(t, 10));
  access(read(0, 11));  // first thread
  access(read(7, 11));  // last thread
  access(read(4, 11));  // middle
  // Groups: 1, 2, 3, 5, 6 at pc 10; 0, 4, 7 at pc 11.
  EXPECT_EQ(history_.records(), 2u);
  AccessRecord write = read(50, 20);
  write.type = AccessType::Write;
  access(write);
  std::set<std::pair<uint32_t, uint64_t>> raced;
  for (const Race& r : log_.races()) raced.insert({r.first.thread, r.first.origin.pc});
  // One report per earlier instruction: the first unordered reader of each.
  EXPECT_EQ(raced, (std::set<std::pair<uint32_t, uint64_t>>{{1, 10}, {0, 11}}));
}

// Warps that come to a word in order (as predatar schedules them) each add
// their read last, and the word's records are those that reads in any order
// leave: one a warp, in warp order (AccessHistory::readGoesLast).
TEST_F(ReadGroupsTest, ReadsInWarpOrderGoLast) {
  for (uint32_t w = 0; w < 4; ++w) access(read(w * 32 + 3, 10));
  std::vector<PackedRecord> inOrder = history_.recordsOf(kWord);
  ASSERT_EQ(inOrder.size(), 4u);
  for (uint32_t w = 0; w < 4; ++w) EXPECT_EQ(inOrder[w].thread, w * 32 + 3);
  AccessHistory other;
  other.beginLaunch(kernel_);
  for (uint32_t w : {2u, 0u, 3u, 1u})
    other.access(kWord, read(w * 32 + 3, 10), [](const AccessRecord&) { return false; }, log_);
  EXPECT_EQ(other.recordsOf(kWord), inOrder);
  EXPECT_TRUE(log_.races().empty());
}

// A read that would go last still meets what is not among the word's records:
// a device-scoped atomic kept apart (a race), and reads of an earlier launch
// that it stands for from now on (they go).
TEST_F(ReadGroupsTest, AReadGoingLastStillMeetsAtomicsKeptApartAndEarlierLaunches) {
  access(read(0, 10));
  AccessRecord atomic = read(33, 20);
  atomic.type = AccessType::AtomicRmw;
  atomic.strong = true;
  atomic.block = 1;
  access(atomic, /*orderedBelow=*/1);  // after thread 0's read
  EXPECT_TRUE(log_.races().empty());
  ASSERT_EQ(history_.records(), 2u);  // the read, and the atomic apart
  access(read(64, 30));  // after warp 0's read, and unordered with the atomic
  ASSERT_EQ(log_.races().size(), 1u);
  EXPECT_EQ(log_.races()[0].first.origin.pc, 20u);

  AccessHistory later;
  later.beginLaunch(kernel_);
  for (uint32_t w = 0; w < 2; ++w)
    later.access(kWord, read(w * 32, 10), [](const AccessRecord&) { return false; }, log_);
  KernelInfo next = kernel_;
  next.launch = kernel_.launch + 1;  // on the same stream: ordered after the first,
  next.liveLaunches = {kernel_.launch};  // whose records stay (another stream may race with them)
  later.beginLaunch(next);
  later.access(kWord, read(3 * 32, 10), [](const AccessRecord&) { return false; }, log_);
  std::vector<PackedRecord> left = later.recordsOf(kWord);
  ASSERT_EQ(left.size(), 1u) << "the first launch's reads went";
  EXPECT_EQ(left[0].thread, 3u * 32);
}

}  // namespace
}  // namespace predatar
