#include "analysis/GwcpDetector.h"

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <string_view>

#include "analysis/LaneLoop.h"
#include "analysis/SameWordReads.h"

namespace predatar {
namespace gwcp {
namespace {

uint8_t classOf(const AccessRecord& a) {
  if (!a.strong) return a.writes() ? kPlainWrite : kPlainRead;
  uint8_t base = a.writes() ? kStrongWriteBlock : kStrongReadBlock;
  return base + (a.scope == Scope::Block ? 0 : 1);
}

bool classWrites(uint8_t c) { return c == kPlainWrite || c >= kStrongWriteBlock; }
bool classStrong(uint8_t c) { return c >= kStrongReadBlock; }
Scope classScope(uint8_t c) { return (c - kStrongReadBlock) % 2 ? Scope::Device : Scope::Block; }

// Accesses of classes a (by a thread of blockA) and b (blockB), by different
// threads, conflict.
bool classesConflict(uint8_t a, uint32_t blockA, uint8_t b, uint32_t blockB) {
  if (!classWrites(a) && !classWrites(b)) return false;
  if (!classStrong(a) || !classStrong(b)) return true;
  return !morallyStrong(classScope(a), blockA, classScope(b), blockB);
}

}  // namespace

void ConflictClock::add(uint32_t block, uint32_t thread, const SharedClock& hb, Below below, bool exclusive) {
  // A thread's H only grows, so its newer snapshot covers the older one and
  // replaces it (shared, not copied); a copy is joined only otherwise.
  auto joinShared = [&hb](SharedClock& mine) {
    if (mine.leq(hb)) {
      mine = hb;
      return;
    }
    mine.join(hb);
  };
  if (!exclusive) {
    if (!extra) extra = std::make_unique<std::vector<Extra>>();
    for (Extra& e : *extra)
      if (e.block == block && e.thread == thread) return joinShared(e.hb);
    extra->push_back({block, thread, hb});
    return;
  }
  // (`last` only grows while one thread gives it: the new P_t, <= the new
  // H_t, is <= it too. Here `last` is only ever that thread's earlier H
  // snapshot, so the new one replaces it without a comparison: a lock taken
  // by one thread only walked both clocks at each release.)
  if (!last.empty() && lastBlock == block && lastThread == thread) {
    assert(last.leq(hb));
    last = hb;
    lastBelow = below;
    return;
  }
  if (!last.empty()) other = std::move(last), otherBelow = lastBelow;
  last = hb;
  lastBelow = below;
  lastBlock = block;
  lastThread = thread;
}

void ConflictClock::joinInto(ThreadClocks& t) const {
  if (!last.empty()) {
    if (lastBlock != t.block || lastThread != t.thread) t.joinWcpAbove(last, lastBelow.wcp, lastBelow.hb);
    else if (!other.empty()) t.joinWcpAbove(other, otherBelow.wcp, otherBelow.hb);
  }
  if (extra)
    for (const Extra& e : *extra)
      if (e.block != t.block || e.thread != t.thread) t.joinWcp(e.hb);
}

uint64_t ConflictClock::bytes() const {
  uint64_t total = sizeof(*this) + shareOfBytes(last) + shareOfBytes(other);
  if (extra) {
    total += sizeof(*extra);
    for (const Extra& e : *extra) total += sizeof(e) + shareOfBytes(e.hb);
  }
  return total;
}

}  // namespace gwcp

using namespace gwcp;

GwcpDetector::GwcpDetector(const DetectorOptions& options) : Detector("gwcp", options) {
  geometry_.compression = options.compression;
  if (const char* every = std::getenv("PREDATAR_GWCP_TRIM_EVERY"); every && std::atoi(every) > 0)
    trimEvery_ = size_t(std::atoi(every));
  deferLockWcp_ = options.deferLockJoins;
  if (const char* defer = std::getenv("PREDATAR_GWCP_DEFER_LOCK_P"); defer && std::string_view(defer) == "off")
    deferLockWcp_ = false;
}

void GwcpDetector::kernelBegin(const KernelInfo& kernel) {
  geometry_ = ClockGeometry::make(kernel.threadsPerBlock(), geometry_.compression, kernel.numBlocks());
  threads_.reset(kernel, &geometry_);
  messages_.reset(kernel.threadsPerBlock(), &geometry_);
  held_.clear();
  held_.resize(kernel.numBlocks());
  lockJoinsPending_ = 0;
  locks_.clear();
  blockLocal_.clear();
  arrivals_.reset(&geometry_);
  conflicts_.clear();
  blockConflicts_.clear();
  blockLocks_.clear();
  history_.beginLaunch(kernel);
  races_.beginKernel(kernel.name);
  if (hbLog_) hbLog_->beginKernel(kernel.name);
  blockScopedAcquires_ = kernel.blockScopedAcquires;
}

void GwcpDetector::memory(const MemoryEvent& event) {
  countEvent();
  bool strong = isStrong(event);
  // What the lanes' records share, built once (built per lane it was a
  // twentieth of the analysis of a kernel of plain accesses).
  AccessRecord record{event.lanes.block, 0, 0, event.type, strong, event.isVolatile, event.scope, 0xf, event.origin};
  uint8_t accessClass = classOf(record);
  auto perLane = [&](ThreadClocks& t, uint32_t lane) { access(t, event, lane, record, accessClass); };
  if (sameWordReads_ && !strong && event.type == AccessType::Read) {
    // A run's later lane waits for sameWordReads when it holds no lock (rule
    // (i) is the per-lane path's), after noting its clock as access() does.
    readInRuns(threads_, event, history_, record, perLane, [&](ThreadClocks& t, uint32_t) {
      if (t.locksHeld) return false;
      t.noteWcpClock(event.origin.seq & PackedRecord::kSeqMask);
      if (hbLog_) t.noteHbClock(event.origin.seq & PackedRecord::kSeqMask);
      t.quietSinceFence = 0;
      return true;
    });
  } else {
    forEachLaneThread(threads_, event.lanes, perLane);
  }
  updateChains(threads_, messages_, event, strong);
  history_.notePublication(event, strong);
}

void GwcpDetector::fence(const FenceEvent& event) {
  countEvent();
  history_.notePublication(event.lanes.block, event.scope);
  forEachLane(event.lanes, [&](uint32_t thread, uint32_t) {
    ThreadClocks& t = threads_.at(event.lanes.block, thread);
    messages_.fence(t, event.scope, /*withWcp=*/true);
    t.quietSinceFence = t.now;
  });
}

// `record` holds the event's fields; the lane's are set here.
void GwcpDetector::access(ThreadClocks& t, const MemoryEvent& event, uint32_t lane, AccessRecord& record,
                          uint8_t accessClass) {
  bool strong = record.strong;
  record.block = t.block;
  record.thread = t.thread;
  record.beforeDependencyWait = (event.beforeDependencyWait >> lane) & 1;
  record.unchanged = (event.unchangedWrites >> lane) & 1;
  std::vector<HeldLock>* held = t.locksHeld ? heldBy(t.block, t.thread) : nullptr;
  auto ordered = [&t](const AccessRecord& r) { return t.orderedByWcp(r.block, r.thread, r.clock, r.origin.seq); };
  // Rule (i) for every word first: a conflict on any word orders the whole access.
  if (held) {
    forEachWord(event.address[lane], event.size, [&](uint64_t word, uint8_t) {
      uint64_t key = locationKey(event.space, t.block, word);
      for (HeldLock& h : *held) {
        AccessedLocation& at = h.accessed[key];
        at.classes |= uint8_t(1u << accessClass);
        applyRuleOne(t, h, at, accessClass);
      }
    });
    settleLockWcp(t, *held);  // (after rule (i): its joins usually cover the lock's P)
  }
  record.clock = t.now;
  t.noteWcpClock(event.origin.seq & PackedRecord::kSeqMask);  // (after rule (i)'s joins)
  if (hbLog_) t.noteHbClock(event.origin.seq & PackedRecord::kSeqMask);
  t.quietSinceFence = 0;
  auto hbOrdered = [&t](const AccessRecord& r) { return t.orderedByHb(r.block, r.thread, r.clock, r.origin.seq); };
  AlsoChecked hb{hbOrdered, hbLog_};
  forEachWord(event.address[lane], event.size, [&](uint64_t word, uint8_t bytes) {
    uint64_t key = locationKey(event.space, t.block, word);
    if (strong && event.type != AccessType::Write)
      messages_.strongRead(t, key, event.scope, event.origin.seq, (event.lockLanes >> lane) & 1, event.origin);
    record.bytes = bytes;
    history_.access(
        key, record, ordered, races_, messages_.excuses(key, t),
        [&](const AccessRecord& r) { return messages_.missingFence(t, r); },
        skipAlikeRecords_ ? (hbLog_ ? std::min(t.wcpSteady.seq, t.hbSteady.seq) : t.wcpSteady.seq) : UINT64_MAX,
        hbLog_ ? &hb : nullptr);
  });
}

// Rule (i): a release r whose critical section has an access conflicting with
// this one, overlapping the acquire of this critical section, precedes it
// (with everything that happens before r, by rule iv).
void GwcpDetector::applyRuleOne(ThreadClocks& t, const HeldLock& h, AccessedLocation& at,
                                uint8_t accessClass) {
  if (!at.conflicts && h.soleConflicts && h.soleLocation == at.key) at.conflicts = h.soleConflicts;
  if (!at.conflicts) {  // (none yet, or not looked up in this critical section)
    auto it = conflicts_.find({h.lock, at.key});
    if (it == conflicts_.end()) return;
    at.conflicts = it->second.get();
  }
  const LocationConflicts& lc = *at.conflicts;
  if (lc.onlyContributor(t.block, t.thread)) return;
  bool deviceAcquire = h.scope != Scope::Block;
  if (deviceAcquire) {
    if (lc.deviceChain)
      for (uint8_t c : {kPlainRead, kPlainWrite})  // plain classes conflict whatever the blocks
        if (classesConflict(c, 0, accessClass, 0)) (*lc.deviceChain)[c].joinInto(t);
    for (const auto& e : lc.crossBlock)
      if (e.block != t.block && classesConflict(e.accessClass, e.block, accessClass, t.block))
        e.clock.joinInto(t);
  }
  if (const auto* entries = lc.byBlock.find(t.block)) {
    for (const auto& e : *entries) {
      if (deviceAcquire && e.chainCopy) continue;  // read through deviceChain
      if (classesConflict(e.accessClass, t.block, accessClass, t.block))
        e.clock.joinInto(t);
    }
  }
}

void GwcpDetector::settleLockWcp(ThreadClocks& t, HeldLock& h) {
  lockJoinsWalked_ += t.joinWcpLater(h.lockWcp);
  h.lockWcpPending = false;
  --lockJoinsPending_;
}

void GwcpDetector::settleLockWcp(uint32_t block, const std::vector<uint32_t>& threads) {
  if (!lockJoinsPending_ || !held_[block]) return;
  for (uint32_t thread : threads)
    if (auto& held = (*held_[block])[thread]; !held.empty()) settleLockWcp(threads_.at(block, thread), held);
}

void GwcpDetector::barrier(const BarrierEvent& event) {
  countEvent();
  settleLockWcp(event.block, event.threads);  // (a barrier publishes P_t)
  if (!arrivals_.apply(threads_, event, /*withWcp=*/true)) return;  // an arrival only
  history_.barrier(event.block, event.threads.size());
  trimAtBarrier(event);
  for (uint32_t thread : event.threads) {  // (as HbDetector::barrier)
    ThreadClocks& t = threads_.at(event.block, thread);
    t.noteWcpClock(event.origin.seq & PackedRecord::kSeqMask);
    if (hbLog_) t.noteHbClock(event.origin.seq & PackedRecord::kSeqMask);
  }
}

void GwcpDetector::syncWarp(const SyncWarpEvent& event) {
  countEvent();
  std::vector<uint32_t> lanes = liveLanes(threads_, event.lanes);
  settleLockWcp(event.lanes.block, lanes);
  synchronize(threads_, geometry_, event.lanes.block, lanes, true);
}

void GwcpDetector::acquire(const LockEvent& event) {
  countEvent();
  prefetchWarpAcquires(threads_, locks_, event, [](const LockState& s) -> const LockClocks& { return s.clocks; });
  forEachLane(event.lanes, [&](uint32_t thread, uint32_t lane) {
    ThreadClocks& t = threads_.at(event.lanes.block, thread);
    uint64_t lockId = event.lock[lane];
    LockState& lock = blockLocal_.stateOf(locks_, event, lane);
    // Holders that are not morally strong (block-scoped in different blocks)
    // leave the lock exclusive, but still overlap: a rule (i) join from the
    // other's release can bring P_t what H_t lacks (recordConflicts).
    for (const Holder& h : lock.holders) {
      if (h.block == t.block && h.thread == t.thread) continue;
      overlappingHolders_ = true;
      if (morallyStrong(h.scope, h.block, event.scope, t.block)) lock.exclusive = false;
    }
    lock.holders.push_back({t.block, t.thread, event.scope});
    // (a front end that said the launch has none: from here on, as if it had not)
    blockScopedAcquires_ |= event.scope == Scope::Block;
    auto& table = held_[t.block];
    if (!table) table = std::make_unique<std::vector<std::vector<HeldLock>>>(threads_.threadsPerBlock());
    std::vector<HeldLock>& held = (*table)[thread];
    spareHeldStacks_.lendTo(held);  // (a stack with storage keeps it)
    settleLockWcp(t, held);  // (this acquire's clock is P_t with every earlier join)
    // A block-scoped acquire's P join that would walk both clocks waits
    // (HeldLock::lockWcp); the critical section keeps P_t and that lock P
    // as its acquire clock.
    const LockClocks::BlockClocks* own = nullptr;
    if (event.scope == Scope::Block && deferLockWcp_) own = lock.clocks.acquireDeferringWcp(t);
    else lock.clocks.acquire(t, event.scope, /*withWcp=*/true);
    // C_t is P_t with t's own entry N_t: P_t is shared, N_t kept beside it.
    HeldLock& h = held.emplace_back();  // (fields set in place: clang has no parenthesized aggregate init)
    ++t.locksHeld;
    h.lock = lockId;
    h.scope = event.scope;
    h.acquireClock = t.wcp;
    h.releasesAtAcquire = lock.releases;
    h.acquireNow = t.now;
    t.quietSinceFence = 0;
    if (own) {
      h.lockWcp = own->wcp;
      h.lockWcpPending = true;
    }
    if (lock.conflictLocations.size() == 1) std::tie(h.soleLocation, h.soleConflicts) = lock.conflictLocations[0];
    lockJoinsDeferred_ += own != nullptr;
    lockJoinsPending_ += own != nullptr;
  });
}

// Rule (ii): a critical section CS1 of another thread whose acquire is already
// GWCP-before this release (C_acq1 <= C_t) has a release r1 <GWCP this release,
// so H at r1 joins P_t. Logs are in release order; where critical sections
// are mutually exclusive, acquires in one log are ordered by happens-before,
// so a scan stops at the first one not yet ordered.
//
// "Satisfied" (C_acq1 <= C_t, CS1 by u != t) is one entry, N_u(acq1) <= P_t[u],
// when CS1 was released before t acquired the lock and into a lock clock t's
// acquire joined (its block's, or the device one for a device-scoped acquire
// and release): P_u(acq1) <= P_u(r1) <= that lock P <= P_t, since P only grows
// while a thread lives, so every other entry of C_acq1 is <= C_t already.
size_t GwcpDetector::applyRuleTwo(ThreadClocks& t, LockState& lock, ThreadLockState& mine, const HeldLock& held,
                                  Scope releaseScope) {
  Cursors& cursors = mine.cursors;
  bool joined = true;
  auto own = [&t](const CriticalSection& cs) { return cs.block == t.block && cs.thread == t.thread; };
  bool deviceAcquire = held.scope != Scope::Block;
  auto satisfied = [&t, &held, deviceAcquire](const CriticalSection& cs) {
    // (u's own entry first: alone it settles most unsatisfied ones)
    if (cs.acquireNow > t.wcp.get(cs.block, cs.thread)) return false;
    bool joinedAtAcquire = cs.block == t.block || (deviceAcquire && cs.releaseScope != Scope::Block);
    return (joinedAtAcquire && cs.releaseIndex <= held.releasesAtAcquire) ||
           cs.acquireClocksBelow(t);
  };
  const CriticalSectionLog* ownLog = lock.blockLog.find(t.block);  // (no log is added below)
  // Entries of ownLog below this index have their H in P_t: scanChain joined
  // a later one's, and H only grows along an exclusive log.
  size_t ownLogBelowP = 0, deviceLogBelowP = 0;  // (and of the device log)
  auto scan = [&](const CriticalSectionLog& log, size_t& cursor, auto relevant) {
    cursor = std::max(cursor, log.base);  // dropped entries were consumed (trimLog)
    for (size_t i = cursor; i < log.end(); ++i) {
      const CriticalSection& cs = log[i];
      if (own(cs) || cs.dropped || !relevant(cs)) {
        if (cursor == i) ++cursor;
        continue;
      }
      if (satisfied(cs)) {
        // Entries past an unsatisfied one are seen again on the next pass;
        // only a join that adds something calls for another pass.
        if (t.absorbWcp(cs.releaseHb)) joined = true;
        if (cursor == i) ++cursor;
      } else if (lock.exclusive) {
        return;
      }
    }
  };
  // A log whose critical sections are all relevant and mutually exclusive is
  // a happens-before chain: acquires and release clocks only grow along it.
  // So "satisfied" is monotone over other threads' entries, and joining the
  // release clock of the last satisfied one covers all before it (binary search).
  auto scanChain = [&](const CriticalSectionLog& log, size_t& cursor) {
    if (!lock.exclusive) return scan(log, cursor, [](const CriticalSection&) { return true; });
    cursor = std::max(cursor, log.base);
    auto lastOtherAtOrBefore = [&](size_t i) -> std::optional<size_t> {
      for (size_t j = i + 1; j-- > cursor;)
        if (!own(log[j]) && !log[j].dropped) return j;
      return std::nullopt;
    };
    auto covered = [&](size_t i) {
      auto j = lastOtherAtOrBefore(i);
      return !j || satisfied(log[*j]);
    };
    // (From the end first: a thread whose critical section conflicts with
    // the one before it (rule (i)) covers the whole log, and is answered with
    // one comparison, each of which visits every block of the clocks: 10^6
    // threads taking one lock spent 87% of their time here.)
    size_t lo = endOfPrefixFromEnd(cursor, log.end(), covered);
    if (lo == cursor) return;
    if (auto k = lastOtherAtOrBefore(lo - 1)) {
      joined |= t.absorbWcp(log[*k].releaseHb);
      if (&log == ownLog) ownLogBelowP = *k + 1;
      if (&log == &lock.deviceLog) deviceLogBelowP = *k + 1;
    }
    cursor = lo;
  };
  bool device = releaseScope != Scope::Block;
  // The thread's own earlier critical sections count once their acquire is
  // strictly GWCP-before this point (P_t's own entry reaches its time).
  size_t ownBase = ownLog ? ownLog->base : 0;
  while (joined) {
    joined = false;
    // (the scans first: an own entry before what they joined needs no join)
    if (ownLog) scanChain(*ownLog, cursors.ownBlock);
    if (device) {
      scanChain(lock.deviceLog, cursors.deviceAll);
      for (uint32_t b : lock.mixedBlocks) {
        const CriticalSectionLog* log = lock.blockLog.find(b);
        if (b != t.block && log)
          scan(*log, cursors.mixedCursor(b),
               [](const CriticalSection& cs) { return cs.releaseScope != Scope::Block; });
      }
    } else {
      scan(lock.deviceLog, cursors.deviceOwnBlock,
           [&t](const CriticalSection& cs) { return cs.block == t.block; });
    }
    while (true) {
      // (trimmed entries: consumed, or absorbed by this thread's acquire (trimLog))
      mine.pending.popTrimmed(lock.deviceLog.base, ownBase);
      if (mine.pending.empty()) break;
      auto [inDeviceLog, index] = mine.pending.front();
      const CriticalSection& cs = inDeviceLog ? lock.deviceLog[index] : (*ownLog)[index];
      if (cs.dropped) {  // (as a trimmed one)
        mine.pending.pop_front();
        continue;
      }
      if (cs.acquireNow > t.wcp.get(t.block, t.thread)) break;
      if (inDeviceLog || !lock.exclusive || index >= ownLogBelowP) {
        t.joinWcp(cs.releaseHb);
        joined = true;
      }
      mine.pending.pop_front();
    }
  }
  return deviceLogBelowP;
}

// Rule (i) bookkeeping: the locations this critical section accessed remember
// H at its release, keyed so that later accesses find the overlapping ones.
void GwcpDetector::recordConflicts(const ThreadClocks& t, const SharedClock& hb, const HeldLock& held,
                                   Scope releaseScope, LockState& lock) {
  bool exclusive = lock.exclusive;
  bool deviceRelease = releaseScope != Scope::Block;
  // P_t <= H_t (the hb snapshot): GWCP is within HB, and joins into P_t
  // bring what H_t has, as long as critical sections of a lock never
  // overlapped, morally strong or not (rule (i) and (ii) then join only
  // releases before t's acquire; otherwise a P_t may hold another holder's
  // release H_t lacks: a device-scoped section's rule (i) join of the release
  // of a block-scoped one of another block that it overlapped). Stamp 0, the
  // empty clock, claims nothing.
  ConflictClock::Below below{overlappingHolders_ ? 0 : t.wcp.stamp(), t.lastReleaseHb};
  bool chain = deviceRelease && held.scope != Scope::Block;
  for (const AccessedLocation& at : held.accessed) {
    LocationConflicts* found = at.conflicts;
    if (!found) {
      auto [it, inserted] = conflicts_.try_emplace({held.lock, at.key});
      if (inserted) {
        it->second = std::make_unique<LocationConflicts>();
        lock.conflictLocations.emplace_back(at.key, it->second.get());
      }
      found = it->second.get();
    }
    LocationConflicts& lc = *found;
    lc.noteContributor(t.block, t.thread);
    uint8_t classes = at.classes;
    if (!lc.byBlock.find(t.block)) blockConflicts_[t.block].emplace_back(held.lock, at.key);
    auto& entries = lc.byBlock[t.block];
    for (uint8_t c = 0; c < kAccessClasses; ++c) {
      if (!(classes & (1u << c))) continue;
      bool chainCopy = chain && !classStrong(c);
      if (chainCopy) {
        if (!lc.deviceChain) lc.deviceChain = std::make_unique<std::array<ConflictClock, 2>>();
        (*lc.deviceChain)[c].add(t.block, t.thread, hb, below, exclusive);
      }
      auto e = std::find_if(entries.begin(), entries.end(), [&](const LocationConflicts::Entry& x) {
        return x.accessClass == c && x.deviceRelease == deviceRelease && x.chainCopy == chainCopy;
      });
      if (e == entries.end()) e = entries.insert(entries.end(), {c, deviceRelease, chainCopy, {}});
      e->clock.add(t.block, t.thread, hb, below, exclusive);
      if (!deviceRelease || chainCopy) continue;
      auto x = std::find_if(lc.crossBlock.begin(), lc.crossBlock.end(), [&](const auto& x) {
        return x.block == t.block && x.accessClass == c;
      });
      if (x == lc.crossBlock.end()) x = lc.crossBlock.insert(lc.crossBlock.end(), {t.block, c, {}});
      x->clock.add(t.block, t.thread, hb, below, exclusive);
    }
  }
}

// Whether a critical section of t, released now, needs a rule (ii) entry.
// Rule (ii) joins H(r1) into P_t once C(acq1) <= C_t, which for t != u (the
// section's thread) holds only when P_t[u] >= N_u(acq1): the acquire's own
// entry. Every clock entry of u at or above N_u(acq1) went out in something
// u published at or after acq1 (u ticks after each publication: a release, a
// fence, a barrier or __syncwarp arrival), and clocks are joined whole. So
// when u published nothing between acq1 and r1, the first such clock is
// H(r1) itself, and every P_t that satisfies the entry already holds H(r1):
// its join changes nothing, for t != u and, the same way, for u's own entry
// (P_u[u] >= N_u(acq1)). Such a section needs no entry.
// The emulator's locks publish one thing before the release: the fence of
// the release pattern (fence, then atom.exch, which the release event
// precedes). When nothing came after that fence but the release (no access,
// no acquire: quietSinceFence), H(r1) is H at the fence with u's own entry
// one higher, an entry no access and no acquire of u holds (u ticks at the
// release), so joining H(r1) where the fence's H is joined orders nothing
// more: no entry there either. (Tested against the reference on traces
// shaped as the emulator's locks: Differential.GwcpEmulatedLocks.)
bool GwcpDetector::publishedInside(const ThreadClocks& t, const HeldLock& held) {
  if (t.now == held.acquireNow) return false;
  return !(t.now == held.acquireNow + 1 && t.quietSinceFence == t.now);
}

// Whether no thread will read the acquire clocks of the critical section
// being released (CriticalSection::acquireClocksBelow). They are read where
// a thread w != t decides whether the section is satisfied for it (C_acq <=
// C_w; applyRuleTwo's `satisfied`, trimLog's `consumed` for holders); t's
// own entry is decided by acquireNow alone. For a section acquired and
// released at block scope, its entry is in t's block log, read by threads
// of t's block only (the log is not among mixedBlocks: other blocks'
// device-scoped scans skip block-scoped releases anyway). A thread w of the
// block that reads the entry releases the lock after this release. When no
// other thread holds the lock now, w acquired it after this release, at
// block or device scope, joining the lock's P of the block, which this
// release sets at or above P_t: `satisfied` for w holds through its first
// disjunct (cs.block == w.block, releaseIndex <= w's releasesAtAcquire)
// given acquireNow <= P_w[t], and never reads the clocks; `consumed` for w
// as a holder sees empty clocks, below anything, so it answers the same.
// Letting them go here spares a cold free a round later (warp-lock: the
// entry's lists were freed at trimLog's dropFront, a cache miss each).
bool GwcpDetector::acquireClocksUnread(const LockState& lock, const HeldLock& held, Scope releaseScope) {
  return held.scope == Scope::Block && releaseScope == Scope::Block && lock.holders.empty();
}

void GwcpDetector::logCriticalSection(LockState& lock, uint64_t lockId, CriticalSection&& cs, ThreadLockState& mine,
                                      const ThreadClocks& t, size_t deviceLogBelowP) {
  bool device = cs.releaseScope != Scope::Block;
  if (device && cs.acquireScope != Scope::Block) {
    lock.deviceLog.entries.push_back(std::move(cs));
    mine.pending.push_back(true, lock.deviceLog.end() - 1);
    if (deviceLogBelowP) dropKnownBelowP(lock);
    trimLog(lock, lock.deviceLog, true, t);
    return;
  }
  CriticalSectionLog* found = lock.blockLog.find(t.block);
  if (!found) {
    found = &lock.blockLog[t.block];
    blockLocks_[t.block].push_back(lockId);
  }
  CriticalSectionLog& log = *found;
  log.entries.push_back(std::move(cs));
  mine.pending.push_back(false, log.end() - 1);
  if (device && std::find(lock.mixedBlocks.begin(), lock.mixedBlocks.end(), t.block) == lock.mixedBlocks.end())
    lock.mixedBlocks.push_back(t.block);
  trimLog(lock, log, false, t);  // blocks with no __syncthreads between critical sections
}

void GwcpDetector::release(const LockEvent& event) {
  countEvent();
  history_.notePublication(event.lanes.block, event.scope);
  forEachLane(event.lanes, [&](uint32_t thread, uint32_t lane) {
    ThreadClocks& t = threads_.at(event.lanes.block, thread);
    uint64_t tid = uint64_t(t.block) * threads_.threadsPerBlock() + thread;
    uint64_t lockId = event.lock[lane];
    std::vector<HeldLock>* stack = heldBy(t.block, thread);
    if (!stack) return;  // front ends reject releases of locks not held
    auto h = std::find_if(stack->rbegin(), stack->rend(), [&](const HeldLock& x) { return x.lock == lockId; });
    if (h == stack->rend()) return;
    settleLockWcp(t, *stack);  // (rule (ii) reads P_t, the lock's clocks take it)
    auto heldAt = std::next(h).base();  // (erased at the end: nothing below changes the stack)
    HeldLock& held = *heldAt;

    LockState& lock = blockLocal_.stateOf(locks_, event, lane);
    // Rule (ii) has nothing to do for a section it does not log when no log
    // holds an entry to join (locks whose sections publish only at their
    // release: no thread state either).
    bool logged = publishedInside(t, held);
    std::optional<ThreadLockState> unkept;  // (the thread's state, when it was not kept)
    ThreadLockState* mine = logged || lock.logsReadBy(t.block) ? &stateAtRelease(lock, t, tid, unkept) : nullptr;
    size_t deviceLogBelowP = mine ? applyRuleTwo(t, lock, *mine, held, event.scope) : 0;
    SharedClock hb = t.hbSnapshot();
    recordConflicts(t, hb, held, event.scope, lock);
    t.lastReleaseHb = hb.stamp();
    lock.clocks.release(t, hb, event.scope, &geometry_, /*withWcp=*/true);
    if (deviceLogBelowP && event.scope != Scope::Block) lock.deviceLogBelowP.note(t.block, deviceLogBelowP);
    // (Before trimLog: t has scanned the logs, and scans them next after
    // another acquire, as any thread that does not hold the lock.)
    auto holder = std::find_if(lock.holders.begin(), lock.holders.end(), [&](const Holder& x) {
      return x.block == t.block && x.thread == t.thread;
    });
    if (holder != lock.holders.end()) lock.holders.erase(holder);
    // (Entries trimmed from the logs leave the owners' pending lists lazily:
    // dropping them at each trim visited every thread with state for the lock.)
    if (mine) {
      const CriticalSectionLog* ownLog = lock.blockLog.find(t.block);
      mine->pending.popTrimmed(lock.deviceLog.base, ownLog ? ownLog->base : 0);
    }
    if (logged) {
      if (acquireClocksUnread(lock, held, event.scope)) {  // (let go now, while their lists are in cache)
        held.acquireClock.clear();
        held.lockWcp.clear();
      }
      CriticalSection cs{t.block,       t.thread,       held.scope,      event.scope,   std::move(held.acquireClock),
                         std::move(held.lockWcp), std::move(hb), held.acquireNow, ++lock.releases};
      logCriticalSection(lock, lockId, std::move(cs), *mine, t, deviceLogBelowP);
    } else {
      ++lock.releases;
    }
    if (unkept) keepOrDropState(lock, t, tid, std::move(*unkept), event.scope);
    stack->erase(heldAt);
    // An empty stack gives its storage back (SpareStacks).
    if (stack->empty()) spareHeldStacks_.giveBack(*stack);
    --t.locksHeld;
    t.tick();
    if (event.scope != Scope::Block && lock.exclusive && lock.holders.empty() && lock.releases >= lock.ruleOneSweepAt)
      sweepRuleOne(lock, lockId);
  });
}

void GwcpDetector::exit(const ExitEvent& event) {
  countEvent();
  forEachLane(event.lanes, [&](uint32_t thread, uint32_t) {
    if (auto* stack = heldBy(event.lanes.block, thread)) {
      for (const HeldLock& h : *stack) lockJoinsPending_ -= h.lockWcpPending;
      stack->clear();
    }
    ThreadClocks& t = threads_.at(event.lanes.block, thread);
    t.locksHeld = 0;
    messages_.exit(t);
    threads_.exit(event.lanes.block, thread);
  });
  if (history_.exited(event)) {
    held_[event.lanes.block].reset();
    messages_.blockFinished(event.lanes.block, history_.finishedBlocks());
    dropFinishedBlockLogs(event.lanes.block);
    dropFinishedBlockConflicts(event.lanes.block);
    dropBlockLocalLocks(event.lanes.block);
  }
}

// A finished block's shared-memory locks: nothing can take them again, so
// nothing reads their clocks, logs or rule (i) state (LockEvent::blockLocal).
void GwcpDetector::dropBlockLocalLocks(uint32_t block) {
  std::vector<uint64_t> dropped = blockLocal_.take(block);
  if (dropped.empty()) return;
  for (uint64_t id : dropped) {
    auto it = locks_.find(id);
    if (it == locks_.end()) continue;
    for (const auto& [location, _] : it->second.conflictLocations) conflicts_.erase({id, location});
    locks_.erase(it);
  }
  if (auto kept = blockLocks_.find(block); kept != blockLocks_.end()) {  // (logs of mixed-scope releases)
    std::erase_if(kept->second, [&](uint64_t id) { return !locks_.contains(id); });
    if (kept->second.empty()) blockLocks_.erase(kept);
  }
}

// A finished block's rule (i) entries: applyRuleOne reads byBlock only for
// the accessing thread's own block, and no thread of this one is left. (The
// device chain and the cross-block entries order other blocks: they stay. So
// do the nodes, which held locks may point to: AccessedLocation::conflicts.)
// A grid of blocks that run one after another keeps one block's entries, not
// the grid's (ScoR's matrix multiplication: 295,680 entries, 58 MB, at the end).
void GwcpDetector::dropFinishedBlockConflicts(uint32_t block) {
  auto keys = blockConflicts_.find(block);
  if (keys == blockConflicts_.end()) return;
  for (const auto& key : keys->second)
    if (auto it = conflicts_.find(key); it != conflicts_.end()) it->second->byBlock.erase(block);
  blockConflicts_.erase(keys);
}

size_t GwcpDetector::ruleOneBlockEntries() const {
  size_t n = 0;
  for (const auto& [_, lc] : conflicts_) lc->byBlock.forEach([&](uint32_t, const auto& entries) { n += entries.size(); });
  return n;
}

size_t GwcpDetector::loggedCriticalSections() const {
  size_t n = 0;
  for (const auto& [_, lock] : locks_) {
    n += size_t(std::count_if(lock.deviceLog.entries.begin(), lock.deviceLog.entries.end(),
                              [](const CriticalSection& cs) { return !cs.dropped; }));
    lock.blockLog.forEach([&](uint32_t, const CriticalSectionLog& log) { n += log.entries.size(); });
  }
  return n;
}

size_t GwcpDetector::threadLockStates() const {
  size_t n = 0;
  for (const auto& [_, lock] : locks_) n += lock.perThread.size();
  return n;
}

void GwcpDetector::sampleMemory() {
  stats_.peakThreadClockBytes = std::max(stats_.peakThreadClockBytes, threads_.clockBytes());
  // The critical-section logs are measured here, not as entries come and go:
  // a clock's share changes as its other holders come and go, and measuring
  // one visits every block of it (a tenth of a lock-heavy run at every release).
  uint64_t lockBytes = 0, queueBytes = 0, visited = threads_.lastScanEntries();
  auto logBytes = [&](const CriticalSectionLog& log) {
    queueBytes += log.entries.capacity() * sizeof(CriticalSection);
    for (const CriticalSection& cs : log.entries) {
      queueBytes += shareOfBytes(cs.acquireClock) + shareOfBytes(cs.acquireLockWcp) + shareOfBytes(cs.releaseHb);
      visited += 2 + cs.acquireClock.blockEntries() + cs.acquireLockWcp.blockEntries() + cs.releaseHb.blockEntries();
    }
  };
  for (const auto& [_, lock] : locks_) {
    lockBytes += lock.clocks.bytes();
    queueBytes += lock.perThread.size() * (sizeof(ThreadLockState) + 16);
    logBytes(lock.deviceLog);
    lock.blockLog.forEach([&](uint32_t, const CriticalSectionLog& log) { logBytes(log); });
  }
  for (const auto& [_, lc] : conflicts_) {
    if (lc->deviceChain)
      for (const auto& c : *lc->deviceChain) lockBytes += c.bytes();
    lc->byBlock.forEach([&](uint32_t, const auto& entries) {
      for (const auto& e : entries) lockBytes += e.clock.bytes();
    });
    for (const auto& e : lc->crossBlock) lockBytes += e.clock.bytes();
  }
  lockBytes += conflicts_.size() * (sizeof(std::pair<uint64_t, uint64_t>) + sizeof(void*) + sizeof(LocationConflicts));
  for (const auto& [_, keys] : blockConflicts_) lockBytes += keys.capacity() * sizeof(keys[0]);
  stats_.peakLockClockBytes = std::max(stats_.peakLockClockBytes, lockBytes + messages_.bytes());
  stats_.peakQueueBytes = std::max(stats_.peakQueueBytes, queueBytes);
  stats_.peakShadowBytes = std::max(stats_.peakShadowBytes, history_.peakBytes());
  sampling_.sampled(stats_.events, visited);
}

void GwcpDetector::kernelEnd() { sampleMemory(); }

}  // namespace predatar
