// PreDataR's detector: the GWCP relation (WCP extended with barriers, scoped
// atomics and scoped locks, composed with scoped happens-before), tracked
// online with vector clocks as in the paper's algorithms 1-2 and WCP's:
//
//  * per thread: N_t (ThreadClocks::now), P_t (wcp) and H_t (hb);
//  * per lock: joins of P and H at releases, per releasing block and for
//    device-scoped releases (acquires join the releases they overlap);
//  * rule (i): per lock and location, the H clocks of releases whose critical
//    section accessed the location, by access class, so an access inside a
//    critical section joins exactly the conflicting, overlapping ones;
//  * rule (ii): a log of completed critical sections per lock (the paper's
//    acquire/release queues, one shared copy read through per-thread cursors),
//    consulted at each release;
//  * rule (iii) for message passing and same-location observation: see
//    MessagePassing.h;
//  * per location: the access history, checked against C_t = P_t[t := N_t].
#pragma once

#include <algorithm>
#include <array>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "analysis/AccessHistory.h"
#include "analysis/Detector.h"
#include "analysis/KeyedList.h"
#include "analysis/MessagePassing.h"
#include "analysis/ThreadClocks.h"

namespace predatar {
namespace gwcp {

// A clock snapshot shared by every place that remembers it (a critical
// section's acquire and release clocks, the rule (i) clocks of every location
// the section accessed): a VectorClock copy shares its block lists, so it is
// one list per release, not one per use, and no allocation of its own.
using SharedClock = VectorClock;
// The first index in [lo, hi) where `holds` fails, `holds` being true on a
// prefix of the range. Gallops from the end first: where all but the last
// few hold (a log whose newest entries are the only ones left to order),
// that is one or two calls of `holds` instead of log2(n), each of which
// walks clocks.
template <class Holds>
size_t endOfPrefixFromEnd(size_t lo, size_t hi, Holds holds) {
  for (size_t step = 1, right = hi; right > lo; step *= 2) {
    size_t probe = right - std::min(step, right - lo);
    if (holds(probe)) {
      lo = probe + 1;
      break;
    }
    hi = right = probe;
  }
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (holds(mid)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

// A holder's share of a clock's bytes (so shared clocks are counted once in all).
inline uint64_t shareOfBytes(const SharedClock& c) { return c.bytes(); }

// Access classes a critical section's access falls in, for rule (i).
enum AccessClass : uint8_t {
  kPlainRead, kPlainWrite, kStrongReadBlock, kStrongReadDevice, kStrongWriteBlock, kStrongWriteDevice,
  kAccessClasses
};

// The join of the H clocks of releases that contributed, excluding on demand
// the querying thread's own (rule (i) needs a conflicting access by another
// thread). Contributions of one key are ordered by happens-before when the
// lock is used exclusively, so the latest one and the latest one by another
// thread suffice; other contributions are kept per thread.
struct ConflictClock {
  uint32_t lastBlock = 0, lastThread = 0;
  SharedClock last, other;  // empty: no contribution yet, none by another thread
  // Stamps of clocks known to be <= `last` (`other`), so that a P_t that is
  // still one of them joins it by taking it whole, without a walk of both
  // clocks: the releaser's P_t when it gave it (P is within H: GWCP is
  // within HB; a later holder took the lock's P whole, which that release
  // had set to it), and the H the releaser gave at its release before (H
  // only grows: on per-slot locks the next holder of a slot took that H
  // whole at its own critical section on the slot the releaser held before).
  struct Below {
    uint64_t wcp = 0, hb = 0;  // (0, the empty clock's stamp, claims nothing)
  };
  Below lastBelow, otherBelow;
  struct Extra { uint32_t block, thread; SharedClock hb; };
  // Contributions made while the lock was not exclusive (allocated then: a
  // lock-heavy kernel holds one ConflictClock per lock, location and class).
  std::unique_ptr<std::vector<Extra>> extra;

  // `below`: stamps of clocks <= `hb` (Below).
  void add(uint32_t block, uint32_t thread, const SharedClock& hb, Below below, bool exclusive);
  void joinInto(ThreadClocks& t) const;  // into P_t, unless t's own
  uint64_t bytes() const;
};

// Values by block, the first block's held inline and later blocks' in a map
// allocated at the second: a block-scoped lock's rule (i) state and log have
// one block, whose hash lookups at every access and release in its critical
// sections cost more than the rest of the lookup of its entries.
template <class Value>
class FirstBlockInline {
 public:
  const Value* find(uint32_t block) const {
    if (hasFirst_ && block == firstBlock_) return &first_;
    if (!others_) return nullptr;
    auto it = others_->find(block);
    return it == others_->end() ? nullptr : &it->second;
  }
  Value* find(uint32_t block) { return const_cast<Value*>(std::as_const(*this).find(block)); }
  Value& operator[](uint32_t block) {
    if (hasFirst_ && block == firstBlock_) return first_;
    if (Value* other = others_ ? find(block) : nullptr) return *other;
    if (!hasFirst_) {
      hasFirst_ = true;
      firstBlock_ = block;
      return first_;
    }
    if (!others_) others_ = std::make_unique<absl::flat_hash_map<uint32_t, Value>>();
    return (*others_)[block];
  }
  bool empty() const { return !hasFirst_ && (!others_ || others_->empty()); }
  void erase(uint32_t block) {
    if (hasFirst_ && block == firstBlock_) {
      first_ = Value{};
      hasFirst_ = false;
    } else if (others_) {
      others_->erase(block);
    }
  }
  template <class Visit>
  void forEach(Visit visit) const {
    if (hasFirst_) visit(firstBlock_, first_);
    if (others_)
      for (const auto& [block, value] : *others_) visit(block, value);
  }

 private:
  bool hasFirst_ = false;
  uint32_t firstBlock_ = 0;
  Value first_{};
  std::unique_ptr<absl::flat_hash_map<uint32_t, Value>> others_;
};

struct LocationConflicts {
  // The one thread whose releases gave every clock below, while only one
  // did: its own accesses have nothing to join here (ConflictClock::joinInto
  // skips the accessing thread's contributions), which this first cache
  // line says without the entries' (warp-lock: a warp's lock taken by its
  // lane 0 alone, round after round).
  uint32_t soleBlock = 0, soleThread = 0;
  uint8_t contributors = 0;  // none yet, one (soleBlock, soleThread), or 2: several
  void noteContributor(uint32_t block, uint32_t thread) {
    if (contributors == 0) {
      soleBlock = block, soleThread = thread, contributors = 1;
    } else if (contributors == 1 && (soleBlock != block || soleThread != thread)) {
      contributors = 2;
    }
  }
  bool onlyContributor(uint32_t block, uint32_t thread) const {
    return contributors == 1 && soleBlock == block && soleThread == thread;
  }
  // Critical sections acquired and released at device scope, plain accesses:
  // one chain across blocks, read by device-scoped acquirers (allocated at
  // the first such release: locks of one block never have one).
  std::unique_ptr<std::array<ConflictClock, 2>> deviceChain;
  struct Entry {
    uint8_t accessClass;
    bool deviceRelease;
    bool chainCopy;  // also in deviceChain (block-scoped acquirers of the block read it here)
    ConflictClock clock;
  };
  FirstBlockInline<std::vector<Entry>> byBlock;  // by releasing block
  struct CrossEntry { uint32_t block; uint8_t accessClass; ConflictClock clock; };
  std::vector<CrossEntry> crossBlock;  // other device-scoped releases, for other blocks' device acquirers
};

struct CriticalSection {
  uint32_t block, thread;
  Scope acquireScope, releaseScope;
  // C_t at the acquire is acquireClock (P_t then) with t's entry acquireNow
  // (N_t then, above P_t's), joined with acquireLockWcp when that is not empty
  // (the lock's P that the acquire joined later: GwcpDetector::HeldLock):
  // C_acq <= C is acquireNow <= C[t], acquireClock <= C and acquireLockWcp <= C.
  SharedClock acquireClock;
  SharedClock acquireLockWcp;
  SharedClock releaseHb;  // H_t at the release
  Clock acquireNow;
  uint64_t releaseIndex;  // the lock's release count after this release
  // Let go while entries before it are kept (GwcpDetector::dropKnownBelowP):
  // its clocks are empty and every reader takes it as trimmed.
  bool dropped = false;

  // C_acq <= C_t, apart from the acquirer's own entry (acquireNow: callers check it first).
  bool acquireClocksBelow(const ThreadClocks& t) const {
    return acquireClock.leq(t.wcp, t.block, t.thread, t.now) && acquireLockWcp.leq(t.wcp, t.block, t.thread, t.now);
  }
};

// A log of completed critical sections in release order whose oldest entries
// may have been dropped (GwcpDetector::trimLog): indices are absolute (an
// entry keeps its index for cursors and own-pending lists), `base` is the
// index of the oldest entry kept.
struct CriticalSectionLog {
  std::vector<CriticalSection> entries;
  size_t base = 0;
  size_t nextTrim = 0;  // kept entries at which to try trimming next (doubles when little goes)
  size_t nextQuickTrim = 0;  // kept entries at which to try GwcpDetector::cutBelowLockP next
  size_t walked = 0;    // blocks and threads the last try walked

  size_t end() const { return base + entries.size(); }
  const CriticalSection& operator[](size_t i) const { return entries[i - base]; }
  void dropFront(size_t n) {
    entries.erase(entries.begin(), entries.begin() + ptrdiff_t(n));
    base += n;
  }
};

struct Cursors {
  size_t ownBlock = 0, deviceAll = 0, deviceOwnBlock = 0;
  // Other blocks' logs with device-scoped releases (allocated at the first:
  // most locks have none, and every thread that released a lock has Cursors).
  std::unique_ptr<absl::flat_hash_map<uint32_t, size_t>> mixed;
  size_t& mixedCursor(uint32_t block) {
    if (!mixed) mixed = std::make_unique<absl::flat_hash_map<uint32_t, size_t>>();
    return (*mixed)[block];
  }
};

struct Holder { uint32_t block, thread; Scope scope; };

// A thread's own critical sections not yet GWCP-before its current point,
// oldest first, as (in deviceLog, index in the log): a vector read from
// `head` (a std::deque costs a 512-byte node per lock and thread), with
// room for two inline (a state derived at a release holds the thread's own
// entry or two, and is dropped after it: per-slot locks allocated and freed
// a vector at every release).
class PendingQueue {
 public:
  bool empty() const { return head_ == items_.size(); }
  const std::pair<bool, size_t>& front() const { return items_[head_]; }
  void push_back(bool inDeviceLog, size_t index) { items_.emplace_back(inDeviceLog, index); }
  // Drops entries from the front that were trimmed from their log: indices
  // below its base (the device log's, or the thread's block log's).
  void popTrimmed(size_t deviceBase, size_t ownBlockBase) {
    while (!empty() && front().second < (front().first ? deviceBase : ownBlockBase)) pop_front();
  }
  void pop_front() {
    if (++head_ == items_.size()) {
      items_.clear();
      head_ = 0;
    } else if (head_ >= 16 && 2 * head_ >= items_.size()) {
      items_.erase(items_.begin(), items_.begin() + ptrdiff_t(head_));
      head_ = 0;
    }
  }
 private:
  absl::InlinedVector<std::pair<bool, size_t>, 2> items_;
  size_t head_ = 0;
};

// A thread's rule (ii) state for one lock: where it is in each log, and its
// own critical sections still pending.
struct ThreadLockState {
  Cursors cursors;
  PendingQueue pending;
};

// A location a critical section accessed, with its access class bits; a
// critical section's are a KeyedList (most touch a few words, held inline:
// one heap block per critical section was a tenth of gwcp's allocations on
// per-slot locks).
struct AccessedLocation {
  uint64_t key;
  uint8_t classes = 0;  // bits by AccessClass
  // The lock's rule (i) state of the location once it has one, found once
  // per critical section (GwcpDetector::conflicts_ keeps it in place): a
  // critical section reads and writes its words, and the lock shapes of
  // bench/detectors looked it up three times per critical section.
  LocationConflicts* conflicts = nullptr;
};
using AccessedLocations = KeyedList<AccessedLocation, 2, 16>;

}  // namespace gwcp

class GwcpDetector final : public Detector {
 public:
  explicit GwcpDetector(const DetectorOptions& options);
  std::string_view name() const override { return "gwcp"; }
  DetectorStats stats() const override { return stats_; }
  // Critical sections the rule (ii) logs keep now, locks and (lock, location)
  // pairs with state (tests).
  size_t loggedCriticalSections() const;
  size_t trackedLocks() const { return locks_.size(); }
  size_t threadLockStates() const;  // threads' rule (ii) states, over all locks
  size_t trackedLockLocations() const { return conflicts_.size(); }
  // Rule (i) entries kept by releasing block (LocationConflicts::byBlock).
  size_t ruleOneBlockEntries() const;
  // Block-scoped acquires whose P join waited (HeldLock::lockWcp), and those
  // of them that took a walk when it came (the others were covered by then).
  uint64_t deferredLockJoins() const { return lockJoinsDeferred_; }
  uint64_t deferredLockJoinsWalked() const { return lockJoinsWalked_; }

  void kernelBegin(const KernelInfo& kernel) override;
  void memory(const MemoryEvent& event) override;
  void barrier(const BarrierEvent& event) override;
  void syncWarp(const SyncWarpEvent& event) override;
  void fence(const FenceEvent& event) override;
  void acquire(const LockEvent& event) override;
  void release(const LockEvent& event) override;
  void exit(const ExitEvent& event) override;
  void kernelEnd() override;
  void retainLaunches(const std::vector<uint32_t>& live) override { history_.retain(live); }
  // Checks hb's order too, on this detector's history, reporting to `log`
  // (makeDetectors, when both run): H_t is tracked here already (rule iv),
  // and a history that drops a record only when both orders may finds every
  // racy location of each (AccessHistory::access's `also`). hb's events,
  // clocks and history then cost nothing of their own; its check costs a
  // clock lookup where gwcp's found a record unordered or droppable.
  // Before the first launch.
  void checkHbToo(RaceLog* log) { hbLog_ = log; }

  struct HeldLock {
    uint64_t lock;
    Scope scope;
    gwcp::SharedClock acquireClock;  // P_t at the acquire (CriticalSection::acquireClock)
    gwcp::AccessedLocations accessed;
    uint64_t releasesAtAcquire = 0;  // LockState::releases when acquired
    Clock acquireNow = 0;            // N_t at the acquire
    // The lock's P of the block, which a block-scoped acquire joins into P_t,
    // when that join would walk both clocks: it waits for the thread's next
    // event that reads P_t (settleLockWcp), since the critical section's first
    // access usually joins, by rule (i), the previous holder's H, which is
    // above it. Empty when joined at the acquire. Every event that reads or
    // publishes P_t settles it first (an access after rule (i), an acquire,
    // a release, a barrier or __syncwarp), so other threads and the logs see
    // P_t as the join at the acquire would have made it. (Without the
    // barrier's or the nested acquire's settling no test's report changes:
    // there H_t, which holds the lock's H and so its P, covers it while
    // holders never overlap. They keep P_t exact whatever the trace.)
    gwcp::SharedClock lockWcp;
    bool lockWcpPending = false;
    // The lock's rule (i) state when it has one location (LockState::
    // conflictLocations): its first access finds it here, not in conflicts_,
    // whose probe missed the cache (a quarter of gwcp's access path on
    // per-slot locks). Stays valid while held: rule (i) state goes only for
    // a lock no one holds (sweepRuleOne) or with the lock (dropBlockLocalLocks).
    uint64_t soleLocation = 0;
    gwcp::LocationConflicts* soleConflicts = nullptr;
  };
  struct LockState {
    LockClocks clocks;
    gwcp::CriticalSectionLog deviceLog;  // acquired and released at device scope
    gwcp::FirstBlockInline<gwcp::CriticalSectionLog> blockLog;  // the others, by block
    std::vector<uint32_t> mixedBlocks;  // blocks whose blockLog has a device-scoped release
    // Whether a release by a thread of `block` may find an entry to join
    // (its block's log, the device log, other blocks' device-scoped releases).
    bool logsReadBy(uint32_t block) const {
      const gwcp::CriticalSectionLog* own = blockLog.find(block);
      return !deviceLog.entries.empty() || !mixedBlocks.empty() || (own && !own->entries.empty());
    }
    absl::flat_hash_map<uint64_t, gwcp::ThreadLockState> perThread;  // by global thread id
    size_t nextSweep = 0;  // perThread's size at which sweepThreadStates runs next (or 2 * sweepFloor())
    bool statesDropped = false;  // a thread's state was dropped while it said something (keepOrDropState)
    bool keepStates = false;     // a derived state had entries to join again: states are kept
    std::vector<gwcp::Holder> holders;
    bool exclusive = true;  // overlapping critical sections never interleaved
    uint64_t releases = 0;  // releases so far (CriticalSection::releaseIndex)
    // Locations with rule (i) state for this lock, and that state (conflicts_):
    // a lock of one location (a slot's, an element's) hands its acquirers the
    // state with the lock (HeldLock::soleLocation), not through conflicts_.
    absl::InlinedVector<std::pair<uint64_t, gwcp::LocationConflicts*>, 1> conflictLocations;
    uint64_t ruleOneSweepAt = 0;  // `releases` at which sweepRuleOne runs next
    // What is known, without a walk, of the device log's entries against the
    // lock's P's (trimLog's belowBlockP, belowDeviceP): entries below
    // `device` have their H below the device P; below byBlock[b], below the
    // P of block b. Each walk visits every block a clock knows of: on a
    // grid-wide lock, the grid's, at two walks per entry dropped (lock-heavy
    // at 10^5 threads: 1.6G instructions, against hb's 0.2G in all).
    struct DeviceLogBelowP {
      size_t device = 0;
      absl::flat_hash_map<uint32_t, size_t> byBlock;
      bool belowBlockP(uint32_t block, size_t i) const {
        auto known = byBlock.find(block);
        return known != byBlock.end() && i < known->second;
      }
      // After a device-scoped release by a thread of `block` of an exclusive
      // lock, whose P covers the entries below `end` (applyRuleTwo) and is
      // now below the lock's P of its block and the device P.
      void note(uint32_t block, size_t end);
    } deviceLogBelowP;
  };

 private:
  void access(ThreadClocks& t, const MemoryEvent& event, uint32_t lane, AccessRecord& record, uint8_t accessClass);
  void applyRuleOne(ThreadClocks& t, const HeldLock& h, gwcp::AccessedLocation& at, uint8_t accessClass);
  // Joins into P_t the lock P's that t's held locks' acquires deferred (HeldLock::lockWcp).
  void settleLockWcp(ThreadClocks& t, std::vector<HeldLock>& held) {
    for (HeldLock& h : held)
      if (h.lockWcpPending) [[unlikely]] settleLockWcp(t, h);
  }
  void settleLockWcp(ThreadClocks& t, HeldLock& h);
  void settleLockWcp(uint32_t block, const std::vector<uint32_t>& threads);
  // Returns the end of a prefix of the device log whose H's P_t covers now
  // (0 where none is known).
  size_t applyRuleTwo(ThreadClocks& t, LockState& lock, gwcp::ThreadLockState& mine, const HeldLock& held,
                      Scope releaseScope);
  // Whether the critical section t releases now published anything before its release (rule (ii) needs it then).
  static bool publishedInside(const ThreadClocks& t, const HeldLock& held);
  // Whether the acquire clocks of the section released now can go before it is logged
  // (after t left lock.holders).
  static bool acquireClocksUnread(const LockState& lock, const HeldLock& held, Scope releaseScope);
  // Adds a released critical section to its log (device or block) and trims that log.
  void logCriticalSection(LockState& lock, uint64_t lockId, gwcp::CriticalSection&& cs, gwcp::ThreadLockState& mine,
                          const ThreadClocks& t, size_t deviceLogBelowP);
  void trimLog(LockState& lock, gwcp::CriticalSectionLog& log, bool deviceLog, const ThreadClocks& releaser);
  // The end of the log's prefix that the holders have consumed and whose H is
  // below the lock's P of its block (and the device P, for the device log).
  size_t cutBelowLockP(const LockState& lock, const gwcp::CriticalSectionLog& log, bool deviceLog,
                       const ThreadClocks& releaser) const;
  void sweepThreadStates(LockState& lock);
  // Before a state is added: sweeps when the states doubled since the last sweep.
  void sweepThreadStatesIfDue(LockState& lock) {
    if (lock.perThread.size() >= std::max(lock.nextSweep, 2 * sweepFloor())) sweepThreadStates(lock);
  }
  // The thread's state for the lock at its release: the kept one, or one
  // derived from the logs into `unkept`.
  gwcp::ThreadLockState& stateAtRelease(LockState& lock, const ThreadClocks& t, uint64_t tid,
                                        std::optional<gwcp::ThreadLockState>& unkept) {
    if (lock.keepStates) {
      sweepThreadStatesIfDue(lock);
      return lock.perThread[tid];  // (lock.perThread gets no entry before the release's end)
    }
    if (!lock.perThread.empty())  // (none kept: a lock whose states are derived, no hash of tid)
      if (auto kept = lock.perThread.find(tid); kept != lock.perThread.end()) return kept->second;
    unkept.emplace();
    if (lock.statesDropped) {
      deriveState(lock, t, *unkept);
      // (own entries still logged: the thread takes the lock again soon, and
      // joining them again at each release would cost more than a kept state)
      lock.keepStates |= !unkept->pending.empty();
    }
    return *unkept;
  }
  // A thread's state for a lock, from the logs, when it was not kept.
  void deriveState(const LockState& lock, const ThreadClocks& t, gwcp::ThreadLockState& state) const;
  // After a release by a thread whose state was not kept: keeps it, unless
  // deriving it at the next release is cheap.
  void keepOrDropState(LockState& lock, const ThreadClocks& t, uint64_t tid, gwcp::ThreadLockState&& state,
                       Scope releaseScope);
  void trimAtBarrier(const BarrierEvent& event);
  void dropFinishedBlockLogs(uint32_t block);
  // Whether cs is satisfied and absorbed for t (trimLog).
  bool consumed(const ThreadClocks& t, const gwcp::CriticalSection& cs) const;
  // Whether cs's H is below the lock's P that an acquire by a thread of
  // cs's block joins, or below the device one (trimLog).
  // (`releaser`, where given, has just published its P as the lock's P of its block.)
  // Entry i of the log: its index first (LockState::DeviceLogBelowP), then its clocks.
  bool belowBlockP(const LockState& lock, const gwcp::CriticalSectionLog& log, size_t i,
                   const ThreadClocks* releaser = nullptr) const;
  bool belowDeviceP(const LockState& lock, const gwcp::CriticalSectionLog& log, size_t i) const;
  // Lets go of the last few device-log entries that the notes put below both
  // P's while older ones are still needed (the log is otherwise cut as a prefix).
  void dropKnownBelowP(LockState& lock);
  void recordConflicts(const ThreadClocks& t, const gwcp::SharedClock& hb, const HeldLock& held, Scope releaseScope,
                       LockState& lock);
  void dropBlockLocalLocks(uint32_t block);
  void dropFinishedBlockConflicts(uint32_t block);
  // After a device-scoped release of an exclusive lock that nobody holds.
  void sweepRuleOne(LockState& lock, uint64_t lockId);
  // Releases between two sweeps of a lock's rule (i) state, at least.
  static constexpr uint64_t kRuleOneSweepFloor = 64;
  void sampleMemory();
  // Counts an event; metadata sizes are sampled for --stats (MemorySampleSchedule).
  void countEvent() {
    if (sampling_.due(++stats_.events)) sampleMemory();
  }

  ClockGeometry geometry_;
  ThreadTable threads_;
  // The locks each thread holds, innermost last: a table of stacks per block,
  // allocated at its first acquire and freed when the block finishes (an
  // access inside a critical section finds its thread's locks by index).
  std::vector<std::unique_ptr<std::vector<std::vector<HeldLock>>>> held_;
  // Storage of lock stacks that emptied, newest last, lent to the next
  // thread that acquires with an empty stack: storage written just now, in
  // cache, where each thread's own was last written when it last held a lock
  // (per-slot locks, warps in turn: 62% of gwcp's last-level write misses
  // were the HeldLock built at each acquire). A few suffice: the lanes of
  // the warp events between a release and the next acquire.
  class SpareStacks {
   public:
    void giveBack(std::vector<HeldLock>& stack) {
      if (spares_.size() < kKept) spares_.push_back(std::move(stack));
      std::vector<HeldLock>().swap(stack);  // (its storage freed when the spares are full)
    }
    void lendTo(std::vector<HeldLock>& stack) {
      if (stack.capacity() || spares_.empty()) return;
      stack = std::move(spares_.back());
      spares_.pop_back();
    }

   private:
    static constexpr size_t kKept = 128;
    std::vector<std::vector<HeldLock>> spares_;
  } spareHeldStacks_;
  std::vector<HeldLock>* heldBy(uint32_t block, uint32_t thread) {
    const auto& table = held_[block];
    return table ? &(*table)[thread] : nullptr;
  }
  absl::flat_hash_map<uint64_t, LockState> locks_;
  bool overlappingHolders_ = false;  // some lock's critical sections overlapped (recordConflicts)
  // A critical section may be acquired at block scope and released at device
  // scope (KernelInfo::blockScopedAcquires): it reads the whole device log
  // having joined only its own block's P, so another block's entry must stay
  // until that reader has it (trimLog's walk), not go once below the device P.
  bool blockScopedAcquires_ = true;
  BlockLocalLocks blockLocal_;
  PendingArrivals arrivals_;
  // (lock, location). Each LocationConflicts stays in place (AccessedLocation::
  // conflicts points to it), and the key sits in the table's own slot: a
  // lookup compares keys without reading a node (per-slot locks: a quarter of
  // gwcp's access path was node_hash_map's key compares, each a cache miss).
  absl::flat_hash_map<std::pair<uint64_t, uint64_t>, std::unique_ptr<gwcp::LocationConflicts>> conflicts_;
  // block -> the keys of conflicts_ with entries of the block in byBlock, which
  // only the block's own threads read (dropFinishedBlockConflicts)
  absl::flat_hash_map<uint32_t, std::vector<std::pair<uint64_t, uint64_t>>> blockConflicts_;
  absl::flat_hash_map<uint32_t, std::vector<uint64_t>> blockLocks_;  // block -> locks with a log of the block
  AccessHistory history_;
  MessagePassing messages_;
  DetectorStats stats_;
  MemorySampleSchedule sampling_;
  RaceLog* hbLog_ = nullptr;  // checkHbToo
  // Kept entries at which a log is first trimmed (PREDATAR_GWCP_TRIM_EVERY,
  // 1 in the differential tests: trim at every release).
  size_t trimEvery_ = 64;
  // Block-scoped acquires defer a P join that would walk (HeldLock::lockWcp;
  // DetectorOptions::deferLockJoins).
  bool deferLockWcp_ = true;
  uint64_t lockJoinsDeferred_ = 0, lockJoinsWalked_ = 0;
  uint64_t lockJoinsPending_ = 0;  // held locks whose join still waits (none: barriers skip the lookups)
  // Kept entries between tries of cutBelowLockP (no walk: cheap enough to
  // try at every release). At every release, an entry below the lock's P
  // goes while its clock lists are in cache: the release has just replaced
  // the lock's H, the other holder of its H list. Every fourth release, as
  // before, freed them a few rounds later, a cache miss each (warp-lock at
  // 10^5 threads: 9% of gwcp's last-level misses).
  static constexpr size_t kQuickTrimEvery = 1;
  // Entries at the end of the device log that dropKnownBelowP looks at.
  static constexpr size_t kDropWindow = 16;
  // Kept entries of a block log past which a derived thread state is kept
  // (deriving it reads every kept entry).
  static constexpr size_t kDerivedStateLogLimit = 32;
  // Thread states of a lock kept before the first sweep, halved (with trimEvery_ 1, 1: every state is swept).
  size_t sweepFloor() const { return std::min<size_t>(16, trimEvery_); }
};

}  // namespace predatar
