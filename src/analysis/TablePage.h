// A shadow page (ShadowPages.h) of 16 words that fits no pattern
// (CompressedPage.h) but whose records repeat: each distinct record is kept
// once, in a table, and each word's records as indices into it.
//
// Why: a stencil's input rows are read by the column's thread and by the
// halo readers of the neighbouring blocks, and where a warp's row straddles
// a page edge the page holds two blocks' threads (FDTD3d: rows of 384 words
// start 4 words into a page, so half of its input pages). No pattern fits
// such a page, and kept full it cost ~40 bytes a word, ~80 where halo
// readers added a record (FDTD3d's 376^3 volume ran out of 6 GiB of memory
// after half of its first launch).
//
// A record is kept relative to its word (its thread less the word's index),
// so the records a coalesced access of consecutive threads left on the page
// are one entry: FDTD3d's straddling pages hold four (each block's column
// reads and halo reads), ~200 bytes where they cost ~1,300.
//
// `fit` keeps a page only when its expansion equals it record for record,
// so the detectors, which only ever see expanded pages, cannot tell.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <optional>
#include <utility>

#include "analysis/BlockPool.h"
#include "analysis/PackedRecord.h"

namespace predatar {

class TablePage {
 public:
  static constexpr uint32_t kWords = 16;
  // Distinct records of a page: 8 entries and 16 indices cost 296 bytes,
  // under half of a full page's ~670; beyond that the saving shrinks while
  // each fit looks through more entries a record.
  static constexpr uint32_t kMaxEntries = 8;
  static constexpr uint32_t kMaxRecords = 128;  // of the page (8 readers of each word)

  // The table `words` fit, if any.
  static std::optional<TablePage> fit(const std::array<Records, kWords>& words);

  TablePage(TablePage&& o) noexcept : block_(std::exchange(o.block_, nullptr)) {}
  TablePage& operator=(TablePage&& o) noexcept {
    if (this != &o) {
      release();
      block_ = std::exchange(o.block_, nullptr);
    }
    return *this;
  }
  ~TablePage() { release(); }

  uint32_t recordsOfWord(uint32_t word) const { return uint32_t(header().start[word + 1] - header().start[word]); }
  // Records the page stands for beyond one a word that holds any (AccessHistory counts them as extra).
  uint64_t extraRecords() const {
    uint32_t used = 0;
    for (uint32_t w = 0; w < kWords; ++w) used += header().start[w + 1] > header().start[w];
    return header().start[kWords] - used;
  }
  // The heap block, and malloc's header.
  uint64_t heapBytes() const { return bytesFor(header().entries, header().start[kWords]) + 16; }

  void wordRecords(uint32_t word, Records& out) const {
    for (uint32_t i = header().start[word]; i < header().start[word + 1]; ++i) out.push_back(record(word, i));
  }
  bool holds(uint32_t word, const Records& r) const {
    if (r.size() != recordsOfWord(word)) return false;
    for (uint32_t i = 0; i < r.size(); ++i)
      if (r[i] != record(word, header().start[word] + i)) return false;
    return true;
  }

 private:
  // The heap block: this header, the entries, then an index a record.
  struct Header {
    uint8_t entries;
    uint8_t start[kWords + 1];  // word w's records are start[w] .. start[w + 1] - 1
    uint8_t padding[6];
  };
  static_assert(sizeof(Header) == 24 && sizeof(Header) % alignof(PackedRecord) == 0);

  TablePage() = default;
  // Sizes in steps of 32 bytes: BlockPool keeps blocks by size.
  static size_t bytesFor(uint32_t entries, uint32_t records) {
    return (sizeof(Header) + entries * sizeof(PackedRecord) + records + 31) & ~size_t(31);
  }
  const Header& header() const { return *reinterpret_cast<const Header*>(block_); }
  const PackedRecord* entries() const { return reinterpret_cast<const PackedRecord*>(block_ + sizeof(Header)); }
  const uint8_t* indices() const { return block_ + sizeof(Header) + header().entries * sizeof(PackedRecord); }
  // Record i of the page, which is on `word`.
  PackedRecord record(uint32_t word, uint32_t i) const {
    PackedRecord r = entries()[indices()[i]];
    r.thread += word;
    return r;
  }
  void release() {
    if (block_) giveBlock(block_, bytesFor(header().entries, header().start[kWords]));
    block_ = nullptr;
  }

  uint8_t* block_ = nullptr;
};
static_assert(sizeof(TablePage) == 8);

inline std::optional<TablePage> TablePage::fit(const std::array<Records, kWords>& words) {
  std::array<PackedRecord, kMaxEntries> entries;
  std::array<uint8_t, kMaxRecords> indices;
  Header header{};
  uint32_t entryCount = 0, records = 0;
  for (uint32_t w = 0; w < kWords; ++w) {
    header.start[w] = uint8_t(records);
    // (A word may hold none: a page of random accesses, a few words of
    // sixteen, as a hash table's or simpleAttributes' kernel leaves them:
    // ~670 bytes kept full, ~120 as a table of two words.)
    if (records + words[w].size() > kMaxRecords) return std::nullopt;
    for (uint32_t k = 0; k < words[w].size(); ++k) {
      const PackedRecord& r = words[w][k];
      if (k && launchComesBackTo(words[w][k - 1], r)) return std::nullopt;
      PackedRecord entry = r;
      entry.thread -= w;  // (exact: unsigned arithmetic, undone by record())
      uint32_t e = 0;
      while (e < entryCount && entries[e] != entry) ++e;
      if (e == entryCount) {
        if (entryCount == kMaxEntries) return std::nullopt;
        entries[entryCount++] = entry;
      }
      indices[records++] = uint8_t(e);
    }
  }
  if (records == 0) return std::nullopt;
  header.start[kWords] = uint8_t(records);
  header.entries = uint8_t(entryCount);
  TablePage page;
  page.block_ = static_cast<uint8_t*>(takeBlock(bytesFor(entryCount, records)));
  std::memcpy(page.block_, &header, sizeof(Header));
  std::memcpy(page.block_ + sizeof(Header), entries.data(), entryCount * sizeof(PackedRecord));
  std::memcpy(page.block_ + sizeof(Header) + entryCount * sizeof(PackedRecord), indices.data(), records);
  return page;
}

}  // namespace predatar
