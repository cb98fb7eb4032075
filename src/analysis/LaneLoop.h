// Iterating the lanes of a warp-coalesced event as the threads they are.
#pragma once

#include <array>
#include <bit>
#include <vector>

#include "analysis/ThreadClocks.h"
#include "events/Event.h"

namespace predatar {

// Calls f(threadInBlock, lane) for every active lane, lowest lane first.
template <class F>
void forEachLane(const WarpLanes& lanes, F&& f) {
  for (LaneMask mask = lanes.mask; mask; mask &= mask - 1) {
    uint32_t lane = uint32_t(std::countr_zero(mask));
    f(lanes.warp * kWarpSize + lane, lane);
  }
}

// Calls f(thread's clocks, lane) for every active lane, lowest lane first:
// one table lookup for the warp when its lanes' threads have all acted.
template <class F>
void forEachLaneThread(ThreadTable& table, const WarpLanes& lanes, F&& f) {
  ThreadClocks* warp = table.warpThreads(lanes.block, lanes.warp, lanes.mask);
  forEachLane(lanes, [&](uint32_t thread, uint32_t lane) { f(warp ? warp[lane] : table.at(lanes.block, thread), lane); });
}

// The threads of a __syncwarp that take part: lanes of the mask that have not
// exited, ascending.
inline std::vector<uint32_t> liveLanes(ThreadTable& table, const WarpLanes& lanes) {
  std::vector<uint32_t> threads;
  threads.reserve(size_t(std::popcount(lanes.mask)));  // (grown lane by lane: six allocations a full warp)
  forEachLane(lanes, [&](uint32_t thread, uint32_t) {
    if (!table.at(lanes.block, thread).exited) threads.push_back(thread);
  });
  return threads;
}

// Before a warp's acquires of per-lane locks: starts loading,
// level by level over the lanes, what each lane's acquire reads first (its
// lock's state in `locks`, that lock's clocks of the block, the thread's H),
// so that the lanes' cache misses overlap instead of coming one lane's chain
// of pointers at a time (a warp of per-slot lock acquires, each lock's state
// and clocks last touched a round before). `clocksOf` gives a lock state's
// LockClocks. A few lanes wait for little: nothing is done for them.
template <class Locks, class ClocksOf>
void prefetchWarpAcquires(ThreadTable& table, const Locks& locks, const LockEvent& event, ClocksOf clocksOf) {
  ThreadClocks* warp = table.warpThreads(event.lanes.block, event.lanes.warp, event.lanes.mask);
  if (!warp || std::popcount(event.lanes.mask) < 8) return;
  const uint32_t block = event.lanes.block;
  std::array<const LockClocks*, kWarpSize> lockClocks{};
  std::array<const LockClocks::BlockClocks*, kWarpSize> blockClocks{};
  forEachLane(event.lanes, [&](uint32_t, uint32_t lane) {
    locks.prefetch(event.lock[lane]);
    warp[lane].hb.prefetch(0);
  });
  forEachLane(event.lanes, [&](uint32_t, uint32_t lane) {
    auto it = locks.find(event.lock[lane]);
    if (it == locks.end()) return;
    lockClocks[lane] = &clocksOf(it->second);
    lockClocks[lane]->byBlock.prefetch(block);
    warp[lane].hb.prefetch(1);
  });
  forEachLane(event.lanes, [&](uint32_t, uint32_t lane) {
    if (!lockClocks[lane]) return;
    auto it = lockClocks[lane]->byBlock.find(block);
    if (it != lockClocks[lane]->byBlock.end()) (blockClocks[lane] = &it->second)->hb.prefetch(0);
    warp[lane].hb.prefetch(2);
  });
  for (int level = 1; level <= 2; ++level)
    forEachLane(event.lanes, [&](uint32_t, uint32_t lane) {
      if (blockClocks[lane]) blockClocks[lane]->hb.prefetch(level);
    });
}

}  // namespace predatar
