// A word's plain reads by one warp: AccessHistory keeps a word's plain reads
// after its other records, sorted by (launch, block, warp) (RecordOrder.h),
// so that a plain read finds its own warp's by search. Here: finding them,
// and what a read of the warp's lanes does to them.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <utility>

#include "analysis/AccessRecord.h"
#include "analysis/PackedRecord.h"
#include "analysis/RecordOrder.h"
#include "clock/VectorClock.h"  // (Clock)

namespace predatar {

// A later lane of a warp's plain read whose lanes read one word (`*factor`
// by every thread, a row of a shared tile): its thread and epoch.
struct LaneEpoch {
  uint32_t thread = 0;
  Clock clock = 0;
};

// The plain reads of `read`'s warp and launch in a word: [first, last).
// Blocks run one after another, so a word's readers come mostly in order:
// the last kNearEnd records (in the cache: the caller just read the last)
// are looked at first. The lanes of a warp come one after the other, often
// to the same words (a vector load touches up to four): where the last call
// on a word found its warp is checked next, before a binary search (a word
// read by a thousand warps costs ten cache misses a search).
class WarpReadsFinder {
 public:
  std::pair<size_t, size_t> find(uint64_t key, const Records& records, size_t readsBegin, const PackedRecord& read) {
    // (hashed: tables read in a loop by every thread are word-strided, and
    // `key % size` put a curand sample's 16 tables in one slot)
    Hint& hint = hints_[(key * 0x9E3779B97F4A7C15ull) >> (64 - kHintBits)];
    // Where `read` belongs when it is at `at`.
    auto fits = [&](size_t at) {
      return at >= readsBegin && at <= records.size() && (at == readsBegin || readBefore(records[at - 1], read)) &&
             (at == records.size() || !readBefore(records[at], read));
    };
    // The same warp again, or (round-robin scheduling brings the warps to a
    // word one after the other) the next warp, whose reads follow the last
    // one's (one further when that read was added), or where this warp was
    // in the last word read (words of a table have the same readers).
    // Near the end first, whose records the caller just read: a block's
    // warps come to a word one after the other, not always in order.
    size_t end = records.size(), stop = end - std::min<size_t>(end - readsBegin, kNearEnd);
    size_t first = end;
    while (first > stop && !readBefore(records[first - 1], read)) --first;
    if (first == stop && first > readsBegin && !readBefore(records[first - 1], read) && !fits(first = hint.first) &&
        !fits(first = hint.last) && !fits(++first) && !fits(first = lastFound_))
      first = size_t(std::lower_bound(records.begin() + readsBegin, records.begin() + stop, read,
                                      [](const PackedRecord& a, const PackedRecord& b) { return readBefore(a, b); }) -
                     records.begin());
    size_t last = first;
    while (last < records.size() && !readBefore(read, records[last])) ++last;
    hint = Hint{first, last};
    lastFound_ = first;
    return {first, last};
  }

 private:
  static constexpr size_t kNearEnd = 8;
  // By word, where its last call found its warp's reads; and where the last
  // call on any word found them.
  struct Hint {
    size_t first = 0, last = 0;
  };
  static constexpr int kHintBits = 8;
  Hint hints_[1u << kHintBits] = {};
  size_t lastFound_ = 0;
};

// A plain read `read` by thread t meets the reads of its warp, [first,
// last): t's own earlier reads that it stands for are dropped (t leaves a
// group; `keepEarlier` says of a record of t's alone whether it stays);
// `alreadyThere` when a group holds this very read (same epoch and
// instruction), `joins` a read of another thread it can make a group with.
// Returns the range's new end; `liveRecords` loses the records dropped.
template <class KeepFn>
size_t ownWarpReads(Records& records, size_t first, size_t last, const PackedRecord& read, const AccessRecord& access,
                    KeepFn&& keepEarlier, bool& alreadyThere, size_t& joins, uint64_t& liveRecords) {
  uint32_t t = read.thread;
  bool groupable = t < PackedRecord::kGroupWarps * 32;
  size_t kept = first;
  for (size_t i = first; i < last; ++i) {
    PackedRecord& r = records[i];
    if (r.holds(t)) {
      if (r.group() && r.alikeBesidesThreads(read)) {
        alreadyThere = true;
      } else if (!r.group()) {
        if (!keepEarlier(AccessRecord::unpack(r))) continue;
      } else {
        AccessRecord member = AccessRecord::unpack(r);
        member.thread = t;
        if (subsumes(access, member)) r.setLanes(r.warp(), r.lanes() & ~(1u << (t & 31)));
      }
    } else if (groupable && joins == SIZE_MAX && r.alikeBesidesThreads(read)) {
      joins = kept;
    }
    if (kept != i) records[kept] = r;
    ++kept;
  }
  if (kept != last) {
    liveRecords -= last - kept;
    records.erase(records.begin() + kept, records.begin() + last);
  }
  return kept;
}

// AccessHistory::sameWordReads' lanes all at once, on their warp's reads
// [first, end), when they share one epoch (`read`, but for the thread, is
// each one's read) and what ownWarpReads would do lane by lane does not
// depend on their order: no lane holds an alike record alone (another lane
// could join it before its own turn drops it), one alike record is there for
// the others to join (the first: every lane not already in an alike group
// would join it), and no lane's access starts at a size the word's reads are
// compacted at (`compactReadsAt`, AccessHistory::compactReads). Each lane
// then leaves each record of its own that `read` covers (a record all of
// whose lanes leave goes), and every lane not in an alike group joins the
// first alike record. False, with nothing changed, where those do not hold.
inline bool readsTogether(Records& records, size_t first, size_t end, const PackedRecord& read,
                          const LaneEpoch* lanes, size_t count, size_t compactReadsAt, uint64_t& liveRecords) {
  uint32_t mask = 0;
  for (size_t i = 0; i < count; ++i) {
    if (lanes[i].clock != read.clock) return false;
    mask |= 1u << (lanes[i].thread & 31);
  }
  auto covered = [&read](const PackedRecord& r) { return (read.bytes() & r.bytes()) == r.bytes(); };
  uint32_t there = 0;
  size_t drops = 0;
  bool anyAlike = false;
  for (size_t i = first; i < end; ++i) {
    const PackedRecord& r = records[i];
    bool alike = r.alikeBesidesThreads(read);
    uint32_t held = r.lanes() & mask;
    anyAlike |= alike;
    if (held && alike && !r.group()) return false;
    if (alike) there |= held;
    else if (held == r.lanes() && covered(r)) ++drops;
  }
  size_t size = records.size();
  if (!anyAlike || (size >= compactReadsAt && std::bit_floor(size) >= std::max(size - drops, compactReadsAt)))
    return false;
  uint32_t warp = read.warp(), joining = mask & ~there;
  size_t kept = first, target = SIZE_MAX;
  for (size_t i = first; i < end; ++i) {
    PackedRecord r = records[i];
    bool alike = r.alikeBesidesThreads(read);
    if (uint32_t held = r.lanes() & mask; held && !alike && covered(r)) {
      if (held == r.lanes()) continue;
      r.setLanes(warp, r.lanes() & ~held);
    }
    if (alike && target == SIZE_MAX) target = kept;
    records[kept++] = r;
  }
  if (kept != end) {
    liveRecords -= end - kept;
    records.erase(records.begin() + ptrdiff_t(kept), records.begin() + ptrdiff_t(end));
  }
  if (joining) records[target].setLanes(warp, records[target].lanes() | joining);
  return true;
}

}  // namespace predatar
