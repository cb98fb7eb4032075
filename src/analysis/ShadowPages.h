// Shadow memory of the vector-clock detectors: the access records of each
// 4-byte word (AccessHistory's locationKey), stored densely in pages of
// consecutive words, each record packed into 32 bytes.
//
// Why: a hash map entry per word with a 56-byte record cost ~146 bytes per
// word (key, slot, control byte, load factor), so a kernel that touches a
// 64 MiB array (16M words) needed 2.3 GiB of shadow. Pages of 16 words make
// consecutive words cost 40 bytes each (the record and its vector header)
// plus ~2 bytes of page overhead, while a word accessed alone costs one page
// (~650 bytes): arrays are what real kernels touch most. A page whose words
// hold what one coalesced access left (one record each, alike but for
// consecutive threads) is kept as that one record: ~4 bytes a word; one
// whose words hold what several such accesses left, as one such record a
// layer (CompressedPage); one that fits no pattern but whose records repeat
// (two blocks' threads, halo readers), as a table of its distinct records
// (TablePage).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "analysis/CompressedPage.h"
#include "analysis/CompressedPages.h"
#include "analysis/LeftPages.h"
#include "analysis/PackedRecord.h"
#include "analysis/RecentPages.h"
#include "analysis/SpareSharedPages.h"
#include "analysis/TablePage.h"

namespace predatar {


class ShadowPages {
 public:
  using Records = predatar::Records;
  static constexpr uint32_t kPageShift = 4;
  static constexpr uint32_t kWordsPerPage = 1u << kPageShift;
  static constexpr uint32_t kRecentPages = 32;  // see leave()
  // Pages that fit no pattern are kept as tables (TablePage) only while more
  // than this many pages are full (~42 MiB): a table costs a fit, and a copy
  // of its records whenever the page is visited (every launch), which paid
  // off in memory but cost a launch-heavy program with a 24 MiB shadow 5-13%
  // of its time (cdpAdvancedQuicksort: 2,823 launches, 609K tables fitted).
  static constexpr uint64_t kTablesBeyondFullPages = 65536;

  explicit ShadowPages(uint64_t tablesBeyondFullPages = kTablesBeyondFullPages)
      : tablesBeyondFullPages_(tablesBeyondFullPages) {}

  // The records of `key`'s word (empty when it has none); creates its page.
  Records& at(uint64_t key) {
    uint64_t pageNo = key >> kPageShift;
    if (pageNo != lastPageNo_) [[unlikely]] {
      if (lastPage_) leave(lastPageNo_, *lastPage_);
      Page* page = recentPages_.find(pageNo);
      if (!page) {
        auto& made = pages_[pageNo];
        if (!made) made = newPage(pageNo);
        page = made.get();
        recentPages_.remember(pageNo, page);
      }
      lastPageNo_ = pageNo;
      lastPage_ = page;
    }
    return lastPage_->words[key & (kWordsPerPage - 1)];
  }
  // A copy of `key`'s records, leaving its page as it is (at() expands a
  // compressed one).
  Records recordsOf(uint64_t key) {
    uint64_t pageNo = key >> kPageShift;
    uint32_t word = uint32_t(key & (kWordsPerPage - 1));
    Records out;
    if (auto it = pages_.find(pageNo); it != pages_.end()) out = it->second->words[word];
    else if (const CompressedPage* c = compressed_.peek(pageNo)) c->wordRecords(word, out);
    else if (const TablePage* t = tables_.peek(pageNo)) t->wordRecords(word, out);
    return out;
  }
  // Appends to compressed page `pageNo`, when it is one and `accepts(page)`,
  // the plain reads of its elements by one warp from `first` on
  // (CompressedPage::appendReader): without expanding it, it then stands for
  // what appending each read to its word's records would leave. False when
  // it did not.
  template <class AcceptsFn>
  bool appendReads(uint64_t pageNo, const PackedRecord& first, uint32_t elementBytes, AcceptsFn&& accepts) {
    CompressedPage* c = compressed_.find(pageNo);
    if (!c || !accepts(*c)) return false;
    forgetCompressed(*c);
    bool appended = c->appendReader(first, elementBytes);
    countCompressed(*c);
    return appended;
  }
  // Compresses page `pageNo` of a block's shared memory when each of its
  // words holds one record and they fit a pattern (a warp's reads of all
  // of them), so that the next warps' reads of it are layers (appendReads):
  // a GEMM's shared tile row, which each of the block's warps reads in turn
  // between two __syncthreads, took a record a word and warp, a third of
  // matrixMul's analysis. (Not at the first warp's reads: a sorting network's
  // warp reads its words and then writes them, which would expand the page
  // again at once.) False, changing nothing, otherwise.
  bool compressSharedReads(uint64_t pageNo) {
    if (!isSharedPage(pageNo)) return false;
    auto it = pages_.find(pageNo);
    if (it == pages_.end() || it->second->used != kWordsPerPage) return false;
    const auto& words = it->second->words;
    if (!std::all_of(words.begin(), words.end(), [](const Records& r) { return r.size() == 1 && isPlainRead(r[0]); }))
      return false;
    if (!compressAsPattern(pageNo, words)) return false;
    dropPage(it);
    return true;
  }
  // Call when the word last returned by at() went from no records to some.
  void filled() {
    ++lastPage_->used;
    ++words_;
  }

  // Call when the word last returned by at() went from some records to none.
  void emptied() {
    --lastPage_->used;
    --words_;
  }

  // Visits every word with records: f(key, Records&); then frees the pages
  // whose words all became empty. (A compressed page is visited through
  // copies of its records, and stays compressed when f changes none.)
  template <class F>
  void forEachWord(F&& f) {
    for (auto it = pages_.begin(); it != pages_.end();) {
      Page& page = *it->second;
      for (uint32_t i = 0; i < kWordsPerPage; ++i) {
        Records& r = page.words[i];
        if (r.empty()) continue;
        f((it->first << kPageShift) | i, r);
        if (r.empty()) {
          --page.used;
          --words_;
        }
      }
      if (page.used == 0) dropPage(it++);
      else ++it;
    }
    // (After the full pages: a page expanded here is not visited twice.
    // Both kinds' numbers first: a page that changes kind is not either.)
    std::vector<uint64_t> patterns = compressed_.pageNumbers(), tables = tables_.pageNumbers();
    visitCompressed(compressed_, patterns, f);
    visitCompressed(tables_, tables, f);
  }
  // Erases the words of the pages that hold [firstKey, lastKey] (a block's
  // shared memory: its keys fill its pages alone); dropped(n) hears of the
  // records erased (a compressed page's without expanding them).
  // `keepPages`: their pages (not compressed ones) stay, empty, to be filled
  // again (a block's shared words after a __syncthreads: freeing and
  // allocating, hashing out and in, a block's pages at every barrier cost
  // sortingNetworks 97K instructions a barrier); forEachWord frees them if
  // they stay empty. Their words keep their heap blocks too: a tile that
  // every warp reads regrew each word's from one record every interval
  // (malloc was a fifth of matrixMul's run, 2.4 s of system time besides).
  static constexpr size_t kKeptRecords = 64;  // a word's records whose heap block `keepPages` keeps
  template <class F>
  void erase(uint64_t firstKey, uint64_t lastKey, F&& dropped, bool keepPages = false) {
    for (uint64_t pageNo = firstKey >> kPageShift; pageNo <= lastKey >> kPageShift; ++pageNo)
      erasePage(pageNo, dropped, keepPages);
  }
  // Compresses now the pages left recently that fit a pattern or a table (kRecentPages).
  void settle() {
    leftPages_.drain([&](const LeftPages::Left& left) { compressIfUntouched(left); });
  }
  void clear() {
    pages_.clear();
    recentPages_.clear();
    compressed_.clear();
    tables_.clear();
    compressedExtra_ = compressedBytes_ = 0;
    leftPages_.clear();
    words_ = 0;
    lastPageNo_ = UINT64_MAX;
    lastPage_ = nullptr;
  }
  bool empty() const { return pages_.empty() && compressed_.empty() && tables_.empty(); }
  uint64_t words() const { return words_; }
  uint64_t pages() const { return pages_.size() + compressed_.size() + tables_.size(); }
  uint64_t fullPages() const { return pages_.size(); }
  uint64_t tablePages() const { return tables_.size(); }
  // Records that compressed pages stand for beyond one a word (they cost no bytes of their own).
  uint64_t compressedExtraRecords() const { return compressedExtra_; }
  // Bytes of the pages and the maps (records beyond a word's first are extra).
  uint64_t bytes() const {
    return pages_.capacity() * (sizeof(uint64_t) + sizeof(std::unique_ptr<Page>) + 1) + pages_.size() * sizeof(Page) +
           compressed_.bytes() + tables_.bytes() + compressedBytes_ + spareShared_.bytes();
  }

 private:
  struct Page {
    std::array<Records, kWordsPerPage> words;
    uint32_t used = 0;  // words with records
    LeftPages::State leaving;  // when a full page at() leaves is compressed
  };
  using Map = absl::flat_hash_map<uint64_t, std::unique_ptr<Page>>;

  // A page of a block's shared memory (locationKey's top bit) is not
  // compressed when left: a __syncthreads of the whole block, or its end,
  // drops it soon, and the words of a sorting network in shared memory were
  // compressed after each step and expanded at the next (a tenth of
  // sortingNetworks' analysis), to save memory that lives for one step.
  // (Only reads of all its words by several warps make it one: compressSharedReads.)
  static bool isSharedPage(uint64_t pageNo) { return (pageNo >> (63 - kPageShift)) & 1; }

  // A new page, or a compressed one expanded.
  // (A shared page may be compressed too: compressSharedReads.)
  std::unique_ptr<Page> newPage(uint64_t pageNo) {
    std::unique_ptr<Page> page = isSharedPage(pageNo) ? spareShared_.take(pageNo) : nullptr;
    if (!page) page = std::make_unique<Page>();
    if (!expandInto(compressed_, pageNo, *page)) expandInto(tables_, pageNo, *page);
    return page;
  }
  // Moves compressed page `pageNo` of `pages`, if there, into `page`.
  template <class Pages>
  bool expandInto(Pages& pages, uint64_t pageNo, Page& page) {
    auto* c = pages.find(pageNo);
    if (!c) return false;
    page.used = 0;
    for (uint32_t i = 0; i < kWordsPerPage; ++i) {
      // A word of several records is read-shared data expanded for its next
      // reader, whose record comes next: room for it, made at once (the
      // records went in one by one, each vector growing 1, 2, 4 ... and
      // again at the reader's: a quarter of the expansions' cost in matrixMul).
      uint32_t n = c->recordsOfWord(i);
      if (n > 1) page.words[i].reserve(n + 1);
      c->wordRecords(i, page.words[i]);
      page.used += n > 0;  // (a table may hold words of none)
    }
    forgetCompressed(*c);
    pages.erase(pageNo);
    return true;
  }
  // f on copies of each word of the compressed pages `numbers` of `pages`;
  // a page whose words f changed is compressed again, or kept full.
  // (Copies in a page on the stack: an unchanged page allocates nothing.)
  template <class Pages, class F>
  void visitCompressed(Pages& pages, const std::vector<uint64_t>& numbers, F& f) {
    for (uint64_t pageNo : numbers) {
      const auto& c = *pages.peek(pageNo);  // (a folded chunk stays folded when f changes nothing)
      Page copies;
      bool changed = false;
      for (uint32_t i = 0; i < kWordsPerPage; ++i) {
        Records& r = copies.words[i];
        c.wordRecords(i, r);
        f((pageNo << kPageShift) | i, r);
        changed |= !c.holds(i, r);
        if (!r.empty()) ++copies.used;
        else if (c.recordsOfWord(i)) --words_;
      }
      if (!changed) continue;
      forgetCompressed(c);
      pages.erase(pageNo);
      // What is left may fit again (a launch's layer dropped).
      if (copies.used && compress(pageNo, copies.words)) continue;
      if (copies.used) pages_.emplace(pageNo, std::make_unique<Page>(std::move(copies)));
    }
  }
  // Erases page `pageNo`'s words, if it holds any; `keepPages`: a full page
  // stays, empty (erase). It walks only its `used` words' worth: a barrier
  // interval mostly leaves a few words of each of its block's shared pages,
  // and walking every word of the block's pages (their vector headers, ten
  // cache lines a page) at each __syncthreads was a sixth of needle's gwcp run.
  template <class F>
  void erasePage(uint64_t pageNo, F& dropped, bool keepPages) {
    auto it = pages_.find(pageNo);  // (first: a block's shared pages are mostly full)
    if (it == pages_.end()) {
      if (!eraseCompressed(compressed_, pageNo, dropped)) eraseCompressed(tables_, pageNo, dropped);
      return;
    }
    Page& page = *it->second;
    words_ -= page.used;
    for (uint32_t i = 0, left = page.used; left > 0; ++i) {  // (`used` counts every word that holds records)
      Records& r = page.words[i];
      if (r.empty()) continue;
      --left;
      dropped(r.size());
      if (keepPages) emptyKeepingRoom(r);
    }
    if (!keepPages) {
      dropPage(it);
      return;
    }
    page.used = 0;
    page.leaving = {};
  }
  // Erases compressed page `pageNo` of `pages`, if there; dropped(n) hears of its records first.
  template <class Pages, class F>
  bool eraseCompressed(Pages& pages, uint64_t pageNo, F& dropped) {
    const auto* c = pages.peek(pageNo);
    if (!c) return false;
    for (uint32_t i = 0; i < kWordsPerPage; ++i) {
      if (uint32_t n = c->recordsOfWord(i)) {
        dropped(size_t(n));
        --words_;
      }
    }
    forgetCompressed(*c);
    pages.erase(pageNo);
    return true;
  }
  // Keeps `words` as compressed page `pageNo` when they fit a pattern.
  bool compressAsPattern(uint64_t pageNo, const std::array<Records, kWordsPerPage>& words) {
    std::optional<CompressedPage> c = CompressedPage::fit(words);
    if (!c) return false;
    countCompressed(*c);
    compressed_.emplace(pageNo, std::move(*c));
    return true;
  }
  // Keeps `words` as compressed page `pageNo` when they fit a pattern or,
  // failing that and with many pages full, a table.
  bool compress(uint64_t pageNo, const std::array<Records, kWordsPerPage>& words) {
    if (compressAsPattern(pageNo, words)) return true;
    if (pages_.size() < tablesBeyondFullPages_) return false;
    if (std::optional<TablePage> t = TablePage::fit(words)) {
      countCompressed(*t);
      tables_.emplace(pageNo, std::move(*t));
      return true;
    }
    return false;
  }
  // (A page of some words only may become a table: compress.)
  void leave(uint64_t pageNo, Page& page) {
    if (page.used == 0 || isSharedPage(pageNo)) return;
    if (std::optional<LeftPages::Left> due = leftPages_.leave(pageNo, page.leaving)) compressIfUntouched(*due);
  }
  // The page `left` names, if no at() reached it since it was left (nor is
  // reaching it now), tries to compress.
  void compressIfUntouched(const LeftPages::Left& left) {
    auto it = pages_.find(left.pageNo);
    if (it != pages_.end() && it->second->leaving.leftAt == left.leftAt && it->first != lastPageNo_)
      tryCompress(left.pageNo, *it->second);
  }
  // A page left behind compresses when its words fit a pattern or a table.
  void tryCompress(uint64_t pageNo, Page& page) {
    if (page.used == 0) return;
    if (!compress(pageNo, page.words)) {
      LeftPages::fitFailed(page.leaving);
      return;
    }
    dropPage(pages_.find(pageNo));
  }
  template <class CompressedKind>
  void countCompressed(const CompressedKind& c) {
    compressedExtra_ += c.extraRecords();
    compressedBytes_ += c.heapBytes();
  }
  template <class CompressedKind>
  void forgetCompressed(const CompressedKind& c) {
    compressedExtra_ -= c.extraRecords();
    compressedBytes_ -= c.heapBytes();
  }
  // Empties `page`'s words but keeps their heap blocks (erase's keepPages),
  // unless outsized: what one interval of a block piled on a word need not
  // stay for the next.
  static void emptyKeepingRoom(Page& page) {
    for (Records& r : page.words) emptyKeepingRoom(r);
    page.used = 0;
    page.leaving = {};
  }
  static void emptyKeepingRoom(Records& r) {
    if (r.capacity() <= kKeptRecords) r.erase(r.begin(), r.end());
    else r.clear();
  }
  void dropPage(Map::iterator it) {
    if (it->first == lastPageNo_) {
      lastPageNo_ = UINT64_MAX;
      lastPage_ = nullptr;
    }
    recentPages_.forget(it->first);
    if (isSharedPage(it->first)) spareShared_.keep(it->first, it->second, [](Page& p) { emptyKeepingRoom(p); });
    pages_.erase(it);
  }

  Map pages_;
  uint64_t tablesBeyondFullPages_;
  CompressedPages compressed_;  // pages that fit a pattern
  TablePages tables_;           // pages that fit a table but no pattern
  uint64_t words_ = 0;
  uint64_t compressedExtra_ = 0;
  uint64_t compressedBytes_ = 0;  // heap blocks of compressed pages (field tables, layers, tables)
  LeftPages leftPages_{kRecentPages};
  uint64_t lastPageNo_ = UINT64_MAX;
  Page* lastPage_ = nullptr;
  // Full pages at() reached lately; dropPage and clear() forget what they
  // drop (a page in pages_ stays where it is: unique_ptr).
  RecentPages<Page> recentPages_;
  SpareSharedPages<Page, kPageShift> spareShared_;  // finished blocks' shared pages
};

}  // namespace predatar
