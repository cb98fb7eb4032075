// A shadow page (ShadowPages.h) of 16 words kept as a pattern: what a warp's
// coalesced access of consecutive threads leaves, each thread's element
// `elementBytes` long, read or written by instructions that each cover
// `fieldBytes` of it (a record each):
//  * lane l on word l (4-byte elements), words 2l and 2l+1 (8 bytes, one
//    8-byte access or two 4-byte fields), byte l (1-byte elements: a page
//    spans two warps, two events), a 12-byte structure as three 4-byte
//    loads, a 4-byte structure of four byte fields as four byte loads, a
//    32-byte structure as two 16-byte loads (up to 8 fields)...
// Byte q of the page (counted from the start of the first thread's element)
// belongs to thread pattern.thread + q / elementBytes and to field
// (q % elementBytes) / fieldBytes; each field has its instruction, and each
// field and warp its event (trace position). Everything else is the
// pattern's. A stream read or written once then costs ~5 bytes a word
// instead of ~42 (~150 for byte fields).
//
// Words with more records than one pattern holds (a launch wrote the array,
// a later launch on the same stream read it, and the writer is still live
// because another stream may yet race with it) are patterns in layers: the
// first pattern holds each word's first records, `rest_` the records after
// them, itself a CompressedPage. Layers of one launch are plain reads by
// other blocks: read-shared data (the tiles of a GEMM that 32 blocks read,
// up to kMaxReadRecordsPerWord readers a word).
//
// `fit` keeps a page only when its expansion equals it record for record,
// so the detectors, which only ever see expanded pages, cannot tell.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <memory>
#include <optional>

#include "analysis/PackedRecord.h"

namespace predatar {

class CompressedPage {
 public:
  static constexpr uint32_t kWords = 16;
  static constexpr uint32_t kMaxFields = 8;
  static constexpr uint32_t kMaxRecordsPerWord = 8;  // of all layers
  // Of all layers, when every record of the page is a plain read. (Each such
  // reader of a page costs a layer, 56 bytes, where it cost 16 records of 32
  // bytes: cudaTensorCoreGemm's 132 blocks read each tile of A and B in 32 of
  // them, and its shadow reached 5.5 GB halfway, uncompressed.)
  static constexpr uint32_t kMaxReadRecordsPerWord = 64;

  // The pattern `words` fit, if any.
  static std::optional<CompressedPage> fit(const std::array<Records, kWords>& words);

  // Records of each word in this layer, and in all layers.
  uint32_t recordsPerWord() const { return 4u >> std::countr_zero(uint32_t(fieldBytes_)); }  // (1, 2, 4: no division)
  uint32_t allRecordsPerWord() const { return recordsPerWord() + (rest_ ? rest_->allRecordsPerWord() : 0); }
  // Records the page stands for beyond one a word (AccessHistory counts them as extra).
  uint64_t extraRecords() const { return uint64_t(kWords) * (allRecordsPerWord() - 1); }
  uint64_t heapBytes() const {
    return (fields_ ? sizeof(Fields) : 0) + (rest_ ? sizeof(CompressedPage) + rest_->heapBytes() : 0);
  }

  void wordRecords(uint32_t word, Records& out) const {
    for (uint32_t j = 0; j < recordsPerWord(); ++j) out.push_back(record(4 * word + j * fieldBytes_));
    if (rest_) rest_->wordRecords(word, out);
  }
  bool holds(uint32_t word, const Records& r) const { return r.size() == allRecordsPerWord() && holdsFrom(word, r, 0); }

 private:
  struct Layout {
    uint32_t elementBytes, fieldBytes, firstOffset;
  };
  // The element and field sizes the page's threads and records suggest
  // (fit() then checks the page against them).
  // (Records from..from + perWord of each word: one layer.)
  static std::optional<Layout> layoutOf(const std::array<Records, kWords>& words, size_t from);
  // The layers of each word's records from record `from` on.
  static std::optional<CompressedPage> fitFrom(const std::array<Records, kWords>& words, size_t from);
  // One layer, the records from `from` on of each word that its pattern holds.
  static std::optional<CompressedPage> fitLayer(const std::array<Records, kWords>& words, size_t from);
  // r[from...] are this layer's records of `word`, then the rest's.
  bool holdsFrom(uint32_t word, const Records& r, size_t from) const {
    uint32_t perWord = recordsPerWord();
    for (uint32_t j = 0; j < perWord; ++j)
      if (r[from + j] != record(4 * word + j * uint32_t(fieldBytes_))) return false;
    return !rest_ || rest_->holdsFrom(word, r, from + perWord);
  }
  // Per field: its instruction, and per warp (pattern's, the next) its event.
  struct Fields {
    uint32_t pc[kMaxFields] = {}, source[kMaxFields] = {};
    uint64_t seq[2][kMaxFields] = {};
  };
  static uint64_t seqOf(const PackedRecord& r) { return r.seqAndKind & PackedRecord::kSeqMask; }
  // q / d for the page's byte offsets (q < 128) and element sizes (d <= 32)
  // without a division, which was most of what checking a fit cost
  // (scan: a million pages compressed between two synchronizations):
  // q * ceil(2^16 / d) / 2^16 errs by less than 128 / 2^16 < 1 / d.
  static uint32_t divideSmall(uint32_t q, uint32_t d) {
    static constexpr auto kReciprocal = [] {
      std::array<uint32_t, 33> r{};
      for (uint32_t k = 1; k < r.size(); ++k) r[k] = ((1u << 16) + k - 1) / k;
      return r;
    }();
    return (q * kReciprocal[d]) >> 16;
  }

  // The record of the field at byte `pageByte` of the page.
  PackedRecord record(uint32_t pageByte) const {
    uint32_t q = firstOffset_ + pageByte;
    PackedRecord r = pattern_;
    uint32_t element = divideSmall(q, uint32_t(elementBytes_));
    r.thread += element;
    uint32_t warpStep = r.thread / 32 - pattern_.thread / 32;
    uint64_t seq = warpStep ? nextWarpSeq_ : seqOf(pattern_);
    if (fields_) {
      uint32_t field = (q - element * uint32_t(elementBytes_)) >> std::countr_zero(uint32_t(fieldBytes_));
      r.pc = fields_->pc[field];
      r.source = fields_->source[field];
      seq = fields_->seq[warpStep][field];
    }
    r.seqAndKind = (r.seqAndKind & ~PackedRecord::kSeqMask) | seq;
    if (fieldBytes_ < 4) r.setBytes(uint8_t(((1u << fieldBytes_) - 1) << (pageByte % 4)));
    return r;
  }

  PackedRecord pattern_;
  // (Bit fields: every compressed page is a slot of this size in
  // ShadowPages' map, 16M of them for StreamPriorities' 256M words, so
  // `rest_` takes the room the padding had; a trace position is 48 bits.)
  uint64_t nextWarpSeq_ : 48 = 0;
  uint64_t elementBytes_ : 6 = 4;  // up to kMaxFields * 4
  uint64_t fieldBytes_ : 3 = 4;
  uint64_t firstOffset_ : 6 = 0;
  std::unique_ptr<Fields> fields_;  // elements of several fields only
  std::unique_ptr<CompressedPage> rest_;  // the words' records after this layer's
};
static_assert(sizeof(CompressedPage) == 56);

// The records in byte order: slot s is record s % perWord of word s / perWord.
inline std::optional<CompressedPage::Layout> CompressedPage::layoutOf(const std::array<Records, kWords>& words,
                                                                     size_t from) {
  if (words[0].size() <= from || words[0][from].group()) return std::nullopt;
  const PackedRecord& first = words[0][from];
  uint32_t fieldBytes = uint32_t(std::popcount(first.bytes()));
  if (first.bytes() != (1u << fieldBytes) - 1 || (fieldBytes != 1 && fieldBytes != 2 && fieldBytes != 4))
    return std::nullopt;
  uint32_t perWord = 4 / fieldBytes;
  if (from + perWord > words[0].size()) return std::nullopt;  // (fit: every word has as many records)
  auto slot = [&](uint32_t s) -> const PackedRecord& { return words[s / perWord][from + s % perWord]; };
  uint32_t slots = kWords * perWord;
  // Where the thread changes: the first element's rest, then a whole element.
  uint32_t s1 = 1;
  while (s1 < slots && slot(s1).thread == first.thread) ++s1;
  if (s1 == slots) return std::nullopt;
  uint32_t s2 = s1 + 1;
  while (s2 < slots && slot(s2).thread == slot(s1).thread) ++s2;
  // (Two threads of half a page each: 32-byte elements.)
  if ((s2 == slots && 2 * s1 != slots) || slot(s1).thread != first.thread + 1) return std::nullopt;
  uint32_t elementBytes = (s2 - s1) * fieldBytes, firstBytes = s1 * fieldBytes;
  if (firstBytes > elementBytes || elementBytes / fieldBytes > kMaxFields) return std::nullopt;
  return Layout{elementBytes, fieldBytes, elementBytes - firstBytes};
}

inline std::optional<CompressedPage> CompressedPage::fit(const std::array<Records, kWords>& words) {
  size_t n = words[0].size();
  if (n == 0 || n > kMaxReadRecordsPerWord) return std::nullopt;
  for (const Records& r : words)
    if (r.size() != n) return std::nullopt;
  if (n > kMaxRecordsPerWord && !std::all_of(words[0].begin(), words[0].end(), isPlainRead)) return std::nullopt;
  return fitFrom(words, 0);
}

inline std::optional<CompressedPage> CompressedPage::fitFrom(const std::array<Records, kWords>& words, size_t from) {
  std::optional<CompressedPage> c = fitLayer(words, from);
  if (!c) return std::nullopt;
  size_t next = from + c->recordsPerWord();
  if (next == words[0].size()) return c;
  // Layers of one launch (a thread's write, then its read of the word) are
  // not kept: the launch comes back to such words, and expanding a page of
  // several records a word costs a heap block a word (matrixMul 17 -> 24 s).
  // Plain reads are: a block reads each page of a shared tile once, and the
  // other readers' records, uncompressed, were most of a GEMM's memory.
  std::optional<CompressedPage> rest = fitFrom(words, next);
  if (!rest || rest->pattern_.launch < c->pattern_.launch) return std::nullopt;
  if (rest->pattern_.launch == c->pattern_.launch && !(isPlainRead(c->pattern_) && isPlainRead(rest->pattern_)))
    return std::nullopt;
  c->rest_ = std::make_unique<CompressedPage>(std::move(*rest));
  return c;
}

inline std::optional<CompressedPage> CompressedPage::fitLayer(const std::array<Records, kWords>& words, size_t from) {
  std::optional<Layout> layout = layoutOf(words, from);
  if (!layout) return std::nullopt;
  const PackedRecord& first = words[0][from];
  uint32_t elementBytes = layout->elementBytes, fieldBytes = layout->fieldBytes, perWord = 4 / fieldBytes;
  auto slot = [&](uint32_t s) -> const PackedRecord& { return words[s / perWord][from + s % perWord]; };
  uint32_t slots = kWords * perWord;
  CompressedPage c;
  c.pattern_ = first;
  c.elementBytes_ = elementBytes;
  c.fieldBytes_ = fieldBytes;
  c.firstOffset_ = layout->firstOffset;
  // The field table is filled on the stack and goes to the heap only when
  // the fields differ (most elements are one access: no table).
  uint32_t fieldsPerElement = elementBytes / fieldBytes;
  Fields fields;
  uint32_t field = layout->firstOffset / fieldBytes;  // of slot s, counted up without a division
  for (uint32_t s = 0; s < slots; ++s, field = field + 1 == fieldsPerElement ? 0 : field + 1) {
    const PackedRecord& r = slot(s);
    uint32_t warpStep = r.thread / 32 - first.thread / 32;
    if (warpStep > 1) return std::nullopt;
    if (warpStep) c.nextWarpSeq_ = seqOf(r);
    if (fieldsPerElement == 1) continue;
    fields.pc[field] = r.pc;
    fields.source[field] = r.source;
    fields.seq[warpStep][field] = seqOf(r);
  }
  // Fields of one instruction and event (an 8-byte access) need no table.
  if (fieldsPerElement > 1) {
    bool uniform = true;
    for (uint32_t k = 0; k < fieldsPerElement; ++k)
      uniform = uniform && fields.pc[k] == first.pc && fields.source[k] == first.source &&
                fields.seq[0][k] == seqOf(first) && fields.seq[1][k] == fields.seq[1][0];
    if (uniform) c.nextWarpSeq_ = fields.seq[1][0];
    else c.fields_ = std::make_unique<Fields>(fields);
  }
  for (uint32_t i = 0; i < kWords; ++i)
    if (!c.holdsFrom(i, words[i], from)) return std::nullopt;
  return c;
}

}  // namespace predatar
