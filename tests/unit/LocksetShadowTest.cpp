// Lockset's compact shadow pages (LocksetShadow.h): a page whose words each
// hold one record of consecutive threads of one warp event is kept as one
// record, one whose records repeat otherwise as a table; each expands to
// exactly what it held, and changes no report.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>

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
// next is left. (Pages never visited before: a page that failed to fit
// waits some leaves before its next try, and so do the pages left after it.)
void leavePage0(Shadow& shadow) {
  static uint64_t nextPage = 100;
  for (int i = 0; i < 3; ++i) shadow.at(16 * nextPage++);
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

// A page's words, copied (find() expands a compact page).
std::array<History, Shadow::kWordsPerPage> wordsOf(Shadow& shadow) {
  std::array<History, Shadow::kWordsPerPage> words;
  for (uint32_t i = 0; i < Shadow::kWordsPerPage; ++i) words[i] = *shadow.find(i);
  return words;
}

void expectSameWords(Shadow& shadow, const std::array<History, Shadow::kWordsPerPage>& words, const char* what) {
  for (uint32_t i = 0; i < Shadow::kWordsPerPage; ++i) {
    const History* h = shadow.find(i);
    ASSERT_NE(h, nullptr) << what;
    EXPECT_TRUE(h->lastWrites == words[i].lastWrites) << what << ", word " << i;
    EXPECT_TRUE(h->reads == words[i].reads) << what << ", word " << i;
  }
}

// Pages that fit no pattern of runs but whose records repeat are kept as
// tables, and expand to exactly what they held.
TEST(LocksetShadow, PagesThatFitNoRunPatternAreTables) {
  auto check = [](const char* what, auto&& change) {
    Shadow shadow(1);
    fillPage(shadow, 0, 1, AccessType::Read);
    change(shadow);
    auto words = wordsOf(shadow);
    leavePage0(shadow);
    EXPECT_EQ(shadow.compactPages(), 0u) << what;
    ASSERT_EQ(shadow.tablePages(), 1u) << what;
    expectSameWords(shadow, words, what);
    EXPECT_EQ(shadow.tablePages(), 0u) << what << ": touched, expanded";
  };
  check("a word without a record", [](Shadow& s) { s.at(5).reads.clear(); });
  check("a word with two", [](Shadow& s) { s.at(5).lastWrites.push_back(record(5, AccessType::Write)); });
  check("threads out of step", [](Shadow& s) {
    for (uint32_t i : {3u, 6u}) s.at(i).reads[0] = record(20 + i, AccessType::Read);
  });
  check("five events", [](Shadow& s) {
    for (uint32_t i : {3u, 6u, 9u, 12u}) s.at(i).reads[0].origin.seq = 43 + i;
  });
  check("a read of two lanes", [](Shadow& s) { s.at(5).reads[0].lanes |= 1; });
  check("three words a thread", [](Shadow& s) {
    for (uint32_t i = 0; i < 16; ++i) s.at(i).reads[0] = record(i / 3, AccessType::Read);
  });
  // A hash table's slab: every word read by three warps in turn (lane l on
  // word l), but word 5, which a lane claimed by CAS after the first read,
  // holds that write and the later reads.
  check("a slab", [](Shadow& s) {
    for (uint32_t warp = 1; warp < 3; ++warp)
      for (uint32_t i = 0; i < 16; ++i) {
        Record r = record(32 * warp + i, AccessType::Read);
        r.origin.seq = 50 + warp;
        s.at(i).reads.push_back(r);
      }
    History& claimed = s.at(5);
    claimed.lastWrites.push_back(record(2, AccessType::AtomicRmw));
    claimed.reads.erase(claimed.reads.begin());
  });

  Shadow shadow(1), never(0);
  for (Shadow* s : {&shadow, &never}) {
    for (uint32_t i = 0; i < Shadow::kWordsPerPage; ++i)
      for (uint32_t k = 0; k < 3; ++k) s->at(i).reads.push_back(record(1000 * k + 37 * i, AccessType::Read));
    leavePage0(*s);
  }
  EXPECT_EQ(shadow.compactPages() + shadow.tablePages(), 0u) << "48 distinct records: full";
  EXPECT_EQ(never.compactPages() + never.tablePages(), 0u) << "compaction off";
}

// A walk over a table asks about its entries: one that keeps them all, or
// none, leaves the page or drops it whole; one that keeps some expands it,
// walks its words and keeps the rest as a table again.
TEST(LocksetShadow, AWalkOverATableAsksAboutItsEntries) {
  Shadow shadow(1);
  fillPage(shadow, 0, 1, AccessType::Read);
  shadow.at(5).reads[0].lanes |= 1;
  for (uint32_t i = 0; i < Shadow::kWordsPerPage; i += 3) {
    Record r = record(32 + i, AccessType::Read);
    r.launch = 3;
    shadow.at(i).reads.push_back(r);
  }
  leavePage0(shadow);
  ASSERT_EQ(shadow.tablePages(), 1u);
  uint32_t walked = 0;
  auto walk = [&](uint32_t goneLaunch) {
    auto gone = [&](const Record& r) { return r.launch == goneLaunch; };
    shadow.forEachWord(
        [&](uint64_t key, History& h) {
          walked += key < Shadow::kWordsPerPage;  // (not leavePage0's empty pages)
          h.reads.erase(std::remove_if(h.reads.begin(), h.reads.end(), gone), h.reads.end());
        },
        [](const History& h) { return h.empty(); }, [&](uint64_t, const Record& r) { return !gone(r); });
  };
  walk(9);
  EXPECT_EQ(walked, 0u) << "every entry kept: not walked";
  EXPECT_EQ(shadow.tablePages(), 1u);
  walk(3);
  EXPECT_EQ(walked, Shadow::kWordsPerPage) << "launch 3's entries gone: walked";
  EXPECT_EQ(shadow.tablePages(), 1u) << "and a table again";
  for (uint32_t i = 0; i < Shadow::kWordsPerPage; ++i) {
    Record r = record(i, AccessType::Read);
    if (i == 5) r.lanes |= 1;
    ASSERT_EQ(shadow.find(i)->reads.size(), 1u) << "word " << i;
    EXPECT_EQ(shadow.find(i)->reads[0], r) << "word " << i;
  }
  leavePage0(shadow);
  ASSERT_EQ(shadow.tablePages(), 1u);
  walk(2);
  EXPECT_EQ(shadow.pages(), 0u) << "no entry kept: dropped";
}

// A page across two warps' events (and a third: lanes that diverged) keeps
// a record an event; a walk drops the runs of a launch gone together.
TEST(LocksetShadow, APageOfSeveralEventsIsARecordAnEvent) {
  Shadow shadow(1), never(0);
  for (Shadow* s : {&shadow, &never}) {
    fillPage(*s, 24, 1, AccessType::Write);  // words 8-15: lanes 0-7 of the next warp, a later event
    for (uint32_t i = 8; i < 16; ++i) s->at(i).lastWrites[0].origin.seq = 50;
    s->at(11).lastWrites[0].origin.seq = 51;
    leavePage0(*s);
  }
  ASSERT_EQ(shadow.compactPages(), 1u);
  EXPECT_LT(shadow.bytes() + 1500, never.bytes());
  auto sameWords = [&] {
    for (uint32_t i = 0; i < Shadow::kWordsPerPage; ++i) {
      const History *a = shadow.find(i), *b = never.find(i);
      ASSERT_TRUE(a && b);
      EXPECT_EQ(a->lastWrites.size(), b->lastWrites.size()) << "word " << i;
      for (size_t k = 0; k < a->lastWrites.size() && k < b->lastWrites.size(); ++k)
        EXPECT_EQ(a->lastWrites[k], b->lastWrites[k]) << "word " << i;
    }
  };
  sameWords();
  // Words 8-15 of launch 3 now; the walk keeps launch 2's runs.
  for (Shadow* s : {&shadow, &never}) {
    for (uint32_t i = 8; i < 16; ++i) s->at(i).lastWrites[0].launch = 3;
    leavePage0(*s);
  }
  ASSERT_EQ(shadow.compactPages(), 1u);
  auto gone = [](const Record& r) { return r.launch == 3; };
  for (Shadow* s : {&shadow, &never})
    s->forEachWord(
        [&](uint64_t, History& h) {
          h.lastWrites.erase(std::remove_if(h.lastWrites.begin(), h.lastWrites.end(), gone), h.lastWrites.end());
        },
        [](const History& h) { return h.empty(); }, [&](uint64_t, const Record& r) { return !gone(r); });
  EXPECT_EQ(shadow.compactPages(), 0u) << "runs of two launches, one gone: expanded, walked";
  sameWords();
  for (Shadow* s : {&shadow, &never}) leavePage0(*s);
  ASSERT_EQ(shadow.compactPages(), 0u) << "words 8-15 empty: no run fits (a table does)";
}

// Words each read by three threads in turn (a convolution's inputs) keep a
// layer a read; the heap records that compacting frees are counted.
TEST(LocksetShadow, WordsReadByThreadsInTurnAreALayerARead) {
  Shadow shadow(1), never(0);
  for (Shadow* s : {&shadow, &never}) {
    for (uint32_t layer = 0; layer < 3; ++layer)
      for (uint32_t i = 0; i < Shadow::kWordsPerPage; ++i) {
        Record r = record(40 + i - layer, AccessType::Read);
        r.origin.seq = 60 + layer;
        s->at(i).reads.push_back(r);
      }
    leavePage0(*s);
  }
  ASSERT_EQ(shadow.compactPages(), 1u);
  EXPECT_LT(shadow.heapRecordsMade(), 0) << "the words' heap vectors were freed";
  EXPECT_LT(shadow.bytes() + 1500, never.bytes());
  for (uint32_t i = 0; i < Shadow::kWordsPerPage; ++i) {
    const History *a = shadow.find(i), *b = never.find(i);
    ASSERT_TRUE(a && b);
    ASSERT_EQ(a->reads.size(), 3u);
    for (size_t k = 0; k < 3; ++k) EXPECT_EQ(a->reads[k], b->reads[k]) << "word " << i << ", read " << k;
  }
  EXPECT_EQ(shadow.heapRecordsMade(), 0) << "expanded: the same vectors again";
}

TEST(LocksetShadow, SharedMemoryPagesAreNeverCompacted) {
  Shadow shadow(1);
  const uint64_t shared = uint64_t(1) << 63;
  for (uint32_t i = 0; i < Shadow::kWordsPerPage; ++i)
    shadow.at(shared | i).reads.push_back(record(i, AccessType::Read));
  leavePage0(shadow);
  EXPECT_EQ(shadow.compactPages(), 0u);
}

// A page freed (a block's shared memory, erased) comes back empty when
// visited again, however lately it was reached.
TEST(LocksetShadow, AnErasedPageComesBackEmpty) {
  Shadow shadow(1);
  const uint64_t shared = uint64_t(1) << 63;
  shadow.at(shared | 3).lastWrites.push_back(record(3, AccessType::Write));
  shadow.at(16).reads.push_back(record(3, AccessType::Read));  // (another page: page 0 is no longer the last)
  uint32_t dropped = 0;
  shadow.erase(shared, shared | 15, [&](const History& h) { dropped += uint32_t(h.lastWrites.size()); }, false);
  EXPECT_EQ(dropped, 1u);
  EXPECT_EQ(shadow.find(shared | 3), nullptr);
  EXPECT_TRUE(shadow.at(shared | 3).empty());
  EXPECT_EQ(shadow.find(16)->reads.size(), 1u);
}

// A finished block's shared page serves the next block's page at the same
// offset: empty, but its words keep their room, counted as the shadow's own
// heap records until a clear frees it.
TEST(LocksetShadow, AFinishedBlocksSharedPageServesTheNextBlocksEmpty) {
  Shadow shadow(1);
  auto sharedKey = [](uint64_t block, uint64_t word) { return (uint64_t(1) << 63) | (block << 32) | word; };
  for (uint32_t t = 0; t < 3; ++t) shadow.at(sharedKey(1, 3)).reads.push_back(record(t, AccessType::Read));
  const size_t room = shadow.at(sharedKey(1, 3)).reads.capacity();
  ASSERT_GT(room, 1u);
  EXPECT_EQ(shadow.heapRecordsMade(), 0);  // (the detector counts what it adds)
  uint64_t bytesBefore = shadow.bytes();
  shadow.erase(sharedKey(1, 0), sharedKey(1, 15), [](const History&) {}, false);
  EXPECT_EQ(shadow.heapRecordsMade(), int64_t(room));
  EXPECT_GE(shadow.bytes(), bytesBefore);  // the page, now spare, still counts

  EXPECT_EQ(shadow.find(sharedKey(2, 3)), nullptr);  // (never made: a spare page is not a made one)
  History& next = shadow.at(sharedKey(2, 3));
  EXPECT_TRUE(next.empty());
  EXPECT_EQ(next.reads.capacity(), room);
  EXPECT_TRUE(shadow.at(sharedKey(2, 4)).empty());

  shadow.clearKeepingRoom();
  EXPECT_EQ(shadow.heapRecordsMade(), 0);
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

// Block 0's warp reads `words` words three times, each time one word further
// on (a 3-wide window); block 1 then writes them.
Trace windowReadsThenWrite(uint64_t words) {
  Trace t = readThenWrite(words);
  t.events.clear();
  uint64_t seq = 1;
  for (uint64_t w = 0; w < words; w += 32)
    for (uint64_t k = 0; k < 3; ++k) t.events.push_back(access(0, AccessType::Read, 0x10000 + 4 * (w + k), seq++));
  for (uint64_t w = 0; w < words; w += 32) t.events.push_back(access(1, AccessType::Write, 0x10000 + 4 * w, seq++));
  return t;
}

// Slabs of 32 words (a hash table's buckets) each read by `readers` warps
// of different blocks in turn (lane l on word l), one word of each claimed
// by a lane's atomic between two of them; then another block writes them all.
Trace slabsReadThenWritten(uint64_t words, uint32_t readers) {
  Trace t;
  t.kernel.grid = {readers + 2, 1, 1};
  t.kernel.block = {32, 1, 1};
  uint64_t seq = 1;
  for (uint32_t block = 0; block < readers; ++block)
    for (uint64_t w = 0; w < words; w += 32) {
      t.events.push_back(access(block, AccessType::Read, 0x10000 + 4 * w, seq++));
      if (block == readers / 2) {
        MemoryEvent claim = access(readers, AccessType::AtomicRmw, 0x10000 + 4 * (w + 5), seq++);
        claim.lanes.mask = 1;
        claim.strong = true;
        t.events.push_back(claim);
      }
    }
  for (uint64_t w = 0; w < words; w += 32)
    t.events.push_back(access(readers + 1, AccessType::Write, 0x10000 + 4 * w, seq++));
  return t;
}

// Tables change no report, and keep such slabs in a fraction of the bytes.
TEST(LocksetShadow, TablesChangeNoReportAndKeepSlabsSmall) {
  DetectorOptions tables, noTables;
  tables.locksetLeavesBeforeCompact = noTables.locksetLeavesBeforeCompact = 1;
  tables.locksetTablesFromBytes = 0;
  noTables.locksetTablesFromBytes = UINT64_MAX;
  auto withTables = makeDetector("lockset", tables);
  auto without = makeDetector("lockset", noTables);
  replay(slabsReadThenWritten(4096, 8), *withTables);
  replay(slabsReadThenWritten(4096, 8), *without);
  EXPECT_EQ(withTables->races().locations(), without->races().locations());
  EXPECT_EQ(withTables->races().occurrences(), without->races().occurrences());
  EXPECT_EQ(without->races().locations().size(), 4096u);
  EXPECT_LT(withTables->stats().peakShadowBytes * 4, without->stats().peakShadowBytes);
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
  auto windowCompacted = makeDetector("lockset", eager);
  auto windowFull = makeDetector("lockset", off);
  replay(windowReadsThenWrite(4096), *windowCompacted);
  replay(windowReadsThenWrite(4096), *windowFull);
  EXPECT_EQ(windowCompacted->races().locations(), windowFull->races().locations());
  EXPECT_EQ(windowCompacted->races().occurrences(), windowFull->races().occurrences());
  // Each word's read as one record of a compact page (but the last pages
  // left, still full): under 16 bytes a word, where a full page costs over 100.
  const uint64_t words = 32768;
  Trace reads = readThenWrite(words);
  reads.events.resize(words / 32);
  auto onlyReads = makeDetector("lockset", {});
  replay(reads, *onlyReads);
  EXPECT_LT(onlyReads->stats().peakShadowBytes, 16u * words);
  // Three reads a word, as three layers of a record an event (the default
  // schedule: 32 leaves): a tenth of the full pages and their heap records.
  auto windowDefault = makeDetector("lockset", {});
  auto windowOff = makeDetector("lockset", off);
  replay(windowReadsThenWrite(words), *windowDefault);
  replay(windowReadsThenWrite(words), *windowOff);
  EXPECT_LT(windowDefault->stats().peakShadowBytes * 10, windowOff->stats().peakShadowBytes);
  EXPECT_GT(full->stats().peakShadowBytes, 100u * 4096);
}

}  // namespace
}  // namespace predatar
