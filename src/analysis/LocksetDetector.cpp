#include "analysis/LocksetDetector.h"

#include <algorithm>
#include <bit>

#include "analysis/AccessHistory.h"
#include "analysis/LaneLoop.h"

namespace predatar {

namespace {
const LocksetDetector::ThreadState kNoState;  // a thread's before its first barrier, fence or lock

template <class Records, class Pred>
void eraseIf(Records& records, Pred pred) {
  records.erase(std::remove_if(records.begin(), records.end(), pred), records.end());
}
}  // namespace

void LocksetDetector::kernelBegin(const KernelInfo& kernel) {
  threadsPerBlock_ = kernel.threadsPerBlock();
  warpsPerBlock_ = kernel.warpsPerBlock();
  threads_.clearKeepingRoom();
  keepLiveLaunches(kernel);  // (before the reset: finished_ still tells of the last launch's blocks)
  finished_.reset(kernel);
  finishedBlocks_ = 0;
  barriers_ = 0;
  namedBarriers_.clear();
  races_.beginKernel(kernel.name);
}

LocksetDetector::ThreadState& LocksetDetector::state(uint32_t block, uint32_t thread) {
  return threads_.at(threadKey(block, thread));
}

// Only a barrier, fence or lock operation makes a thread's state: the threads
// of a big grid that only load and store (a million-thread histogram) keep
// none, where making one at each access was a quarter of lockset's run (the
// map's inserts and growth).
const LocksetDetector::ThreadState& LocksetDetector::peek(uint32_t block, uint32_t thread) const {
  // (A state of a made page may be as yet untouched: the same as none.)
  const ThreadState* t = threads_.find(threadKey(block, thread));
  return t ? *t : kNoState;
}

uint32_t LocksetDetector::intern(std::vector<HeldLock> locks) {
  std::sort(locks.begin(), locks.end());
  auto [it, inserted] = locksetIds_.try_emplace(locks, uint32_t(locksets_.size()));
  if (inserted) locksets_.push_back(std::move(locks));
  return it->second;
}

bool LocksetDetector::conflicting(const Record& a, const Record& b) const {
  if ((a.block == b.block && a.thread == b.thread) || (!a.writes() && !b.writes()) || !(a.bytes & b.bytes))
    return false;
  return !(a.strong && b.strong && morallyStrong(a.scope, a.block, b.scope, b.block));
}

// Check 1: a barrier after `earlier` that its thread t1 and t2 (of the same
// block) both took part in. Barrier ids grow in trace order, so such a
// barrier has an id in (earlier.barrier, min of their last barriers]. A
// barrier of every live thread has both when both took part in one at or
// after it (so both were live): the earlier of their last whole barriers.
bool LocksetDetector::barrierBetween(const Record& earlier, const ThreadState& t1, const ThreadState& t2,
                                     uint32_t thread2) const {
  uint64_t until = std::min(t1.lastBarrier, t2.lastBarrier);
  if (until <= earlier.barrier) return false;
  if (t1.lastBarrier == t2.lastBarrier) return true;  // the same barrier
  if (std::min(t1.lastWholeBarrier, t2.lastWholeBarrier) > earlier.barrier) return true;
  auto named = namedBarriers_.find(earlier.block);
  if (named == namedBarriers_.end()) return false;
  const auto& list = named->second;
  auto it = std::upper_bound(list.begin(), list.end(), earlier.barrier,
                             [](uint64_t id, const NamedBarrier& b) { return id < b.id; });
  for (; it != list.end() && it->id <= until; ++it)
    if (std::binary_search(it->threads.begin(), it->threads.end(), earlier.thread) &&
        std::binary_search(it->threads.begin(), it->threads.end(), thread2))
      return true;
  return false;
}

// The three checks, for conflicting accesses of different warps.
bool LocksetDetector::races(const Record& earlier, const Record& later) {
  const ThreadState& t1 = peek(earlier.block, earlier.thread);
  const ThreadState& t2 = peek(later.block, later.thread);
  if (earlier.block == later.block && barrierBetween(earlier, t1, t2, later.thread)) return false;
  const auto& l1 = locksets_[earlier.lockset];
  const auto& l2 = locksets_[later.lockset];
  if (!l1.empty() || !l2.empty()) {
    for (const HeldLock& a : l1)
      for (const HeldLock& b : l2)
        if (a.lock == b.lock && morallyStrong(a.scope, earlier.block, b.scope, later.block)) return false;
    return true;
  }
  bool fenced = t1.lastFenceDevice > earlier.origin.seq ||
                (earlier.block == later.block && t1.lastFenceBlock > earlier.origin.seq);
  return !fenced;
}

void LocksetDetector::keepLiveLaunches(const KernelInfo& kernel) {
  launch_ = kernel.launch;
  unordered_ = kernel.unorderedLaunches;
  overlapped_ = kernel.overlappedLaunch;
  retainLaunches(kernel.liveLaunches);
  heldLaunches_.add(launch_);
}

// (Walks the shadow only when a launch it holds records of is no longer
// live, or a block's shared words may be left: HeldLaunches.)
void LocksetDetector::retainLaunches(const std::vector<uint32_t>& live) {
  if (live.empty()) {
    shadow_.clearKeepingRoom();
    heapRecords_ = 0;
    heldLaunches_.clear();
    return;
  }
  if (!heldLaunches_.retire(live) && !finished_.sharedMayRemain()) return;
  auto gone = [&](const Record& r) { return !HeldLaunches::isLive(live, r.launch); };
  auto shared = [](uint64_t key) { return locationOf(key).space == MemorySpace::Shared; };
  shadow_.forEachWord(
      [&](uint64_t key, History& h) {
        if (h.empty()) return;
        heapRecords_ -= h.heapRecords();
        if (shared(key)) h = History{};
        eraseIf(h.lastWrites, gone);
        eraseIf(h.reads, gone);
        heapRecords_ += h.heapRecords();
      },
      [](const History& h) { return h.empty(); },
      [&](uint64_t firstKey, const Record& first) { return !shared(firstKey) && !gone(first); });
}

void LocksetDetector::report(uint64_t key, const Record& earlier, const Record& later) {
  auto access = [](const Record& r) {
    return Access{r.block, r.thread, r.type, r.strong, r.isVolatile, r.scope, r.origin, r.launch, r.unchanged};
  };
  LocationKey where = locationOf(key);
  races_.add(where.space, where.sharedBlock, where.address, access(earlier), access(later));
}

void LocksetDetector::compareAcrossLaunches(uint64_t key, const Record& earlier, const Record& later) {
  bool overlapping = later.beforeDependencyWait && earlier.launch == overlapped_;
  if (!overlapping && std::find(unordered_.begin(), unordered_.end(), earlier.launch) == unordered_.end()) return;
  if ((!earlier.writes() && !later.writes()) || !(earlier.bytes & later.bytes)) return;
  if (earlier.strong && later.strong && earlier.scope != Scope::Block && later.scope != Scope::Block) return;
  report(key, earlier, later);
}

// Each lane of a read record is compared as its own thread.
void LocksetDetector::compareLanes(uint64_t key, const Record& earlier, const Record& later) {
  if (std::has_single_bit(earlier.lanes)) return compareLane(key, earlier, later);
  Record lane = earlier;
  for (LaneMask m = earlier.lanes; m; m &= m - 1) {
    lane.thread = earlier.threadOf(uint32_t(std::countr_zero(m)));
    lane.lanes = m & -m;
    compareLane(key, lane, later);
  }
}

void LocksetDetector::compareLane(uint64_t key, const Record& earlier, const Record& later) {
  if (earlier.launch != later.launch) return compareAcrossLaunches(key, earlier, later);
  if (!conflicting(earlier, later)) return;
  // (One warp's accesses in different instructions never come here: compare()
  // turned them away. One warp's in the same instruction race when both write.)
  bool sameInstruction = earlier.block == later.block && earlier.thread / kWarpSize == later.thread / kWarpSize &&
                         earlier.origin.seq == later.origin.seq;
  if (sameInstruction ? (earlier.writes() && later.writes()) : races(earlier, later)) {
    report(key, earlier, later);
  }
}

void LocksetDetector::memory(const MemoryEvent& event) {
  if (sampling_.due(++stats_.events)) sampleMetadata();
  // Every lane is compared with the history before this instruction, then the
  // lanes with each other, then the history is updated.
  auto& accesses = accesses_;
  accesses.clear();
  // (Each record is written in place, field by field, not built on the
  // stack and copied in: 3-4% of lockset's time on pathfinder.)
  const bool strong = isStrong(event);
  // (The warp's states are one page, looked up once: a lookup a lane, which
  // missed for threads that have no state yet, was 7% of lockset's time on
  // hotspot.)
  const auto* warp = threads_.findPage(threadKey(event.lanes.block, event.lanes.warp * kWarpSize));
  forEachLane(event.lanes, [&](uint32_t thread, uint32_t lane) {
    const ThreadState& t = warp ? (*warp)[lane] : kNoState;
    forEachWord(event.address[lane], event.size, [&](uint64_t word, uint8_t bytes) {
      auto& [key, r] = accesses.emplace_back();
      key = locationKey(event.space, event.lanes.block, word);
      r.block = event.lanes.block;
      r.thread = thread;
      r.type = event.type;
      r.strong = strong;
      r.scope = event.scope;
      r.lockset = t.lockset;
      r.barrier = t.lastBarrier;
      r.origin = event.origin;
      r.bytes = bytes;
      r.isVolatile = event.isVolatile;
      r.launch = launch_;
      r.beforeDependencyWait = bool((event.beforeDependencyWait >> lane) & 1);
      r.lanes = LaneMask(1) << lane;
      r.unchanged = (event.unchangedWrites >> lane) & 1;
    });
  });
  for (const auto& [key, r] : accesses) {
    const History* h = shadow_.find(key);
    if (!h) continue;
    for (const Record& write : h->lastWrites) compare(key, write, r);
    if (r.writes())
      for (const Record& read : h->reads) compare(key, read, r);
  }
  // (Lanes of a coalesced access, words in increasing order, share none:
  // the pairwise scan was a quarter of lockset's time on such kernels. Nor
  // do lanes whose words decrease: an anti-diagonal of a row-major tile,
  // 2.4M of needle's 3.7M accesses, where the scan was 6% of lockset's time.)
  auto notIncreasing = [](const auto& a, const auto& b) { return a.first >= b.first; };
  auto notDecreasing = [](const auto& a, const auto& b) { return a.first <= b.first; };
  if (std::adjacent_find(accesses.begin(), accesses.end(), notIncreasing) != accesses.end() &&
      std::adjacent_find(accesses.begin(), accesses.end(), notDecreasing) != accesses.end())
    for (size_t i = 0; i < accesses.size(); ++i)
      for (size_t j = i + 1; j < accesses.size(); ++j)
        if (accesses[i].first == accesses[j].first) compare(accesses[i].first, accesses[i].second, accesses[j].second);
  for (const auto& [key, r] : accesses) {
    History& h = shadow_.at(key);
    finished_.used(key);
    uint64_t heapBefore = h.heapRecords();
    keep(h, r);
    heapRecords_ += h.heapRecords() - heapBefore;
  }
}

// A write replaces the last writes and reads of the bytes it covers (of its
// own launch: no order stands in for another launch's).
// (One last write replaced, the common case, is overwritten in place.)
void LocksetDetector::keep(History& h, const Record& r) {
  if (!r.writes()) return keepRead(h, r);
  auto replaced = [&](const Record& x) {
    return x.launch == r.launch && x.origin.seq != r.origin.seq && (x.bytes & ~r.bytes) == 0;
  };
  if (!h.reads.empty())
    eraseIf(h.reads, [&](const Record& x) { return x.launch == r.launch && (x.bytes & ~r.bytes) == 0; });
  if (h.lastWrites.size() == 1 && replaced(h.lastWrites[0])) {
    h.lastWrites[0] = r;
    return;
  }
  eraseIf(h.lastWrites, replaced);
  h.lastWrites.push_back(r);
}

bool LocksetDetector::Record::joins(const Record& r) const {
  return origin.seq == r.origin.seq && block == r.block && thread / kWarpSize == r.thread / kWarpSize &&
         type == r.type && strong == r.strong && scope == r.scope && lockset == r.lockset && barrier == r.barrier &&
         bytes == r.bytes && isVolatile == r.isVolatile && launch == r.launch &&
         beforeDependencyWait == r.beforeDependencyWait;
}

// An older read of the thread with the same lockset and kind is subsumed (its
// lane leaves that record); the read joins its warp event's record when alike.
void LocksetDetector::keepRead(History& h, const Record& r) {
  uint32_t lane = r.thread % kWarpSize;
  // (A loop, not find_if: GCC stopped inlining the predicate when the
  // shadow's code grew, and the call cost lockset 4-5% more instructions.)
  auto same = h.reads.begin();
  for (; same != h.reads.end(); ++same) {
    const Record& x = *same;
    if (x.launch == r.launch && x.block == r.block && x.thread / kWarpSize == r.thread / kWarpSize &&
        ((x.lanes >> lane) & 1) && x.lockset == r.lockset && x.strong == r.strong && x.scope == r.scope &&
        x.bytes == r.bytes)
      break;
  }
  // (The record being joined is this warp event's, never the older `same`.)
  bool joining = !h.reads.empty() && h.reads.back().joins(r);
  if (same != h.reads.end()) {
    if (same->lanes == r.lanes) {
      if (!joining) {
        *same = r;  // in its place, as a lone read always was
        return;
      }
      h.reads.erase(same);
    } else {
      same->lanes &= ~r.lanes;
      if (same->thread == r.thread) same->thread = same->threadOf(uint32_t(std::countr_zero(same->lanes)));
    }
  }
  if (!joining) {
    h.reads.push_back(r);
    return;
  }
  Record& event = h.reads.back();
  event.lanes |= r.lanes;
  event.thread = std::min(event.thread, r.thread);
}

void LocksetDetector::barrier(const BarrierEvent& event) {
  ++stats_.events;
  if (!event.complete) return;  // the completion lists every arriver
  ++barriers_;
  // ScoRD's rule: separated by a barrier both threads took part in. An
  // arriver (bar.arrive) took part, as the semantics page's letter says.
  size_t taking = event.threads.size() + event.arrivers.size();
  bool whole = taking + finished_.exitedIn(event.block) >= threadsPerBlock_;
  // (A warp's states are one page: looked up once a warp, not once a thread,
  // which was 3.5% of lockset's time on hotspot.)
  ThreadState* warp = nullptr;
  uint32_t warpNo = UINT32_MAX;
  for (const auto* list : {&event.threads, &event.arrivers})
    for (uint32_t thread : *list) {
      if (thread / kWarpSize != warpNo) {
        warpNo = thread / kWarpSize;
        warp = &state(event.block, warpNo * kWarpSize);
      }
      ThreadState& t = warp[thread % kWarpSize];
      t.lastBarrier = barriers_;
      if (whole) t.lastWholeBarrier = barriers_;
    }
  if (whole) return;
  NamedBarrier named{barriers_, event.threads};
  named.threads.insert(named.threads.end(), event.arrivers.begin(), event.arrivers.end());
  std::sort(named.threads.begin(), named.threads.end());
  namedBarriers_[event.block].push_back(std::move(named));
}

void LocksetDetector::fence(const FenceEvent& event) {
  ++stats_.events;
  forEachLane(event.lanes, [&](uint32_t thread, uint32_t) {
    ThreadState& t = state(event.lanes.block, thread);
    t.lastFenceBlock = event.origin.seq + 1;
    if (event.scope != Scope::Block) t.lastFenceDevice = event.origin.seq + 1;
  });
}

void LocksetDetector::acquire(const LockEvent& event) {
  ++stats_.events;
  forEachLane(event.lanes, [&](uint32_t thread, uint32_t lane) {
    ThreadState& t = state(event.lanes.block, thread);
    anyLocks_ = true;
    t.locks.push_back({event.lock[lane], event.scope});
    t.lockset = intern(t.locks);
  });
}

void LocksetDetector::release(const LockEvent& event) {
  ++stats_.events;
  forEachLane(event.lanes, [&](uint32_t thread, uint32_t lane) {
    ThreadState& t = state(event.lanes.block, thread);
    auto it = std::find_if(t.locks.rbegin(), t.locks.rend(),
                           [&](const HeldLock& h) { return h.lock == event.lock[lane]; });
    if (it == t.locks.rend()) return;
    t.locks.erase(std::next(it).base());
    t.lockset = intern(t.locks);
  });
}

void LocksetDetector::exit(const ExitEvent& event) {
  ++stats_.events;
  if (!finished_.finishes(event)) return;
  // The peak is sampled before every 64th drop (when threads held locks, a
  // sample walks every thread's held-lock list).
  if (finishedBlocks_++ % 64 == 0) sampleMetadata();
  namedBarriers_.erase(event.lanes.block);
  finished_.dropSharedPages(shadow_, event.lanes.block, /*keepPages=*/false,
                            [&](const History& h) { heapRecords_ -= h.heapRecords(); });
}

void LocksetDetector::kernelEnd() { sampleMetadata(); }

void LocksetDetector::sampleMetadata() {
  uint64_t bytes = shadow_.bytes() + uint64_t(int64_t(heapRecords_) + shadow_.heapRecordsMade()) * sizeof(Record);
  stats_.peakShadowBytes = std::max(stats_.peakShadowBytes, bytes);
  shadow_.makeTables(bytes >= tablesFromBytes_);
  // Thread states (shown as lockset's thread clocks): the map's slots and held-lock lists.
  uint64_t states = threads_.bytes();
  if (anyLocks_)
    threads_.forEachWord([&](uint64_t, const ThreadState& t) { states += t.locks.capacity() * sizeof(HeldLock); },
                         [](const ThreadState&) { return false; });
  stats_.peakThreadClockBytes = std::max(stats_.peakThreadClockBytes, states);
  sampling_.sampled(stats_.events, anyLocks_ ? threads_.pages() * kWarpSize : 0);
}

}  // namespace predatar
