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
// first layer (`head_`) holds each word's first records, the next ones
// (`rest_`) the records after them. Layers of one launch are plain reads by
// other blocks: read-shared data (the tiles of a GEMM that 32 blocks read,
// up to kMaxReadRecordsPerWord readers a word). The layers after the first
// share one heap block, and those alike the first but for their reader
// keep only what differs: 24 bytes a layer, where a heap block each cost
// 64 (cudaTensorCoreGemm's tiles keep 31 a page).
//
// `fit` keeps a page only when its expansion equals it record for record,
// so the detectors, which only ever see expanded pages, cannot tell.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <memory>
#include <new>
#include <optional>
#include <utility>

#include "absl/container/inlined_vector.h"
#include "analysis/BlockPool.h"
#include "analysis/PackedRecord.h"
#include "analysis/RecordOrder.h"

namespace predatar {

class CompressedPage {
 public:
  static constexpr uint32_t kWords = 16;
  static constexpr uint32_t kMaxFields = 8;
  static constexpr uint32_t kMaxRecordsPerWord = 8;  // of all layers
  // Of all layers, when every record of the page is a plain read. (Each such
  // reader of a page costs a layer, 24 bytes, where it cost 16 records of 32
  // bytes: cudaTensorCoreGemm's 132 blocks read each tile of A and B in 32 of
  // them, and its shadow reached 5.5 GB halfway, uncompressed.)
  static constexpr uint32_t kMaxReadRecordsPerWord = 64;

  // The pattern `words` fit, if any.
  static std::optional<CompressedPage> fit(const std::array<Records, kWords>& words);

  // Records of each word in all layers.
  uint32_t allRecordsPerWord() const { return head_.recordsPerWord() + rest_.recordsPerWord(head_); }
  uint32_t recordsOfWord(uint32_t) const { return allRecordsPerWord(); }
  // Records the page stands for beyond one a word (AccessHistory counts them as extra).
  uint64_t extraRecords() const { return uint64_t(kWords) * (allRecordsPerWord() - 1); }
  uint64_t heapBytes() const { return head_.heapBytes() + rest_.heapBytes(); }

  void wordRecords(uint32_t word, Records& out) const {
    forEachLayer([&](const Layer& l) { l.wordRecords(word, out); });
  }
  // Appends a layer of plain reads by one warp, thread `first.thread` + i
  // reading element i (`elementBytes` 4, 8 or 16 from the page's first
  // byte), each word's record `first` alike but for its thread, when the
  // page's layers are all such reads alike the new one but for their
  // reader, each of a warp before it (readBefore). The page then stands for
  // its records with each word's new read appended, and keeps the layers
  // fit() would make of them (one reader more). False, changing nothing,
  // otherwise.
  bool appendReader(const PackedRecord& first, uint32_t elementBytes);
  // Sixteen consecutive pages (ChunkedPages' chunk) of one layer each, alike
  // but for their threads and trace positions, the threads in steps of one
  // page's, in at most two blocks: what a grid-stride loop leaves
  // (StreamPriorities' copy launches: 16M such pages, 56 bytes each, ~60
  // with their chunks, 962 MiB in all). A fold keeps them in 184 bytes, where
  // their pages took 896.
  static constexpr uint32_t kFoldPages = 16;
  struct Fold {
    PackedRecord pattern;              // page 0's
    uint32_t threadStep = 0;           // page k < split: thread pattern.thread + k * threadStep
    uint32_t splitBlock = 0, splitThread = 0;  // pages from `split` on: this block, from this thread
    uint16_t nextWarpSeqZero = 0;      // bit k: page k's nextWarpSeq is 0 (a page of one warp)
    uint8_t elementBytes = 4, fieldBytes = 4, firstOffset = 0, split = kFoldPages;
    int32_t seq[kFoldPages];           // page k's trace position less page 0's
    int32_t nextWarpSeq[kFoldPages];   // page k's nextWarpSeq less page 0's position
    uint32_t blockOf(uint32_t k) const { return k < split ? pattern.block : splitBlock; }
    uint32_t threadOf(uint32_t k) const {
      return k < split ? pattern.thread + k * threadStep : splitThread + (k - split) * threadStep;
    }
  };
  static_assert(sizeof(Fold) == 184 || sizeof(void*) != 8);
  // The fold of pages[0..kFoldPages), if they fold; unfolded(fold, k) gives
  // back page k exactly, every field.
  static std::optional<Fold> fold(const CompressedPage* pages);
  static CompressedPage unfolded(const Fold& fold, uint32_t k);

  bool holds(uint32_t word, const Records& r) const {
    if (r.size() != allRecordsPerWord()) return false;
    size_t from = 0;
    bool all = true;
    forEachLayer([&](const Layer& l) {
      all = all && l.holdsFrom(word, r, from);
      from += l.recordsPerWord();
    });
    return all;
  }

 private:
  // Per word, the index (from the layer's first) of its record of each field.
  using ByteOrder = std::array<std::array<uint8_t, 4>, kWords>;
  struct Layout {
    uint32_t elementBytes, fieldBytes, firstOffset;
    ByteOrder order;
  };
  // Per field: its instruction, and per warp (pattern's, the next) its event.
  struct Fields {
    uint32_t pc[kMaxFields] = {}, source[kMaxFields] = {};
    uint64_t seq[2][kMaxFields] = {};
  };
  // One layer: a record of each field of each word.
  class Layer {
   public:
    uint32_t recordsPerWord() const { return 4u >> std::countr_zero(uint32_t(fieldBytes_)); }  // (1, 2, 4: no division)
    uint64_t heapBytes() const { return fields_ ? sizeof(Fields) : 0; }
    // (A word of one record, most pages, skips the array: its 128 bytes
    // were zeroed at each call, half of what checking a fit cost.)
    void wordRecords(uint32_t word, Records& out) const {
      if (recordsPerWord() == 1) {
        out.push_back(record(4 * word));
        return;
      }
      PackedRecord records[4];
      uint32_t n = expand(word, records);
      out.insert(out.end(), records, records + n);
    }
    // r[from...] are this layer's records of `word`.
    bool holdsFrom(uint32_t word, const Records& r, size_t from) const {
      if (recordsPerWord() == 1) return r[from] == record(4 * word);
      PackedRecord records[4];
      uint32_t n = expand(word, records);
      for (uint32_t j = 0; j < n; ++j)
        if (r[from + j] != records[j]) return false;
      return true;
    }
    // One layer, the records from `from` on of each word that its pattern holds.
    static std::optional<Layer> fit(const std::array<Records, kWords>& words, size_t from);
    // fit()'s table of an element's fields, from slot(0..slots) (`field`: slot 0's),
    // whose warps fit() checked.
    template <class SlotFn>
    void fitFields(SlotFn&& slot, uint32_t slots, uint32_t fieldsPerElement, uint32_t field);
    const PackedRecord& pattern() const { return pattern_; }
    // A plain-read layer of one field an element: `o` is then the same
    // but for its reader (block, thread, clock and events).
    bool alikeButForReader(const Layer& o) const {
      return !fields_ && !o.fields_ && elementBytes_ == o.elementBytes_ && fieldBytes_ == o.fieldBytes_ &&
             firstOffset_ == o.firstOffset_ && isPlainRead(pattern_) &&
             pattern_.seqAndKind >> PackedRecord::kSeqBits == o.pattern_.seqAndKind >> PackedRecord::kSeqBits &&
             pattern_.pc == o.pattern_.pc && pattern_.source == o.pattern_.source &&
             pattern_.launch == o.pattern_.launch;
    }

   private:
    friend class CompressedPage;
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
    // The records of `word`, in the order its accesses came: by event, and
    // an event's (a warp's instruction's) by lane, which is by byte. A word
    // of several fields' bytes (uchar3: x of threads 0 and 1, then y and z
    // of thread 0) holds them in that order, not by byte.
    uint32_t expand(uint32_t word, PackedRecord (&out)[4]) const {
      uint32_t n = recordsPerWord();
      for (uint32_t j = 0; j < n; ++j) out[j] = record(4 * word + j * uint32_t(fieldBytes_));
      for (uint32_t j = 1; j < n; ++j)  // (insertion: stable, and a no-op for one event's word)
        for (uint32_t k = j; k > 0 && seqOf(out[k]) < seqOf(out[k - 1]); --k) std::swap(out[k], out[k - 1]);
      return n;
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
    // (Bit fields: every compressed page is a slot of ShadowPages' map, 16M
    // of them for StreamPriorities' 256M words; a trace position is 48 bits.)
    uint64_t nextWarpSeq_ : 48 = 0;
    uint64_t elementBytes_ : 6 = 4;  // up to kMaxFields * 4
    uint64_t fieldBytes_ : 3 = 4;
    uint64_t firstOffset_ : 6 = 0;
    std::unique_ptr<Fields> fields_;  // elements of several fields only
  };
  static_assert(sizeof(Layer) == 48);

  // The element and field sizes the page's threads and records suggest
  // (fit() then checks the page against them).
  // (Records from..from + perWord of each word: one layer.)
  static std::optional<Layout> layoutOf(const std::array<Records, kWords>& words, size_t from);
  static std::optional<ByteOrder> byteOrderOf(const std::array<Records, kWords>& words, size_t from,
                                              uint32_t fieldBytes);

  // What one layer alike the first but for its reader keeps (24 bytes).
  struct Reader {
    uint32_t block, thread;
    Clock clock;
    uint32_t seqLow, nextWarpSeqLow;
    uint16_t seqHigh, nextWarpSeqHigh;
  };
  static_assert(sizeof(Reader) == 24);
  // The layers after the first, in one heap block: a count, then the layers
  // whole, or, when each is alike the first but for its reader (the blocks
  // that read a GEMM's tile), their readers alone.
  class RestLayers {
   public:
    RestLayers() = default;
    RestLayers(const Layer& head, absl::InlinedVector<Layer, 4>&& layers);
    RestLayers(RestLayers&& o) noexcept : block_(std::exchange(o.block_, nullptr)) {}
    RestLayers& operator=(RestLayers&& o) noexcept {
      if (this != &o) {
        release();
        block_ = std::exchange(o.block_, nullptr);
      }
      return *this;
    }
    ~RestLayers() { release(); }
    // The heap block's bytes, and malloc's header.
    uint64_t heapBytes() const;
    // Adds `l`, alike `head` but for its reader, when these layers are
    // readers too (or none); false, changing nothing, otherwise.
    bool appendReader(const Layer& l);
    // The last layer's record of the field at byte `pageByte` (`head`'s when there is none).
    PackedRecord lastRecord(const Layer& head, uint32_t pageByte) const {
      if (!block_) return head.record(pageByte);
      if (block_->readersOnly) return withReader(head, readers()[block_->count - 1]).record(pageByte);
      return layers()[block_->count - 1].record(pageByte);
    }
    bool empty() const { return !block_; }
    // Records of each word in these layers (without making the readers' layers).
    uint32_t recordsPerWord(const Layer& head) const {
      if (!block_) return 0;
      if (block_->readersOnly) return block_->count * head.recordsPerWord();
      uint32_t n = 0;
      for (uint32_t i = 0; i < block_->count; ++i) n += layers()[i].recordsPerWord();
      return n;
    }
    template <class Fn>
    void forEach(const Layer& head, Fn&& fn) const {
      if (!block_) return;
      if (block_->readersOnly) {
        Layer l = withReader(head, readers()[0]);  // (one layer, each reader's in turn)
        for (uint32_t i = 0; i < block_->count; ++i) {
          if (i) setReader(l, readers()[i]);
          fn(l);
        }
      } else {
        for (uint32_t i = 0; i < block_->count; ++i) fn(layers()[i]);
      }
    }

   private:
    struct Header {
      uint32_t count = 0;
      uint32_t readersOnly = 0;
    };
    static Layer withReader(const Layer& head, const Reader& r);
    static Reader readerOf(const Layer& l) {
      uint64_t seq = Layer::seqOf(l.pattern_), next = l.nextWarpSeq_;
      return Reader{l.pattern_.block, l.pattern_.thread, l.pattern_.clock, uint32_t(seq),
                    uint32_t(next),   uint16_t(seq >> 32), uint16_t(next >> 32)};
    }
    static void setReader(Layer& l, const Reader& r);
    Layer* layers() const { return reinterpret_cast<Layer*>(block_ + 1); }
    Reader* readers() const { return reinterpret_cast<Reader*>(block_ + 1); }
    void release();
    // Room for a power of two of layers, so that blocks come in a few sizes
    // that BlockPool keeps: blocks of the exact size, each a layer more
    // than the last as the blocks that read a page came, sent malloc down its
    // slow paths (a quarter of a GEMM's run, and twice its time).
    static size_t bytesFor(size_t layers, bool readersOnly) {
      return sizeof(Header) + std::bit_ceil(layers) * (readersOnly ? sizeof(Reader) : sizeof(Layer));
    }
    Header* block_ = nullptr;
  };

  template <class Fn>
  void forEachLayer(Fn&& fn) const {
    fn(head_);
    rest_.forEach(head_, fn);
  }

  Layer head_;
  RestLayers rest_;
};
static_assert(sizeof(CompressedPage) == 56);

// Which of each word's records (from..from + perWord) covers each of its
// fields in byte order: a word's records come in the order of their accesses
// (Layer::expand), not by byte. None when some record is not one aligned
// field of `fieldBytes` or two cover the same field.
inline std::optional<CompressedPage::ByteOrder> CompressedPage::byteOrderOf(const std::array<Records, kWords>& words,
                                                                           size_t from, uint32_t fieldBytes) {
  uint32_t perWord = 4 / fieldBytes, fieldMask = (1u << fieldBytes) - 1;
  ByteOrder order;
  for (uint32_t w = 0; w < kWords; ++w) {
    uint32_t seen = 0;
    for (uint32_t j = 0; j < perWord; ++j) {
      const PackedRecord& r = words[w][from + j];
      if (r.group()) return std::nullopt;
      uint32_t bytes = r.bytes(), field = uint32_t(std::countr_zero(bytes)) / fieldBytes;
      if (bytes != fieldMask << (field * fieldBytes) || seen >> field & 1) return std::nullopt;
      seen |= 1u << field;
      order[w][field] = uint8_t(j);
    }
  }
  return order;
}

// The records in byte order: slot s is field s % perWord of word s / perWord.
inline std::optional<CompressedPage::Layout> CompressedPage::layoutOf(const std::array<Records, kWords>& words,
                                                                     size_t from) {
  if (words[0].size() <= from || words[0][from].group()) return std::nullopt;
  uint32_t fieldBytes = uint32_t(std::popcount(words[0][from].bytes()));
  if (fieldBytes != 1 && fieldBytes != 2 && fieldBytes != 4) return std::nullopt;
  uint32_t perWord = 4 / fieldBytes;
  if (from + perWord > words[0].size()) return std::nullopt;  // (fit: every word has as many records)
  std::optional<ByteOrder> order = byteOrderOf(words, from, fieldBytes);
  if (!order) return std::nullopt;
  auto slot = [&](uint32_t s) -> const PackedRecord& {
    return words[s / perWord][from + (*order)[s / perWord][s % perWord]];
  };
  const PackedRecord& first = slot(0);
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
  return Layout{elementBytes, fieldBytes, elementBytes - firstBytes, *order};
}

inline std::optional<CompressedPage> CompressedPage::fit(const std::array<Records, kWords>& words) {
  size_t n = words[0].size();
  if (n == 0 || n > kMaxReadRecordsPerWord) return std::nullopt;
  for (const Records& r : words)
    if (r.size() != n) return std::nullopt;
  if (n > kMaxRecordsPerWord && !std::all_of(words[0].begin(), words[0].end(), isPlainRead)) return std::nullopt;
  std::optional<Layer> head = Layer::fit(words, 0);
  if (!head) return std::nullopt;
  CompressedPage c;
  c.head_ = std::move(*head);
  absl::InlinedVector<Layer, 4> rest;
  for (size_t from = c.head_.recordsPerWord(); from < n; from += rest.back().recordsPerWord()) {
    std::optional<Layer> layer = Layer::fit(words, from);
    if (!layer) return std::nullopt;
    const PackedRecord &before = (rest.empty() ? c.head_ : rest.back()).pattern(), &now = layer->pattern();
    if (now.launch < before.launch || launchComesBackTo(before, now)) return std::nullopt;
    rest.push_back(std::move(*layer));
  }
  if (!rest.empty()) c.rest_ = RestLayers(c.head_, std::move(rest));
  return c;
}

inline std::optional<CompressedPage::Fold> CompressedPage::fold(const CompressedPage* pages) {
  const Layer& first = pages[0].head_;
  uint64_t seq0 = Layer::seqOf(first.pattern_);
  Fold f;
  f.pattern = first.pattern_;
  f.split = 1;
  while (f.split < kFoldPages && pages[f.split].head_.pattern_.block == first.pattern_.block) ++f.split;
  if (f.split < kFoldPages) {
    f.splitBlock = pages[f.split].head_.pattern_.block;
    f.splitThread = pages[f.split].head_.pattern_.thread;
  }
  uint32_t stepFrom = f.split >= 2 ? 0 : 1;  // (two pages of one block)
  f.threadStep = pages[stepFrom + 1].head_.pattern_.thread - pages[stepFrom].head_.pattern_.thread;
  f.elementBytes = uint8_t(first.elementBytes_);
  f.fieldBytes = uint8_t(first.fieldBytes_);
  f.firstOffset = uint8_t(first.firstOffset_);
  auto delta = [&](uint64_t seq, int32_t& out) {
    int64_t d = int64_t(seq) - int64_t(seq0);
    out = int32_t(d);
    return d == out;
  };
  for (uint32_t k = 0; k < kFoldPages; ++k) {
    const Layer& h = pages[k].head_;
    if (!pages[k].rest_.empty() || h.fields_ || h.elementBytes_ != first.elementBytes_ ||
        h.fieldBytes_ != first.fieldBytes_ || h.firstOffset_ != first.firstOffset_)
      return std::nullopt;
    PackedRecord expected = first.pattern_;
    expected.block = f.blockOf(k);
    expected.thread = f.threadOf(k);
    expected.seqAndKind = (expected.seqAndKind & ~PackedRecord::kSeqMask) | Layer::seqOf(h.pattern_);
    if (!(h.pattern_ == expected) || !delta(Layer::seqOf(h.pattern_), f.seq[k])) return std::nullopt;
    f.nextWarpSeq[k] = 0;
    if (h.nextWarpSeq_ == 0) f.nextWarpSeqZero |= uint16_t(1u << k);
    else if (!delta(h.nextWarpSeq_, f.nextWarpSeq[k])) return std::nullopt;
  }
  return f;
}

inline CompressedPage CompressedPage::unfolded(const Fold& f, uint32_t k) {
  uint64_t seq0 = f.pattern.seqAndKind & PackedRecord::kSeqMask;
  CompressedPage c;
  Layer& h = c.head_;
  h.pattern_ = f.pattern;
  h.pattern_.block = f.blockOf(k);
  h.pattern_.thread = f.threadOf(k);
  h.pattern_.seqAndKind = (f.pattern.seqAndKind & ~PackedRecord::kSeqMask) | uint64_t(int64_t(seq0) + f.seq[k]);
  h.nextWarpSeq_ = (f.nextWarpSeqZero >> k & 1) ? 0 : uint64_t(int64_t(seq0) + f.nextWarpSeq[k]);
  h.elementBytes_ = f.elementBytes;
  h.fieldBytes_ = f.fieldBytes;
  h.firstOffset_ = f.firstOffset;
  return c;
}

inline CompressedPage::RestLayers::RestLayers(const Layer& head, absl::InlinedVector<Layer, 4>&& layers) {
  bool readersOnly =
      std::all_of(layers.begin(), layers.end(), [&](const Layer& l) { return head.alikeButForReader(l); });
  block_ = new (takeBlock(bytesFor(layers.size(), readersOnly))) Header{uint32_t(layers.size()), readersOnly};
  for (size_t i = 0; i < layers.size(); ++i) {
    const Layer& l = layers[i];
    if (!readersOnly) {
      new (&this->layers()[i]) Layer(std::move(layers[i]));
      continue;
    }
    new (&readers()[i]) Reader(readerOf(l));
  }
}

inline bool CompressedPage::RestLayers::appendReader(const Layer& l) {
  uint32_t count = block_ ? block_->count : 0;
  if (block_ && !block_->readersOnly) return false;
  if (std::has_single_bit(count) || count == 0) {  // (full: room for a power of two, bytesFor)
    Header* grown = new (takeBlock(bytesFor(count + 1, true))) Header{count, 1};
    if (count) std::copy(readers(), readers() + count, reinterpret_cast<Reader*>(grown + 1));
    release();
    block_ = grown;
  }
  new (&readers()[count]) Reader(readerOf(l));
  ++block_->count;
  return true;
}

inline bool CompressedPage::appendReader(const PackedRecord& first, uint32_t elementBytes) {
  Layer layer;  // (4-byte fields, elements from the page's first word: thread + i on element i)
  layer.pattern_ = first;
  layer.elementBytes_ = elementBytes;
  if (first.thread % 32 + 4 * kWords / elementBytes > 32 || !head_.alikeButForReader(layer)) return false;
  // Each word's reads are in (launch, block, warp) order; the last layer's
  // last word has its latest warp.
  PackedRecord lastRead = rest_.lastRecord(head_, 4 * (kWords - 1));
  if (!readBefore(lastRead, first)) return false;
  return rest_.appendReader(layer);
}

inline void CompressedPage::RestLayers::release() {
  if (!block_) return;
  if (!block_->readersOnly)
    for (uint32_t i = 0; i < block_->count; ++i) layers()[i].~Layer();
  giveBlock(block_, bytesFor(block_->count, block_->readersOnly));
  block_ = nullptr;
}

inline uint64_t CompressedPage::RestLayers::heapBytes() const {
  if (!block_) return 0;
  uint64_t bytes = bytesFor(block_->count, block_->readersOnly) + 16;  // (and malloc's header, and its rounding)
  if (!block_->readersOnly)
    for (uint32_t i = 0; i < block_->count; ++i) bytes += layers()[i].heapBytes();
  return bytes;
}

inline CompressedPage::Layer CompressedPage::RestLayers::withReader(const Layer& head, const Reader& r) {
  Layer l;
  l.pattern_ = head.pattern_;
  l.elementBytes_ = head.elementBytes_;
  l.fieldBytes_ = head.fieldBytes_;
  l.firstOffset_ = head.firstOffset_;
  setReader(l, r);
  return l;
}

inline void CompressedPage::RestLayers::setReader(Layer& l, const Reader& r) {
  l.pattern_.block = r.block;
  l.pattern_.thread = r.thread;
  l.pattern_.clock = r.clock;
  uint64_t seq = uint64_t(r.seqHigh) << 32 | r.seqLow;
  l.pattern_.seqAndKind = (l.pattern_.seqAndKind & ~PackedRecord::kSeqMask) | seq;
  l.nextWarpSeq_ = uint64_t(r.nextWarpSeqHigh) << 32 | r.nextWarpSeqLow;
}

inline std::optional<CompressedPage::Layer> CompressedPage::Layer::fit(const std::array<Records, kWords>& words,
                                                                      size_t from) {
  std::optional<Layout> layout = layoutOf(words, from);
  if (!layout) return std::nullopt;
  uint32_t elementBytes = layout->elementBytes, fieldBytes = layout->fieldBytes, perWord = 4 / fieldBytes;
  auto slot = [&](uint32_t s) -> const PackedRecord& {
    return words[s / perWord][from + layout->order[s / perWord][s % perWord]];
  };
  const PackedRecord& first = slot(0);
  uint32_t slots = kWords * perWord;
  Layer c;
  c.pattern_ = first;
  c.elementBytes_ = elementBytes;
  c.fieldBytes_ = fieldBytes;
  c.firstOffset_ = layout->firstOffset;
  for (uint32_t s = 0; s < slots; ++s) {
    uint32_t warpStep = slot(s).thread / 32 - first.thread / 32;
    if (warpStep > 1) return std::nullopt;
    if (warpStep) c.nextWarpSeq_ = seqOf(slot(s));
  }
  uint32_t fieldsPerElement = elementBytes / fieldBytes;
  if (fieldsPerElement > 1) c.fitFields(slot, slots, fieldsPerElement, layout->firstOffset / fieldBytes);
  for (uint32_t i = 0; i < kWords; ++i)
    if (!c.holdsFrom(i, words[i], from)) return std::nullopt;
  return c;
}

// The field table is filled on the stack and goes to the heap only when the
// fields differ (an 8-byte access of two words needs none). (Apart from
// fit(): a table on fit()'s stack was zeroed at every fit, most of them of
// one field an element, 7% of fitting a streamed page.)
template <class SlotFn>
void CompressedPage::Layer::fitFields(SlotFn&& slot, uint32_t slots, uint32_t fieldsPerElement, uint32_t field) {
  const PackedRecord& first = slot(0);
  Fields fields;
  for (uint32_t s = 0; s < slots; ++s, field = field + 1 == fieldsPerElement ? 0 : field + 1) {
    const PackedRecord& r = slot(s);
    uint32_t warpStep = r.thread / 32 - first.thread / 32;  // (0 or 1: fit() checked)
    fields.pc[field] = r.pc;
    fields.source[field] = r.source;
    fields.seq[warpStep][field] = seqOf(r);
  }
  bool uniform = true;
  for (uint32_t k = 0; k < fieldsPerElement; ++k)
    uniform = uniform && fields.pc[k] == first.pc && fields.source[k] == first.source &&
              fields.seq[0][k] == seqOf(first) && fields.seq[1][k] == fields.seq[1][0];
  if (uniform) nextWarpSeq_ = fields.seq[1][0];
  else fields_ = std::make_unique<Fields>(fields);
}

}  // namespace predatar
