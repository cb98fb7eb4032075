// One access as the access history keeps and compares it, and the relations
// between two accesses that decide races (conflicts, subsumption).
#pragma once

#include <algorithm>
#include <cstdint>
#include <iterator>

#include "absl/functional/function_ref.h"
#include "analysis/PackedRecord.h"
#include "clock/VectorClock.h"
#include "events/Event.h"
#include "report/Race.h"

namespace predatar {

struct AccessRecord {
  uint32_t block = 0;
  uint32_t thread = 0;
  Clock clock = 0;  // the thread's epoch at the access
  AccessType type = AccessType::Read;
  bool strong = false;
  bool isVolatile = false;
  Scope scope = Scope::Device;
  uint8_t bytes = 0xf;  // bytes of the word accessed
  Origin origin;
  uint32_t launch = 0;  // KernelInfo::launch (AccessHistory sets it)
  // MemoryEvent::beforeDependencyWait: unordered with KernelInfo::overlappedLaunch
  // (of the access being checked; records do not keep it).
  bool beforeDependencyWait = false;
  // MemoryEvent::unchangedWrites, of the access being checked (for its report; records do not keep it).
  bool unchanged = false;

  bool writes() const { return type != AccessType::Read; }
  bool sameThread(const AccessRecord& o) const { return block == o.block && thread == o.thread; }
  Access access() const { return Access{block, thread, type, strong, isVolatile, scope, origin, launch, unchanged}; }
  bool overlaps(const AccessRecord& o) const { return bytes & o.bytes; }

  PackedRecord packed() const {
    return PackedRecord::pack(block, thread, clock, type, strong, isVolatile, scope, bytes, origin, launch);
  }
  static AccessRecord unpack(const PackedRecord& p) {
    return AccessRecord{p.block, p.firstThread(), p.clock, p.type(), p.strong(), p.isVolatile(), p.scope(),
                        p.bytes(), p.origin(), p.launch};
  }
};

// e1 and e2 conflict: different threads, at least one writes, and not two
// strong accesses that are morally strong.
inline bool conflicts(const AccessRecord& a, const AccessRecord& b) {
  if (a.sameThread(b) || (!a.writes() && !b.writes()) || !a.overlaps(b)) return false;
  return !(a.strong && b.strong && morallyStrong(a.scope, a.block, b.scope, b.block));
}

// Every access that conflicts with `earlier` also conflicts with `later`, and
// does so without an excuse `earlier` lacks: a strong write is excused by
// same-location observation, so it stands only for earlier strong writes
// (of its block with a scope as wide: they are excused whenever it is).
// (Always inlined: on its own it is called per record in the access
// history's loops, with a record unpacked for the call; GCC stopped inlining
// it when GwcpDetector.cpp changed, and atomics-heavy grew by 7%.)
[[gnu::always_inline]] inline bool subsumes(const AccessRecord& later, const AccessRecord& earlier) {
  if ((later.bytes & earlier.bytes) != earlier.bytes) return false;
  if (!later.strong) return later.writes() || !earlier.writes();
  if (!earlier.strong || earlier.block != later.block) return false;
  bool widerScope = later.scope == Scope::Block || earlier.scope != Scope::Block;
  return widerScope && later.writes() == earlier.writes();
}
// The same for a kept record, read from its packed fields (unpacking a record
// to ask this was a sixth of a loop's update of its thread's own word).
[[gnu::always_inline]] inline bool subsumes(const AccessRecord& later, const PackedRecord& earlier) {
  uint8_t bytes = earlier.bytes();
  bool earlierWrites = earlier.type() != AccessType::Read;
  if ((later.bytes & bytes) != bytes) return false;
  if (!later.strong) return later.writes() || !earlierWrites;
  if (!earlier.strong() || earlier.block != later.block) return false;
  bool widerScope = later.scope == Scope::Block || earlier.scope() != Scope::Block;
  return widerScope && later.writes() == earlierWrites;
}

// Accesses of two launches that nothing orders conflict when one writes,
// unless both are strong at device (or system) scope: a block scope never
// covers a thread of another grid.
inline bool conflictsAcrossLaunches(const AccessRecord& a, const AccessRecord& b) {
  if ((!a.writes() && !b.writes()) || !a.overlaps(b)) return false;
  return !(a.strong && b.strong && a.scope != Scope::Block && b.scope != Scope::Block);
}

// Happens-before alone: nothing excused, no note.
struct NoExcuse {
  bool operator()(const AccessRecord&) const { return false; }
};
struct NoNote {
  MissingFence operator()(const AccessRecord&) const { return {}; }
};

// The (instruction, kind) pairs one access reported, the first eight
// (AccessHistory::access). Left uninitialized: only the first `count` are
// read, and zeroing them cost a tenth of a race-free access.
struct ReportedOnce {
  uint64_t pc[8];
  RaceKind kind[8];
  size_t count = 0;
  bool has(uint64_t p, RaceKind k) const {
    for (size_t i = 0; i < count; ++i)
      if (pc[i] == p && kind[i] == k) return true;
    return false;
  }
  // Whether (p, k) is new to this access; notes it.
  bool first(uint64_t p, RaceKind k) {
    if (has(p, k)) return false;
    if (count < std::size(pc)) {
      pc[count] = p;
      kind[count++] = k;
    }
    return true;
  }
};

// A second order checked on a history kept by another (AccessHistory::access's
// `also`): hb's on gwcp's, when both run (GwcpDetector::checkHbToo).
struct AlsoChecked {
  absl::FunctionRef<bool(const AccessRecord&)> ordered;
  RaceLog* log;
};

// Shadow memory key of a 4-byte word: global addresses, or shared offsets of
// one block (shared memory is per block).
inline uint64_t locationKey(MemorySpace space, uint32_t block, uint64_t address) {
  if (space == MemorySpace::Global) return address >> 2;
  return (uint64_t(1) << 63) | (uint64_t(block) << 32) | ((address >> 2) & 0xffffffffu);
}
inline LocationKey locationOf(uint64_t key) {
  if (!(key >> 63)) return {MemorySpace::Global, 0, key << 2};
  return {MemorySpace::Shared, uint32_t((key >> 32) & 0x7fffffffu), (key & 0xffffffffu) << 2};
}

// Visits the words a lane's access of `size` bytes at `address` touches, with
// the mask of the word's bytes it touches (bit i: byte i), so accesses to
// different bytes of one word (char arrays) do not conflict.
template <class F>
void forEachWord(uint64_t address, uint32_t size, F&& f) {
  if (size == 4 && (address & 3) == 0) return f(address, uint8_t(0xf));  // the usual access: one whole word
  uint64_t end = address + (size ? size : 1);
  for (uint64_t word = address & ~uint64_t(3); word < end; word += 4) {
    uint64_t from = std::max(word, address), to = std::min(word + 4, end);
    f(word, uint8_t(((1u << (to - from)) - 1) << (from - word)));
  }
}

}  // namespace predatar
