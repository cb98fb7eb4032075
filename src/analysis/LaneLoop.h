// Iterating the lanes of a warp-coalesced event as the threads they are.
#pragma once

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

}  // namespace predatar
