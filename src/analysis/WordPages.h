// Per-word values (lockset's histories) kept in pages of consecutive words,
// keyed by AccessHistory's locationKey; or per-thread ones, a page a warp.
//
// Why: a hash map entry per word made every lane of every access a lookup
// of its own into a table far bigger than the cache (pathfinder at its
// paper size: 1M words, lockset 4-5x gwcp's time, which keeps pages). A
// warp's coalesced accesses fall in one or two pages: one lookup each.
#pragma once

#include <array>
#include <cstdint>
#include <memory>

#include "absl/container/flat_hash_map.h"
#include "analysis/RecentPages.h"

namespace predatar {

template <class Value, uint32_t PageShift = 4>
class WordPages {
 public:
  static constexpr uint32_t kPageShift = PageShift;
  static constexpr uint32_t kWordsPerPage = 1u << kPageShift;
  using Page = std::array<Value, kWordsPerPage>;

  // `key`'s value, or nullptr when its page was never made (a value of a
  // made page may be empty).
  Value* find(uint64_t key) {
    Page* page = pageOf(key >> kPageShift);
    return page ? &(*page)[key & (kWordsPerPage - 1)] : nullptr;
  }
  const Value* find(uint64_t key) const {
    const Page* page = pageOf(key >> kPageShift);
    return page ? &(*page)[key & (kWordsPerPage - 1)] : nullptr;
  }
  // The page that holds `key`, or nullptr when it was never made.
  const Page* findPage(uint64_t key) const { return pageOf(key >> kPageShift); }
  // `key`'s value; makes its page.
  Value& at(uint64_t key) {
    uint64_t pageNo = key >> kPageShift;
    Page* page = pageOf(pageNo);
    if (!page) {
      auto& made = pages_[pageNo];
      made = std::make_unique<Page>();
      page = remember(pageNo, made.get());
    }
    return (*page)[key & (kWordsPerPage - 1)];
  }
  // f(key, value&) over every word of every page; then frees the pages
  // whose words `empty(value)` all are.
  template <class F, class Empty>
  void forEachWord(F&& f, Empty&& empty) {
    for (auto it = pages_.begin(); it != pages_.end();) {
      bool any = false;
      for (uint32_t i = 0; i < kWordsPerPage; ++i) {
        f((it->first << kPageShift) | i, (*it->second)[i]);
        any = any || !empty((*it->second)[i]);
      }
      if (any) ++it;
      else pages_.erase(it++);
    }
    recentPages_.clear();
  }
  // Frees the pages that hold [firstKey, lastKey] (a block's shared memory,
  // whose keys fill its pages alone), after dropped(value) for each word.
  // (FinishedBlocks::dropSharedPages.)
  template <class F>
  void erase(uint64_t firstKey, uint64_t lastKey, F&& dropped, bool /*keepPages*/) {
    for (uint64_t pageNo = firstKey >> kPageShift; pageNo <= lastKey >> kPageShift; ++pageNo) {
      auto it = pages_.find(pageNo);
      if (it == pages_.end()) continue;
      for (const Value& v : *it->second) dropped(v);
      pages_.erase(it);
    }
    recentPages_.clear();
  }
  // Empties it, keeping room for as many pages: the next launch most likely
  // touches as many words (a big table's clear() frees its slots).
  void clearKeepingRoom() {
    size_t pages = pages_.size();
    pages_.clear();
    pages_.reserve(pages);
    recentPages_.clear();
  }
  bool empty() const { return pages_.empty(); }
  size_t pages() const { return pages_.size(); }
  uint64_t bytes() const {
    return pages_.capacity() * (sizeof(uint64_t) + sizeof(std::unique_ptr<Page>) + 1) + pages_.size() * sizeof(Page);
  }

 private:
  // Pages found lately, remembered: a warp's lanes come in address order,
  // and lockset's check of a pair of accesses looks up both threads' warps
  // in turn (one remembered page made that a map lookup each: 7% of
  // lockset's time on hotspot). (Remembering changes nothing the map holds:
  // mutable, found from const.)
  Page* pageOf(uint64_t pageNo) const {
    if (Page* page = recentPages_.find(pageNo)) return page;
    auto it = pages_.find(pageNo);
    return it == pages_.end() ? nullptr : remember(pageNo, it->second.get());
  }
  Page* remember(uint64_t pageNo, Page* page) const {
    recentPages_.remember(pageNo, page);
    return page;
  }

  absl::flat_hash_map<uint64_t, std::unique_ptr<Page>> pages_;
  mutable RecentPages<Page> recentPages_;
};

}  // namespace predatar
