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
// layers of those. A page that fits none of these but whose records repeat
// (a hash table's slab read by every warp probing its bucket, with the slots
// a CAS claimed; a stencil's halo words read by two blocks) is kept as a
// table, as gwcp's TablePage: each distinct record once, relative to its
// word, and each word's records as indices into them.
// A page is compacted once it has been left (another page visited) and
// `leavesBeforeCompact` more pages were left with it untouched, on the
// schedule of gwcp's ShadowPages (LeftPages: a page still being filled, or
// visited back and forth, stays full; one that does not fit backs off).
// Touching a compact page expands it, record for record as it was: the
// detector only ever sees full pages. Shared-memory pages are never
// compacted (a block's are freed when it finishes).
// Sixteen consecutive compact pages of one run each, alike but for their
// runs' threads and trace positions (what a grid-stride loop leaves), are
// folded into one map slot (FoldedPages, 264 bytes for the 16): StreamPriorities'
// 16M pages took ~140 bytes each (a map slot, a compact page with its 64-byte
// record), 2.2 GB.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <memory>
#include <optional>
#include <variant>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "analysis/Detector.h"
#include "analysis/LeftPages.h"
#include "analysis/RecentPages.h"
#include "analysis/SpareSharedPages.h"
#include "clock/ClockMemory.h"

namespace predatar {

template <class History>
class LocksetShadow {
 public:
  using Record = typename History::Records::value_type;
  static constexpr uint32_t kPageShift = 4;
  static constexpr uint32_t kWordsPerPage = 1u << kPageShift;

  // 0: never compacts (LeftPages rounds it to a power of two, at most 64).
  explicit LocksetShadow(uint32_t leavesBeforeCompact = 32) : leftPages_(leavesBeforeCompact) {}
  // Whether pages that fit no pattern of runs become tables (from then on;
  // the tables made stay): the detector allows them once its shadow is big
  // (DetectorOptions::locksetTablesFromBytes).
  void makeTables(bool yes) { makeTables_ = yes; }

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
  // records are alike: they go or stay together), a table keep(its first
  // key, each entry as word 0's); only when the answers differ is it
  // expanded, walked, and compacted again.
  template <class F, class Empty, class Keep>
  void forEachWord(F&& f, Empty&& empty, Keep&& keep) {
    lastPage_ = nullptr;  // (a page walked may be compacted again)
    for (auto it = folds_.begin(); it != folds_.end();) {
      uint32_t kept = 0;
      for (uint32_t k = 0; k < kFoldPages; ++k) kept += keep(foldedKey(it->first, k), foldedRecord(*it->second, k));
      if (kept == kFoldPages) {
        ++it;
      } else if (kept == 0) {
        folds_.erase(it++);
      } else {
        unfold(it->first, *it->second);  // (its pages are walked below)
        folds_.erase(it++);
      }
    }
    for (auto it = pages_.begin(); it != pages_.end();) {
      uint64_t firstKey = it->first << kPageShift;
      const bool wasFull = fullOf(it->second) != nullptr;
      if (!wasFull) {
        uint32_t kept = 0, of = 0;
        if (tableOf(it->second)) {
          for (const Record& entry : tableOf(it->second)->entries) kept += keep(firstKey, tableRecord(entry, 0));
          of = uint32_t(tableOf(it->second)->entries.size());
        } else {
          for (const Run& run : compactOf(it->second)->runs) kept += keep(firstKey | run.start, run.first);
          of = uint32_t(compactOf(it->second)->runs.size());
        }
        if (kept == of) {
          ++it;
          continue;
        }
        if (kept == 0) {
          dropPage(it++);
          continue;
        }
        if (tableOf(it->second)) expandTable(it->second);
        else expand(it->second);
      }
      bool any = false;
      for (uint32_t i = 0; i < kWordsPerPage; ++i) {
        f(firstKey | i, fullOf(it->second)->words[i]);
        any = any || !empty(fullOf(it->second)->words[i]);
      }
      if (!any) {
        dropPage(it++);
        continue;
      }
      // A compact page the walk expanded fits again, most likely: the walk
      // visits every page, and left full it would stay so until touched.
      if (!wasFull) compact(it->first, it->second, /*mayFold=*/false);
      ++it;
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
      if (fullOf(it->second))
        for (const History& h : fullOf(it->second)->words) dropped(h);
      dropPage(it);
    }
  }
  // Empties it, keeping room for as many pages: the next launch most likely
  // touches as many words (a big table's clear() frees its slots).
  void clearKeepingRoom() {
    size_t pages = pages_.size();
    pages_.clear();
    pages_.reserve(pages);
    folds_.clear();
    fullPages_ = compactPages_ = compactHeapBytes_ = tablePages_ = tableHeapBytes_ = 0;
    heapRecordsMade_ = 0;
    lastPage_ = nullptr;
    recentPages_.clear();
    spareShared_.clear();  // (their words' heap blocks were counted in heapRecordsMade_)
  }
  bool empty() const { return pages_.empty() && folds_.empty(); }
  size_t pages() const { return pages_.size() + kFoldPages * folds_.size(); }
  size_t compactPages() const { return compactPages_ + kFoldPages * folds_.size(); }
  size_t foldedChunks() const { return folds_.size(); }
  size_t tablePages() const { return tablePages_; }
  // Heap-held records (History::heapRecords) that compacting freed and
  // expanding made, net, and those the spare shared pages' words keep: the
  // detector counts the rest as it changes words.
  int64_t heapRecordsMade() const { return heapRecordsMade_; }
  uint64_t bytes() const {
    return pages_.capacity() * (sizeof(uint64_t) + sizeof(Slot) + 1) + fullPages_ * sizeof(FullPage) +
           compactPages_ * sizeof(CompactPage) + compactHeapBytes_ + tablePages_ * sizeof(TablePage) +
           tableHeapBytes_ + spareShared_.bytes() + folds_.capacity() * (sizeof(uint64_t) + sizeof(void*) + 1) +
           folds_.size() * sizeof(FoldedPages);
  }

 private:
  struct FullPage : OnClockHeap {
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
  struct CompactPage : OnClockHeap {
    uint8_t shift;
    bool writes;
    absl::InlinedVector<Run, 1, ClockAllocator<Run>> runs;
    uint64_t heapBytes() const { return runs.capacity() > 1 ? runs.capacity() * sizeof(Run) : 0; }
  };
  // Each distinct record of the page once (entries), and word w's last
  // writes and reads as indices into them: index[start[2w] .. start[2w+1])
  // and index[start[2w+1] .. start[2w+2]). A record of one lane is kept
  // relative to its word: its thread less the word's index, its lanes 0.
  struct TablePage : OnClockHeap {
    std::vector<Record, ClockAllocator<Record>> entries;
    std::array<uint16_t, 2 * kWordsPerPage + 1> start{};
    std::vector<uint8_t, ClockAllocator<uint8_t>> index;
    uint64_t heapBytes() const { return entries.capacity() * sizeof(Record) + index.capacity(); }
  };
  // Pages chunk * 16 + k (k < 16), each a compact page of one run from its
  // word 0 on: the run's record is `first` but for its block, thread (and
  // lane) and trace position, page k's.
  static constexpr uint32_t kFoldShift = 4;
  static constexpr uint32_t kFoldPages = 1u << kFoldShift;
  struct FoldedPages : OnClockHeap {
    Record first;
    uint8_t shift;
    bool writes;
    std::array<uint32_t, kFoldPages> block, thread;
    std::array<int32_t, kFoldPages> seq;  // less first's
  };
  static_assert(sizeof(FoldedPages) == 264 || sizeof(void*) != 8);
  static uint64_t foldedKey(uint64_t chunk, uint32_t k) { return ((chunk << kFoldShift) | k) << kPageShift; }
  static Record foldedRecord(const FoldedPages& f, uint32_t k) {
    Record r = f.first;
    r.block = f.block[k];
    r.thread = f.thread[k];
    r.lanes = LaneMask(1) << (r.thread % kWarpSize);
    r.origin.seq = uint64_t(int64_t(f.first.origin.seq) + f.seq[k]);
    return r;
  }
  // One of the three (a map slot of 16 bytes, as many pages are compact).
  using Slot = std::variant<std::unique_ptr<FullPage>, std::unique_ptr<CompactPage>, std::unique_ptr<TablePage>>;
  template <class Page>
  static Page* as(const Slot& slot) {
    const auto* p = std::get_if<std::unique_ptr<Page>>(&slot);
    return p ? p->get() : nullptr;
  }
  static FullPage* fullOf(const Slot& slot) { return as<FullPage>(slot); }
  static CompactPage* compactOf(const Slot& slot) { return as<CompactPage>(slot); }
  static TablePage* tableOf(const Slot& slot) { return as<TablePage>(slot); }
  // (The last page again, inline: a lane's find and at come here, and a
  // warp's lanes fall in one or two pages.)
  FullPage* visit(uint64_t pageNo, bool make) {
    if (pageNo == lastPageNo_ && lastPage_) return lastPage_;
    return visitAnother(pageNo, make);
  }
  [[gnu::noinline]] FullPage* visitAnother(uint64_t pageNo, bool make) {
    if (lastPage_) leave(lastPageNo_, *lastPage_);
    lastPage_ = nullptr;
    FullPage* page = recentPages_.find(pageNo);
    if (!page) {
      auto it = pages_.find(pageNo);
      if (it == pages_.end() && !folds_.empty()) {
        if (auto f = folds_.find(pageNo >> kFoldShift); f != folds_.end()) {
          unfold(f->first, *f->second);
          folds_.erase(f);
          it = pages_.find(pageNo);
        }
      }
      if (it == pages_.end()) {
        if (!make) return nullptr;
        it = pages_.try_emplace(pageNo).first;
        it->second = newPage(pageNo);
        ++fullPages_;
      } else if (compactOf(it->second)) {
        expand(it->second);
      } else if (tableOf(it->second)) {
        expandTable(it->second);
      }
      page = fullOf(it->second);
      recentPages_.remember(pageNo, page);
    }
    lastPageNo_ = pageNo;
    return lastPage_ = page;
  }

  static bool isShared(uint64_t pageNo) { return pageNo >> (63 - kPageShift); }

  void leave(uint64_t pageNo, FullPage& page) {
    if (leftPages_.never() || isShared(pageNo)) return;
    if (std::optional<LeftPages::Left> due = leftPages_.leave(pageNo, page.leaving)) compactIfUntouched(*due);
  }
  void compactIfUntouched(const LeftPages::Left& left) {
    auto it = pages_.find(left.pageNo);
    if (it == pages_.end() || !fullOf(it->second) || fullOf(it->second)->leaving.leftAt != left.leftAt) return;
    if (!compact(left.pageNo, it->second, /*mayFold=*/true)) LeftPages::fitFailed(fullOf(it->second)->leaving);
  }
  // Keeps the full page `pageNo` of `slot` as runs or as a table, if either
  // fits; `mayFold`: folds its chunk then, if it is the chunk's last page and
  // they fold (pages are mostly left in order; not while pages_ is walked).
  bool compact(uint64_t pageNo, Slot& slot, bool mayFold) {
    const FullPage& page = *fullOf(slot);
    std::optional<CompactPage> runs = fit(page);
    std::optional<TablePage> table = runs || !makeTables_ ? std::nullopt : fitTable(page);
    if (!runs && !table) return false;
    recentPages_.forget(pageNo);
    for (const History& h : page.words) heapRecordsMade_ -= int64_t(h.heapRecords());
    if (runs) {
      compactHeapBytes_ += runs->heapBytes();
      slot = std::make_unique<CompactPage>(std::move(*runs));
      ++compactPages_;
    } else {
      tableHeapBytes_ += table->heapBytes();
      slot = std::make_unique<TablePage>(std::move(*table));
      ++tablePages_;
    }
    --fullPages_;
    if (mayFold && runs && (pageNo & (kFoldPages - 1)) == kFoldPages - 1) fold(pageNo >> kFoldShift);
    return true;
  }
  // Folds the chunk's pages when each is a compact page of one run, alike
  // but for the run's block, thread and trace position. (Out of line, as
  // unfold: once a chunk.)
  [[gnu::noinline]] void fold(uint64_t chunk) {
    std::array<typename decltype(pages_)::iterator, kFoldPages> at;
    FoldedPages folded;  // (on the stack: most tries fail, and allocate nothing)
    for (uint32_t k = 0; k < kFoldPages; ++k) {
      at[k] = pages_.find((chunk << kFoldShift) | k);
      const CompactPage* c = at[k] == pages_.end() ? nullptr : compactOf(at[k]->second);
      if (!c || c->runs.size() != 1 || c->runs[0].start != 0) return;
      const Record& r = c->runs[0].first;
      if (k == 0) {
        folded.first = r;
        folded.shift = c->shift;
        folded.writes = c->writes;
      }
      int64_t seq = int64_t(r.origin.seq) - int64_t(folded.first.origin.seq);
      folded.block[k] = r.block;
      folded.thread[k] = r.thread;
      folded.seq[k] = int32_t(seq);
      if (c->shift != folded.shift || c->writes != folded.writes || seq != folded.seq[k] ||
          !(foldedRecord(folded, k) == r))
        return;
    }
    for (auto it : at) dropPage(it);
    folds_.emplace(chunk, std::make_unique<FoldedPages>(folded));
  }
  [[gnu::noinline]] void unfold(uint64_t chunk, const FoldedPages& f) {
    for (uint32_t k = 0; k < kFoldPages; ++k) {
      CompactPage c{{}, f.shift, f.writes, {}};
      c.runs.push_back(Run{0, 0, foldedRecord(f, k)});
      pages_[(chunk << kFoldShift) | k] = std::make_unique<CompactPage>(std::move(c));
      ++compactPages_;
    }
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
    CompactPage c{{}, uint8_t(std::countr_zero(same)), writes, {}};
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
  // (A slab of a hash table read by every warp probing its bucket: ~20
  // entries, a warp's read each, and ~300 records.)
  static constexpr uint32_t kMaxTableEntries = 64;
  static constexpr uint32_t kMaxTableRecords = 4096;
  // `r`, held by word `word`, as a table keeps it.
  static Record tableEntry(Record r, uint32_t word) {
    if (r.lanes == LaneMask(1) << (r.thread % kWarpSize)) {
      r.thread -= word;
      r.lanes = 0;
    }
    return r;
  }
  static Record tableRecord(Record entry, uint32_t word) {
    if (entry.lanes == 0) {
      entry.thread += word;
      entry.lanes = LaneMask(1) << (entry.thread % kWarpSize);
    }
    return entry;
  }
  // The table of `page`, when its records repeat enough for it to cost at
  // most half the page's bytes.
  static std::optional<TablePage> fitTable(const FullPage& page) {
    // Built in place, then copied: a fit that fails costs no allocation.
    std::array<Record, kMaxTableEntries> entries;
    std::array<uint8_t, kMaxTableRecords> index;
    uint32_t nEntries = 0, nIndex = 0;
    std::array<uint16_t, 2 * kWordsPerPage + 1> start{};
    uint64_t heapRecords = 0;
    for (uint32_t w = 0; w < kWordsPerPage; ++w) {
      const History& h = page.words[w];
      heapRecords += h.heapRecords();
      for (uint32_t list = 0; list < 2; ++list) {
        const auto& records = list ? h.reads : h.lastWrites;
        start[2 * w + list] = uint16_t(nIndex);
        // The previous word's records of this list, most likely the same entries in the same order.
        uint32_t hint = w ? start[2 * w + list - 2] : 0, hints = w ? start[2 * w + list - 1] - hint : 0;
        for (uint32_t k = 0; k < records.size(); ++k) {
          const Record& r = records[k];
          if (r.lanes == 0 || nIndex == kMaxTableRecords) return std::nullopt;
          Record e = tableEntry(r, w);
          if (k < hints && entries[index[hint + k]] == e) {
            index[nIndex] = index[hint + k];
            ++nIndex;
            continue;
          }
          uint32_t found = uint32_t(std::find(entries.begin(), entries.begin() + nEntries, e) - entries.begin());
          if (found == nEntries) {
            if (nEntries == kMaxTableEntries) return std::nullopt;
            entries[nEntries++] = e;
          }
          index[nIndex++] = uint8_t(found);
        }
      }
    }
    start[2 * kWordsPerPage] = uint16_t(nIndex);
    uint64_t fullBytes = sizeof(FullPage) + heapRecords * sizeof(Record);
    uint64_t tableBytes = sizeof(TablePage) + nEntries * sizeof(Record) + nIndex;
    if (nIndex == 0 || tableBytes > fullBytes / 2) return std::nullopt;
    return TablePage{{}, {entries.begin(), entries.begin() + nEntries}, start, {index.begin(), index.begin() + nIndex}};
  }
  void expandTable(Slot& slot) {
    auto page = std::make_unique<FullPage>();
    const TablePage& t = *tableOf(slot);
    for (uint32_t w = 0; w < kWordsPerPage; ++w) {
      History& h = page->words[w];
      h.lastWrites.reserve(t.start[2 * w + 1] - t.start[2 * w]);
      h.reads.reserve(t.start[2 * w + 2] - t.start[2 * w + 1]);
      for (uint32_t i = t.start[2 * w]; i < t.start[2 * w + 1]; ++i)
        h.lastWrites.push_back(tableRecord(t.entries[t.index[i]], w));
      for (uint32_t i = t.start[2 * w + 1]; i < t.start[2 * w + 2]; ++i)
        h.reads.push_back(tableRecord(t.entries[t.index[i]], w));
      heapRecordsMade_ += int64_t(h.heapRecords());
    }
    tableHeapBytes_ -= t.heapBytes();
    slot = std::move(page);
    --tablePages_;
    ++fullPages_;
  }
  void expand(Slot& slot) {
    auto page = std::make_unique<FullPage>();
    const CompactPage& c = *compactOf(slot);
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
    slot = std::move(page);
    --compactPages_;
    ++fullPages_;
  }
  std::unique_ptr<FullPage> newPage(uint64_t pageNo) {
    std::unique_ptr<FullPage> page = isShared(pageNo) ? spareShared_.take(pageNo) : nullptr;
    return page ? std::move(page) : std::make_unique<FullPage>();
  }
  // (A page left behind that is freed is no longer found: left_ needs no change.)
  template <class It>
  void dropPage(It it) {
    if (it->first == lastPageNo_) lastPage_ = nullptr;
    recentPages_.forget(it->first);
    if (fullOf(it->second)) {
      --fullPages_;
      if (isShared(it->first))
        spareShared_.keep(it->first, std::get<std::unique_ptr<FullPage>>(it->second),
                          [&](FullPage& page) { emptyKeepingRoom(page); });
    } else if (tableOf(it->second)) {
      --tablePages_;
      tableHeapBytes_ -= tableOf(it->second)->heapBytes();
    } else {
      --compactPages_;
      compactHeapBytes_ -= compactOf(it->second)->heapBytes();
    }
    pages_.erase(it);
  }

  // Empties a spared page's words but keeps their heap blocks, unless
  // outsized (what one block piled on a word need not stay for the next);
  // those kept count as the shadow's own (heapRecordsMade_) from then on:
  // the detector counted them out with the words' records.
  static constexpr size_t kKeptRecords = 64;
  void emptyKeepingRoom(FullPage& page) {
    for (History& h : page.words) {
      for (auto* records : {&h.lastWrites, &h.reads}) {
        if (records->empty()) continue;
        if (records->capacity() <= kKeptRecords) records->resize(0);
        else records->clear();  // (absl's clear() frees the heap block; resize keeps it)
      }
      heapRecordsMade_ += int64_t(h.heapRecords());
    }
    page.leaving = {};
  }

  absl::flat_hash_map<uint64_t, Slot> pages_;
  absl::flat_hash_map<uint64_t, std::unique_ptr<FoldedPages>> folds_;  // by chunk (page number / 16)
  uint64_t fullPages_ = 0;
  uint64_t compactPages_ = 0;
  uint64_t compactHeapBytes_ = 0;  // runs beyond a compact page's first
  uint64_t tablePages_ = 0;
  uint64_t tableHeapBytes_ = 0;
  int64_t heapRecordsMade_ = 0;
  uint64_t lastPageNo_ = 0;
  FullPage* lastPage_ = nullptr;
  // Full pages visit() reached lately (a warp reading a column reaches a
  // page a lane, twice: find, then at; they took 0.1 s of lockset's 2.2 on
  // needle). A page's slot is forgotten when it is compacted or dropped, and
  // all at clearKeepingRoom.
  RecentPages<FullPage> recentPages_;
  SpareSharedPages<FullPage, kPageShift> spareShared_;  // finished blocks' shared pages
  LeftPages leftPages_;
  bool makeTables_ = true;
};

}  // namespace predatar
