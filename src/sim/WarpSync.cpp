// The scheduler's synchronization of lanes (Runner, sim/Scheduler.h): block
// barriers (bar.sync / bar.arrive / bar.red and their release), warp syncs,
// and warp exchanges (shfl/vote/match) that lanes at different instructions
// take together. Split from Scheduler.cpp, which steps warps and runs the
// launch.
#include <algorithm>
#include <bit>
#include <cstdio>

#include "sim/BarrierCheck.h"
#include "sim/Scheduler.h"

namespace predatar::sim::detail {

namespace {

// The first thread of a launch that ran this warp-synchronous instruction
// (__syncwarp, shfl/vote/match/redux .sync) outside its member mask.
void noteOutsideMemberMask(Launch& L, const Warp& w, const Instr& in, uint32_t pc, uint32_t lanes, uint32_t member) {
  if (L.outsideMemberMask.noted(pc)) return;
  char maskText[16];
  std::snprintf(maskText, sizeof maskText, "0x%08x", member);
  std::string what = in.op == Op::BarWarpSync ? "__syncwarp (bar.warp.sync)" : std::string(ptx::toString(in.op)) + ".sync";
  uint32_t lane = uint32_t(std::countr_zero(lanes));
  L.outsideMemberMask.byPc[pc] =
      "synchronization error: " + L.threadName(w, lane) +
      (std::popcount(lanes) > 1 ? " and " + std::to_string(std::popcount(lanes) - 1) + " more lanes" : std::string()) +
      " ran " + what + " at " + L.userLine(pc) + " with member mask " + maskText +
      ", which leaves it out. The executing thread must be in the mask: this is undefined behaviour on a GPU "
      "(compute-sanitizer --tool synccheck reports invalid arguments); predatar synchronized it with the lanes the "
      "mask names. Compute the mask from the lanes that take this path (__activemask() or a __ballot_sync of the "
      "same condition).";
}

uint32_t memberMaskSrc(const Instr& in) {
  switch (in.op) {
    case Op::Shfl: return 3;
    case Op::BarWarpSync: return 0;
    default: return 1;
  }
}

}  // namespace

void Runner::checkBarrier(Block& b, uint32_t id, uint32_t pc) {
  if (!(b.activeBarriers & (1u << id))) return;
  Barrier& bar = b.barriers[id];
  uint32_t expected = bar.expected ? bar.expected : b.threads - b.exitedThreads;
  if (bar.arrived < expected) return;
  if (auto divergent = findDivergentBarrier(L, b, id)) {  // synccheck: waiters stay, the launch stops
    L.fault(*divergent->warp, divergent->lane, divergent->pc, divergent->what);
    return;
  }
  if (L.eventsConsumed) {
    BarrierEvent& ev = barrierEvent_;
    ev.block = b.index;
    ev.id = id;
    ev.complete = true;
    ev.threads.clear();
    ev.arrivers.clear();
    for (uint32_t wi = 0; wi < bar.waiting.size(); ++wi)
      forLanes(bar.waiting[wi], [&](uint32_t l) { ev.threads.push_back(wi * 32 + l); });
    for (uint32_t wi = 0; wi < bar.arriving.size(); ++wi) {
      LaneMask waits = wi < bar.waiting.size() ? bar.waiting[wi] : 0;  // arrived, then waited: waits
      forLanes(bar.arriving[wi] & ~waits, [&](uint32_t l) { ev.arrivers.push_back(wi * 32 + l); });
    }
    ev.origin = L.origin(pc);
    L.sink.barrier(ev);
  }
  for (uint32_t wi = b.firstWarp; wi < b.firstWarp + b.numWarps; ++wi) {
    Warp& w = L.warps[wi];
    uint32_t rel = 0;
    forLanes(w.waiting, [&](uint32_t l) {
      if (w.waitKind[l] == kWaitBarrier && w.barrierId[l] == id) rel |= 1u << l;
    });
    forLanes(rel, [&](uint32_t l) {
      const Instr& in = code[w.pc[l]];
      if (in.ndst > 0 && in.dst[0] != ptx::kNoRef) {  // bar.red result
        uint64_t* d = w.regs.get() + (size_t(L.funcBase[in.func]) + (in.dst[0] & ptx::kRefIndexMask)) * 32;
        auto kind = ptx::BarKind(in.mode);
        d[l] = kind == ptx::BarKind::RedPopc ? bar.redPopc : kind == ptx::BarKind::RedAnd ? bar.redAnd : bar.redOr;
      }
      w.pc[l] += 1;
      w.waitKind[l] = kNotWaiting;
    });
    w.waiting &= ~rel;
    if (rel) w.owesBarrier = 0;  // (every live lane arrived)
  }
  bar.reset(0);
  b.activeBarriers &= ~(1u << id);
  barrierReleased_ = true;
}

bool Runner::barrier(Warp& w, Ctx& x, const Instr& in, uint32_t pc, uint32_t mask, uint32_t exec) {
  forLanes(mask & ~exec, [&](uint32_t l) { w.pc[l] = pc + 1; });
  if (!exec) return true;
  uint32_t first = uint32_t(std::countr_zero(exec));
  uint32_t id = uint32_t(S(x, in.src[0])[first]);
  uint32_t count = (in.nsrc > 1 && in.src[1] != ptx::kNoRef) ? uint32_t(S(x, in.src[1])[first]) : 0;
  if (id >= kBlockBarriers) {
    L.fault(w, first, pc, "barrier id " + std::to_string(id) + " out of range");
    x.faulted = true;
    return false;
  }
  Block& b = L.blocks[w.block];
  Barrier& bar = b.barriers[id];
  if (!(b.activeBarriers & (1u << id))) {
    bar.reset(count);
    b.activeBarriers |= 1u << id;
  }
  bar.arrived += uint32_t(std::popcount(exec));
  auto kind = ptx::BarKind(in.mode);
  if (L.eventsConsumed) {
    std::vector<LaneMask>& lanes = kind == ptx::BarKind::Arrive ? bar.arriving : bar.waiting;
    if (lanes.size() <= w.inBlock) lanes.resize(b.numWarps, 0);
    lanes[w.inBlock] |= exec;
  }
  if (L.eventsConsumed && kind == ptx::BarKind::Arrive) {
    // The arrival is a release now; its thread's next accesses are not in it.
    BarrierEvent& ev = barrierEvent_;
    ev.block = b.index;
    ev.id = id;
    ev.complete = false;
    ev.threads.clear();
    ev.arrivers.clear();
    forLanes(exec, [&](uint32_t l) { ev.arrivers.push_back(w.inBlock * 32 + l); });
    ev.origin = L.origin(pc);
    L.sink.barrier(ev);
  }
  if (kind == ptx::BarKind::RedPopc || kind == ptx::BarKind::RedAnd || kind == ptx::BarKind::RedOr) {
    const uint64_t* p = S(x, in.src[2]);
    forLanes(exec, [&](uint32_t l) {
      bool v = (p[l] != 0) != in.negC;
      bar.redPopc += v;
      bar.redAnd = bar.redAnd && v;
      bar.redOr = bar.redOr || v;
    });
  }
  if (kind == ptx::BarKind::Arrive) {
    forLanes(exec, [&](uint32_t l) { w.pc[l] = pc + 1; });
  } else {
    forLanes(exec, [&](uint32_t l) {
      w.pc[l] = pc;
      w.waitKind[l] = kWaitBarrier;
      w.barrierId[l] = uint8_t(id);
    });
    w.waiting |= exec;
    if (in.uni && bar.expected == 0) noteLanesOwingBarrier(L, w, exec);
  }
  checkBarrier(b, id, pc);
  if (!L.error.ok()) {
    x.faulted = true;
    return false;
  }
  return true;
}
bool Runner::warpSync(Warp& w, Ctx& x, const Instr& in, uint32_t pc, uint32_t& mask, uint32_t exec) {
  if (!exec) return true;
  uint32_t first = uint32_t(std::countr_zero(exec));
  const uint64_t* masks = S(x, in.src[memberMaskSrc(in)]);
  uint32_t member = uint32_t(masks[first]);
  bool hasMemberMask = in.op == Op::BarWarpSync || in.op == Op::Shfl || in.op == Op::Vote || in.op == Op::Match ||
                       in.op == Op::Redux;  // (not wmma, also warp-synchronous)
  if (hasMemberMask) {  // (each lane's own mask: tiles of a warp name different ones)
    uint32_t outside = 0;
    for (uint32_t l = 0; l < 32; ++l) outside |= uint32_t(~masks[l] >> l & 1) << l;  // (no branch a lane)
    outside &= exec;
    if (outside) noteOutsideMemberMask(L, w, in, pc, outside, uint32_t(masks[std::countr_zero(outside)]));
  }
  uint32_t live = w.exists & ~w.exited;
  uint32_t required = member & live;
  bool anyPc = in.op == Op::BarWarpSync;
  uint32_t waitersHere = 0, waitersElsewhere = 0, exchangersElsewhere = 0;
  forLanes(w.waiting, [&](uint32_t l) {
    if (w.waitKind[l] != kWaitWarpSync) return;
    if (w.pc[l] == pc) waitersHere |= 1u << l;
    else if (anyPc && code[w.pc[l]].op == Op::BarWarpSync) waitersElsewhere |= 1u << l;
    else if (sameExchange(x, code[w.pc[l]], l, in, member)) exchangersElsewhere |= 1u << l;
  });
  waitersElsewhere |= exchangersElsewhere;
  uint32_t arrived = exec | waitersHere | waitersElsewhere;
  if ((required & ~arrived) != 0) {
    forLanes(exec, [&](uint32_t l) {
      w.pc[l] = pc;
      w.waitKind[l] = kWaitWarpSync;
    });
    w.waiting |= exec;
    forLanes(mask & ~exec, [&](uint32_t l) { w.pc[l] = pc + 1; });
    return false;
  }
  uint32_t participants = exec | waitersHere;
  if (exchangersElsewhere) {
    exchangeAcrossInstructions(w, x, in, participants, exchangersElsewhere);
  } else switch (in.op) {
    case Op::Shfl: execShfl(x, in, participants); break;
    case Op::Vote: execVote(x, in, participants); break;
    case Op::Match: execMatch(x, in, participants); break;
    case Op::Redux: execRedux(x, in, participants); break;
    case Op::WmmaLoad: case Op::WmmaStore: case Op::WmmaMma: execWarpMatrix(x, in, participants); break;
    default: {
      SyncWarpEvent ev;
      ev.lanes = WarpLanes{w.block, w.inBlock, arrived};
      ev.origin = L.origin(pc);
      L.sink.syncWarp(ev);
      break;
    }
  }
  w.waiting &= ~(waitersHere | waitersElsewhere);
  forLanes(waitersHere | waitersElsewhere, [&](uint32_t l) { w.waitKind[l] = kNotWaiting; });
  forLanes(waitersElsewhere, [&](uint32_t l) { w.pc[l] += 1; });
  mask |= waitersHere;
  return true;
}

// Lane l, waiting at `other`, takes part in the exchange `in` with member
// mask `member`: on sm_70 and later, shfl/vote/match/redux.sync wait for the
// lanes of the member mask to execute one with the same qualifiers and member
// mask, not the same instruction (cooperative groups' labeled partitions
// reach one exchange from different branches).
bool Runner::sameExchange(Ctx& x, const Instr& other, uint32_t l, const Instr& in, uint32_t member) {
  bool exchange = in.op == Op::Shfl || in.op == Op::Vote || in.op == Op::Match || in.op == Op::Redux;
  if (!exchange || other.op != in.op || other.mode != in.mode || other.type != in.type || other.atom != in.atom ||
      other.negC != in.negC)
    return false;
  return uint32_t(S(x, other.src[memberMaskSrc(other)])[l]) == member;
}

// One exchange whose lanes are at several instructions: each lane gives the
// source operand of its own instruction and gets the result in its own
// destination.
void Runner::exchangeAcrossInstructions(Warp& w, Ctx& x, const Instr& in, uint32_t here, uint32_t elsewhere) {
  uint64_t values[32];
  auto gather = [&](const Instr& at, uint32_t lanes) {
    const uint64_t* a = S(x, at.src[0]);
    forLanes(lanes, [&](uint32_t l) { values[l] = a[l]; });
  };
  gather(in, here);
  forLanes(elsewhere, [&](uint32_t l) { gather(code[w.pc[l]], 1u << l); });
  uint32_t all = here | elsewhere;
  auto run = [&](const Instr& at, uint32_t lanes) {
    switch (at.op) {
      case Op::Shfl: execShfl(x, at, all, lanes, values); break;
      case Op::Vote: execVote(x, at, all, lanes, values); break;
      case Op::Match: execMatch(x, at, all, lanes, values); break;
      default: execRedux(x, at, all, lanes, values); break;
    }
  };
  // (Lanes read each other's sources only through `values`, gathered above,
  // so one instruction's lanes writing first changes nothing for the others.)
  run(in, here);
  for (uint32_t rest = elsewhere; rest;) {
    uint32_t otherPc = w.pc[std::countr_zero(rest)];
    uint32_t lanes = 0;
    forLanes(rest, [&](uint32_t l) { if (w.pc[l] == otherPc) lanes |= 1u << l; });
    run(code[otherPc], lanes);
    rest &= ~lanes;
  }
}

void Runner::releaseWarpSyncAfterExit(Warp& w) {
  // Lanes waiting for lanes that have exited since: retry their instruction.
  uint32_t waiters = 0;
  forLanes(w.waiting, [&](uint32_t l) { if (w.waitKind[l] == kWaitWarpSync) waiters |= 1u << l; });
  while (waiters) {
    uint32_t l0 = uint32_t(std::countr_zero(waiters));
    uint32_t pc = w.pc[l0];
    uint32_t group = 0;
    forLanes(waiters, [&](uint32_t l) { if (w.pc[l] == pc) group |= 1u << l; });
    waiters &= ~group;
    // make them ready again at the same pc: they re-execute the sync instruction
    w.waiting &= ~group;
    forLanes(group, [&](uint32_t l) { w.waitKind[l] = kNotWaiting; });
  }
}

}  // namespace predatar::sim::detail
