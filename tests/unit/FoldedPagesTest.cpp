// Folded chunks (CompressedPage::Fold, ChunkedPages; LocksetShadow's
// FoldedPages): sixteen compressed pages that a grid-stride loop left, alike
// but for their threads and trace positions, are kept as one fold and read
// back record for record.
#include <gtest/gtest.h>

#include <array>
#include <optional>
#include <vector>

#include "analysis/CompressedPages.h"
#include "analysis/LocksetDetector.h"
#include "analysis/ShadowPages.h"

namespace predatar {
namespace {

constexpr uint32_t kPages = CompressedPage::kFoldPages;
using Words = std::array<Records, CompressedPage::kWords>;

// What a grid-stride loop's write leaves on page k of a chunk: word w is
// written by global thread `first` + 16k + w, in blocks of `blockThreads`;
// each warp's store has its own trace position (in no order).
struct GridStride {
  uint32_t first = 0, blockThreads = 512, pc = 19;
  Words page(uint32_t k) const {
    Words words;
    for (uint32_t w = 0; w < CompressedPage::kWords; ++w) {
      uint32_t global = first + 16 * k + w;
      uint64_t seq = 5000 + (global / 32) * 7919 % 1000;
      words[w].push_back(PackedRecord::pack(global / blockThreads, global % blockThreads, /*clock=*/1,
                                            AccessType::Write, false, false, Scope::Device, 0xf,
                                            Origin{seq, pc, 3}, /*launch=*/2));
    }
    return words;
  }
  std::vector<CompressedPage> pages() const {
    std::vector<CompressedPage> out;
    for (uint32_t k = 0; k < kPages; ++k) {
      std::optional<CompressedPage> c = CompressedPage::fit(page(k));
      EXPECT_TRUE(c) << "page " << k;
      if (c) out.push_back(std::move(*c));
    }
    return out;
  }
};

void expectHolds(const CompressedPage& page, const Words& words, uint32_t k) {
  for (uint32_t w = 0; w < CompressedPage::kWords; ++w) {
    Records expanded;
    page.wordRecords(w, expanded);
    EXPECT_EQ(expanded, words[w]) << "page " << k << " word " << w;
  }
}

// Warps' pages from thread 0 (a warp two pages), from thread 8 (every other
// page spans two warps: nextWarpSeq), and across a block boundary (threads
// 448.. of block 0, then block 1 from thread 0).
TEST(FoldedPages, AGridStrideChunkFoldsAndUnfoldsPageForPage) {
  for (uint32_t first : {0u, 8u, 448u, 512u * 7 + 304}) {
    GridStride loop{first};
    std::vector<CompressedPage> pages = loop.pages();
    ASSERT_EQ(pages.size(), kPages);
    std::optional<CompressedPage::Fold> fold = CompressedPage::fold(pages.data());
    ASSERT_TRUE(fold) << first;
    for (uint32_t k = 0; k < kPages; ++k) expectHolds(CompressedPage::unfolded(*fold, k), loop.page(k), k);
  }
}

TEST(FoldedPages, PagesAlikeInLessDoNotFold) {
  GridStride threeBlocks{/*first=*/112, /*blockThreads=*/96};  // 256 threads across blocks 1, 2 and 3
  EXPECT_FALSE(CompressedPage::fold(threeBlocks.pages().data()));

  GridStride loop;
  std::vector<CompressedPage> pages = loop.pages();
  Words other = loop.page(9);
  for (Records& r : other) r[0].pc = 20;  // another instruction
  pages[9] = *CompressedPage::fit(other);
  EXPECT_FALSE(CompressedPage::fold(pages.data()));

  pages = loop.pages();
  Words far = loop.page(3);
  for (Records& r : far) r[0].seqAndKind += uint64_t(1) << 33;  // a position beyond the fold's 32-bit offsets
  pages[3] = *CompressedPage::fit(far);
  EXPECT_FALSE(CompressedPage::fold(pages.data()));
}

// A full chunk is folded; a page read through peek leaves it folded, a page
// found to change, or erased, unfolds it; a page made again folds it again.
TEST(FoldedPages, AFullChunkStaysFoldedUntilAPageOfItChanges) {
  GridStride loop{/*first=*/8};
  CompressedPages pages;
  const uint64_t base = 7 * kPages;  // (chunk 7)
  std::vector<CompressedPage> made = loop.pages();
  for (uint32_t k = 0; k < kPages; ++k) pages.emplace(base + k, std::move(made[k]));
  EXPECT_EQ(pages.foldedChunks(), 1u);
  EXPECT_EQ(pages.size(), kPages);
  uint64_t folded = pages.bytes();
  EXPECT_LT(folded * 3, kPages * sizeof(CompressedPage));

  for (uint32_t k = 0; k < kPages; ++k) expectHolds(*pages.peek(base + k), loop.page(k), k);
  EXPECT_EQ(pages.foldedChunks(), 1u);
  EXPECT_EQ(pages.bytes(), folded);

  CompressedPage* page = pages.find(base + 5);
  ASSERT_NE(page, nullptr);
  expectHolds(*page, loop.page(5), 5);
  EXPECT_EQ(pages.foldedChunks(), 0u);
  EXPECT_GT(pages.bytes(), folded * 3);
  for (uint32_t k = 0; k < kPages; ++k) expectHolds(*pages.peek(base + k), loop.page(k), k);

  pages.emplace(base + 5, *CompressedPage::fit(loop.page(5)));  // (replaced: full again)
  EXPECT_EQ(pages.foldedChunks(), 1u);
  pages.erase(base + 11);
  EXPECT_EQ(pages.foldedChunks(), 0u);
  EXPECT_EQ(pages.size(), kPages - 1);
  EXPECT_EQ(pages.peek(base + 11), nullptr);
  pages.emplace(base + 11, *CompressedPage::fit(loop.page(11)));
  EXPECT_EQ(pages.foldedChunks(), 1u);
  for (uint32_t k = 0; k < kPages; ++k) expectHolds(*pages.peek(base + k), loop.page(k), k);
  EXPECT_EQ(pages.find(base + kPages), nullptr);  // (the next chunk: none)
}

// Through the shadow: a streamed chunk compresses and folds as its pages
// are left; a visit of every word that changes none leaves it folded, its
// records as they were; one that drops them all empties it.
TEST(FoldedPages, AShadowVisitThatChangesNothingLeavesAChunkFolded) {
  GridStride loop{/*first=*/8};
  ShadowPages shadow;
  for (uint32_t k = 0; k < kPages; ++k) {
    Words words = loop.page(k);
    for (uint32_t w = 0; w < CompressedPage::kWords; ++w) {
      shadow.at(uint64_t(k) * ShadowPages::kWordsPerPage + w) = words[w];
      shadow.filled();
    }
  }
  shadow.at(1000 * ShadowPages::kWordsPerPage);  // (leaves the last page)
  shadow.settle();
  shadow.forEachWord([](uint64_t, Records&) {});  // (drops page 1000, empty)
  ASSERT_EQ(shadow.pages(), kPages);
  ASSERT_EQ(shadow.fullPages(), 0u);
  uint64_t bytes = shadow.bytes();
  EXPECT_LT(bytes, kPages * sizeof(CompressedPage));  // folded
  shadow.forEachWord([](uint64_t, Records&) {});
  EXPECT_EQ(shadow.bytes(), bytes);
  for (uint32_t k = 0; k < kPages; ++k)
    for (uint32_t w = 0; w < CompressedPage::kWords; ++w)
      EXPECT_EQ(shadow.recordsOf(uint64_t(k) * ShadowPages::kWordsPerPage + w), loop.page(k)[w]);
  EXPECT_EQ(shadow.bytes(), bytes);
  shadow.forEachWord([](uint64_t, Records& r) { r.clear(); });
  EXPECT_TRUE(shadow.empty());
}

// Lockset's shadow: the same loop's chunk of compact pages is one fold; a
// walk that keeps or drops all of it leaves it folded or drops it; one that
// keeps part of it unfolds it; a page of it touched unfolds it.
using LocksetHistory = LocksetDetector::History;
using LocksetRecord = LocksetDetector::Record;
using Lockset = LocksetShadow<LocksetHistory>;

LocksetRecord locksetRecord(const GridStride& loop, uint32_t k, uint32_t w) {
  uint32_t global = loop.first + 16 * k + w;
  LocksetRecord r{};
  r.block = global / loop.blockThreads;
  r.thread = global % loop.blockThreads;
  r.type = AccessType::Write;
  r.scope = Scope::Device;
  r.barrier = 7;
  r.origin = {5000 + (global / 32) * 7919 % 1000, loop.pc, 3};
  r.launch = 2;
  r.lanes = LaneMask(1) << (r.thread % kWarpSize);
  return r;
}

void fillChunk(Lockset& shadow, const GridStride& loop, uint64_t chunk) {
  for (uint32_t k = 0; k < kPages; ++k)
    for (uint32_t w = 0; w < Lockset::kWordsPerPage; ++w)
      shadow.at(((chunk * kPages + k) << 4) | w).lastWrites.push_back(locksetRecord(loop, k, w));
  for (uint64_t far = 0; far < 3; ++far) shadow.at((1000 + far) << 8);  // (leaves the last pages)
}

void expectChunk(Lockset& shadow, const GridStride& loop, uint64_t chunk) {
  for (uint32_t k = 0; k < kPages; ++k)
    for (uint32_t w = 0; w < Lockset::kWordsPerPage; ++w) {
      const LocksetHistory* h = shadow.find(((chunk * kPages + k) << 4) | w);
      ASSERT_NE(h, nullptr) << k << " " << w;
      ASSERT_EQ(h->lastWrites.size(), 1u);
      EXPECT_EQ(h->lastWrites[0], locksetRecord(loop, k, w)) << "page " << k << " word " << w;
    }
}

TEST(FoldedPages, LocksetKeepsAGridStrideChunkFolded) {
  GridStride loop{/*first=*/448};  // (blocks 0 and 1)
  Lockset shadow(1);
  fillChunk(shadow, loop, 5);
  ASSERT_EQ(shadow.foldedChunks(), 1u);
  EXPECT_EQ(shadow.compactPages(), kPages);

  // 64 chunks, and the same with page 9 of each of another instruction: no fold.
  GridStride other = loop;
  other.pc = 20;
  Lockset many(1), twin(1);
  for (uint64_t chunk = 0; chunk < 64; ++chunk)
    for (uint32_t k = 0; k < kPages; ++k)
      for (uint32_t w = 0; w < Lockset::kWordsPerPage; ++w) {
        uint64_t key = ((chunk * kPages + k) << 4) | w;
        many.at(key).lastWrites.push_back(locksetRecord(loop, k, w));
        twin.at(key).lastWrites.push_back(locksetRecord(k == 9 ? other : loop, k, w));
      }
  for (Lockset* s : {&many, &twin})
    for (uint64_t far = 0; far < 3; ++far) s->at((1000 + far) << 8);
  EXPECT_EQ(many.foldedChunks(), 64u);
  EXPECT_EQ(twin.foldedChunks(), 0u);
  EXPECT_EQ(twin.compactPages(), 64 * kPages);
  EXPECT_LT(many.bytes() * 3, twin.bytes());

  auto walk = [](Lockset& s, auto keep) {
    s.forEachWord([](uint64_t, LocksetHistory&) {}, [](const LocksetHistory& h) { return h.empty(); }, keep);
  };
  walk(shadow, [](uint64_t, const LocksetRecord&) { return true; });
  EXPECT_EQ(shadow.foldedChunks(), 1u);
  expectChunk(shadow, loop, 5);  // (touched: unfolded, then expanded page by page)
  EXPECT_EQ(shadow.foldedChunks(), 0u);

  Lockset part(1);
  fillChunk(part, loop, 5);
  ASSERT_EQ(part.foldedChunks(), 1u);
  walk(part, [](uint64_t, const LocksetRecord& r) { return r.block == 0; });  // pages 0-3 stay
  EXPECT_EQ(part.foldedChunks(), 0u);
  EXPECT_EQ(part.pages(), 4u);  // (the far pages, empty, are dropped too)
  for (uint32_t k = 0; k < kPages; ++k)
    EXPECT_EQ(part.find(((5 * kPages + k) << 4)) != nullptr, k < 4) << k;

  Lockset none(1);
  fillChunk(none, loop, 5);
  walk(none, [](uint64_t, const LocksetRecord&) { return false; });
  EXPECT_EQ(none.foldedChunks(), 0u);
  EXPECT_EQ(none.find(5 * kPages << 4), nullptr);
}

}  // namespace
}  // namespace predatar
