#include "sim/BarrierCheck.h"

#include <bit>
#include <map>
#include <vector>

namespace predatar::sim {
namespace {

// The threads of one block waiting at one barrier instruction.
struct Arrivals {
  uint32_t count = 0;
  const Warp* firstWarp = nullptr;
  uint32_t firstLane = 0;
};

std::string threadsAt(const Launch& L, uint32_t pc, const Arrivals& a) {
  return std::to_string(a.count) + (a.count == 1 ? " thread" : " threads") + " (first: " +
         L.threadName(*a.firstWarp, a.firstLane) + ") at " + L.where(pc);
}

// Whether every thread waiting for barrier `id` waits at one instruction:
// the usual case, checked without building the per-instruction maps (they
// cost a twentieth of a barrier-heavy kernel's emulation).
bool waitAtOneInstruction(const Launch& L, const Block& b, uint32_t id) {
  uint32_t pc = UINT32_MAX;
  for (uint32_t wi = b.firstWarp; wi < b.firstWarp + b.numWarps; ++wi) {
    const Warp& w = L.warps[wi];
    for (uint32_t lanes = w.waiting; lanes; lanes &= lanes - 1) {
      uint32_t l = uint32_t(std::countr_zero(lanes));
      if (w.waitKind[l] != kWaitBarrier || w.barrierId[l] != id) continue;
      if (pc == UINT32_MAX) pc = w.pc[l];
      else if (w.pc[l] != pc) return false;
    }
  }
  return true;
}

}  // namespace

std::optional<BarrierDivergence> findDivergentBarrier(const Launch& L, const Block& b, uint32_t id) {
  if (b.barriers[id].expected != 0) return std::nullopt;  // counted barrier: may span instructions
  if (waitAtOneInstruction(L, b, id)) return std::nullopt;
  std::map<uint32_t, Arrivals> byPc;
  std::optional<BarrierDivergence> inWarp;
  for (uint32_t wi = b.firstWarp; wi < b.firstWarp + b.numWarps; ++wi) {
    const Warp& w = L.warps[wi];
    std::map<uint32_t, uint32_t> warpPcs;  // pc -> first lane
    forLanes(w.waiting, [&](uint32_t l) {
      if (w.waitKind[l] != kWaitBarrier || w.barrierId[l] != id) return;
      Arrivals& a = byPc[w.pc[l]];
      if (a.count++ == 0) {
        a.firstWarp = &w;
        a.firstLane = l;
      }
      warpPcs.emplace(w.pc[l], l);
    });
    if (warpPcs.size() > 1 && !inWarp) {
      auto second = std::next(warpPcs.begin());
      inWarp = BarrierDivergence{&w, second->second, second->first, {}};
      inWarp->what = "barrier error: divergent thread(s) in warp " + std::to_string(w.inBlock);
    }
  }
  if (byPc.size() < 2) return std::nullopt;
  // Report at the instruction fewer threads reached (the likely stray one).
  auto stray = byPc.begin();
  for (auto it = byPc.begin(); it != byPc.end(); ++it)
    if (it->second.count < stray->second.count) stray = it;
  std::string detail;
  for (const auto& [pc, a] : byPc) detail += (detail.empty() ? "" : "; ") + threadsAt(L, pc, a);
  std::string kind = inWarp ? inWarp->what : "barrier error: divergent thread(s) in block";
  BarrierDivergence d = inWarp ? *inWarp
                               : BarrierDivergence{stray->second.firstWarp, stray->second.firstLane, stray->first, {}};
  d.what = kind + " (threads of one block wait for barrier " + std::to_string(id) + " at " +
           std::to_string(byPc.size()) + " different instructions: " + detail +
           "; undefined behaviour on a GPU, which compute-sanitizer --tool synccheck reports); this one waits";
  return d;
}

namespace {

// An exit, or an unconditional branch to one: a lane there does nothing else.
bool aboutToExit(const Launch& L, uint32_t pc) {
  const auto& code = L.M.ir.code;
  if (code[pc].guard == ptx::kNoRef && L.M.ctrl[pc] == Ctrl::Bra) pc = code[pc].target;
  return code[pc].guard == ptx::kNoRef && L.M.ctrl[pc] == Ctrl::Exit;
}

}  // namespace

void noteLanesOwingBarrier(const Launch& L, Warp& w, uint32_t arrived) {
  w.owesBarrier &= ~arrived;
  uint32_t atBarrier = 0;
  forLanes(w.waiting, [&](uint32_t l) { if (w.waitKind[l] == kWaitBarrier) atBarrier |= 1u << l; });
  forLanes(w.exists & ~w.exited & ~atBarrier, [&](uint32_t l) {
    if (!aboutToExit(L, w.pc[l])) w.owesBarrier |= 1u << l;
  });
}

void noteSkippedBarrier(Launch& L, const Warp& w, uint32_t lanes, uint32_t pc) {
  uint32_t waiters = 0, barrierPc = 0;
  forLanes(w.waiting, [&](uint32_t l) {
    if (w.waitKind[l] != kWaitBarrier) return;
    if (!waiters) barrierPc = w.pc[l];
    waiters |= 1u << l;
  });
  if (!waiters || L.skippedBarrier.noted(barrierPc)) return;
  uint32_t lane = uint32_t(std::countr_zero(lanes));
  int others = std::popcount(lanes) - 1;
  L.skippedBarrier.byPc[barrierPc] =
      "barrier error: divergent thread(s) in warp " + std::to_string(w.inBlock) + ": " + L.threadName(w, lane) +
      (others ? " and " + std::to_string(others) + " more" : std::string()) +
      " skipped the barrier (__syncthreads()) at " + L.userLine(barrierPc) + " that " +
      std::to_string(std::popcount(waiters)) + " threads of its warp wait at, and exited at " + L.userLine(pc) +
      ". A warp's threads execute an aligned barrier together: this is undefined behaviour on a GPU "
      "(compute-sanitizer --tool synccheck reports it); predatar let the barrier complete without them, as the "
      "PTX ISA says of exited threads. Make the condition around the barrier the same for the whole block.";
}

}  // namespace predatar::sim
