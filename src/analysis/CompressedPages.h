// The compressed shadow pages (CompressedPage.h, TablePage.h) of one kind by
// page number, in chunks of 16 consecutive pages.
//
// Why: an array's pages are compressed one after another (scan: a million
// between two synchronizations), and a hash map slot per page put each at a
// random place of a table of millions: a cache miss per page, a sixth of
// filling and compressing one (bench/detectors/ShadowBenchmark.cpp). In
// chunks, consecutive pages share a slot and a cache line or two, and the
// table has a sixteenth of the entries. A chunk holds only its pages (in
// order), so a page alone costs about what a slot of its own did.
//
// A full chunk of pages that fold (CompressedPage::Fold: alike but for their
// threads and trace positions, as a grid-stride loop leaves them) is kept
// folded, under a quarter of its pages' bytes, until a page of it is to
// change (find, emplace, erase): then it is unfolded. peek() reads a page
// without unfolding its chunk.
#pragma once

#include <bit>
#include <cstdint>
#include <memory>
#include <optional>
#include <type_traits>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "analysis/CompressedPage.h"
#include "analysis/TablePage.h"

namespace predatar {

struct NoPageFold {};
template <class Page>
struct PageFold {
  using type = NoPageFold;
};
template <class Page>
  requires requires { typename Page::Fold; }
struct PageFold<Page> {
  using type = typename Page::Fold;
};

template <class Page>
class ChunkedPages {
 public:
  static constexpr uint32_t kChunkShift = 4;
  static constexpr uint32_t kPagesPerChunk = 1u << kChunkShift;
  static constexpr bool kFolds = requires { typename Page::Fold; };
  using Fold = typename PageFold<Page>::type;

  // The page, to change, or null (valid until the next emplace).
  Page* find(uint64_t pageNo) {
    Chunk* chunk = chunkOf(pageNo);
    uint32_t i = slot(pageNo);
    if (!chunk || !(chunk->present >> i & 1)) return nullptr;
    unfold(*chunk);
    return &chunk->pages[chunk->position(i)];
  }
  // The page, to read, or null (valid until the next call of any kind).
  const Page* peek(uint64_t pageNo) {
    Chunk* chunk = chunkOf(pageNo);
    uint32_t i = slot(pageNo);
    if (!chunk || !(chunk->present >> i & 1)) return nullptr;
    if constexpr (kFolds) {
      if (chunk->folded) {
        unfoldedPage_ = Page::unfolded(*chunk->folded, i);
        return &unfoldedPage_;
      }
    }
    return &chunk->pages[chunk->position(i)];
  }
  void emplace(uint64_t pageNo, Page page) {
    Chunk* chunk = chunkOf(pageNo);
    if (!chunk) {
      auto& owned = chunks_[pageNo >> kChunkShift];
      owned = std::make_unique<Chunk>();
      chunk = remember(pageNo >> kChunkShift, owned.get());
    }
    unfold(*chunk);
    uint32_t i = slot(pageNo);
    auto at = chunk->pages.begin() + chunk->position(i);
    if (chunk->present >> i & 1) {
      *at = std::move(page);
    } else {
      slots_ -= chunk->pages.capacity();
      chunk->pages.insert(at, std::move(page));  // (pages come in order: mostly at the end)
      slots_ += chunk->pages.capacity();
      chunk->present |= uint16_t(1u << i);
      ++size_;
    }
    if (chunk->present == uint16_t(~0u)) fold(*chunk);
  }
  void erase(uint64_t pageNo) {
    auto it = chunks_.find(pageNo >> kChunkShift);
    if (it == chunks_.end()) return;
    uint32_t i = slot(pageNo);
    if (!(it->second->present >> i & 1)) return;
    Chunk& chunk = *it->second;
    unfold(chunk);
    chunk.pages.erase(chunk.pages.begin() + chunk.position(i));
    chunk.present &= uint16_t(~(1u << i));
    --size_;
    if (chunk.present == 0) {
      slots_ -= chunk.pages.capacity();
      if (lastChunk_ == it->second.get()) lastChunk_ = nullptr;
      chunks_.erase(it);
    }
  }
  // Page numbers held, in no order (to visit them while changing the set).
  std::vector<uint64_t> pageNumbers() const {
    std::vector<uint64_t> numbers;
    numbers.reserve(size_);
    for (const auto& [chunkNo, chunk] : chunks_)
      for (uint32_t present = chunk->present; present; present &= present - 1)
        numbers.push_back(chunkNo << kChunkShift | uint32_t(std::countr_zero(present)));
    return numbers;
  }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  size_t foldedChunks() const { return folds_; }
  // The table and the chunks (not the pages' own heap blocks). (Counted as
  // they change: AccessHistory asks at every new peak.)
  uint64_t bytes() const {
    return chunks_.capacity() * (sizeof(uint64_t) + sizeof(std::unique_ptr<Chunk>) + 1) +
           chunks_.size() * sizeof(Chunk) + slots_ * sizeof(Page) + folds_ * (sizeof(Fold) + 16);
  }
  void clear() {
    chunks_.clear();
    lastChunk_ = nullptr;
    size_ = slots_ = folds_ = 0;
  }

 private:
  struct Chunk {
    uint16_t present = 0;      // bit i: the chunk's i-th page is here
    std::vector<Page> pages;   // the present ones, in order (none when folded)
    std::unique_ptr<Fold> folded;  // all of them, when they fold
    size_t position(uint32_t i) const { return size_t(std::popcount(uint32_t(present) & ((1u << i) - 1))); }
  };
  // (A chunk that does not fold costs one try at each page made in it once
  // full, as a fit of one page's 16 words costs.)
  void fold(Chunk& chunk) {
    if constexpr (kFolds) {
      static_assert(Page::kFoldPages == kPagesPerChunk);
      std::optional<Fold> f = Page::fold(chunk.pages.data());
      if (!f) return;
      chunk.folded = std::make_unique<Fold>(*f);
      slots_ -= chunk.pages.capacity();
      std::vector<Page>().swap(chunk.pages);
      ++folds_;
    }
  }
  void unfold(Chunk& chunk) {
    if constexpr (kFolds) {
      if (!chunk.folded) return;
      chunk.pages.reserve(kPagesPerChunk);
      for (uint32_t k = 0; k < kPagesPerChunk; ++k) chunk.pages.push_back(Page::unfolded(*chunk.folded, k));
      slots_ += chunk.pages.capacity();
      chunk.folded.reset();
      --folds_;
    }
  }
  static uint32_t slot(uint64_t pageNo) { return uint32_t(pageNo & (kPagesPerChunk - 1)); }
  // The last chunk found is asked first: pages come in order.
  Chunk* chunkOf(uint64_t pageNo) {
    uint64_t chunkNo = pageNo >> kChunkShift;
    if (lastChunk_ && lastChunkNo_ == chunkNo) return lastChunk_;
    auto it = chunks_.find(chunkNo);
    return it == chunks_.end() ? nullptr : remember(chunkNo, it->second.get());
  }
  Chunk* remember(uint64_t chunkNo, Chunk* chunk) {
    lastChunkNo_ = chunkNo;
    lastChunk_ = chunk;
    return chunk;
  }

  absl::flat_hash_map<uint64_t, std::unique_ptr<Chunk>> chunks_;
  uint64_t lastChunkNo_ = 0;
  Chunk* lastChunk_ = nullptr;
  size_t size_ = 0;
  uint64_t slots_ = 0;  // pages the chunks' vectors have room for
  size_t folds_ = 0;    // chunks folded
  std::conditional_t<kFolds, Page, NoPageFold> unfoldedPage_;  // peek's page of a folded chunk
};

using CompressedPages = ChunkedPages<CompressedPage>;
using TablePages = ChunkedPages<TablePage>;

}  // namespace predatar
