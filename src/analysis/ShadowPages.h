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
// consecutive threads) is kept as that one record: ~4 bytes a word.
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <memory>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "clock/VectorClock.h"
#include "events/Event.h"

namespace predatar {

// An AccessRecord (AccessHistory.h) as the shadow keeps it. The trace position
// keeps its low 48 bits (2.8e14 events), the kind of access the top 16.
//
// A record may stand for a group of threads of one warp (threads 32w ..
// 32w + 31 of a block): plain reads of one word alike in all but the thread
// (same launch, epoch, instruction, bytes). `thread` then holds the lane
// mask, and the kind the warp w.
struct PackedRecord {
  uint64_t seqAndKind = 0;
  uint32_t block = 0;
  uint32_t thread = 0;
  Clock clock = 0;
  uint32_t pc = 0;      // Origin::pc: an instruction index or a litmus line
  uint32_t source = 0;  // Origin::source
  uint32_t launch = 0;

  bool operator==(const PackedRecord&) const = default;

  static constexpr int kSeqBits = 48;
  static constexpr uint64_t kGroup = uint64_t(1) << 10;  // in kind(); bits 11..15 the warp
  static constexpr uint32_t kGroupWarps = 32;           // threads 0..1023 may be grouped
  static constexpr uint64_t kSeqMask = (uint64_t(1) << kSeqBits) - 1;

  static PackedRecord pack(uint32_t block, uint32_t thread, Clock clock, AccessType type, bool strong,
                           bool isVolatile, Scope scope, uint8_t bytes, const Origin& origin, uint32_t launch) {
    uint64_t kind = uint64_t(type) | uint64_t(strong) << 2 | uint64_t(isVolatile) << 3 | uint64_t(scope) << 4 |
                    uint64_t(bytes & 0xf) << 6;
    return PackedRecord{(origin.seq & kSeqMask) | kind << kSeqBits, block, thread, clock,
                        uint32_t(origin.pc), origin.source, launch};
  }
  uint64_t kind() const { return seqAndKind >> kSeqBits; }
  AccessType type() const { return AccessType(kind() & 3); }
  bool strong() const { return (kind() >> 2) & 1; }
  bool isVolatile() const { return (kind() >> 3) & 1; }
  Scope scope() const { return Scope((kind() >> 4) & 3); }
  uint8_t bytes() const { return uint8_t((kind() >> 6) & 0xf); }
  Origin origin() const { return Origin{seqAndKind & kSeqMask, pc, source}; }
  bool group() const { return kind() & kGroup; }
  uint32_t laneMask() const { return thread; }  // of a group
  // The warp (thread / 32) of every thread the record stands for.
  uint32_t warp() const { return group() ? uint32_t(kind() >> 11) & 31 : thread >> 5; }
  uint32_t firstThread() const { return group() ? warp() * 32 + uint32_t(std::countr_zero(thread)) : thread; }
  bool holds(uint32_t t) const { return group() ? (t >> 5) == warp() && ((thread >> (t & 31)) & 1) : thread == t; }
  // Makes this record stand for the lanes `mask` (not 0) of warp `warp`.
  void setLanes(uint32_t warp, uint32_t mask) {
    seqAndKind &= ~(uint64_t(0x3f) << (kSeqBits + 10));
    if (std::has_single_bit(mask)) {
      thread = warp * 32 + uint32_t(std::countr_zero(mask));
      return;
    }
    seqAndKind |= (kGroup | uint64_t(warp) << 11) << kSeqBits;
    thread = mask;
  }
  uint32_t lanes() const { return group() ? thread : 1u << (thread & 31); }
  void setBytes(uint8_t mask) {
    seqAndKind = (seqAndKind & ~(uint64_t(0xf) << (kSeqBits + 6))) | uint64_t(mask & 0xf) << (kSeqBits + 6);
  }
  // Same record but for the thread(s): a group can take the other in.
  bool alikeBesidesThreads(const PackedRecord& o) const {
    return ((seqAndKind ^ o.seqAndKind) >> kSeqBits & 0x3ff) == 0 && block == o.block && clock == o.clock &&
           pc == o.pc && source == o.source && launch == o.launch;
  }
};
static_assert(sizeof(PackedRecord) == 32);

class ShadowPages {
 public:
  using Records = absl::InlinedVector<PackedRecord, 1>;
  static constexpr uint32_t kPageShift = 4;
  static constexpr uint32_t kWordsPerPage = 1u << kPageShift;

  // The records of `key`'s word (empty when it has none); creates its page.
  Records& at(uint64_t key) {
    uint64_t pageNo = key >> kPageShift;
    if (pageNo != lastPageNo_) [[unlikely]] {
      if (lastPage_) tryCompress(lastPageNo_, *lastPage_);
      auto& page = pages_[pageNo];
      if (!page) page = newPage(pageNo);
      lastPageNo_ = pageNo;
      lastPage_ = page.get();
    }
    return lastPage_->words[key & (kWordsPerPage - 1)];
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
    // (After the full pages: a page expanded here is not visited twice.)
    // (Copies in a page on the stack: an unchanged page allocates nothing.)
    for (auto it = compressed_.begin(); it != compressed_.end();) {
      Page copies;
      bool changed = false;
      for (uint32_t i = 0; i < kWordsPerPage; ++i) {
        Records& r = copies.words[i];
        it->second.wordRecords(i, r);
        f((it->first << kPageShift) | i, r);
        changed |= !it->second.holds(i, r);
        if (r.empty()) --words_;
        else ++copies.used;
      }
      if (!changed) {
        ++it;
        continue;
      }
      if (copies.used) pages_.emplace(it->first, std::make_unique<Page>(std::move(copies)));
      compressedExtra_ -= it->second.extraRecords();
      compressed_.erase(it++);
    }
  }
  // Erases the words [firstKey, lastKey]; dropped(records) sees each non-empty one first.
  template <class F>
  void erase(uint64_t firstKey, uint64_t lastKey, F&& dropped) {
    for (uint64_t pageNo = firstKey >> kPageShift; pageNo <= lastKey >> kPageShift; ++pageNo) {
      if (auto c = compressed_.find(pageNo); c != compressed_.end()) {
        for (uint32_t i = 0; i < kWordsPerPage; ++i) {
          Records copy;
          c->second.wordRecords(i, copy);
          dropped(copy);
          --words_;
        }
        compressedExtra_ -= c->second.extraRecords();
        compressed_.erase(c);
        continue;
      }
      auto it = pages_.find(pageNo);
      if (it == pages_.end()) continue;
      for (Records& r : it->second->words)
        if (!r.empty()) {
          dropped(r);
          --words_;
        }
      dropPage(it);
    }
  }
  void clear() {
    pages_.clear();
    compressed_.clear();
    compressedExtra_ = 0;
    words_ = 0;
    lastPageNo_ = UINT64_MAX;
    lastPage_ = nullptr;
  }
  bool empty() const { return pages_.empty() && compressed_.empty(); }
  uint64_t words() const { return words_; }
  uint64_t pages() const { return pages_.size() + compressed_.size(); }
  uint64_t fullPages() const { return pages_.size(); }
  // Records that compressed pages stand for beyond one a word (they cost no bytes of their own).
  uint64_t compressedExtraRecords() const { return compressedExtra_; }
  // Bytes of the pages and the maps (records beyond a word's first are extra).
  uint64_t bytes() const {
    return pages_.capacity() * (sizeof(uint64_t) + sizeof(std::unique_ptr<Page>) + 1) + pages_.size() * sizeof(Page) +
           compressed_.capacity() * (sizeof(uint64_t) + sizeof(CompressedPage) + 1);
  }

 private:
  struct Page {
    std::array<Records, kWordsPerPage> words;
    uint32_t used = 0;  // words with records
  };
  // A compressed page: the records a coalesced access of consecutive threads
  // leaves, each thread's element `elementBytes` long (1, 2, 4, 8 or 16):
  // word i holds one record per element in it (a whole-word record for
  // elements of 4 bytes or more), `pattern` but for the thread, which is
  // pattern.thread + (4i + first byte) / elementBytes, and the bytes. Threads
  // of the warp after pattern's have `nextWarpSeq` (a page of 1-byte
  // elements spans two warps, two events). That is what a warp's coalesced
  // access leaves (lane l reads or writes word l, or words 2l, 2l+1 with
  // 8-byte accesses, or byte l...): a stream read or written once costs ~5
  // bytes a word instead of ~42 (~150 with byte elements). Kept apart from
  // full pages, so a full page costs what it did.
  struct CompressedPage {
    PackedRecord pattern;
    uint64_t nextWarpSeq = 0;
    uint32_t elementBytes = 4;

    uint32_t recordsPerWord() const { return elementBytes < 4 ? 4 / elementBytes : 1; }
    // Records the page stands for beyond one a word (AccessHistory counts them as extra).
    uint64_t extraRecords() const { return uint64_t(kWordsPerPage) * (recordsPerWord() - 1); }
    void wordRecords(uint32_t i, Records& out) const {
      uint32_t perWord = recordsPerWord();
      for (uint32_t j = 0; j < perWord; ++j) {
        PackedRecord r = pattern;
        r.thread += (4 * i + j * elementBytes) / elementBytes;
        if (r.thread / 32 != pattern.thread / 32)
          r.seqAndKind = (r.seqAndKind & ~PackedRecord::kSeqMask) | nextWarpSeq;
        if (perWord > 1) r.setBytes(uint8_t(((1u << elementBytes) - 1) << (j * elementBytes)));
        out.push_back(r);
      }
    }
    bool holds(uint32_t i, const Records& r) const {
      Records expected;
      wordRecords(i, expected);
      return r == expected;
    }
  };
  using Map = absl::flat_hash_map<uint64_t, std::unique_ptr<Page>>;

  // A new page, or a compressed one expanded.
  std::unique_ptr<Page> newPage(uint64_t pageNo) {
    auto page = std::make_unique<Page>();
    if (auto c = compressed_.find(pageNo); c != compressed_.end()) {
      for (uint32_t i = 0; i < kWordsPerPage; ++i) c->second.wordRecords(i, page->words[i]);
      page->used = kWordsPerPage;
      compressedExtra_ -= c->second.extraRecords();
      compressed_.erase(c);
    }
    return page;
  }
  // A page left behind compresses when its words fit a pattern.
  void tryCompress(uint64_t pageNo, const Page& page) {
    if (page.used != kWordsPerPage) return;
    const auto& w = page.words;
    const Records& firstWord = w[0];
    if (firstWord.empty() || firstWord.size() > 4 || firstWord[0].group()) return;
    const PackedRecord& first = firstWord[0];
    uint32_t elementBytes = 0;
    if (firstWord.size() == 1 && first.bytes() == 0xf) {  // whole words: 1, 2 or 4 words a thread
      const PackedRecord& last = w[kWordsPerPage - 1].size() == 1 ? w[kWordsPerPage - 1][0] : first;
      uint32_t span = last.thread - first.thread;  // threads the page spans, less one
      elementBytes = span == kWordsPerPage - 1 ? 4 : span == kWordsPerPage / 2 - 1 ? 8 : span == kWordsPerPage / 4 - 1 ? 16 : 0;
    } else if (firstWord.size() == 4 && first.bytes() == 0x1) {
      elementBytes = 1;
    } else if (firstWord.size() == 2 && first.bytes() == 0x3) {
      elementBytes = 2;
    }
    if (elementBytes == 0) return;
    CompressedPage c{first, 0, elementBytes};
    // The seq of the next warp's threads, when the page reaches them.
    const PackedRecord& lastRecord = w[kWordsPerPage - 1].back();
    if (lastRecord.thread / 32 == first.thread / 32 + 1) c.nextWarpSeq = lastRecord.seqAndKind & PackedRecord::kSeqMask;
    else if (lastRecord.thread / 32 != first.thread / 32) return;
    for (uint32_t i = 0; i < kWordsPerPage; ++i)
      if (!c.holds(i, w[i])) return;
    compressedExtra_ += c.extraRecords();
    compressed_.emplace(pageNo, c);
    dropPage(pages_.find(pageNo));
  }
  void dropPage(Map::iterator it) {
    if (it->first == lastPageNo_) {
      lastPageNo_ = UINT64_MAX;
      lastPage_ = nullptr;
    }
    pages_.erase(it);
  }

  Map pages_;
  absl::flat_hash_map<uint64_t, CompressedPage> compressed_;
  uint64_t words_ = 0;
  uint64_t compressedExtra_ = 0;
  uint64_t lastPageNo_ = UINT64_MAX;
  Page* lastPage_ = nullptr;
};

}  // namespace predatar
