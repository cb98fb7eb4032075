// gwcp's rule (ii) logs kept bounded: which critical sections no thread
// needs any more, and when they go (GwcpDetector's trimLog, cutBelowLockP,
// trimAtBarrier, sweepThreadStates, dropFinishedBlockLogs); and the rule (i)
// state no acquirer can use (sweepRuleOne). Split from
// GwcpDetector.cpp, which holds the rules themselves.
#include <algorithm>
#include <optional>

#include "analysis/GwcpDetector.h"

namespace predatar {

using namespace gwcp;

// Bounding the rule (ii) log. An entry CS1 = (acq1, r1) by thread u matters
// to a thread t only through t's later releases of the lock:
//  * t != u: a scan joins H(r1) into P_t once C(acq1) <= C_t, and (in an
//    exclusive log) stops at the first entry not yet satisfied;
//  * t == u: the own-pending list joins H(r1) once C(acq1)[u] <= P_u[u].
// P_t and N_t only grow while t lives (barriers join, acquires join, the
// compressed renumbering only raises N_t), so once CS1 is satisfied for t
// (C(acq1) <= C_t, or the own condition for u) and absorbed by t
// (H(r1) <= P_t), every later scan of t passes CS1 and its join changes
// nothing: t behaves the same with CS1 gone and its cursor past it. A prefix
// of a log that is satisfied and absorbed for every live thread that could
// scan the log (the threads of its block for a block log, every thread of
// the kernel for the device log) is therefore dropped without changing any
// later P_t, so no report changes. A thread that does not hold the lock, or
// has not started, needs less (belowBlockP).
//
// Block logs: a __syncthreads of every live thread of block b gives each
// participant t P_t >= J_P join J_H, J_H the join of the participants' H
// with their own times (compressed: the block at the latest time). For
// every CS1 of b's log (all released before the barrier, by u, a
// participant: only barriers of the whole block trim): H(r1) <= H_u <= J_H <= P_t (absorbed), and C(acq1) = P_u(acq1)[u :=
// N_u(acq1)] <= J_P join J_H <= C_t, N_u(acq1) <= J_H[u] <= P_t[u] (both
// conditions). So the barrier empties the block's logs, at the cost of the
// locks the block used (trimAtBarrier). Logs of blocks with device-scoped
// releases of block-acquired locks are also scanned by other blocks and are
// kept. The device log, and block logs between barriers (per-slot locks of
// a block with no __syncthreads between critical sections), are checked
// thread by thread at releases when they double (trimLog).
namespace {
// Orders threads by block, for std::equal_range over threads in block order.
struct ByBlock {
  bool operator()(const ThreadClocks* t, uint32_t block) const { return t->block < block; }
  bool operator()(uint32_t block, const ThreadClocks* t) const { return block < t->block; }
};
}  // namespace

bool GwcpDetector::consumed(const ThreadClocks& t, const CriticalSection& cs) const {
  bool own = cs.block == t.block && cs.thread == t.thread;
  // (u's own entry first: alone it settles most that are not satisfied)
  bool satisfied = cs.acquireNow <= t.wcp.get(cs.block, cs.thread) &&
                   (own || cs.acquireClocksBelow(t));
  return satisfied && cs.releaseHb.leq(t.wcp);
}

void GwcpDetector::trimLog(LockState& lock, CriticalSectionLog& log, bool deviceLog, const ThreadClocks& releaser) {
  uint32_t block = releaser.block;
  // (A try walks the threads that could read the log: trying once per 64
  // threads walked last time keeps that below one thread per release.)
  if (!deviceLog && std::find(lock.mixedBlocks.begin(), lock.mixedBlocks.end(), block) != lock.mixedBlocks.end())
    return;
  // First what needs no walk (cutBelowLockP): tried every few releases, less
  // often while it drops nothing.
  if (log.entries.size() >= std::max(log.nextQuickTrim, std::min(trimEvery_, kQuickTrimEvery))) {
    size_t cut = cutBelowLockP(lock, log, deviceLog, releaser), dropped = cut - log.base;
    log.dropFront(dropped);
    log.nextQuickTrim = dropped ? log.entries.size() + kQuickTrimEvery : 2 * log.entries.size();
  }
  if (log.entries.size() < std::max({log.nextTrim, trimEvery_, log.walked / 64})) return;
  log.nextTrim = 2 * log.entries.size();
  // Block by block: finished blocks and blocks not started yet are one
  // step each, not a step per thread (a device log is read by the grid).
  std::vector<const ThreadClocks*> holders, others;  // live threads holding the lock, and not
  std::vector<uint32_t> unstarted;  // blocks with a thread that has not acted yet, ascending
  uint32_t firstBlock = deviceLog ? 0 : block, endBlock = deviceLog ? threads_.blocks() : block + 1;
  for (uint32_t b = firstBlock; b < endBlock; ++b) {
    if (threads_.finished(b)) continue;
    if (threads_.untouched(b)) {
      unstarted.push_back(b);
      continue;
    }
    for (uint32_t thread = 0; thread < threads_.threadsPerBlock(); ++thread) {
      const ThreadClocks* t = threads_.find(b, thread);
      if (!t) {
        if (unstarted.empty() || unstarted.back() != b) unstarted.push_back(b);
      } else if (!t->exited) {
        bool holds = std::any_of(lock.holders.begin(), lock.holders.end(), [t](const Holder& h) {
          return h.block == t->block && h.thread == t->thread;
        });
        (holds ? holders : others).push_back(t);
      }
    }
  }
  log.walked = (endBlock - firstBlock) + holders.size() + others.size();
  // Entry by entry, oldest first, every thread on the entry before the next
  // entry: the attempt ends at the first entry some thread still needs
  // (thread by thread, the first threads compared every entry before one
  // was found).
  size_t cut = log.base;
  // Whether entry i's H is below the device P. In an exclusive log H only
  // grows along the log (each acquire joins the releases before it), so
  // those entries are a prefix, found once by binary search (each comparison
  // walks an entry per block the clocks know of: a 10^6-thread grid's).
  std::optional<size_t> devicePrefixEnd;
  auto belowDevice = [&](size_t i) {
    if (!lock.exclusive) return belowDeviceP(lock, log, i);
    if (!devicePrefixEnd) {
      size_t lo = log.base, hi = log.end();
      while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (belowDeviceP(lock, log, mid)) lo = mid + 1;
        else hi = mid;
      }
      devicePrefixEnd = lo;
    }
    return i < *devicePrefixEnd;
  };
  auto consumedByAll = [&](size_t i) {
    const CriticalSection& cs = log[i];
    if (cs.dropped) return true;
    if (!std::all_of(holders.begin(), holders.end(), [&](const ThreadClocks* t) { return consumed(*t, cs); }))
      return false;
    // `others` are in block order: the threads of cs's block are a range.
    auto absorbedNow = [&](const ThreadClocks* t) { return cs.releaseHb.leq(t->wcp); };
    auto [ownFirst, ownEnd] = std::equal_range(others.begin(), others.end(), cs.block, ByBlock{});
    bool ownUnstarted = std::binary_search(unstarted.begin(), unstarted.end(), cs.block);
    if ((ownUnstarted || ownFirst != ownEnd) && !belowBlockP(lock, log, i) &&
        (ownUnstarted || !std::all_of(ownFirst, ownEnd, absorbedNow)))
      return false;
    bool othersUnstarted = unstarted.size() > size_t(ownUnstarted);
    if (!othersUnstarted && ownFirst == others.begin() && ownEnd == others.end()) return true;  // (a block log)
    if (!blockScopedAcquires_ && belowDevice(i)) return true;
    return !othersUnstarted && std::all_of(others.begin(), ownFirst, absorbedNow) &&
           std::all_of(ownEnd, others.end(), absorbedNow);
  };
  while (cut < log.end() && consumedByAll(cut)) ++cut;
  if (cut == log.base) return;
  log.dropFront(cut - log.base);
  log.nextTrim = 2 * log.entries.size();
}

// The threads that do not hold the lock, started or not, need no more of an
// entry than its H below the lock's P of its block and, for the device log
// (read by other blocks' device-scoped acquirers), the device P (trimLog's
// rule, belowBlockP). So with the holders (a few threads, not a block or a
// grid) this drops what a walk of every thread would, wherever each release
// is ordered before the next one's (a rule (i) conflict, as on a lock
// guarding one word): per-slot locks of a block with no __syncthreads kept
// 64 entries per lock until the walk, 7x hb's metadata.
size_t GwcpDetector::cutBelowLockP(const LockState& lock, const CriticalSectionLog& log, bool deviceLog,
                                   const ThreadClocks& releaser) const {
  if (deviceLog && blockScopedAcquires_) return log.base;
  absl::InlinedVector<const ThreadClocks*, 4> holders;
  for (const Holder& h : lock.holders)
    if (const ThreadClocks* t = threads_.find(h.block, h.thread); t && !t->exited) holders.push_back(t);
  if (!deviceLog && lock.exclusive && holders.empty()) {
    // H only grows along an exclusive log of one block (each acquire joins
    // the block's releases before it), so the entries below the block's P
    // are a prefix: found from the end, where all but the last usually are.
    return endOfPrefixFromEnd(log.base, log.end(), [&](size_t i) { return belowBlockP(lock, log, i, &releaser); });
  }
  size_t cut = log.base;
  for (; cut < log.end(); ++cut) {
    const CriticalSection& cs = log[cut];
    if (cs.dropped) continue;
    if (!belowBlockP(lock, log, cut, &releaser) || (deviceLog && !belowDeviceP(lock, log, cut))) break;
    if (!std::all_of(holders.begin(), holders.end(), [&](const ThreadClocks* t) { return consumed(*t, cs); })) break;
  }
  return cut;
}

namespace {
// H of cs's release <= p. Its releaser's entry first: H holds the release's
// own time, which p lacks until something ordered the release before a later
// one of the lock, so one lookup settles most that are not (the newest entry,
// at every try of cutBelowLockP).
bool releaseBelow(const CriticalSection& cs, const VectorClock& p) {
  return cs.releaseHb.get(cs.block, cs.thread) <= p.get(cs.block, cs.thread) && cs.releaseHb.leq(p);
}
}  // namespace

// A thread that does not hold the lock (or has not started) reads its logs
// only at a release of it, so after an acquire of it, which joins into its P
// the lock's P of its block (every release by the block) and, device scoped,
// the device one (every device-scoped release; a block-scoped acquire may
// defer its join, but no later than that release). An entry of its block whose H
// is below the first, or of another block (read by device-scoped acquirers
// only: the device log) below the second, is absorbed then, as it is when
// its H is below P_t now: P only grows. It may not be satisfied for t, but
// dropping it only lets t's later scan go past it to entries that are (rule
// (ii) orders each of their releases before t's by itself), and in an
// exclusive log none is past an unsatisfied one (applyRuleTwo): no P
// changes. Without this, every thread of a grid that had not taken a lock
// yet kept its whole device log (lock-heavy: 1.8 of its 2.8 MiB). Hence
// belowBlockP and belowDeviceP, for the lock's P of cs's block and the
// device one. The device log is also read by a critical section acquired at
// block scope and released at device scope, whose acquire joined only its
// own block's P: where a launch may have one (blockScopedAcquires_), another
// block's entry goes only when every thread that could read it has it
// (trimLog's walk), not once below the device P.
bool GwcpDetector::belowBlockP(const LockState& lock, const CriticalSectionLog& log, size_t i,
                               const ThreadClocks* releaser) const {
  const CriticalSection& cs = log[i];
  if (&log == &lock.deviceLog && lock.deviceLogBelowP.belowBlockP(cs.block, i)) return true;
  auto own = lock.clocks.byBlock.find(cs.block);
  if (own == lock.clocks.byBlock.end()) return false;
  // The releaser's P is the block's P when nothing else released since it
  // joined it: then what its P is known to cover (a rule (i) join of the
  // previous holder's release) needs no walk.
  const VectorClock& blockP = own->second.wcp;
  if (releaser && blockP.sharesListWith(releaser->wcp) && releaser->wcpCovers.has(cs.releaseHb)) return true;
  return releaseBelow(cs, blockP);
}

bool GwcpDetector::belowDeviceP(const LockState& lock, const CriticalSectionLog& log, size_t i) const {
  return (&log == &lock.deviceLog && i < lock.deviceLogBelowP.device) || releaseBelow(log[i], lock.clocks.wcpDevice);
}

// In an exclusive lock's device log H only grows from entry to entry (each
// acquire joins the device H, which holds every release before it), so
// P_t >= H of the entry before `end` covers every entry before it; the
// release has just put P_t below the P of t's block and the device P, and
// those only grow. belowBlockP and belowDeviceP hold for those entries
// from now on, as a walk would find.
void GwcpDetector::LockState::DeviceLogBelowP::note(uint32_t block, size_t end) {
  device = std::max(device, end);
  size_t& ofBlock = byBlock[block];
  ofBlock = std::max(ofBlock, end);
}

// The prefix cut stops at the oldest entry still needed: on a grid-wide lock
// whose blocks take turns (lock-heavy, blocks' rounds interleaved) that is a
// block's last entry of a round, which waits for the block's next holder,
// while the entries of every other block behind it are below both P's: a
// round of the grid's entries kept, 2.3x hb's metadata at 10^5 threads. An
// entry below the P of its block and the device P (as the notes know them)
// is let go where it is, when no thread holds the lock (so none needs to
// consume it first): trimLog's argument for a non-holder is the entry's own,
// and readers skip it as they skip trimmed ones. In an exclusive log a
// reader's scan that goes past it meets what it would have met next, since
// "satisfied" is monotone along the log (applyRuleTwo's scanChain).
void GwcpDetector::dropKnownBelowP(LockState& lock) {
  if (!lock.exclusive || !lock.holders.empty() || blockScopedAcquires_) return;
  CriticalSectionLog& log = lock.deviceLog;
  const auto& below = lock.deviceLogBelowP;
  size_t end = std::min(log.end(), below.device);
  for (size_t i = std::max(log.base, end > kDropWindow ? end - kDropWindow : 0); i < end; ++i) {
    CriticalSection& cs = log.entries[i - log.base];
    if (cs.dropped || !below.belowBlockP(cs.block, i)) continue;
    cs.acquireClock.clear();
    cs.acquireLockWcp.clear();
    cs.releaseHb.clear();
    cs.dropped = true;
  }
}

void GwcpDetector::trimAtBarrier(const BarrierEvent& event) {
  auto locks = blockLocks_.find(event.block);
  if (locks == blockLocks_.end()) return;
  // Every thread of the block waits at it (one that exited after a critical
  // section would not bring its H to the join; an arriver would not take it).
  if (event.threads.size() != threads_.threadsPerBlock()) return;
  for (uint64_t id : locks->second) {
    LockState& lock = locks_[id];
    if (std::find(lock.mixedBlocks.begin(), lock.mixedBlocks.end(), event.block) != lock.mixedBlocks.end()) continue;
    CriticalSectionLog& log = lock.blockLog[event.block];
    if (!log.entries.empty()) log.dropFront(log.entries.size());
  }
}

// A thread's state for a lock reads as a new one once its cursors are at or
// before the first entry its logs keep (scans start there) and its pending
// entries have all been trimmed (popped unread): then it is forgotten, as is
// an exited thread's. A thread that released a lock once held its state to
// its next release of it or its exit (per-slot locks: each thread of a
// block, for each slot, most of the metadata); sweeping whenever the states
// double keeps them within twice those that say something.
void GwcpDetector::sweepThreadStates(LockState& lock) {
  uint64_t tpb = threads_.threadsPerBlock();
  auto baseOf = [&](uint32_t block) -> size_t {
    const CriticalSectionLog* log = lock.blockLog.find(block);
    return log ? log->base : 0;
  };
  absl::erase_if(lock.perThread, [&](auto& entry) {
    auto& [tid, state] = entry;
    uint32_t block = uint32_t(tid / tpb);
    const ThreadClocks* t = threads_.find(block, uint32_t(tid % tpb));
    if (!t || t->exited) return true;
    size_t ownBase = baseOf(block), deviceBase = lock.deviceLog.base;
    state.pending.popTrimmed(deviceBase, ownBase);
    const Cursors& c = state.cursors;
    auto mixedAtBase = [&](const auto& m) { return m.second <= baseOf(m.first); };
    return state.pending.empty() && c.ownBlock <= ownBase && c.deviceAll <= deviceBase &&
           c.deviceOwnBlock <= deviceBase && (!c.mixed || std::all_of(c.mixed->begin(), c.mixed->end(), mixedAtBase));
  });
  lock.nextSweep = 2 * lock.perThread.size();
}

// A thread's state for a lock, as it would read had it been kept since the
// thread's last release of the lock: its own entries still in the logs,
// merged in release order, pending, and every cursor at its log's base.
// Against the kept state:
//  * pending: the kept list is these without those joined at an earlier
//    release (it loses entries from the front when it joins them), and with
//    trimmed ones (popped unread, and consumed by every thread). A joined
//    entry's acquire is still before P_t[t] (P only grows), and joining its
//    H again changes nothing.
//  * cursors: the entries between a log's base and the kept cursor are the
//    thread's own, irrelevant, or satisfied and absorbed, and stay so
//    (satisfaction is monotone: P_t grows, and a later acquire's
//    releasesAtAcquire is not smaller). A scan from the base passes them
//    again with joins that change nothing, and scanChain finds the same end
//    of an exclusive log's satisfied prefix from either start.
// So applyRuleTwo gives the same P_t.
void GwcpDetector::deriveState(const LockState& lock, const ThreadClocks& t, ThreadLockState& state) const {
  auto own = [&t](const CriticalSection& cs) { return cs.block == t.block && cs.thread == t.thread; };
  const CriticalSectionLog& device = lock.deviceLog;
  const CriticalSectionLog* block = lock.blockLog.find(t.block);
  size_t d = device.base, b = block ? block->base : 0, blockEnd = block ? block->end() : 0;
  while (true) {
    while (d < device.end() && (!own(device[d]) || device[d].dropped)) ++d;
    while (b < blockEnd && !own((*block)[b])) ++b;
    bool inDevice = d < device.end(), inBlock = b < blockEnd;
    if (!inDevice && !inBlock) return;
    if (inDevice && (!inBlock || device[d].releaseIndex < (*block)[b].releaseIndex))
      state.pending.push_back(true, d++);
    else
      state.pending.push_back(false, b++);
  }
}

// A thread's state is dropped after a block-scoped release of an exclusive
// lock whose only log is a short one of the thread's block: deriving it
// again reads a few entries. Per-slot locks paid a hash insert and a sweep
// at almost every release for states that said nothing new (a thread takes
// a slot's lock again after the log has dropped its entries).
void GwcpDetector::keepOrDropState(LockState& lock, const ThreadClocks& t, uint64_t tid, ThreadLockState&& state,
                                   Scope releaseScope) {
  const CriticalSectionLog* block = lock.blockLog.find(t.block);
  bool cheap = !lock.keepStates && releaseScope == Scope::Block && lock.exclusive && lock.deviceLog.entries.empty() &&
               (!block || block->entries.size() <= kDerivedStateLogLimit);
  if (cheap) {
    state.pending.popTrimmed(lock.deviceLog.base, block ? block->base : 0);
    lock.statesDropped |= !state.pending.empty();
    return;
  }
  sweepThreadStatesIfDue(lock);
  lock.perThread.emplace(tid, std::move(state));
}

// Rule (i) state that no acquirer can use any more. A device-scoped acquire
// joins the lock's device P into P_t before any access of its critical
// section, and that P only grows; so a chain or cross-block clock (the only
// ones device acquirers read) that is below it adds nothing to the P of any
// later holder. Run while the lock is exclusive and free: no holder acquired
// before the device P last grew, and none points into the lock's locations
// (AccessedLocation::conflicts), so a location left with no state goes.
// Every release of a lock-heavy kernel's grid-wide locks leaves a clock per
// location of its critical section; ScoR's matrix multiplication ends with
// 144,000 such clocks, 143,616 of them below their lock's device P.
// (Amortized: a sweep visits the lock's locations; the next waits for as
// many releases as half of them, at least kRuleOneSweepFloor.)
void GwcpDetector::sweepRuleOne(LockState& lock, uint64_t lockId) {
  const VectorClock& deviceP = lock.clocks.wcpDevice;
  auto useless = [&](const ConflictClock& c) {
    return !c.extra && (c.last.empty() || c.last.leq(deviceP)) && (c.other.empty() || c.other.leq(deviceP));
  };
  auto& locations = lock.conflictLocations;
  auto kept = std::remove_if(locations.begin(), locations.end(), [&](const auto& location) {
    LocationConflicts& lc = *location.second;
    if (lc.deviceChain) {
      bool kept = false;
      for (ConflictClock& c : *lc.deviceChain) {
        if (!c.last.empty() && useless(c)) c = ConflictClock{};
        kept |= !c.last.empty() || c.extra;
      }
      if (!kept) lc.deviceChain.reset();
    }
    std::erase_if(lc.crossBlock, [&](const LocationConflicts::CrossEntry& e) { return useless(e.clock); });
    if (lc.deviceChain || !lc.crossBlock.empty() || !lc.byBlock.empty()) return false;
    conflicts_.erase({lockId, location.first});
    return true;
  });
  locations.erase(kept, locations.end());
  // (trimEvery_ 1, the differential tests': at every release)
  lock.ruleOneSweepAt = lock.releases + (trimEvery_ == 1 ? 1 : std::max<uint64_t>(kRuleOneSweepFloor,
                                                                                  lock.conflictLocations.size() / 2));
}

// A block log is scanned only by the threads of its block (unless the block
// released a block-acquired lock at device scope: mixedBlocks), so once they
// have all exited nothing reads it again, and no later P_t changes without it
// (the argument of trimLog with no live thread left). Blocks run one after
// another: without this, per-slot locks with no __syncthreads between
// critical sections kept every finished block's log to the end of the launch.
void GwcpDetector::dropFinishedBlockLogs(uint32_t block) {
  auto locks = blockLocks_.find(block);
  if (locks == blockLocks_.end()) return;
  std::vector<uint64_t> kept;
  for (uint64_t id : locks->second) {
    LockState& lock = locks_[id];
    if (std::find(lock.mixedBlocks.begin(), lock.mixedBlocks.end(), block) != lock.mixedBlocks.end())
      kept.push_back(id);
    else
      lock.blockLog.erase(block);
  }
  if (kept.empty())
    blockLocks_.erase(locks);
  else
    locks->second = std::move(kept);
}

}  // namespace predatar
