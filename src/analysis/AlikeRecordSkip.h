// A run of records that an access would pass without effect, recognized
// without checking each one (AccessHistory::access's scans).
//
// Why: a word that every thread of a block updates atomically and reads
// plainly between two barriers (simpleAttributes' `hit`, a block's work
// counter) holds a record per thread, and every access to it walked them
// all: about 1,000 records per lane, each unpacked and checked, for nothing
// but one report per instruction. The records of one instruction differ
// only in thread and epoch, which an access reads only to order a record
// with it, and mostly need not.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>

#include "analysis/AccessRecord.h"
#include "analysis/PackedRecord.h"

namespace predatar {

// Records "alike" are of one instruction, kind (type, strength, scope,
// bytes), block and launch of the current launch (a group alike stands for
// records alike). `unorderedAfter` is the position from which the
// detector's `ordered` answers false for other threads' records
// (ThreadClocks::orderedByHb and orderedByWcp look up no clock after the
// thread's clock last changed: SteadySince).
//
// For another thread's record r, access()'s check (keepEarlier, and
// keepGroup for each thread of a group) reads r's thread and epoch only to
// ask whether r is ordered before the access: conflicts, subsumes and
// classify read what alike records share. It asks only when r conflicts
// and is neither excused nor of an (instruction, kind) reported by this
// access already (a set that only grows during the access), or when the
// access subsumes r: then an ordered r is dropped. So after one such
// record r was checked and kept, an alike record r' is kept with no report
// when
//  * r did not conflict, or its (instruction, kind) has been reported, or
//    r was excused and r' is no later in the trace (`excused` must be
//    monotone so: MessagePassing::excuses is, a write being excused when
//    the thread observed the word after it), or no later than where the
//    excuse says its alike records are excused (an `excusedThrough`
//    member, which MessagePassing::Excuses has);
//  * and, when the access subsumes them, r' is later than `unorderedAfter`
//    (not ordered, so not dropped).
class AlikeRecordSkip {
 public:
  AlikeRecordSkip(uint64_t unorderedAfter, const AccessRecord& access)
      : unorderedAfter_(unorderedAfter), block_(access.block), thread_(access.thread) {}

  // Whether `r` is alike to the record learnt from and passed as it was.
  bool skips(const PackedRecord& r) const {
    if (!known_ || !alike(r) || own(r)) return false;
    uint64_t seq = r.seqAndKind & PackedRecord::kSeqMask;
    return (passed_ || seq < excusedBelow_) && (!subsumed_ || seq > unorderedAfter_);
  }
  // Whether `r` (of the current launch) can be learnt from.
  bool canLearn(const PackedRecord& r) const { return !own(r); }
  // After `r` (canLearn) was checked and kept: whether it conflicts with
  // the access, is subsumed by it, has its (instruction, kind) reported,
  // and, when it is excused, the latest position through which records
  // alike are (its own at least).
  void learn(const PackedRecord& r, bool conflicting, bool subsumed, bool reported,
             std::optional<uint64_t> excusedThrough) {
    if (!known_ || !alike(r)) {
      known_ = true;
      kind_ = kindOf(r);
      pc_ = r.pc;
      recordBlock_ = r.block;
      launch_ = r.launch;
      subsumed_ = subsumed;
      passed_ = false;
      excusedBelow_ = 0;
    }
    if (!conflicting || reported) passed_ = true;
    else if (excusedThrough) excusedBelow_ = std::max(excusedBelow_, *excusedThrough + 1);
  }

 private:
  // The kind bits (type, strength, scope, bytes): a group's threads are
  // passed as its own records would be.
  static uint64_t kindOf(const PackedRecord& r) { return r.kind() & 0x3ff; }
  bool alike(const PackedRecord& r) const {
    return kindOf(r) == kind_ && r.pc == pc_ && r.block == recordBlock_ && r.launch == launch_;
  }
  bool own(const PackedRecord& r) const { return r.block == block_ && r.holds(thread_); }

  uint64_t unorderedAfter_;
  uint32_t block_, thread_;
  bool known_ = false, subsumed_ = false, passed_ = false;
  uint64_t kind_ = 0;
  uint64_t excusedBelow_ = 0;  // alike records before this position are excused
  uint32_t pc_ = 0, recordBlock_ = 0, launch_ = 0;
};

}  // namespace predatar
