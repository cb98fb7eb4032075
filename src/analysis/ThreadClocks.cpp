#include "analysis/ThreadClocks.h"

#include <algorithm>
#include <atomic>

#include "absl/container/inlined_vector.h"

namespace predatar {

void ThreadTable::reset(const KernelInfo& kernel, const ClockGeometry* geometry) {
  geometry_ = geometry;
  threadsPerBlock_ = kernel.threadsPerBlock();
  blocks_.clear();
  blocks_.resize(kernel.numBlocks());
  finished_.assign(kernel.numBlocks(), 0);
  exitedThread_ = ThreadClocks{};
  exitedThread_.exited = true;
}

ThreadClocks& ThreadTable::create(uint32_t block, uint32_t thread) {
  if (finished_[block]) return exitedThread_;
  auto& b = blocks_[block];
  if (!b) {
    b = std::make_unique<BlockThreads>();
    b->threads.resize(threadsPerBlock_);  // never resized again: references stay valid
    b->actedLanes.resize((threadsPerBlock_ + 31) / 32);
  }
  ThreadClocks& t = b->threads[thread];
  if (!b->acted(thread)) {
    b->actedLanes[thread / 32] |= 1u << (thread % 32);
    t.block = block;
    t.thread = thread;
    t.hb.setGeometry(geometry_);
    t.wcp.setGeometry(geometry_);
    // Empty clocks order no other thread's access of this launch before the
    // thread, wherever it lies: steady since the launch's start, not since
    // the thread's first access (other threads' alike records before that
    // were each checked: quadratic when a whole grid stores one flag, as
    // Rodinia bfs's `*over = true` does; BM_OneFlagDetector).
    t.hbSteady = {0, t.hb.stamp()};
    t.wcpSteady = {0, t.wcp.stamp()};
  }
  return t;
}

ThreadClocks* ThreadTable::find(uint32_t block, uint32_t thread) const {
  if (finished_[block]) return &exitedThread_;
  const auto& b = blocks_[block];
  return b && b->acted(thread) ? &b->threads[thread] : nullptr;
}

void ThreadTable::exit(uint32_t block, uint32_t thread) {
  ThreadClocks& t = at(block, thread);
  if (t.exited) return;
  t.exited = true;
  t.hb.clear();
  t.wcp.clear();
  t.hbCovers.clear();
  t.wcpCovers.clear();
  t.hbBelow.clear();
  t.wcpBelow.clear();
  t.lastBelowJoined = 0;
  t.lastReleaseHb = 0;
  if (++blocks_[block]->exited < threadsPerBlock_) return;
  blocks_[block].reset();
  finished_[block] = 1;
}

uint64_t ThreadTable::clockBytes() const {
  uint64_t total = blocks_.capacity() * sizeof(void*), entries = 0;
  for (const auto& b : blocks_) {
    if (!b) continue;
    total += sizeof(BlockThreads) + b->threads.capacity() * sizeof(ThreadClocks) + b->actedLanes.capacity() * 4;
    for (uint32_t i = 0; i < b->threads.size(); ++i) {
      if (!b->acted(i)) continue;
      const ThreadClocks& t = b->threads[i];
      total += t.hb.bytes() + t.wcp.bytes();
      entries += 1 + t.hb.blockEntries() + t.wcp.blockEntries();
    }
  }
  lastScanEntries_ = entries;
  return total;
}

void synchronize(ThreadTable& table, const ClockGeometry& geometry, uint32_t block,
                 const std::vector<uint32_t>& threads, bool withWcp, const BarrierArrivals* arrivals) {
  if (threads.empty()) return;
  VectorClock joinedHb(&geometry), joinedWcp(&geometry);
  Clock latest = 0;
  // A whole block's barrier sets every entry of the block to `latest` below
  // (in P too, which joins H): no participant knows a later time of a
  // participant than that one's own, so the block's entries need no join (a
  // block synchronized through atomics before has 1024 lane times in each).
  bool wholeBlock = geometry.compression && threads.size() == geometry.threadsPerBlock;
  uint32_t skip = wholeBlock ? block : UINT32_MAX;
  // Participants mostly hold one shared list (the previous barrier's): a
  // list joined already is not compared again. The P lists are joined
  // below, once H's join is known.
  const ThreadClocks* previous = nullptr;
  absl::InlinedVector<const VectorClock*, 4> wcps;
  for (uint32_t thread : threads) {
    ThreadClocks& t = table.at(block, thread);
    if (!previous || !t.hb.sharesListWith(previous->hb)) joinedHb.join(t.hb, skip);
    // (A P_t that is H_t's list is <= joinedHb: a warp's lanes between two
    // __syncwarps with nothing but accesses were a comparison of both clocks.)
    if (withWcp && !t.wcp.sharesListWith(t.hb) && (!previous || !t.wcp.sharesListWith(previous->wcp)))
      wcps.push_back(&t.wcp);
    latest = std::max(latest, t.now);
    previous = &t;
  }
  // (A whole block of waiters has no arrivers, except a thread that arrived
  // and then waited: its arrival time is below its own, so below `latest`.)
  if (arrivals) {
    joinedHb.join(arrivals->hb, skip);
    if (withWcp) wcps.push_back(&arrivals->wcp);
  }
  if (!geometry.compression) {
    for (uint32_t thread : threads) {
      const ThreadClocks& t = *table.find(block, thread);
      joinedHb.set(block, thread, std::max(joinedHb.get(block, thread), t.now));
    }
  }
  if (geometry.compression) {
    // Forced compression: participants' times become `latest`; exact because
    // no participant has an event with a time in (own now, latest].
    if (wholeBlock) {
      joinedHb.setBlock(block, latest);
    } else {
      // Whole warps compress to one entry; partial warps keep lane entries.
      for (size_t i = 0; i < threads.size();) {
        uint32_t warp = threads[i] / kWarpSize;
        size_t end = i;
        while (end < threads.size() && threads[end] / kWarpSize == warp) ++end;
        if (end - i == geometry.lanesInWarp(warp)) {
          joinedHb.setWarp(block, warp, latest);
        } else {
          for (size_t k = i; k < end; ++k) joinedHb.set(block, threads[k], latest);
        }
        i = end;
      }
    }
  }
  // Rule iii: participants' pre-barrier events (their own times, now in
  // joinedHb) precede post-barrier events; rule iv: so does whatever happens
  // before them. P is mostly below H (GWCP-before implies happens-before,
  // except through interleaved critical sections' rule (i)): P_t <= joinedHb
  // adds nothing to the join, and when no P adds anything every participant's
  // P is joinedHb's list itself (no second join, no second list).
  if (withWcp) {
    for (const VectorClock* wcp : wcps)
      if (!wcp->leq(joinedHb)) joinedWcp.join(*wcp, skip);
    if (joinedWcp.empty()) joinedWcp = joinedHb;
    else joinedWcp.join(joinedHb);
  }
  for (uint32_t thread : threads) {
    ThreadClocks& t = table.at(block, thread);
    t.hb = joinedHb;
    if (withWcp) {
      t.wcp = joinedWcp;
      // P_t holds t's H with its own time now, so the H t published at its
      // last release: gwcp's join of t's own critical section at its next
      // release of the lock (rule (ii)) is known to add nothing (a lock
      // taken by one lane per warp around a __syncwarp walked it each time).
      if (t.lastReleaseHb) t.wcpCovers.noteStamp(t.lastReleaseHb);
    }
    t.now = geometry.compression ? latest : t.now;
    t.tick();
  }
}

bool PendingArrivals::apply(ThreadTable& table, const BarrierEvent& event, bool withWcp) {
  uint64_t k = key(event.block, event.id);
  if (!event.complete) {
    BarrierArrivals& arrivals = pending_.try_emplace(k, geometry_).first->second;
    for (uint32_t thread : event.arrivers) {
      ThreadClocks& t = table.at(event.block, thread);
      arrivals.hb.join(t.hb);
      arrivals.hb.set(event.block, thread, std::max(arrivals.hb.get(event.block, thread), t.now));
      if (withWcp) arrivals.wcp.join(t.wcp);
      t.tick();
    }
    return false;
  }
  auto it = pending_.find(k);
  synchronize(table, *geometry_, event.block, event.threads, withWcp, it == pending_.end() ? nullptr : &it->second);
  if (it != pending_.end()) pending_.erase(it);
  return true;
}

uint64_t LockClocks::newLineage() {
  static std::atomic<uint64_t> lineages{0};  // (detectors run on threads of their own)
  return lineages.fetch_add(1, std::memory_order_relaxed) + 1;
}

void LockClocks::acquire(ThreadClocks& t, Scope scope, bool withWcp) const {
  if (auto it = byBlock.find(t.block); it != byBlock.end()) {
    const BlockClocks& mine = it->second;
    t.joinHb(mine.hb, mine.lineage.id);
    if (withWcp) t.joinWcp(mine.wcp, mine.lineage.id);
    if (scope == Scope::Block) return;
    if (t.hb.stamp() == mine.hbBelowDevice) t.hbBelow.note(deviceLineage.id, mine.hbBelowDevice);
    if (withWcp && t.wcp.stamp() == mine.wcpBelowDevice) t.wcpBelow.note(deviceLineage.id, mine.wcpBelowDevice);
  }
  if (scope == Scope::Block) return;
  t.joinHb(hbDevice, deviceLineage.id);
  if (withWcp) t.joinWcp(wcpDevice, deviceLineage.id);
}

const LockClocks::BlockClocks* LockClocks::acquireDeferringWcp(ThreadClocks& t) const {
  auto it = byBlock.find(t.block);
  if (it == byBlock.end()) return nullptr;
  const BlockClocks& mine = it->second;
  t.joinHb(mine.hb, mine.lineage.id);
  return t.joinWcpWithoutWalk(mine.wcp, mine.lineage.id) ? nullptr : &mine;
}

namespace {

// lock := lock join mine, where `covered` says whether the lock's clock is
// known to be <= mine (the releasing thread joined it, and nothing released
// the lock since): then the join is mine, shared rather than walked.
void publish(VectorClock& lock, const VectorClock& mine, bool covered) {
  if (covered) lock = mine;
  else lock.join(mine);
}

}  // namespace

void LockClocks::release(ThreadClocks& t, const VectorClock& hb, Scope scope, const ClockGeometry* geometry,
                         bool withWcp) {
  // `hb` is H_t with t's own entry, so it covers whatever H_t covers: H_t
  // and P_t are below the lock's clocks from now on.
  auto [it, inserted] = byBlock.try_emplace(t.block);
  BlockClocks& mine = it->second;
  if (inserted) mine.hb.setGeometry(geometry), mine.wcp.setGeometry(geometry);
  publish(mine.hb, hb, t.hbCovers.has(mine.hb));
  t.hbBelow.note(mine.lineage.id, t.hb.stamp());
  if (withWcp) {
    publish(mine.wcp, t.wcp, t.wcpCovers.has(mine.wcp));
    t.wcpBelow.note(mine.lineage.id, t.wcp.stamp());
  }
  if (scope == Scope::Block) return;
  hbDevice.setGeometry(geometry);
  publish(hbDevice, hb, t.hbCovers.has(hbDevice));
  t.hbBelow.note(deviceLineage.id, t.hb.stamp());
  // (the block's clock is <= the device one when it is this release's, or the device one's)
  if (mine.hb.stamp() == hb.stamp() || mine.hb.stamp() == hbDevice.stamp()) mine.hbBelowDevice = mine.hb.stamp();
  if (!withWcp) return;
  wcpDevice.setGeometry(geometry);
  publish(wcpDevice, t.wcp, t.wcpCovers.has(wcpDevice));
  t.wcpBelow.note(deviceLineage.id, t.wcp.stamp());
  if (mine.wcp.stamp() == t.wcp.stamp() || mine.wcp.stamp() == wcpDevice.stamp())
    mine.wcpBelowDevice = mine.wcp.stamp();
}

uint64_t LockClocks::bytes() const {
  uint64_t total = hbDevice.bytes() + wcpDevice.bytes();
  for (const auto& [_, c] : byBlock) total += c.hb.bytes() + c.wcp.bytes() + 16;
  return total;
}

}  // namespace predatar
