// Lockset's shadow memory: each 4-byte word's History (LocksetDetector.h),
// keyed by AccessHistory's locationKey, in pages of 16 consecutive words.
//
// Why compact pages: a History holds two inline records (~145 bytes a
// word), so a kernel that reads a 640 MiB array once (threadFenceReduction
// at the Barracuda suite's size) ran out of memory at 12 GiB. A page whose
// 16 words each hold one record, alike but for consecutive threads of one
// warp event (lane l on word l; on words 2l and 2l+1 for 8-byte elements;
// on 4 words for 16-byte ones), is kept as its first word's record: ~7
// bytes a word; one whose words come from up to four such events (a page
// across two warps, a warp's lanes in several events), as a record an event;
// one whose words each hold L such records (read-shared data: a stencil's
// or a convolution's inputs, read by neighbouring threads in turn), as L
// layers of those.
// A page is compacted once it has been left (another page visited) and
// `leavesBeforeCompact` more pages were left with it untouched, on the
// schedule of gwcp's ShadowPages (LeftPages: a page still being filled, or
// visited back and forth, stays full; one that does not fit backs off).
// Touching a compact page expands it, record for record as it was: the
// detector only ever sees full pages. Shared-memory pages are never
// compacted (a block's are freed when it finishes).
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <memory>
#include <optional>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "analysis/Detector.h"
#include "analysis/LeftPages.h"

namespace predatar {

template <class History>
class LocksetShadow {
 public:
  using Record = typename History::Records::value_type;
  static constexpr uint32_t kPageShift = 4;
  static constexpr uint32_t kWordsPerPage = 1u << kPageShift;

  // 0: never compacts (LeftPages rounds it to a power of two, at most 64).
  explicit LocksetShadow(uint32_t leavesBeforeCompact = 32) : leftPages_(leavesBeforeCompact) {}

  // `key`'s history, or nullptr when its page was never made (a history of a
  // made page may be empty). Valid until the next call.
  History* find(uint64_t key) {
    FullPage* page = visit(key >> kPageShift, false);
    return page ? &page->words[key & (kWordsPerPage - 1)] : nullptr;
  }
  // `key`'s history; makes its page. Valid until the next call.
  History& at(uint64_t key) { return visit(key >> kPageShift, true)->words[key & (kWordsPerPage - 1)]; }

  // f(key, history&) over every word of every page, then frees the pages
  // whose words `empty(history)` all are. A compact page is asked instead
  // keep(its run's first key, its run's first record) for each run (a run's
  // records are alike: they go or stay together); only when its runs differ
  // is it expanded and walked.
  template <class F, class Empty, class Keep>
  void forEachWord(F&& f, Empty&& empty, Keep&& keep) {
    for (auto it = pages_.begin(); it != pages_.end();) {
      uint64_t firstKey = it->first << kPageShift;
      if (it->second.compact) {
        uint32_t kept = 0;
        for (const Run& run : it->second.compact->runs) kept += keep(firstKey | run.start, run.first);
        if (kept == it->second.compact->runs.size()) {
          ++it;
          continue;
        }
        if (kept == 0) {
          dropPage(it++);
          continue;
        }
        expand(it->second);
      }
      bool any = false;
      for (uint32_t i = 0; i < kWordsPerPage; ++i) {
        f(firstKey | i, it->second.full->words[i]);
        any = any || !empty(it->second.full->words[i]);
      }
      if (any) ++it;
      else dropPage(it++);
    }
  }
  // Frees the pages that hold [firstKey, lastKey] (a block's shared memory,
  // whose keys fill its pages alone), after dropped(history) for each word of
  // a full page (FinishedBlocks::dropSharedPages).
  template <class F>
  void erase(uint64_t firstKey, uint64_t lastKey, F&& dropped, bool /*keepPages*/) {
    for (uint64_t pageNo = firstKey >> kPageShift; pageNo <= lastKey >> kPageShift; ++pageNo) {
      auto it = pages_.find(pageNo);
      if (it == pages_.end()) continue;
      if (it->second.full)
        for (const History& h : it->second.full->words) dropped(h);
      dropPage(it);
    }
  }
  // Empties it, keeping room for as many pages: the next launch most likely
  // touches as many words (a big table's clear() frees its slots).
  void clearKeepingRoom() {
    size_t pages = pages_.size();
    pages_.clear();
    pages_.reserve(pages);
    fullPages_ = compactPages_ = compactHeapBytes_ = 0;
    heapRecordsMade_ = 0;
    lastPage_ = nullptr;
  }
  bool empty() const { return pages_.empty(); }
  size_t pages() const { return pages_.size(); }
  size_t compactPages() const { return compactPages_; }
  // Heap-held records (History::heapRecords) that compacting freed and
  // expanding made, net: the detector counts the rest as it changes words.
  int64_t heapRecordsMade() const { return heapRecordsMade_; }
  uint64_t bytes() const {
    return pages_.capacity() * (sizeof(uint64_t) + sizeof(Slot) + 1) + fullPages_ * sizeof(FullPage) +
           compactPages_ * sizeof(CompactPage) + compactHeapBytes_;
  }

 private:
  struct FullPage {
    std::array<History, kWordsPerPage> words;
    LeftPages::State leaving;
  };
  // In its layer, words [start, the layer's next run's start) hold `first`
  // but for their thread, first.thread + ((word - start) >> shift), and that
  // thread's lane.
  struct Run {
    uint16_t layer;  // the word's record it stands for: its first, second...
    uint16_t start;
    Record first;
  };
  // `writes`: the words' records are their last writes, else their reads.
  // Runs, by layer then word: one a warp event.
  struct CompactPage {
    uint8_t shift;
    bool writes;
    absl::InlinedVector<Run, 1> runs;
    uint64_t heapBytes() const { return runs.capacity() > 1 ? runs.capacity() * sizeof(Run) : 0; }
  };
  struct Slot {  // one of the two
    std::unique_ptr<FullPage> full;
    std::unique_ptr<CompactPage> compact;
  };
  FullPage* visit(uint64_t pageNo, bool make) {
    if (pageNo == lastPageNo_ && lastPage_) return lastPage_;
    if (lastPage_) leave(lastPageNo_, *lastPage_);
    lastPage_ = nullptr;
    auto it = pages_.find(pageNo);
    if (it == pages_.end()) {
      if (!make) return nullptr;
      it = pages_.try_emplace(pageNo).first;
      it->second.full = std::make_unique<FullPage>();
      ++fullPages_;
    } else if (it->second.compact) {
      expand(it->second);
    }
    lastPageNo_ = pageNo;
    return lastPage_ = it->second.full.get();
  }

  static bool isShared(uint64_t pageNo) { return pageNo >> (63 - kPageShift); }

  void leave(uint64_t pageNo, FullPage& page) {
    if (leftPages_.never() || isShared(pageNo)) return;
    if (std::optional<LeftPages::Left> due = leftPages_.leave(pageNo, page.leaving)) compactIfUntouched(*due);
  }
  void compactIfUntouched(const LeftPages::Left& left) {
    auto it = pages_.find(left.pageNo);
    if (it == pages_.end() || !it->second.full || it->second.full->leaving.leftAt != left.leftAt) return;
    FullPage& page = *it->second.full;
    std::optional<CompactPage> compact = fit(page);
    if (!compact) {
      LeftPages::fitFailed(page.leaving);
      return;
    }
    for (const History& h : page.words) heapRecordsMade_ -= int64_t(h.heapRecords());
    compactHeapBytes_ += compact->heapBytes();
    it->second.compact = std::make_unique<CompactPage>(std::move(*compact));
    it->second.full.reset();
    --fullPages_;
    ++compactPages_;
  }

  static constexpr uint32_t kMaxRuns = 4;     // a layer
  static constexpr uint32_t kMaxLayers = 16;  // records a word
  static Record recordOf(const CompactPage& c, const Run& run, uint32_t word) {
    Record r = run.first;
    r.thread = run.first.thread + ((word - run.start) >> c.shift);
    r.lanes = LaneMask(1) << (r.thread % kWarpSize);
    return r;
  }
  static std::optional<CompactPage> fit(const FullPage& page) {
    const bool writes = !page.words[0].lastWrites.empty();
    const size_t layers = (writes ? page.words[0].lastWrites : page.words[0].reads).size();
    if (layers == 0 || layers > kMaxLayers) return std::nullopt;
    std::array<const typename History::Records*, kWordsPerPage> records;
    for (uint32_t i = 0; i < kWordsPerPage; ++i) {
      const History& h = page.words[i];
      records[i] = writes ? &h.lastWrites : &h.reads;
      if (records[i]->size() != layers || !(writes ? h.reads : h.lastWrites).empty()) return std::nullopt;
    }
    // Words sharing the first word's thread: 1, 2 or 4 (4-, 8-, 16-byte elements).
    uint32_t same = 1;
    while (same < 4 && (*records[same])[0].thread == (*records[0])[0].thread) ++same;
    if (!std::has_single_bit(same)) return std::nullopt;
    CompactPage c{uint8_t(std::countr_zero(same)), writes, {}};
    for (uint32_t layer = 0; layer < layers; ++layer) {
      size_t layerStart = c.runs.size();
      for (uint32_t i = 0; i < kWordsPerPage; ++i) {
        const Record& r = (*records[i])[layer];
        if (c.runs.size() > layerStart && r == recordOf(c, c.runs.back(), i)) continue;
        if (c.runs.size() - layerStart == kMaxRuns) return std::nullopt;
        c.runs.push_back(Run{uint16_t(layer), uint16_t(i), r});
        if (!(r == recordOf(c, c.runs.back(), i))) return std::nullopt;  // (a read of several lanes)
      }
    }
    return c;
  }
  void expand(Slot& slot) {
    auto page = std::make_unique<FullPage>();
    const CompactPage& c = *slot.compact;
    // Layer by layer: each word's records come back in their order.
    for (size_t run = 0; run < c.runs.size(); ++run) {
      bool more = run + 1 < c.runs.size() && c.runs[run + 1].layer == c.runs[run].layer;
      uint32_t end = more ? c.runs[run + 1].start : kWordsPerPage;
      for (uint32_t i = c.runs[run].start; i < end; ++i) {
        History& h = page->words[i];
        (c.writes ? h.lastWrites : h.reads).push_back(recordOf(c, c.runs[run], i));
      }
    }
    for (const History& h : page->words) heapRecordsMade_ += int64_t(h.heapRecords());
    compactHeapBytes_ -= c.heapBytes();
    slot.full = std::move(page);
    slot.compact.reset();
    --compactPages_;
    ++fullPages_;
  }
  // (A page left behind that is freed is no longer found: left_ needs no change.)
  template <class It>
  void dropPage(It it) {
    if (it->first == lastPageNo_) lastPage_ = nullptr;
    if (it->second.full) {
      --fullPages_;
    } else {
      --compactPages_;
      compactHeapBytes_ -= it->second.compact->heapBytes();
    }
    pages_.erase(it);
  }

  absl::flat_hash_map<uint64_t, Slot> pages_;
  uint64_t fullPages_ = 0;
  uint64_t compactPages_ = 0;
  uint64_t compactHeapBytes_ = 0;  // runs beyond a compact page's first
  int64_t heapRecordsMade_ = 0;
  uint64_t lastPageNo_ = 0;
  FullPage* lastPage_ = nullptr;
  LeftPages leftPages_;
};

}  // namespace predatar
