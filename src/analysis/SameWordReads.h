// A plain read's lanes, with the later lanes of each run of consecutive lanes
// that read one word (a broadcast: `*factor` by every thread, a row of a
// shared tile) taken together by AccessHistory::sameWordReads: through the
// per-lane path, each cost a whole access only to join its run's first
// lane's record (a tiled matrix product spent a third of its analysis so);
// and before them, the lanes of each group that reads a shadow page whole
// (16 lanes of 4 bytes, 8 of 8, 4 of 16) whose reads go last in their words
// (AccessHistory::pageReads).
#pragma once

#include <utility>

#include "analysis/AccessHistory.h"
#include "analysis/LaneLoop.h"

namespace predatar {

// The lanes of a plain read that AccessHistory::pageReads took: of each
// group of lanes that read the 16 words of one shadow page in order (16
// lanes of 4 bytes, 8 of 8, 4 of 16), when follows(t, lane) holds for each
// of them (see readInRuns).
template <class FollowsFn>
LaneMask pageReadLanes(ThreadTable& table, const MemoryEvent& event, AccessHistory& history,
                       const AccessRecord& common, FollowsFn&& follows) {
  constexpr uint32_t kPageBytes = 4 * ShadowPages::kWordsPerPage;
  uint32_t size = event.size;
  if (size != 4 && size != 8 && size != 16) return 0;
  uint32_t perPage = kPageBytes / size;
  LaneMask taken = 0, group = (LaneMask(1) << perPage) - 1;
  ThreadClocks* warp = table.warpThreads(event.lanes.block, event.lanes.warp, event.lanes.mask);
  for (uint32_t first = 0; first < kWarpSize; first += perPage) {
    LaneMask lanes = group << first;
    uint64_t base = event.address[first];
    if ((event.lanes.mask & lanes) != lanes || base % kPageBytes) continue;
    bool inOrder = true;
    for (uint32_t i = 1; i < perPage && inOrder; ++i) inOrder = event.address[first + i] == base + size * i;
    LaneMask waits = event.beforeDependencyWait & lanes;
    if (!inOrder || (waits != 0 && waits != lanes)) continue;
    AccessHistory::LaneEpoch epochs[kPageBytes / 4];
    bool followed = true;
    for (uint32_t i = 0; i < perPage && followed; ++i) {
      uint32_t lane = first + i;
      ThreadClocks& t = warp ? warp[lane] : table.at(event.lanes.block, event.lanes.warp * kWarpSize + lane);
      followed = follows(t, lane);
      epochs[i] = {t.thread, t.now};
    }
    AccessRecord record = common;
    record.beforeDependencyWait = waits != 0;
    uint64_t key = locationKey(event.space, event.lanes.block, base);
    if (followed) taken |= history.pageReads(key, record, epochs, size) << first;
  }
  return taken;
}

// Calls access(t, lane), the per-lane path, for each lane that starts a run
// of lanes that read one element (one word's bytes, or whole words: a
// broadcast double) and for lanes of no run (an access that covers parts of
// two words). A later lane of a
// run for which follows(t, lane) holds (it did the lane's own steps, such as
// noting its clock) waits for the run's end instead, when sameWordReads
// takes it, or leaves it to access(). Lanes are visited lowest first, and a
// word's accesses come in that order either way.
template <class AccessFn, class FollowsFn>
void readInRuns(ThreadTable& table, const MemoryEvent& event, AccessHistory& history, const AccessRecord& common,
                AccessFn&& access, FollowsFn&& follows) {
  ThreadClocks* waiting[kWarpSize];
  uint32_t waitingLanes[kWarpSize];
  AccessHistory::LaneEpoch epochs[kWarpSize];
  size_t count = 0;
  bool inRun = false;
  uint32_t leadLane = 0;
  auto endRun = [&] {
    if (count == 0) return;
    uint64_t address = event.address[leadLane];
    AccessRecord record = common;
    record.beforeDependencyWait = (event.beforeDependencyWait >> leadLane) & 1;
    // A run over several words (an 8- or 16-byte element) is taken on each
    // or left to access() whole: a lane left there must find none of its
    // words done. So the later words are asked first; the first word's
    // sameWordReads then decides (it asks itself).
    std::pair<uint64_t, uint8_t> words[4];  // (a run's element: at most 16 bytes, whole words; inRun below)
    size_t n = 0;
    forEachWord(address, event.size, [&](uint64_t word, uint8_t bytes) {
      words[n++] = {locationKey(event.space, event.lanes.block, word), bytes};
    });
    bool takes = true;
    for (size_t w = 1; w < n && takes; ++w) {
      record.bytes = words[w].second;
      takes = history.takesSameWordReads(words[w].first, record, epochs[0]);
    }
    record.bytes = words[0].second;
    if (takes && history.sameWordReads(words[0].first, record, epochs, count)) {
      for (size_t w = 1; w < n; ++w) {
        record.bytes = words[w].second;
        history.sameWordReads(words[w].first, record, epochs, count);
      }
    } else {
      for (size_t i = 0; i < count; ++i) access(*waiting[i], waitingLanes[i]);
    }
    count = 0;
  };
  auto bit = [](LaneMask mask, uint32_t lane) { return (mask >> lane) & 1; };
  WarpLanes rest = event.lanes;
  rest.mask &= ~pageReadLanes(table, event, history, common, follows);
  forEachLaneThread(table, rest, [&](ThreadClocks& t, uint32_t lane) {
    if (inRun && event.address[lane] == event.address[leadLane] &&
        bit(event.beforeDependencyWait, lane) == bit(event.beforeDependencyWait, leadLane) && follows(t, lane)) {
      waiting[count] = &t;
      waitingLanes[count] = lane;
      epochs[count++] = {t.thread, t.now};
      return;
    }
    endRun();
    access(t, lane);
    uint64_t address = event.address[lane];
    uint32_t size = std::max<uint32_t>(event.size, 1);
    // One word, or whole words (a double, a float4)
    inRun = (address & 3) + size <= 4 || ((address & 3) == 0 && size % 4 == 0 && size <= 16);
    leadLane = lane;
  });
  endRun();
}

}  // namespace predatar
