// The launches whose records a detector's shadow may hold (AccessHistory for
// gwcp and hb, LocksetDetector). Dropping the records of launches no longer
// live walks the whole shadow, so the walk is due only when one of these has
// died: StreamPriorities' four copies on two streams stay live together, and
// each launch's start walked (and expanded) every compressed page of the ones
// before, 35% of its run, each launch slower than the last.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace predatar {

class HeldLaunches {
 public:
  static bool isLive(const std::vector<uint32_t>& live, uint32_t launch) {
    return std::find(live.begin(), live.end(), launch) != live.end();
  }
  // A launch whose accesses the shadow now records.
  void add(uint32_t launch) {
    if (!isLive(held_, launch)) held_.push_back(launch);
  }
  // Forgets the launches not in `live`; true when there were some (their
  // records must go).
  bool retire(const std::vector<uint32_t>& live) {
    return std::erase_if(held_, [&](uint32_t launch) { return !isLive(live, launch); }) != 0;
  }
  void clear() { held_.clear(); }

 private:
  std::vector<uint32_t> held_;
};

}  // namespace predatar
