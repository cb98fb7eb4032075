// Runner::waitingReport: who waits on what when a launch stops progressing
// (deadlocks, livelocks, interrupts and time limits quote it).
#include "sim/Scheduler.h"

namespace predatar::sim::detail {

std::string Runner::waitingReport(bool includeRunning) {
  std::string s;
  int shown = 0, total = 0;
  for (Warp& w : L.warps) {
    if (!w.started || w.done()) continue;
    uint32_t live = w.exists & ~w.exited;
    uint32_t groups = live;
    while (groups) {
      uint32_t l0 = uint32_t(std::countr_zero(groups));
      uint32_t pc = w.pc[l0];
      uint8_t kind = (w.waiting >> l0) & 1 ? w.waitKind[l0] : uint8_t(kNotWaiting);
      L.recordFaultSite(w, l0, pc);  // the first stuck thread locates a deadlock or livelock
      uint32_t g = 0;
      forLanes(groups, [&](uint32_t l) {
        uint8_t k = (w.waiting >> l) & 1 ? w.waitKind[l] : uint8_t(kNotWaiting);
        if (w.pc[l] == pc && k == kind) g |= 1u << l;
      });
      groups &= ~g;
      if (kind == kNotWaiting && !includeRunning) continue;
      ++total;
      if (shown >= 8) continue;
      ++shown;
      const Block& b = L.blocks[w.block];
      s += "\n  block (" + std::to_string(b.idx.x) + "," + std::to_string(b.idx.y) + "," + std::to_string(b.idx.z) +
           ") warp " + std::to_string(w.inBlock) + " lanes " + hex(g) + " at " + L.where(pc);
      if (kind == kWaitBarrier) {
        const Barrier& bar = b.barriers[w.barrierId[l0]];
        uint32_t expected = bar.expected ? bar.expected : b.threads - b.exitedThreads;
        s += ": waiting at barrier " + std::to_string(w.barrierId[l0]) + " (" + std::to_string(bar.arrived) + " of " +
             std::to_string(expected) + " threads arrived)";
      } else if (kind == kWaitWarpSync) {
        s += ": waiting for the other lanes of its warp (warp-synchronous instruction)";
      } else {
        s += ": running";
      }
    }
  }
  if (total > shown) s += "\n  ... and " + std::to_string(total - shown) + " more";
  return s;
}

}  // namespace predatar::sim::detail
