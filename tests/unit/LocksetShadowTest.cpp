// Lockset's compact shadow pages (LocksetShadow.h): a page whose words each
// hold one record of consecutive threads of one warp event is kept as one
// record, expands to exactly what it held, and changes no report.
#include <gtest/gtest.h>

#include "analysis/Detector.h"
#include "analysis/LocksetDetector.h"
#include "events/Trace.h"

namespace predatar {
namespace {

using History = LocksetDetector::History;
using Record = LocksetDetector::Record;
using Shadow = LocksetShadow<History>;

Record record(uint32_t thread, AccessType type) {
  Record r{};
  r.block = 3;
  r.thread = thread;
  r.type = type;
  r.scope = Scope::Device;
  r.barrier = 7;
  r.origin = {42, 0x90, Origin::kNoSource};
  r.launch = 2;
  r.lanes = LaneMask(1) << (thread % kWarpSize);
  return r;
}

// Page 0 filled as a warp event of lanes `firstThread`.. leaves it, `elementWords` words a thread.
void fillPage(Shadow& shadow, uint32_t firstThread, uint32_t elementWords, AccessType type) {
  for (uint32_t i = 0; i < Shadow::kWordsPerPage; ++i) {
    History& h = shadow.at(i);
    (type == AccessType::Read ? h.reads : h.lastWrites).push_back(record(firstThread + i / elementWords, type));
  }
}

// With one leave before compacting, page 0 compacts when the page after the
// next is left.
void leavePage0(Shadow& shadow) {
  shadow.at(16 * 5);
  shadow.at(16 * 9);
  shadow.at(16 * 13);
}

TEST(LocksetShadow, ACoalescedPageIsOneRecordAndExpandsToWhatItHeld) {
  for (uint32_t elementWords : {1u, 2u, 4u})
    for (AccessType type : {AccessType::Read, AccessType::Write}) {
      Shadow shadow(1), never(0);
      for (Shadow* s : {&shadow, &never}) {
        fillPage(*s, 48, elementWords, type);
        leavePage0(*s);
      }
      ASSERT_EQ(shadow.compactPages(), 1u) << elementWords << "-word elements";
      EXPECT_LT(shadow.bytes() + 2000, never.bytes());
      for (uint32_t i = 0; i < Shadow::kWordsPerPage; ++i) {
        const History* h = shadow.find(i);
        ASSERT_NE(h, nullptr);
        const auto& kept = type == AccessType::Read ? h->reads : h->lastWrites;
        const auto& none = type == AccessType::Read ? h->lastWrites : h->reads;
        ASSERT_EQ(kept.size(), 1u);
        EXPECT_TRUE(none.empty());
        EXPECT_EQ(kept[0], record(48 + i / elementWords, type)) << "word " << i;
      }
      EXPECT_EQ(shadow.compactPages(), 0u) << "touched: expanded";
    }
}

TEST(LocksetShadow, PagesThatFitNoPatternStayFull) {
  auto check = [](const char* what, auto&& change) {
    Shadow shadow(1);
    fillPage(shadow, 0, 1, AccessType::Read);
    change(shadow);
    leavePage0(shadow);
    EXPECT_EQ(shadow.compactPages(), 0u) << what;
  };
  check("a word without a record", [](Shadow& s) { s.at(5).reads.clear(); });
  check("a word with two", [](Shadow& s) { s.at(5).lastWrites.push_back(record(5, AccessType::Write)); });
  check("a thread out of step", [](Shadow& s) { s.at(5).reads[0] = record(9, AccessType::Read); });
  check("another event", [](Shadow& s) { s.at(5).reads[0].origin.seq = 43; });
  check("three words a thread", [](Shadow& s) {
    for (uint32_t i = 0; i < 16; ++i) s.at(i).reads[0] = record(i / 3, AccessType::Read);
  });
  Shadow never(0);
  fillPage(never, 0, 1, AccessType::Read);
  leavePage0(never);
  EXPECT_EQ(never.compactPages(), 0u) << "compaction off";
}

TEST(LocksetShadow, SharedMemoryPagesAreNeverCompacted) {
  Shadow shadow(1);
  const uint64_t shared = uint64_t(1) << 63;
  for (uint32_t i = 0; i < Shadow::kWordsPerPage; ++i) shadow.at(shared | i).reads.push_back(record(i, AccessType::Read));
  leavePage0(shadow);
  EXPECT_EQ(shadow.compactPages(), 0u);
}

MemoryEvent access(uint32_t block, AccessType type, uint64_t address, uint64_t seq) {
  MemoryEvent e;
  e.lanes = {block, 0, 0xffffffffu};
  e.type = type;
  for (uint32_t lane = 0; lane < 32; ++lane) e.address[lane] = address + 4 * lane;
  e.origin = {seq, 0x100 + 16 * uint64_t(type == AccessType::Write), Origin::kNoSource};
  return e;
}

// Block 0 reads `words` words once, coalesced; block 1 then writes them.
Trace readThenWrite(uint64_t words = 4096) {
  Trace t;
  t.kernel.grid = {2, 1, 1};
  t.kernel.block = {32, 1, 1};
  uint64_t seq = 1;
  for (uint64_t w = 0; w < words; w += 32) t.events.push_back(access(0, AccessType::Read, 0x10000 + 4 * w, seq++));
  for (uint64_t w = 0; w < words; w += 32) t.events.push_back(access(1, AccessType::Write, 0x10000 + 4 * w, seq++));
  return t;
}

TEST(LocksetShadow, CompactingChangesNoReportAndKeepsAWordInAFewBytes) {
  DetectorOptions eager, off;
  eager.locksetLeavesBeforeCompact = 1;
  off.locksetLeavesBeforeCompact = 0;
  auto compacted = makeDetector("lockset", eager);
  auto full = makeDetector("lockset", off);
  replay(readThenWrite(), *compacted);
  replay(readThenWrite(), *full);
  EXPECT_EQ(compacted->races().locations(), full->races().locations());
  EXPECT_EQ(compacted->races().occurrences(), full->races().occurrences());
  EXPECT_EQ(full->races().locations().size(), 4096u);
  // Each word's read as one record of a compact page (but the last pages
  // left, still full): under 16 bytes a word, where a full page costs over 100.
  const uint64_t words = 32768;
  Trace reads = readThenWrite(words);
  reads.events.resize(words / 32);
  auto onlyReads = makeDetector("lockset", {});
  replay(reads, *onlyReads);
  EXPECT_LT(onlyReads->stats().peakShadowBytes, 16u * words);
  EXPECT_GT(full->stats().peakShadowBytes, 100u * 4096);
}

}  // namespace
}  // namespace predatar
