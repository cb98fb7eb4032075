// AccessHistory's same-thread case: a thread accessing its own word again
// replaces its one record in place, and what later accesses see (races, the
// access named in them, records kept) is what the general path leaves.
#include "AccessHistoryFixture.h"

namespace predatar {
namespace {

constexpr uint64_t kWord = 0x200;

class OwnRecordTest : public AccessHistoryFixture {
 protected:
  static AccessRecord at(uint32_t thread, uint64_t pc, AccessType type, Clock clock = 1) {
    return record(thread, pc, type, clock);
  }
  // Nothing is ordered across threads.
  void access(const AccessRecord& a) {
    history_.access(kWord, a, [](const AccessRecord&) { return false; }, log_);
  }
};

TEST_F(OwnRecordTest, RepeatedWritesKeepOneRecordAndTheLatestRaces) {
  for (uint64_t pc = 10; pc < 15; ++pc) access(at(3, pc, AccessType::Write, Clock(pc)));
  EXPECT_EQ(history_.records(), 1u);
  access(at(7, 20, AccessType::Read));
  ASSERT_EQ(log_.races().size(), 1u);
  EXPECT_EQ(log_.races()[0].first.thread, 3u);
  EXPECT_EQ(log_.races()[0].first.origin.pc, 14u);  // the last write stands for the others
}

TEST_F(OwnRecordTest, WriteReplacesOwnReadButReadKeepsOwnWrite) {
  access(at(3, 10, AccessType::Read));
  access(at(3, 11, AccessType::Write));
  EXPECT_EQ(history_.records(), 1u);  // the write stands for the read
  access(at(3, 12, AccessType::Read));
  EXPECT_EQ(history_.records(), 2u);  // a read does not stand for a write
  access(at(9, 13, AccessType::Write));
  ASSERT_EQ(log_.races().size(), 2u);  // with the write (pc 11) and the read (pc 12)
  EXPECT_EQ(log_.races()[0].first.origin.pc, 11u);
  EXPECT_EQ(log_.races()[1].first.origin.pc, 12u);
}

TEST_F(OwnRecordTest, ReadModifyWriteLoopKeepsTwoRecordsAtMost) {
  // g[i] += x, five times: read, write, read, write...
  for (uint64_t i = 0; i < 5; ++i) {
    access(at(3, 10 + 2 * i, AccessType::Read, Clock(i + 1)));
    EXPECT_LE(history_.records(), 2u);
    access(at(3, 11 + 2 * i, AccessType::Write, Clock(i + 1)));
    EXPECT_EQ(history_.records(), 1u);
  }
  access(at(3, 30, AccessType::Read, 9));  // the write and this read stay
  access(at(8, 40, AccessType::Write));
  ASSERT_EQ(log_.races().size(), 2u);
  EXPECT_EQ(log_.races()[0].first.origin.pc, 19u);  // the last write
  EXPECT_EQ(log_.races()[1].first.origin.pc, 30u);  // and the last read
}

TEST_F(OwnRecordTest, OtherThreadsRecordTakesTheGeneralPath) {
  access(at(3, 10, AccessType::Read));
  access(at(4, 11, AccessType::Read));  // another thread's read: no race
  access(at(3, 12, AccessType::Write));  // races with thread 4's read only
  ASSERT_EQ(log_.races().size(), 1u);
  EXPECT_EQ(log_.races()[0].first.thread, 4u);
}

TEST_F(OwnRecordTest, NarrowerAccessDoesNotReplace) {
  AccessRecord byte = at(3, 10, AccessType::Write);
  byte.bytes = 0x1;
  access(at(3, 9, AccessType::Write));
  access(byte);  // one byte does not stand for the whole word
  EXPECT_EQ(history_.records(), 2u);
  AccessRecord other = at(5, 11, AccessType::Read);
  other.bytes = 0x2;
  access(other);  // byte 1: races with the word write only
  ASSERT_EQ(log_.races().size(), 1u);
  EXPECT_EQ(log_.races()[0].first.origin.pc, 9u);
}

// uchar s[4]: four threads increment their own byte of one word (a
// per-thread byte histogram): the other threads' bytes are passed over, and
// a later word write still races with each of them.
TEST_F(OwnRecordTest, OtherThreadsBytesOfTheWordArePassedOver) {
  auto byteAccess = [](uint32_t thread, uint64_t pc, AccessType type, uint8_t byte, Clock clock) {
    AccessRecord r = at(thread, pc, type, clock);
    r.bytes = uint8_t(1u << byte);
    return r;
  };
  for (Clock round = 1; round <= 3; ++round) {
    for (uint8_t b = 0; b < 4; ++b) {
      access(byteAccess(10 + b, 100 + b, AccessType::Read, b, round));
      access(byteAccess(10 + b, 200 + b, AccessType::Write, b, round));
    }
  }
  EXPECT_EQ(history_.records(), 4u);  // each thread's last write
  EXPECT_TRUE(log_.races().empty());
  access(byteAccess(11, 300, AccessType::Read, 0, 4));  // thread 11 reads thread 10's byte
  ASSERT_EQ(log_.races().size(), 1u);
  EXPECT_EQ(log_.races()[0].first.thread, 10u);
  access(at(50, 400, AccessType::Write));  // the whole word: races with all four writes and the read
  ASSERT_EQ(log_.races().size(), 6u);
  for (size_t i = 1; i < 5; ++i) EXPECT_EQ(log_.races()[i].first.origin.pc, 200 + (i - 1));
  EXPECT_EQ(log_.races()[5].first.origin.pc, 300u);
}

// Another thread's plain read of another byte: a plain read goes to the
// general path (reads are kept sorted by warp) and both reads stay.
TEST_F(OwnRecordTest, PlainReadBesideAnotherThreadsReadIsKept) {
  AccessRecord far = at(40, 10, AccessType::Read);  // warp 1
  far.bytes = 0x2;
  AccessRecord near = at(3, 11, AccessType::Read);  // warp 0
  near.bytes = 0x1;
  access(far);
  access(near);
  near.origin.pc = near.origin.seq = 12;
  access(near);
  EXPECT_EQ(history_.records(), 2u);
  access(at(9, 20, AccessType::Write));
  ASSERT_EQ(log_.races().size(), 2u);
  EXPECT_EQ(log_.races()[0].first.thread, 3u);  // reads sorted by warp
  EXPECT_EQ(log_.races()[0].first.origin.pc, 12u);
  EXPECT_EQ(log_.races()[1].first.thread, 40u);
}

TEST_F(OwnRecordTest, DeviceAtomicsTakeTheGeneralPath) {
  AccessRecord atomic = at(3, 10, AccessType::AtomicRmw);
  atomic.strong = true;
  access(atomic);
  atomic.origin.pc = atomic.origin.seq = 11;
  access(atomic);
  access(at(4, 12, AccessType::Write));  // a plain write races with the last atomic
  ASSERT_EQ(log_.races().size(), 1u);
  EXPECT_EQ(log_.races()[0].first.origin.pc, 11u);
}

TEST_F(OwnRecordTest, EarlierLaunchRecordIsNotReplaced) {
  access(at(3, 10, AccessType::Write));
  kernel_.launch = 2;
  kernel_.liveLaunches = {1};
  kernel_.unorderedLaunches = {1};  // launch 1 runs on another stream
  history_.beginLaunch(kernel_);
  access(at(3, 20, AccessType::Write));  // same thread index, another grid: a race
  EXPECT_EQ(log_.races().size(), 1u);
}

}  // namespace
}  // namespace predatar
