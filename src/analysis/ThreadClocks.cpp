#include "analysis/ThreadClocks.h"

#include <algorithm>

namespace predatar {

void ThreadTable::reset(const KernelInfo& kernel, const ClockGeometry* geometry) {
  geometry_ = geometry;
  threadsPerBlock_ = kernel.threadsPerBlock();
  threads_.clear();
  threads_.resize(kernel.numThreads());
}

ThreadClocks& ThreadTable::at(uint32_t block, uint32_t thread) {
  auto& slot = threads_[uint64_t(block) * threadsPerBlock_ + thread];
  if (!slot) {
    slot = std::make_unique<ThreadClocks>();
    slot->block = block;
    slot->thread = thread;
    slot->hb.setGeometry(geometry_);
    slot->wcp.setGeometry(geometry_);
  }
  return *slot;
}

void ThreadTable::exit(uint32_t block, uint32_t thread) {
  ThreadClocks& t = at(block, thread);
  t.exited = true;
  t.hb.clear();
  t.wcp.clear();
}

uint64_t ThreadTable::clockBytes() const {
  uint64_t total = threads_.capacity() * sizeof(void*);
  for (const auto& t : threads_)
    if (t) total += sizeof(ThreadClocks) + t->hb.bytes() + t->wcp.bytes();
  return total;
}

void synchronize(ThreadTable& table, const ClockGeometry& geometry, uint32_t block,
                 const std::vector<uint32_t>& threads, bool withWcp) {
  if (threads.empty()) return;
  VectorClock joinedHb(&geometry), joinedWcp(&geometry);
  Clock latest = 0;
  for (uint32_t thread : threads) {
    ThreadClocks& t = table.at(block, thread);
    joinedHb.join(t.hb);
    if (withWcp) joinedWcp.join(t.wcp);
    latest = std::max(latest, t.now);
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
    if (threads.size() == geometry.threadsPerBlock) {
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
  // before them.
  if (withWcp) joinedWcp.join(joinedHb);
  for (uint32_t thread : threads) {
    ThreadClocks& t = table.at(block, thread);
    t.hb = joinedHb;
    if (withWcp) t.wcp = joinedWcp;
    t.now = geometry.compression ? latest : t.now;
    t.tick();
  }
}

void LockClocks::acquire(ThreadClocks& t, Scope scope, bool withWcp) const {
  if (auto it = hbByBlock.find(t.block); it != hbByBlock.end()) t.hb.join(it->second);
  if (withWcp)
    if (auto it = wcpByBlock.find(t.block); it != wcpByBlock.end()) t.wcp.join(it->second);
  if (scope == Scope::Block) return;
  t.hb.join(hbDevice);
  if (withWcp) t.wcp.join(wcpDevice);
}

void LockClocks::release(const ThreadClocks& t, const VectorClock& hb, Scope scope, const ClockGeometry* geometry,
                         bool withWcp) {
  hbByBlock.try_emplace(t.block, geometry).first->second.join(hb);
  if (withWcp) wcpByBlock.try_emplace(t.block, geometry).first->second.join(t.wcp);
  if (scope == Scope::Block) return;
  hbDevice.setGeometry(geometry);
  hbDevice.join(hb);
  if (!withWcp) return;
  wcpDevice.setGeometry(geometry);
  wcpDevice.join(t.wcp);
}

uint64_t LockClocks::bytes() const {
  uint64_t total = hbDevice.bytes() + wcpDevice.bytes();
  for (const auto& [_, c] : hbByBlock) total += c.bytes() + 16;
  for (const auto& [_, c] : wcpByBlock) total += c.bytes() + 16;
  return total;
}

}  // namespace predatar
