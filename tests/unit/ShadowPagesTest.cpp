// Shadow pages (analysis/ShadowPages.h): a page whose words hold what one
// coalesced access left is kept as one record, and reads back the same.
#include "analysis/ShadowPages.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <thread>
#include <vector>

namespace predatar {
namespace {

PackedRecord record(uint32_t thread, uint32_t pc = 7) {
  return PackedRecord::pack(/*block=*/2, thread, /*clock=*/5, AccessType::Read, false, false, Scope::Device, 0xf,
                            Origin{100, pc, 0}, /*launch=*/1);
}

// Word i of page `page` gets the record of thread i / stride (stride 0:
// threads in no order, 7i mod 16).
void fillPage(ShadowPages& shadow, uint64_t page, uint32_t stride, uint32_t firstThread = 32) {
  for (uint32_t i = 0; i < ShadowPages::kWordsPerPage; ++i) {
    auto& r = shadow.at(page * ShadowPages::kWordsPerPage + i);
    r.push_back(record(firstThread + (stride ? i / stride : 7 * i % 16)));
    shadow.filled();
  }
}

TEST(ShadowPages, ACoalescedPageIsKeptAsOneRecord) {
  for (uint32_t stride : {1u, 2u, 4u}) {
    ShadowPages shadow;
    ShadowPages twin;  // the same but for threads in no order: stays full (16 distinct records)
    fillPage(shadow, 0, stride);
    fillPage(twin, 0, 0);
    shadow.at(1000);  // leaving page 0 (compressed once pages left later settle)
    shadow.settle();
    twin.at(1000);
    twin.settle();
    EXPECT_EQ(shadow.fullPages(), 1u) << stride;  // page 62 only
    EXPECT_LT(shadow.bytes() + 16 * 32, twin.bytes()) << stride;
    for (uint32_t i = 0; i < ShadowPages::kWordsPerPage; ++i) {
      auto& r = shadow.at(i);  // expands page 0 again
      ASSERT_EQ(r.size(), 1u);
      EXPECT_EQ(r[0].thread, 32 + i / stride) << stride << " " << i;
      EXPECT_EQ(r[0].pc, 7u);
    }
    EXPECT_EQ(shadow.words(), ShadowPages::kWordsPerPage);
  }
}

TEST(ShadowPages, ALeftPageCompressesOnlyAfterOthersWereLeft) {
  ShadowPages shadow;
  auto compressed = [&] { return shadow.pages() - shadow.fullPages(); };
  fillPage(shadow, 0, 1);
  fillPage(shadow, 1, 1);  // leaves page 0 (1st page left)
  fillPage(shadow, 2, 1);  // 2nd: page 1
  shadow.at(3);            // 3rd: page 2; page 0 is touched again
  fillPage(shadow, 3, 1);  // 4th: page 0, which its 1st leaving no longer stands for
  const uint32_t last = 2 + ShadowPages::kRecentPages;
  for (uint32_t p = 4; p <= last; ++p) fillPage(shadow, p, 1);  // 5th..35th: pages 3..33
  // Pages 1 and 2, left 32 pages ago and untouched since; not page 0, whose
  // 1st leaving was 32 pages before the 33rd but which was touched since.
  EXPECT_EQ(compressed(), 2u);
  shadow.at(5000);              // 36th: page 34; page 0's 4th leaving is 32 pages old
  EXPECT_EQ(compressed(), 3u);
  shadow.settle();
  EXPECT_EQ(compressed(), last + 1);
  EXPECT_EQ(shadow.fullPages(), 1u);  // page 312 (5000 / 16), empty
}

// Pages that fit no pattern but whose records repeat are kept as tables of
// their distinct records; those whose records do not repeat stay full.
TEST(ShadowPages, PagesThatFitNoPatternAreKeptAsTablesWhenTheirRecordsRepeat) {
  ShadowPages shadow(/*tablesBeyondFullPages=*/0), expected;
  for (ShadowPages* s : {&shadow, &expected}) {
    fillPage(*s, 0, 1);
    s->at(5).push_back(record(40));  // a second record on a word
    fillPage(*s, 1, 0);              // threads in no order: 16 distinct records
    fillPage(*s, 2, 1);
    s->at(2 * 16 + 3)[0] = record(35, 8);  // another instruction on one word of page 2
  }
  shadow.at(1000);
  shadow.settle();
  EXPECT_EQ(shadow.fullPages(), 2u);  // pages 1 and 62
  EXPECT_EQ(shadow.tablePages(), 2u);
  EXPECT_EQ(shadow.compressedExtraRecords(), 1u);  // page 0's second record on word 5
  for (uint32_t i = 0; i < 3 * ShadowPages::kWordsPerPage; ++i)
    EXPECT_EQ(shadow.at(i), expected.at(i)) << "word " << i;  // expanded again, record for record
  EXPECT_EQ(shadow.tablePages(), 0u);
}

// A page of random accesses holds a few words of sixteen (simpleAttributes'
// kernel, a hash table's probes): kept full it cost ~670 bytes; as a table,
// its words without records stay without. The words with records count as
// before; erasing and visiting hear of theirs only.
TEST(ShadowPages, PagesOfAFewWordsAreKeptAsTables) {
  ShadowPages shadow(/*tablesBeyondFullPages=*/0), full(/*tablesBeyondFullPages=*/UINT64_MAX), expected;
  for (ShadowPages* s : {&shadow, &full, &expected})
    for (uint64_t page = 0; page < 40; ++page)
      for (uint32_t word : {3u, 11u}) {
        s->at(page * 16 + word).push_back(record(uint32_t(page * 7 + word)));
        s->filled();
      }
  for (ShadowPages* s : {&shadow, &full}) {
    s->at(100000);
    s->settle();
  }
  EXPECT_EQ(shadow.tablePages(), 40u);
  EXPECT_EQ(full.tablePages(), 0u);
  EXPECT_LT(shadow.bytes() * 3, full.bytes());
  EXPECT_EQ(shadow.words(), 80u);
  EXPECT_EQ(shadow.compressedExtraRecords(), 0u);
  EXPECT_EQ(shadow.recordsOf(5 * 16 + 3), expected.recordsOf(5 * 16 + 3));
  EXPECT_TRUE(shadow.recordsOf(5 * 16 + 4).empty());

  size_t dropped = 0;
  shadow.erase(0, 16 - 1, [&](size_t n) { dropped += n; });  // page 0: a table
  EXPECT_EQ(dropped, 2u);
  EXPECT_EQ(shadow.words(), 78u);
  uint32_t visits = 0;
  shadow.forEachWord([&](uint64_t key, ShadowPages::Records& r) {
    visits += !r.empty();
    if (key == 1 * 16 + 3) r.clear();  // page 1 keeps word 11 only
  });
  EXPECT_EQ(visits, 78u);
  EXPECT_EQ(shadow.words(), 77u);
  for (uint64_t key = 16; key < 40 * 16; ++key) {
    ShadowPages::Records want = key == 1 * 16 + 3 ? ShadowPages::Records{} : expected.recordsOf(key);
    EXPECT_EQ(shadow.at(key), want) << "word " << key;  // expanded again, record for record
  }
  EXPECT_EQ(shadow.words(), 77u);  // (pages left on the way may be tables again)
}

// FDTD3d's input: rows of 384 words start 4 words into a page, so half of a
// row's pages hold the last 4 threads of one block's warp and the first 12
// of the next block's; the 4 words on each side of the blocks' edge are read
// again by the other block's halo threads (threads 0..3 of its warp). Such a
// page is 4 distinct records, where it cost 16 words and 8 heap blocks.
void fillStraddlingPage(ShadowPages& shadow, uint64_t page) {
  auto read = [](uint32_t block, uint32_t thread, uint64_t seq, uint32_t pc) {
    return PackedRecord::pack(block, thread, 9, AccessType::Read, false, false, Scope::Device, 0xf,
                              Origin{seq, pc, 0}, 1);
  };
  for (uint32_t i = 0; i < ShadowPages::kWordsPerPage; ++i) {
    auto& r = shadow.at(page * ShadowPages::kWordsPerPage + i);
    if (i < 4) r.push_back(read(6, 96 + 28 + i, 500, 20));  // block 6's column reads, warp 3
    else r.push_back(read(7, 96 + i - 4, 900, 20));           // block 7's
    if (i < 4) r.push_back(read(7, 96 + i, 910, 30));          // block 7's left halo
    else if (i < 8) r.push_back(read(6, 96 + i - 4, 510, 31));  // block 6's right halo (before block 7's run)
    if (i >= 4 && i < 8) std::swap(r[0], r[1]);
    shadow.filled();
  }
}

TEST(ShadowPages, PagesOfTwoBlocksAndTheirHaloReadersAreKeptAsTables) {
  ShadowPages shadow(/*tablesBeyondFullPages=*/0), expected;
  fillStraddlingPage(shadow, 0);
  fillStraddlingPage(expected, 0);
  shadow.at(1000);
  shadow.settle();
  EXPECT_EQ(shadow.tablePages(), 1u);
  EXPECT_EQ(shadow.fullPages(), 1u);  // page 62
  EXPECT_EQ(shadow.compressedExtraRecords(), 8u);
  // The table's heap block, 4 entries and 24 indices (a full page: 16 words
  // of 40 bytes, and 8 heap blocks of two records).
  std::array<ShadowPages::Records, ShadowPages::kWordsPerPage> words;
  for (uint32_t i = 0; i < ShadowPages::kWordsPerPage; ++i) words[i] = expected.at(i);
  std::optional<TablePage> table = TablePage::fit(words);
  ASSERT_TRUE(table);
  EXPECT_EQ(table->heapBytes(), 24u + 4 * 32 + 24 + 16 /* (to 32 bytes) */ + 16 /* malloc's header */);
  for (uint32_t i = 0; i < ShadowPages::kWordsPerPage; ++i) EXPECT_EQ(shadow.at(i), expected.at(i)) << "word " << i;
}

// Tables cost a fit, and a copy at every visit of the page: they are made
// only while many pages are full, where the memory they save matters.
TEST(ShadowPages, TablesAreMadeOnlyWhileManyPagesAreFull) {
  ShadowPages shadow(/*tablesBeyondFullPages=*/4), expected;
  fillStraddlingPage(shadow, 0);
  fillStraddlingPage(expected, 0);  // (words 0..15 as page 4's)
  shadow.at(1000);
  shadow.settle();
  EXPECT_EQ(shadow.tablePages(), 0u);
  EXPECT_EQ(shadow.fullPages(), 2u);  // pages 0 and 62
  for (uint64_t page = 1; page <= 3; ++page) fillPage(shadow, page, 0);  // threads in no order: full
  fillStraddlingPage(shadow, 4);
  shadow.at(1000);
  shadow.settle();
  // Page 4, with 5 pages full (page 0 is tried again when next left twice).
  EXPECT_EQ(shadow.tablePages(), 1u);
  EXPECT_EQ(shadow.fullPages(), 5u);
  for (uint32_t i = 0; i < ShadowPages::kWordsPerPage; ++i)
    EXPECT_EQ(shadow.at(4 * 16 + i), expected.at(i)) << "word " << i;
}

// A table of more than TablePage::kMaxEntries records costs about what the
// page did, and a thread's write then read of one launch is a word the
// launch comes back to (as CompressedPage's layers): both stay full.
TEST(ShadowPages, PagesOfManyDistinctRecordsOrOfAWriteAndReadOfOneLaunchStayFull) {
  ShadowPages shadow(/*tablesBeyondFullPages=*/0);
  for (uint32_t i = 0; i < ShadowPages::kWordsPerPage; ++i) {
    shadow.at(i).push_back(record(32 + (i % 9) * 5));  // 9 distinct records
    shadow.filled();
  }
  fillPage(shadow, 1, 1);
  shadow.at(16 + 2)[0] = record(40, 8);
  shadow.at(16 + 2).insert(shadow.at(16 + 2).begin(),
                           PackedRecord::pack(2, 34, 5, AccessType::Write, false, false, Scope::Device, 0xf,
                                              Origin{90, 6, 0}, /*launch=*/1));
  shadow.at(1000);
  shadow.settle();
  EXPECT_EQ(shadow.tablePages(), 0u);
  EXPECT_EQ(shadow.fullPages(), 3u);
}

// A page that failed to fit is tried again only after it was left 2^k - 1
// more times (k failures in a row): pages that fit no pattern are left again
// and again, and trying each time cost a tenth of a launch-heavy program's
// analysis. One that fits later is still compressed, a few leaves later.
TEST(ShadowPages, APageThatFailedToFitWaitsBeforeTheNextTry) {
  ShadowPages shadow;
  auto compressed = [&] { return shadow.pages() - shadow.fullPages(); };
  auto leavePageZero = [&] {
    shadow.at(0);
    shadow.at(1000);
    shadow.settle();
  };
  fillPage(shadow, 0, 0);  // threads in no order: the first try fails
  leavePageZero();
  EXPECT_EQ(compressed(), 0u);
  for (uint32_t i = 0; i < ShadowPages::kWordsPerPage; ++i) shadow.at(i)[0] = record(32 + i);  // fits now
  leavePageZero();  // the leave that waits
  EXPECT_EQ(compressed(), 0u);
  leavePageZero();  // tried again
  EXPECT_EQ(compressed(), 1u);
  for (uint32_t i = 0; i < ShadowPages::kWordsPerPage; ++i) EXPECT_EQ(shadow.at(i)[0].thread, 32 + i);
}

TEST(ShadowPages, VisitsAndErasesCompressedPages) {
  ShadowPages shadow;
  fillPage(shadow, 0, 1);
  fillPage(shadow, 1, 1);
  fillPage(shadow, 2, 1);
  shadow.at(1000);
  shadow.settle();
  ASSERT_EQ(shadow.fullPages(), 1u);
  // Unchanged words keep a page compressed; a change expands it; emptied pages go.
  uint32_t visits = 0;
  shadow.forEachWord([&](uint64_t key, ShadowPages::Records& r) {
    ++visits;
    if (key / 16 == 1) r.clear();
    if (key == 2 * 16 + 4) r[0].pc = 9;
  });
  EXPECT_EQ(visits, 48u);  // each word once
  EXPECT_EQ(shadow.pages(), 2u);  // pages 0 and 2 (1 emptied; 62 never had records)
  EXPECT_EQ(shadow.words(), 32u);
  EXPECT_EQ(shadow.at(2 * 16 + 4)[0].pc, 9u);
  EXPECT_EQ(shadow.at(2 * 16 + 5)[0].pc, 7u);
  uint32_t dropped = 0;
  shadow.at(1000);
  shadow.settle();
  shadow.erase(0, 15, [&](size_t n) { dropped += n; });
  EXPECT_EQ(dropped, 16u);
  EXPECT_EQ(shadow.words(), 16u);
}

// A block's shared words (locationKey's top bit): a __syncthreads of the
// whole block erases their records soon, so their pages are neither
// compressed nor freed and allocated again at each barrier.
TEST(ShadowPages, SharedPagesStayFullAndAreKeptEmptyAcrossABarrier) {
  ShadowPages shadow;
  const uint64_t shared = (uint64_t(1) << 63) | (uint64_t(3) << 32);  // block 3, word 0
  const uint64_t firstPage = shared / ShadowPages::kWordsPerPage;
  fillPage(shadow, firstPage, 1);
  fillPage(shadow, firstPage + 1, 1);
  shadow.at(1000);
  shadow.settle();
  EXPECT_EQ(shadow.fullPages(), 3u);  // both shared pages (a global page like them compresses) and 62
  uint32_t dropped = 0;
  auto drop = [&](size_t n) { dropped += n; };
  shadow.erase(shared, shared + 2 * ShadowPages::kWordsPerPage - 1, drop, /*keepPages=*/true);
  EXPECT_EQ(dropped, 32u);
  EXPECT_EQ(shadow.words(), 0u);
  EXPECT_EQ(shadow.pages(), 3u);  // kept, empty
  EXPECT_TRUE(shadow.at(shared + 5).empty());
  fillPage(shadow, firstPage, 1, /*firstThread=*/64);  // the next barrier interval
  EXPECT_EQ(shadow.at(shared + 5)[0].thread, 69u);
  EXPECT_EQ(shadow.words(), 16u);
  // The block's end frees them; the next visit frees a page left empty.
  dropped = 0;
  shadow.erase(shared, shared + 2 * ShadowPages::kWordsPerPage - 1, drop);
  EXPECT_EQ(dropped, 16u);
  EXPECT_EQ(shadow.pages(), 1u);
  EXPECT_EQ(shadow.words(), 0u);
}

// A barrier erases a page's words by its count of words with records: a
// page with a few words filled (one of them emptied again before the
// barrier) drops exactly their records, and its words are empty after.
TEST(ShadowPages, ABarrierErasesThePartlyFilledWordsOfAPage) {
  ShadowPages shadow;
  const uint64_t shared = (uint64_t(1) << 63) | (uint64_t(5) << 32);  // block 5, word 0
  for (uint32_t word : {3u, 9u, 12u, 15u}) {
    auto& r = shadow.at(shared + word);
    r.push_back(record(32 + word));
    if (word == 9) r.push_back(record(64 + word));
    shadow.filled();
  }
  shadow.at(shared + 12).clear();  // a later access dropped it
  shadow.emptied();
  shadow.at(shared + 20).push_back(record(40));  // the next page
  shadow.filled();
  EXPECT_EQ(shadow.words(), 4u);
  size_t dropped = 0;
  auto drop = [&](size_t n) { dropped += n; };
  shadow.erase(shared, shared + 31, drop, /*keepPages=*/true);
  EXPECT_EQ(dropped, 5u);  // words 3, 9 (two), 15 and 20
  EXPECT_EQ(shadow.words(), 0u);
  for (uint32_t word = 0; word < 32; ++word) EXPECT_TRUE(shadow.recordsOf(shared + word).empty()) << word;
  shadow.at(shared + 9).push_back(record(70));  // the next interval
  shadow.filled();
  dropped = 0;
  shadow.erase(shared, shared + 31, drop);  // the block finished
  EXPECT_EQ(dropped, 1u);
  EXPECT_EQ(shadow.words(), 0u);
  EXPECT_EQ(shadow.pages(), 0u);
}

// A block's shared page whose words each hold one plain read that fit a
// pattern (a warp read them all) is compressed when asked, and then takes
// each later warp's reads as a layer (a GEMM's tile row, read by each warp
// in turn between two __syncthreads); it expands as any compressed page, and
// erase counts its records without expanding it.
TEST(ShadowPages, ASharedPageOneWarpReadIsCompressedForTheNextReaders) {
  ShadowPages shadow;
  const uint64_t shared = (uint64_t(1) << 63) | (uint64_t(3) << 32);  // block 3, word 0
  const uint64_t pageNo = shared / ShadowPages::kWordsPerPage;
  fillPage(shadow, 0, 1);
  EXPECT_FALSE(shadow.compressSharedReads(0));  // global memory: compressed when left
  shadow.at(shared).push_back(record(32));
  shadow.filled();
  EXPECT_FALSE(shadow.compressSharedReads(pageNo));  // one word read
  shadow.erase(shared, shared + 15, [](size_t) {}, /*keepPages=*/true);
  fillPage(shadow, pageNo, 1);
  shadow.at(shared + 3).push_back(record(64));
  EXPECT_FALSE(shadow.compressSharedReads(pageNo));  // a word with two records
  shadow.erase(shared, shared + 15, [](size_t) {}, /*keepPages=*/true);  // a __syncthreads
  fillPage(shadow, pageNo, 1);
  ASSERT_TRUE(shadow.compressSharedReads(pageNo));
  EXPECT_EQ(shadow.fullPages(), 1u);  // page 0's
  EXPECT_EQ(shadow.words(), 32u);
  auto accepts = [](const CompressedPage&) { return true; };
  for (uint32_t warp = 2; warp < 4; ++warp) ASSERT_TRUE(shadow.appendReads(pageNo, record(32 * warp), 4, accepts));
  EXPECT_EQ(shadow.compressedExtraRecords(), 16u * 2);
  ShadowPages::Records r = shadow.recordsOf(shared + 5);
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0].thread, 37u);
  EXPECT_EQ(r[2].thread, 101u);
  size_t dropped = 0;
  shadow.erase(shared, shared + 15, [&](size_t n) { dropped += n; }, /*keepPages=*/true);
  EXPECT_EQ(dropped, 48u);
  EXPECT_EQ(shadow.words(), 16u);
  EXPECT_EQ(shadow.pages(), 1u);  // page 0; the shared one's empty page waits as a spare
  // The next interval: a write's at() expands the page, into the spare one.
  fillPage(shadow, pageNo, 1, /*firstThread=*/64);
  ASSERT_TRUE(shadow.compressSharedReads(pageNo));
  ShadowPages::Records& word5 = shadow.at(shared + 5);
  ASSERT_EQ(word5.size(), 1u);
  EXPECT_EQ(word5[0].thread, 69u);
  EXPECT_EQ(shadow.fullPages(), 2u);
  EXPECT_EQ(shadow.words(), 32u);
}

TEST(ShadowPages, AFinishedBlocksSharedPageServesTheNextBlockEmptyWithItsRoom) {
  ShadowPages shadow;
  auto sharedWord = [](uint32_t block, uint64_t word) { return (uint64_t(1) << 63) | (uint64_t(block) << 32) | word; };
  auto drop = [](size_t) {};
  const uint64_t bytesEmpty = shadow.bytes();
  // Block 3's words 16..31 are each read by five threads (a tile's word and its neighbours').
  for (uint64_t w = 16; w < 32; ++w) {
    auto& r = shadow.at(sharedWord(3, w));
    for (uint32_t t = 0; t < 5; ++t) r.push_back(record(t));
    shadow.filled();
  }
  shadow.erase(sharedWord(3, 0), sharedWord(3, 31), drop);  // block 3 finished
  EXPECT_EQ(shadow.pages(), 0u);
  EXPECT_EQ(shadow.words(), 0u);
  EXPECT_GT(shadow.bytes(), bytesEmpty);  // the spare page still counts
  // Block 4's page at the same offset is that page: empty, with room for five.
  auto& next = shadow.at(sharedWord(4, 20));
  EXPECT_TRUE(next.empty());
  EXPECT_GE(next.capacity(), 5u);
  next.push_back(record(40));
  shadow.filled();
  EXPECT_EQ(shadow.words(), 1u);
  EXPECT_EQ(shadow.at(sharedWord(4, 20)).size(), 1u);
  EXPECT_EQ(shadow.at(sharedWord(4, 20))[0].thread, 40u);
  EXPECT_TRUE(shadow.at(sharedWord(4, 21)).empty());
  // At another offset, or in global memory, a page is new.
  EXPECT_EQ(shadow.at(sharedWord(4, 40)).capacity(), 1u);
  EXPECT_EQ(shadow.at(1000).capacity(), 1u);
  EXPECT_EQ(shadow.pages(), 3u);
}

// Elements of `bytes` (1 or 2) by consecutive threads from `firstThread`:
// each word holds one record per element, and the threads of each warp come
// with their own event (seq 100 + warp), as a warp's access leaves them.
void fillSubWordPage(ShadowPages& shadow, uint64_t page, uint32_t bytes, uint32_t firstThread) {
  for (uint32_t i = 0; i < ShadowPages::kWordsPerPage; ++i) {
    auto& r = shadow.at(page * ShadowPages::kWordsPerPage + i);
    for (uint32_t j = 0; j < 4 / bytes; ++j) {
      uint32_t thread = firstThread + (4 * i + j * bytes) / bytes;
      r.push_back(PackedRecord::pack(2, thread, 5, AccessType::Write, false, false, Scope::Device,
                                     uint8_t(((1u << bytes) - 1) << (j * bytes)), Origin{100 + thread / 32, 7, 0}, 1));
    }
    shadow.filled();
  }
}

TEST(ShadowPages, PagesOfByteAndHalfWordElementsAreKeptAsOneRecord) {
  for (uint32_t bytes : {1u, 2u}) {
    ShadowPages shadow, expected;
    fillSubWordPage(shadow, 0, bytes, 64);
    fillSubWordPage(expected, 0, bytes, 64);
    shadow.at(1000);  // page 0 left and settled: compressed (two warps' events when bytes is 1)
    shadow.settle();
    EXPECT_EQ(shadow.fullPages(), 1u) << bytes;  // page 62 only
    EXPECT_EQ(shadow.pages(), 2u) << bytes;
    EXPECT_EQ(shadow.compressedExtraRecords(), 16u * (4 / bytes - 1)) << bytes;
    for (uint32_t i = 0; i < ShadowPages::kWordsPerPage; ++i)
      EXPECT_EQ(shadow.at(i), expected.at(i)) << bytes << " word " << i;  // expanded again, record for record
    EXPECT_EQ(shadow.compressedExtraRecords(), 0u) << bytes;
  }
}

// Structures of `elementBytes` whose fields of `fieldBytes` are separate
// instructions (pc 10 + field) and events (seq 200 + 10 * warp + field), from
// byte `offset` of thread `firstThread`'s structure on. Each word's records
// in the order of their events, as the detectors append them (uchar3's word
// 0: x of threads 0 and 1, then y and z of thread 0), which is byte order
// when the word is one event's or one thread's.
void fillFieldPage(ShadowPages& shadow, uint32_t elementBytes, uint32_t fieldBytes, uint32_t firstThread,
                   uint32_t offset) {
  for (uint32_t i = 0; i < ShadowPages::kWordsPerPage; ++i) {
    auto& r = shadow.at(i);
    for (uint32_t j = 0; j < 4 / fieldBytes; ++j) {
      uint32_t q = offset + 4 * i + j * fieldBytes;
      uint32_t thread = firstThread + q / elementBytes, field = (q % elementBytes) / fieldBytes;
      r.push_back(PackedRecord::pack(2, thread, 5, AccessType::Read, false, false, Scope::Device,
                                     uint8_t(((1u << fieldBytes) - 1) << (j * fieldBytes)),
                                     Origin{200 + 10 * (thread / 32) + field, 10 + field, 3 + field}, 1));
    }
    std::stable_sort(r.begin(), r.end(), [](const PackedRecord& a, const PackedRecord& b) {
      return a.origin().seq < b.origin().seq;
    });
    shadow.filled();
  }
}

TEST(ShadowPages, PagesOfStructureFieldsAreKeptAsOneRecord) {
  struct Case { uint32_t elementBytes, fieldBytes, firstThread, offset; };
  // RGBA8 as four byte loads; RGB32 as three word loads, the page starting
  // inside a structure; LA32 as two; RGBA32 from its second field on; a
  // 32-byte structure of eight word fields; RGB8 (uchar3) as three byte
  // loads, whose words hold two threads' bytes out of byte order (from a
  // structure's start, and from inside one, the page spanning two warps);
  // short3 as three half-word loads.
  for (Case c : {Case{4, 1, 32, 0}, Case{12, 4, 30, 8}, Case{8, 4, 60, 0}, Case{16, 4, 40, 4}, Case{32, 4, 7, 0},
                 Case{3, 1, 0, 0}, Case{3, 1, 20, 2}, Case{6, 2, 3, 4}}) {
    ShadowPages shadow, expected;
    fillFieldPage(shadow, c.elementBytes, c.fieldBytes, c.firstThread, c.offset);
    fillFieldPage(expected, c.elementBytes, c.fieldBytes, c.firstThread, c.offset);
    shadow.at(1000);
    shadow.settle();
    EXPECT_EQ(shadow.fullPages(), 1u) << c.elementBytes << "/" << c.fieldBytes;
    EXPECT_EQ(shadow.compressedExtraRecords(), 16u * (4 / c.fieldBytes - 1));
    for (uint32_t i = 0; i < ShadowPages::kWordsPerPage; ++i)
      EXPECT_EQ(shadow.at(i), expected.at(i)) << c.elementBytes << "/" << c.fieldBytes << " word " << i;
  }
}

TEST(ShadowPages, SubWordPagesThatFitNoPatternStayFull) {
  ShadowPages shadow;
  fillSubWordPage(shadow, 0, 1, 48);  // threads 48..111: three warps
  fillSubWordPage(shadow, 1, 1, 64);
  shadow.at(16 + 3)[2].clock = 6;  // one thread at another time
  fillSubWordPage(shadow, 2, 2, 64);
  shadow.at(2 * 16 + 9).pop_back();  // one element missing
  shadow.filled();
  shadow.at(1000);
  shadow.settle();
  EXPECT_EQ(shadow.fullPages(), 4u);
}

// Word i holds thread 32 + i's write of launch 1, then the same thread's
// read of launch 2 (`secondInOrder`: else threads in no order), as a
// producer launch and a consumer launch on one stream leave an array while
// the producer is live.
void fillTwoLaunchPage(ShadowPages& shadow, uint64_t page, bool secondInOrder = true, uint32_t secondLaunch = 2) {
  for (uint32_t i = 0; i < ShadowPages::kWordsPerPage; ++i) {
    auto& r = shadow.at(page * ShadowPages::kWordsPerPage + i);
    r.push_back(PackedRecord::pack(2, 32 + i, 5, AccessType::Write, false, false, Scope::Device, 0xf,
                                   Origin{100, 7, 0}, 1));
    r.push_back(PackedRecord::pack(2, 32 + (secondInOrder ? i : 7 * i % 16), 1, AccessType::Read, false, false,
                                   Scope::Device, 0xf, Origin{300, 9, 0}, secondLaunch));
    shadow.filled();
  }
}

TEST(ShadowPages, WordsOfTwoLaunchesAreKeptAsTwoLayers) {
  ShadowPages shadow, expected;
  fillTwoLaunchPage(shadow, 0);
  fillTwoLaunchPage(expected, 0);
  fillTwoLaunchPage(shadow, 1, /*secondInOrder=*/false);
  fillTwoLaunchPage(shadow, 2, true, /*secondLaunch=*/1);
  shadow.at(1000);
  shadow.settle();
  // Full: page 1 (its second layer fits no pattern), page 2 (two layers of
  // one launch, which comes back to them) and page 62.
  EXPECT_EQ(shadow.fullPages(), 3u);
  EXPECT_EQ(shadow.compressedExtraRecords(), 16u);
  for (uint32_t i = 0; i < ShadowPages::kWordsPerPage; ++i)
    EXPECT_EQ(shadow.at(i), expected.at(i)) << "word " << i;  // expanded again, record for record
}

TEST(ShadowPages, ALayerDroppedLeavesThePageCompressed) {
  ShadowPages shadow;
  fillTwoLaunchPage(shadow, 0);
  shadow.at(1000);
  shadow.settle();
  ASSERT_EQ(shadow.fullPages(), 1u);
  // A new launch forgets launch 1 (as AccessHistory::beginLaunch does).
  shadow.forEachWord([](uint64_t, ShadowPages::Records& r) {
    r.erase(std::remove_if(r.begin(), r.end(), [](const PackedRecord& x) { return x.launch == 1; }), r.end());
  });
  EXPECT_EQ(shadow.fullPages(), 0u);  // (page 62, empty, went)
  EXPECT_EQ(shadow.pages(), 1u);      // page 0, compressed again: one layer
  EXPECT_EQ(shadow.compressedExtraRecords(), 0u);
  EXPECT_EQ(shadow.words(), 16u);
  for (uint32_t i = 0; i < ShadowPages::kWordsPerPage; ++i) {
    auto& r = shadow.at(i);
    ASSERT_EQ(r.size(), 1u);
    EXPECT_EQ(r[0].launch, 2u);
    EXPECT_EQ(r[0].thread, 32 + i);
    EXPECT_EQ(r[0].pc, 9u);
  }
}


// Word i holds `readers` plain reads of one launch, reader b by block b
// (lanes 4 words each, as 16-byte loads leave them, each block at its own
// clock and event), ordered by block as AccessHistory keeps reads; the last
// one is a write of an earlier launch when `writeFirst`.
void fillReadSharedPage(ShadowPages& shadow, uint64_t page, uint32_t readers, bool writeFirst = false) {
  for (uint32_t i = 0; i < ShadowPages::kWordsPerPage; ++i) {
    auto& r = shadow.at(page * ShadowPages::kWordsPerPage + i);
    if (writeFirst)
      r.push_back(PackedRecord::pack(0, 64 + i, 3, AccessType::Write, false, false, Scope::Device, 0xf,
                                     Origin{50, 4, 0}, 1));
    for (uint32_t b = 0; b < readers; ++b)
      r.push_back(PackedRecord::pack(b, 96 + i / 4, 10 + b, AccessType::Read, false, false, Scope::Device, 0xf,
                                     Origin{1000 + b, 9, 0}, 2));
    shadow.filled();
  }
}

// cudaTensorCoreGemm: 32 of its 132 blocks read each page of A and B in one
// launch, and the shadow, a record of 32 bytes per reader and word, reached
// 5.5 GB halfway through the launch.
TEST(ShadowPages, PagesReadByManyBlocksOfOneLaunchAreKeptAsLayers) {
  const uint32_t most = CompressedPage::kMaxReadRecordsPerWord;
  ShadowPages shadow, expected;
  fillReadSharedPage(shadow, 0, 32);
  fillReadSharedPage(expected, 0, 32);
  fillReadSharedPage(shadow, 1, most);
  fillReadSharedPage(shadow, 2, most + 1);                 // too many layers
  fillReadSharedPage(shadow, 3, 9, /*writeFirst=*/true);  // more than 8, not all reads
  fillReadSharedPage(shadow, 4, 7, /*writeFirst=*/true);  // a write, then its 7 readers
  shadow.at(1000);
  shadow.settle();
  EXPECT_EQ(shadow.fullPages(), 3u);  // pages 2, 3 and 62
  // (Records beyond a word's first that compressed pages stand for: the
  // heap blocks of 16 records each, 32 bytes each, that they no longer need.)
  EXPECT_EQ(shadow.compressedExtraRecords(), 16u * (31 + most - 1 + 7));
  for (uint32_t i = 0; i < ShadowPages::kWordsPerPage; ++i)
    EXPECT_EQ(shadow.at(i), expected.at(i)) << "word " << i;  // expanded again, record for record
}

// The layers after a page's first share one heap block. Readers alike but
// for block, thread, clock and events (one instruction: the blocks that read
// a GEMM's tile) keep 24 bytes each there; other layers 48. (A heap block
// each cost 64: a GEMM's tiles keep 31 a page, 2 KiB.)
void expectExpandsTo(const CompressedPage& page, std::array<Records, CompressedPage::kWords> words) {
  for (uint32_t i = 0; i < CompressedPage::kWords; ++i) {
    Records expanded;
    page.wordRecords(i, expanded);
    EXPECT_EQ(expanded, words[i]) << "word " << i;
    EXPECT_TRUE(page.holds(i, words[i]));
  }
  words[5][17].clock += 1;  // a record no layer holds: the page does not
  EXPECT_FALSE(page.holds(5, words[5]));
}

TEST(CompressedPage, ReaderLayersShareOneHeapBlock) {
  ShadowPages shadow;
  fillReadSharedPage(shadow, 0, 32);
  std::array<Records, CompressedPage::kWords> words;
  for (uint32_t i = 0; i < CompressedPage::kWords; ++i) words[i] = shadow.at(i);
  std::optional<CompressedPage> page = CompressedPage::fit(words);
  ASSERT_TRUE(page);
  EXPECT_EQ(page->allRecordsPerWord(), 32u);
  EXPECT_EQ(page->heapBytes(), 8 + 32u * 24 + 16);  // (a count, room for 32 readers, malloc's header)
  expectExpandsTo(*page, words);

  for (Records& r : words) r[20].pc = 7;  // one reader of another instruction: whole layers
  page = CompressedPage::fit(words);
  ASSERT_TRUE(page);
  EXPECT_EQ(page->heapBytes(), 8 + 32u * 48 + 16);
  expectExpandsTo(*page, words);
}

// A page destroyed on a thread after the thread's BlockPool (by a
// thread_local made before the pool) gives its block straight back: the
// pool is destroyed by then (without the guard, its destroyed map took the
// block, and the sanitizer build's LeakSanitizer failed this test).
TEST(CompressedPage, APageThatOutlivesItsThreadsPoolIsFreed) {
  struct Holder {
    std::optional<CompressedPage> page;
  };
  std::array<Records, CompressedPage::kWords> words;
  {
    ShadowPages shadow;
    fillReadSharedPage(shadow, 0, 32);
    for (uint32_t i = 0; i < CompressedPage::kWords; ++i) words[i] = shadow.at(i);
  }
  bool kept = false;
  std::thread([&] {
    static thread_local Holder holder;  // made before the pool: destroyed after it
    holder.page = CompressedPage::fit(words);
    kept = holder.page.has_value();
  }).join();
  EXPECT_TRUE(kept);
}


// CompressedPages keeps pages by number in chunks of consecutive numbers:
// pages added in any order are found, replaced and erased by number alone.
// Pages reached lately are found without the map (ShadowPages::at); a page
// erased, or compressed, and reached again is a new one or the expanded
// one, never the freed page (ASan: a use after free).
TEST(ShadowPages, PagesReachedAgainAfterTheyWereDroppedOrCompressed) {
  ShadowPages shadow;
  const uint64_t w = ShadowPages::kWordsPerPage;
  // Pages 5 and 5 + 64 * k share a slot of the recent pages; alternate between them.
  for (uint64_t round = 0; round < 3; ++round)
    for (uint64_t page : {5, 133, 69}) {  // (69 last: its slot holds it when it is erased)
      auto& r = shadow.at(page * w + round);
      r.push_back(record(uint32_t(page + round)));
      shadow.filled();
    }
  shadow.erase(69 * w, 69 * w + w - 1, [](const auto&) {});
  shadow.at(7 * w).push_back(record(99));  // (a new page, likely where page 69 was)
  shadow.filled();
  EXPECT_TRUE(shadow.at(69 * w).empty());  // a new page, not the erased one
  for (uint64_t page : {5, 133})
    for (uint64_t round = 0; round < 3; ++round) {
      auto& r = shadow.at(page * w + round);
      ASSERT_EQ(r.size(), 1u);
      EXPECT_EQ(r[0].thread, page + round);
    }
  // A full coalesced page is compressed once others were left, then expanded when reached.
  fillPage(shadow, 200, 1);
  for (uint64_t p = 0; p <= ShadowPages::kRecentPages; ++p) shadow.at((300 + p) * w);
  shadow.settle();
  for (uint32_t i = 0; i < w; ++i) {
    auto& r = shadow.at(200 * w + i);
    ASSERT_EQ(r.size(), 1u);
    EXPECT_EQ(r[0].thread, 32 + i);
  }
}

TEST(CompressedPages, FindsReplacesAndErasesPagesByNumber) {
  std::array<Records, ShadowPages::kWordsPerPage> words;
  for (uint32_t i = 0; i < ShadowPages::kWordsPerPage; ++i) words[i].push_back(record(32 + i));
  std::optional<CompressedPage> page = CompressedPage::fit(words);
  ASSERT_TRUE(page);
  CompressedPages pages;
  const std::vector<uint64_t> numbers = {17, 3, 16, 31, 4, 1000};
  for (uint64_t n : numbers) pages.emplace(n, *CompressedPage::fit(words));
  EXPECT_EQ(pages.size(), numbers.size());
  for (uint64_t n : numbers) EXPECT_NE(pages.find(n), nullptr) << n;
  for (uint64_t n : {0u, 2u, 5u, 18u, 999u}) EXPECT_EQ(pages.find(n), nullptr) << n;
  pages.emplace(3, *CompressedPage::fit(words));  // replaces
  EXPECT_EQ(pages.size(), numbers.size());
  pages.erase(16);
  pages.erase(2);  // not there
  EXPECT_EQ(pages.find(16), nullptr);
  EXPECT_NE(pages.find(17), nullptr);
  std::vector<uint64_t> held = pages.pageNumbers();
  std::sort(held.begin(), held.end());
  EXPECT_EQ(held, (std::vector<uint64_t>{3, 4, 17, 31, 1000}));
  Records r;
  pages.find(31)->wordRecords(5, r);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].thread, 37u);
  for (uint64_t n : held) pages.erase(n);
  EXPECT_TRUE(pages.empty());
}

}  // namespace
}  // namespace predatar
