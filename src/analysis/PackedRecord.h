// The access record as the shadow memory keeps it (ShadowPages.h), packed
// into 32 bytes.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <memory>

#include "absl/container/inlined_vector.h"
#include "clock/VectorClock.h"
#include "events/Event.h"

namespace predatar {

// An AccessRecord (AccessHistory.h) as the shadow keeps it. The trace position
// keeps its low 48 bits (2.8e14 events), the kind of access the top 16.
//
// A record may stand for a group of threads of one warp (threads 32w ..
// 32w + 31 of a block): plain reads of one word alike in all but the thread
// (same launch, epoch, instruction, bytes), or strong accesses of one warp
// event alike so (AccessHistory::joinsWarpEvent). `thread` then holds the
// lane mask, and the kind the warp w.
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

// A plain (not strong) read: reads of one launch by other threads need no
// clock checks, and records of such reads may share a compressed page.
inline bool isPlainRead(const PackedRecord& r) { return r.type() == AccessType::Read && !r.strong(); }

// Records `before` and then `now` of one word that a compressed page
// (CompressedPage's layers, TablePage) does not keep: one launch's, not both
// plain reads (a thread's write, then its read of the word). The launch
// comes back to such words, and expanding a page of several records a word
// costs a heap block a word (matrixMul 17 -> 24 s when they were kept).
// Plain reads are kept: a block reads each page of a shared tile once, and
// the other readers' records, uncompressed, were most of a GEMM's memory.
inline bool launchComesBackTo(const PackedRecord& before, const PackedRecord& now) {
  return now.launch == before.launch && !(isPlainRead(before) && isPlainRead(now));
}

// Heap bytes that word record vectors (Records) hold, counted on the thread
// that allocates and frees them; AccessHistory charges each of its calls'
// change to itself (its RecordHeapCharge). Why: --stats counted each record
// beyond a word's first at 32 bytes, but a vector that left its inline slot
// holds its whole capacity on the heap (up to twice its size as it grows,
// and what compacted reads left behind) plus malloc's chunk header:
// globalToShmemAsyncCopy reached 3.4 GB of RSS while --stats said 950 MiB.
// (initial-exec: one instruction to reach; the library is loaded at start.)
inline thread_local int64_t recordHeapBytesOnThisThread __attribute__((tls_model("initial-exec"))) = 0;

template <class T>
struct CountedRecordAllocator {
  using value_type = T;
  static constexpr size_t kMallocChunkOverhead = 16;  // glibc: an 8-byte header, sizes rounded to 16
  CountedRecordAllocator() = default;
  template <class U>
  CountedRecordAllocator(const CountedRecordAllocator<U>&) {}
  T* allocate(size_t n) {
    recordHeapBytesOnThisThread += heapBytes(n);
    return std::allocator<T>().allocate(n);
  }
  void deallocate(T* p, size_t n) {
    recordHeapBytesOnThisThread -= heapBytes(n);
    std::allocator<T>().deallocate(p, n);
  }
  static int64_t heapBytes(size_t n) { return int64_t(n * sizeof(T) + kMallocChunkOverhead); }
  friend bool operator==(const CountedRecordAllocator&, const CountedRecordAllocator&) { return true; }
};

// A word's records: most words hold one, kept in place.
using Records = absl::InlinedVector<PackedRecord, 1, CountedRecordAllocator<PackedRecord>>;
static_assert(sizeof(Records) == 40, "the allocator must cost no bytes in each word");

// records.insert(records.begin() + at, r), as an append and a move of the
// records after `at`: InlinedVector's general insert (construction
// transactions, element by element) cost a tenth of the analysis of a
// stencil, whose words each gather a few readers.
inline void insertRecord(Records& records, size_t at, const PackedRecord& r) {
  records.push_back(r);
  if (at + 1 == records.size()) return;
  std::move_backward(records.begin() + ptrdiff_t(at), records.end() - 1, records.end());
  records[at] = r;
}

// A write, or a strong access, of one lane of a warp event goes into the
// record of the event's earlier lanes, as a group, when that comes right
// before `at` and is alike but for the thread (their records would lie side
// by side, in lane order, as a group's threads are visited): a block's
// atomics on one word keep a record per warp event, not per thread, and so
// do the lanes of a warp that all store one flag (`*over = true` in Rodinia's
// bfs). Only the same event (trace position): same-location observation
// compares a strong write's position, which a group keeps for all its
// threads. (Plain reads have their own groups: addPlainRead.)
// True when it joined; false, with nothing changed, otherwise.
inline bool joinsWarpEvent(Records& records, size_t at, const PackedRecord& r) {
  if (at == 0 || isPlainRead(r) || r.thread >= PackedRecord::kGroupWarps * 32) return false;
  PackedRecord& before = records[at - 1];
  if (!before.alikeBesidesThreads(r) || before.warp() != r.warp() ||
      ((before.seqAndKind ^ r.seqAndKind) & PackedRecord::kSeqMask) != 0 || before.holds(r.thread))
    return false;
  before.setLanes(before.warp(), before.lanes() | 1u << (r.thread & 31));
  return true;
}

}  // namespace predatar
