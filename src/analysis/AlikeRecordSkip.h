// A run of records that an access would pass without effect, recognized
// without checking each one (AccessHistory::access's scans).
//
// Why: a word that every thread of a block updates atomically and reads
// plainly between two barriers (simpleAttributes' `hit`, a block's work
// counter) holds a record per thread, and every access to it walked them
// all: about 1,000 records per lane, each unpacked and checked, for nothing
// but one report per instruction. The records of one instruction differ
// only in thread and epoch, and an access treats them alike once their
// order with it is known without their clocks.
#pragma once

#include <algorithm>
#include <cstdint>

#include "analysis/AccessRecord.h"
#include "analysis/PackedRecord.h"

namespace predatar {

// Records "alike" are of one instruction, kind (type, strength, scope,
// bytes, group or not), block and launch of the current launch; "unordered"
// ones are other threads' records later in the trace than `unorderedAfter`,
// the position from which the detector's `ordered` answers false for every
// record (ThreadClocks::orderedByHb and orderedByWcp look up no clock after
// the thread's clock last changed: SteadySince).
//
// For an unordered record r, access()'s check (keepEarlier, and keepGroup for
// each thread of a group) depends on r's thread and epoch nowhere:
//  * conflicts, subsumes and classify read only what alike records share,
//    once r is another thread's;
//  * r is not ordered, so nothing drops it;
//  * it is reported only when it conflicts, is not excused, and its
//    (instruction, kind) was not reported by this access yet.
// So after one unordered record r was checked:
//  * when r did not conflict, or its (instruction, kind) has been reported
//    (a set that only grows during the access), every alike unordered
//    record is kept with no report (`passed`);
//  * when r was excused, so is every alike unordered record no later in the
//    trace: `excused` must be monotone so (MessagePassing::excuses is: a
//    write is excused when the thread observed the word after it).
class AlikeRecordSkip {
 public:
  AlikeRecordSkip(uint64_t unorderedAfter, const AccessRecord& access)
      : unorderedAfter_(unorderedAfter), block_(access.block), thread_(access.thread) {}

  // Whether `r` is alike to the record learnt from and passed as it was.
  bool skips(const PackedRecord& r) const {
    if (!known_ || kindOf(r) != kind_ || r.pc != pc_ || r.block != recordBlock_ || r.launch != launch_) return false;
    uint64_t seq = r.seqAndKind & PackedRecord::kSeqMask;
    return seq > unorderedAfter_ && !own(r) && (passed_ || seq <= excusedThrough_);
  }
  // Whether `r` (of the current launch, checked in full) can be learnt from.
  bool canLearn(const PackedRecord& r) const {
    return (r.seqAndKind & PackedRecord::kSeqMask) > unorderedAfter_ && !own(r);
  }
  // After `r` (canLearn) was checked and kept: `conflicting` whether it
  // conflicts with the access, `reported` whether its (instruction, kind)
  // has been reported, `excused` whether it is excused.
  void learn(const PackedRecord& r, bool conflicting, bool reported, bool excused) {
    if (!known_ || kindOf(r) != kind_ || r.pc != pc_ || r.block != recordBlock_ || r.launch != launch_) {
      known_ = true;
      kind_ = kindOf(r);
      pc_ = r.pc;
      recordBlock_ = r.block;
      launch_ = r.launch;
      passed_ = false;
      excusedThrough_ = 0;
    }
    if (!conflicting || reported) passed_ = true;
    else if (excused) excusedThrough_ = std::max(excusedThrough_, r.seqAndKind & PackedRecord::kSeqMask);
  }

 private:
  // The kind bits and the group flag, not a group's warp.
  static uint64_t kindOf(const PackedRecord& r) { return r.kind() & 0x7ff; }
  bool own(const PackedRecord& r) const { return r.block == block_ && r.holds(thread_); }

  uint64_t unorderedAfter_;
  uint32_t block_, thread_;
  bool known_ = false, passed_ = false;
  uint64_t kind_ = 0, excusedThrough_ = 0;  // (0: none; no record after the bound is at position 0)
  uint32_t pc_ = 0, recordBlock_ = 0, launch_ = 0;
};

}  // namespace predatar
