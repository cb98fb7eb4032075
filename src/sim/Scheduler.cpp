// The warp scheduler: block residency (materialize/retire), warp stepping with
// the control-flow instructions, and the launch loop. Barriers, warp syncs and
// exchanges across instructions: WarpSync.cpp.
#include "sim/Scheduler.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>
#include <random>

#include "sim/BarrierCheck.h"
#include "sim/Livelock.h"
#include "sim/Residency.h"
#include "sim/WarpMemoryPool.h"

namespace predatar::sim::detail {

namespace {

// Divergent group steps without a merge before another group gets a turn
// (a lane that spins on a word another group of its warp will write), unless
// the groups worked meanwhile (changed memory, or read words the warp had
// not read lately: Launch::novelReads): then up to kBusyWindows such windows
// in a row. A group in a loop that others left, working through a table
// (curand_init's skip-ahead, its trip count per lane), is not waiting for
// them; rotating let the others run on past the loop's end while it was
// still in it, where a GPU holds them, and ForwardProgress warned about
// NVIDIA's Monte Carlo samples. A spin loop does neither, or gives way after
// the cap (one that polls more words than Warp::recentReads holds).
constexpr uint64_t kRotateSteps = 256;
constexpr uint32_t kBusyWindows = 4096;

// A kernel that reads the grid barrier workspace (%envreg1/2, 0 outside a
// cooperative launch) traps there in cooperative_groups' grid.sync().
std::string trapMessage(const Launch& L) {
  bool readsWorkspace = std::ranges::find(L.specialRowsRead, uint32_t(ptx::kEnvReg1)) != L.specialRowsRead.end();
  if (!readsWorkspace || L.cfg.gridWorkspace != 0) return "trap instruction executed";
  return "trap instruction executed: cooperative_groups' grid.sync() traps in a launch that is not cooperative "
         "(launch the kernel with cudaLaunchCooperativeKernel; predatar kernel: --cooperative)";
}

// The special registers of warp `wi` of any block, lane by lane (0 for the
// block's own, %ctaid, set by materialize).
void fillWarpSpecials(const Launch& L, uint32_t wi, uint32_t wpb, uint64_t* sp) {
  const LaunchConfig& config = L.cfg;
  auto setSp = [&](uint32_t idx, auto fn) {
    for (uint32_t l = 0; l < 32; ++l) sp[idx * 32 + l] = fn(l);
  };
  setSp(ptx::kTidX, [&](uint32_t l) { return (wi * 32 + l) % config.block.x; });
  setSp(ptx::kTidY, [&](uint32_t l) { return ((wi * 32 + l) / config.block.x) % config.block.y; });
  setSp(ptx::kTidZ, [&](uint32_t l) { return (wi * 32 + l) / (config.block.x * config.block.y); });
  setSp(ptx::kNtidX, [&](uint32_t) { return config.block.x; });
  setSp(ptx::kNtidY, [&](uint32_t) { return config.block.y; });
  setSp(ptx::kNtidZ, [&](uint32_t) { return config.block.z; });
  setSp(ptx::kNctaidX, [&](uint32_t) { return config.grid.x; });
  setSp(ptx::kNctaidY, [&](uint32_t) { return config.grid.y; });
  setSp(ptx::kNctaidZ, [&](uint32_t) { return config.grid.z; });
  setSp(ptx::kLaneId, [&](uint32_t l) { return l; });
  setSp(ptx::kWarpId, [&](uint32_t) { return wi; });
  setSp(ptx::kNWarpId, [&](uint32_t) { return wpb; });
  setSp(ptx::kLanemaskEq, [&](uint32_t l) { return 1u << l; });
  setSp(ptx::kLanemaskLt, [&](uint32_t l) { return (1u << l) - 1; });
  setSp(ptx::kLanemaskLe, [&](uint32_t l) { return uint32_t((2ull << l) - 1); });
  setSp(ptx::kLanemaskGt, [&](uint32_t l) { return ~uint32_t((2ull << l) - 1); });
  setSp(ptx::kLanemaskGe, [&](uint32_t l) { return ~((1u << l) - 1); });
  setSp(ptx::kSmId, [&](uint32_t) { return 0u; });
  setSp(ptx::kNSmId, [&](uint32_t) { return 1u; });
  setSp(ptx::kGridId, [&](uint32_t) { return 0u; });
  setSp(ptx::kDynSmem, [&](uint32_t) { return config.dynamicSharedBytes; });
  setSp(ptx::kTotalSmem, [&](uint32_t) { return uint32_t(L.sharedBytes); });
  setSp(ptx::kEnvReg1, [&](uint32_t) { return uint32_t(config.gridWorkspace >> 32); });
  setSp(ptx::kEnvReg2, [&](uint32_t) { return uint32_t(config.gridWorkspace); });
}

// Allocates a block's shared memory and its warps' registers and local memory.
void materialize(Launch& L, uint32_t b) {
  Block& blk = L.blocks[b];
  blk.resident = true;
  blk.barriers = std::make_unique<Barrier[]>(kBlockBarriers);
  if (L.sharedBytes) {
    blk.shared = std::make_unique<uint8_t[]>(L.sharedBytes);  // zeroed (value-initialized)
  }
  size_t slots = size_t(L.slotsPerWarp) * 32;
  uint32_t wpb = blk.numWarps;
  constexpr size_t kSpecialWords = size_t(ptx::kNumSpecials) * 32;
  // (Written lane by lane for every warp, with three divisions a lane for
  // %tid, the specials cost as much as running a warp of a short kernel.)
  if (L.warpSpecials.empty()) {
    L.warpSpecials.assign(wpb * kSpecialWords, 0);
    for (uint32_t wi = 0; wi < wpb; ++wi) fillWarpSpecials(L, wi, wpb, L.warpSpecials.data() + wi * kSpecialWords);
  }
  bool reused = !L.freeWarpSlots.empty();  // (else new slots: default-constructed)
  if (!reused) {
    blk.firstWarp = uint32_t(L.warps.size());
    L.warps.resize(L.warps.size() + wpb);
  } else {
    blk.firstWarp = L.freeWarpSlots.back();
    L.freeWarpSlots.pop_back();
  }
  for (uint32_t wi = 0; wi < wpb; ++wi) {
    Warp& w = L.warps[blk.firstWarp + wi];
    if (reused) {  // (in place: `w = Warp{}` zeroed a temporary and copied its kilobyte)
      std::destroy_at(&w);
      std::construct_at(&w);
    }
    w.block = b;
    w.inBlock = wi;
    w.index = b * wpb + wi;
    w.firstThread = uint64_t(b) * blk.threads + wi * 32;
    uint32_t n = std::min<uint32_t>(32, blk.threads - wi * 32);
    w.exists = n == 32 ? 0xFFFFFFFFu : ((1u << n) - 1);
    for (uint32_t l = 0; l < 32; ++l) w.pc[l] = L.entryPc;
    w.regs = WarpMemoryPool::take(slots, kSpecialWords);  // zeroed past the specials
    uint64_t* sp = w.regs.get();
    const uint64_t* specials = L.warpSpecials.data() + wi * kSpecialWords;
    for (uint32_t row : L.specialRowsRead) {  // (rows no instruction reads stay as they are)
      uint64_t* to = sp + row * 32;
      switch (row) {
        case ptx::kCtaidX: std::fill_n(to, 32, blk.idx.x); break;
        case ptx::kCtaidY: std::fill_n(to, 32, blk.idx.y); break;
        case ptx::kCtaidZ: std::fill_n(to, 32, blk.idx.z); break;
        default: std::memcpy(to, specials + row * 32, 32 * sizeof(uint64_t));
      }
    }
    if (L.stackBytes) w.local = allocateLocalMemory(32 * L.stackBytes);
    w.callCapacity = L.maxDepth;
    if (L.hasCalls) w.calls.resize(size_t(32) * L.maxDepth);
    if (L.maxRecursionDepth) w.savedRegisters.assign(32, {});
    w.started = true;
  }
}

// Frees the memory of a finished block.
void retire(Launch& L, uint32_t b) {
  Block& blk = L.blocks[b];
  blk.shared.reset();
  blk.barriers.reset();
  for (uint32_t wi = blk.firstWarp; wi < blk.firstWarp + blk.numWarps; ++wi) {
    Warp& w = L.warps[wi];
    WarpMemoryPool::giveBack(std::move(w.regs), size_t(L.slotsPerWarp) * 32);
    w.local.reset();
    std::vector<CallFrame>().swap(w.calls);
    std::vector<std::vector<uint64_t>>().swap(w.savedRegisters);
    std::vector<AsyncCopy>().swap(w.asyncCopies);
    w.started = false;
  }
  L.freeWarpSlots.push_back(blk.firstWarp);
}

std::string seconds(double s) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", s);
  return text;
}

}  // namespace

// What the lanes of `lanes` not at `groupPc` are at, and those at it
// (`group`), in one pass. The others keep their pcs while the group runs, so
// it checks for a join with one comparison an instruction when they wait at
// one pc (a warp diverged in two: a fifth of a divergent kernel's
// emulation), and with `bits` when at several (comparing each of them at
// every instruction was a sixth of the scheduler's time in
// warpAggregatedAtomicsCG).
[[gnu::always_inline]] inline Runner::OtherPcs Runner::otherPcs(const Warp& w, uint32_t lanes, uint32_t groupPc,
                                                                  uint32_t& group) {
  OtherPcs at;
  uint32_t highest = 0;
  group = 0;
  forLanes(lanes, [&](uint32_t l) {
    uint32_t p = w.pc[l];
    if (p == groupPc) {
      group |= 1u << l;
      return;
    }
    at.bits |= uint64_t(1) << (p % 64);
    at.lowest = std::min(at.lowest, p);
    highest = std::max(highest, p);
  });
  at.shared = (lanes & ~group) && at.lowest == highest ? at.lowest : kSeveralPcs;
  return at;
}

uint32_t Runner::selectPc(Warp& w, uint32_t ready) {
  uint32_t best = UINT32_MAX, next = UINT32_MAX;
  forLanes(ready, [&](uint32_t l) {
    uint32_t p = w.pc[l];
    best = std::min(best, p);
    if (p > w.lastPc) next = std::min(next, p);
  });
  if (w.rotate && next != UINT32_MAX) return next;
  return best;
}

void Runner::exitLanes(Warp& w, uint32_t lanes, uint32_t pc) {
  w.exited |= lanes;
  w.waiting &= ~lanes;
  ExitEvent ev;
  ev.lanes = WarpLanes{w.block, w.inBlock, lanes};
  ev.origin = L.origin(pc);
  L.sink.exit(ev);
  Block& b = L.blocks[w.block];
  b.exitedThreads += uint32_t(std::popcount(lanes));
  if (uint32_t skipped = lanes & w.owesBarrier) {
    noteSkippedBarrier(L, w, skipped, pc);
    w.owesBarrier &= ~lanes;
  }
  for (uint32_t active = b.activeBarriers; active; active &= active - 1)
    checkBarrier(b, uint32_t(std::countr_zero(active)), pc);
  if (w.waiting) releaseWarpSyncAfterExit(w);
}

uint64_t Runner::runWarp(Warp& w, uint64_t budget) {
  Ctx x;
  x.L = &L;
  x.W = &w;
  x.special = w.regs.get();
  uint64_t executed = 0;
  // (for w.windowWorked: stores that changed memory, and loads of words the
  // warp had not read lately)
  auto work = [&L = L] { return L.memoryChanges + L.novelReads; };
  uint64_t workSeen = work();
  uint32_t lowerGroupPc = UINT32_MAX;  // where the group that gave way found a lower one (below)
  while (executed < budget) {
    uint32_t ready = w.exists & ~w.exited & ~w.waiting;
    if (!ready) break;
    uint32_t pc = lowerGroupPc != UINT32_MAX ? lowerGroupPc : selectPc(w, ready);
    lowerGroupPc = UINT32_MAX;
    uint32_t mask;
    OtherPcs othersAt = otherPcs(w, ready, pc, mask);
    uint32_t others = ready & ~mask;
    if (!others) w.rotate = false;
    progress.scheduled(L, w, pc, mask);
    uint32_t curFunc = UINT32_MAX;
    bool yield = false;
    // Runs the group until it diverges, blocks or runs out of budget.
    // `written` means the lanes' pcs have been stored in w.pc.
    bool written = false;
    while (true) {
      const Instr& in = code[pc];
      if (in.func != curFunc) {
        curFunc = in.func;
        x.regs = w.regs.get() + size_t(L.funcBase[curFunc]) * 32;
        x.consts = L.consts[curFunc].data();
      }
      uint32_t exec = mask;
      if (in.guard != ptx::kNoRef) exec = trueLanes(S(x, in.guard), mask, in.guardNeg);
      x.pc = pc;
      x.groupMask = mask;
      ++executed;
      L.threadSteps += uint32_t(std::popcount(mask));
      Ctrl c = ctrl[pc];
      if (c == Ctrl::Plain) {
        if (exec) {
          fns[pc](x, in, exec);
          if (x.faulted) {
            forLanes(mask, [&](uint32_t l) { w.pc[l] = pc; });
            return executed;
          }
        }
        ++pc;
      } else {
        bool regroup = false;
        switch (c) {
          case Ctrl::Bra:
            if (exec == mask || in.uni) pc = in.target;
            else if (exec == 0) ++pc;
            else {
              forLanes(mask, [&](uint32_t l) { w.pc[l] = ((exec >> l) & 1) ? in.target : pc + 1; });
              progress.diverged(L, w, pc, in.target, exec, mask & ~exec);
              regroup = true;
            }
            break;
          case Ctrl::BrxIdx: {
            // Per lane: the table entry its index selects (lanes whose guard is false fall through).
            const std::vector<uint32_t>& table = L.M.ir.branchTables[in.target];
            const uint64_t* index = S(x, in.src[0]);
            uint32_t bad = 0;
            forLanes(exec, [&](uint32_t l) { if (index[l] >= table.size()) bad |= 1u << l; });
            if (bad) {
              uint32_t lane = uint32_t(std::countr_zero(bad));
              L.fault(w, lane, pc, "brx.idx index " + std::to_string(index[lane]) + " outside its table of " +
                                       std::to_string(table.size()) + " targets");
              forLanes(mask, [&](uint32_t l) { w.pc[l] = pc; });
              return executed;
            }
            uint32_t first = exec ? uint32_t(table[index[std::countr_zero(exec)]]) : pc + 1;
            bool same = true;
            forLanes(mask, [&](uint32_t l) {
              uint32_t t = ((exec >> l) & 1) ? table[index[l]] : pc + 1;
              same = same && t == first;
            });
            if (same) pc = first;
            else {
              forLanes(mask, [&](uint32_t l) { w.pc[l] = ((exec >> l) & 1) ? table[index[l]] : pc + 1; });
              regroup = true;
            }
            break;
          }
          case Ctrl::Exit:
            if (exec) {
              forLanes(exec, [&](uint32_t l) { w.pc[l] = pc; });
              exitLanes(w, exec, pc);
              mask &= ~exec;
              if (!mask) { regroup = true; break; }
            }
            ++pc;
            break;
          case Ctrl::Unsupported:
            if (exec) {
              L.fault(w, uint32_t(std::countr_zero(exec)), pc,
                      L.M.unsupported.at(pc) + " (not supported by the emulator)");
              forLanes(mask, [&](uint32_t l) { w.pc[l] = pc; });
              return executed;
            }
            ++pc;
            break;
          case Ctrl::Trap:
            if (exec) {
              L.fault(w, uint32_t(std::countr_zero(exec)), pc, trapMessage(L));
              forLanes(mask, [&](uint32_t l) { w.pc[l] = pc; });
              return executed;
            }
            ++pc;
            break;
          case Ctrl::Nanosleep:
            ++pc;
            yield = true;
            break;
          case Ctrl::Bar:
            if (!barrier(w, x, in, pc, mask, exec)) {
              forLanes(mask, [&](uint32_t l) { w.pc[l] = pc; });
              return executed;
            }
            regroup = true;
            yield = barrierReleased_ && L.cfg.schedule.policy != ScheduleOptions::Policy::Random;  // (run())
            break;
          case Ctrl::WarpSync: {
            if (!warpSync(w, x, in, pc, mask, exec)) { regroup = true; break; }
            if (x.faulted) {  // wmma's memory accesses
              forLanes(mask, [&](uint32_t l) { w.pc[l] = pc; });
              return executed;
            }
            ++pc;
            others = (w.exists & ~w.exited & ~w.waiting) & ~mask;
            break;
          }
          case Ctrl::Call: {
            if (in.mode != ptx::kNotBuiltin) {
              // Every lane whose assert fails prints its line, as on a GPU; the first is the fault.
              bool ok = true, everyLane = in.mode == ptx::kAssertFail;
              forLanes(exec, [&](uint32_t l) { if (ok || everyLane) ok = execBuiltin(x, in, l) && ok; });
              if (!ok) {
                forLanes(mask, [&](uint32_t l) { w.pc[l] = pc; });
                x.faulted = true;
                return executed;
              }
              ++pc;
              break;
            }
            const ptx::CallSite& cs = L.M.ir.calls[in.call];
            uint32_t calleeIndex = cs.callee, later = 0;  // later: lanes calling another function
            if (calleeIndex == ptx::kIndirectCall && exec) {
              uint32_t now = resolveIndirectCall(x, in, exec, calleeIndex);
              if (now == 0) {
                forLanes(mask, [&](uint32_t l) { w.pc[l] = pc; });
                x.faulted = true;
                return executed;
              }
              later = exec & ~now;
              exec = now;
            }
            const ptx::Function& callee = L.M.ir.functions[calleeIndex == ptx::kIndirectCall ? in.func : calleeIndex];
            const ptx::Function& caller = L.M.ir.functions[in.func];
            bool ok = true;
            forLanes(exec, [&](uint32_t l) {
              if (!ok) return;
              uint64_t newBase = w.frameBase[l] + alignUp(caller.frameBytes, 16);
              if ((w.depth[l] >= w.callCapacity && !growCallStack(L, w)) ||
                  newBase + callee.frameBytes > L.stackBytes) {
                L.fault(w, l, pc,
                        L.maxRecursionDepth ? "call stack overflow: the recursion needs more than the " +
                                                  std::to_string(L.stackBytes) +
                                                  " bytes of stack per thread (cudaDeviceSetLimit(cudaLimitStackSize))"
                                            : "call stack overflow");
                ok = false;
                return;
              }
              if (L.maxRecursionDepth && L.recursive[calleeIndex]) saveRegisters(L, w, l, calleeIndex);
              uint8_t* local = w.local.get() + size_t(l) * L.stackBytes;
              L.memoryChanges += !cs.argOffsets.empty();  // frames are memory: see Livelock.h
              for (size_t i = 0; i < cs.argOffsets.size(); ++i)
                std::memcpy(local + newBase + callee.params[i].offset, local + w.frameBase[l] + cs.argOffsets[i],
                            callee.params[i].bytes);
              w.calls[size_t(l) * w.callCapacity + w.depth[l]] = CallFrame{pc, in.call, w.frameBase[l]};
              ++w.depth[l];
              w.frameBase[l] = newBase;
            });
            if (!ok) {
              forLanes(mask, [&](uint32_t l) { w.pc[l] = pc; });
              x.faulted = true;
              return executed;
            }
            if (exec == mask) pc = callee.begin;
            else {
              forLanes(mask, [&](uint32_t l) {
                w.pc[l] = ((exec >> l) & 1) ? callee.begin : ((later >> l) & 1) ? pc : pc + 1;
              });
              regroup = true;
            }
            break;
          }
          case Ctrl::Ret: {
            const ptx::Function& callee = L.M.ir.functions[in.func];
            uint32_t retPc[32];
            bool uniform = true;
            uint32_t firstRet = UINT32_MAX;
            forLanes(exec, [&](uint32_t l) {
              CallFrame f = w.calls[size_t(l) * w.callCapacity + (--w.depth[l])];
              if (L.maxRecursionDepth && L.recursive[in.func]) restoreRegisters(L, w, l, in.func);
              const ptx::CallSite& cs = L.M.ir.calls[f.call];
              uint8_t* local = w.local.get() + size_t(l) * L.stackBytes;
              L.memoryChanges += !cs.retOffsets.empty();
              for (size_t i = 0; i < cs.retOffsets.size(); ++i)
                std::memcpy(local + f.frameBase + cs.retOffsets[i], local + w.frameBase[l] + callee.rets[i].offset,
                            callee.rets[i].bytes);
              w.frameBase[l] = f.frameBase;
              retPc[l] = f.returnPc + 1;
              if (firstRet == UINT32_MAX) firstRet = retPc[l];
              else if (retPc[l] != firstRet) uniform = false;
            });
            if (exec == mask && uniform) pc = firstRet;
            else if (exec == 0) ++pc;
            else {
              forLanes(mask, [&](uint32_t l) { w.pc[l] = ((exec >> l) & 1) ? retPc[l] : pc + 1; });
              regroup = true;
            }
            break;
          }
          default: break;
        }
        if (x.faulted) {
          forLanes(mask, [&](uint32_t l) { w.pc[l] = pc; });
          return executed;
        }
        if (regroup) { written = true; break; }
      }
      if (others) {
        uint32_t join = 0;
        if (othersAt.shared != kSeveralPcs) join = pc == othersAt.shared ? others : 0;
        else if ((othersAt.bits >> (pc % 64)) & 1)
          forLanes(others, [&](uint32_t l) { if (w.pc[l] == pc) join |= 1u << l; });
        if (join) {
          mask |= join;
          others &= ~join;
          uint32_t none;  // (no lane is at kSeveralPcs)
          othersAt = otherPcs(w, others, kSeveralPcs, none);
          w.groupSteps = 0;
          w.busyWindows = 0;
          w.windowWorked = false;
          workSeen = work();
          if (!others) w.rotate = false;
        } else if (++w.groupSteps > kRotateSteps) {
          w.groupSteps = 0;
          bool busy = w.windowWorked || work() != workSeen;
          w.windowWorked = false;
          workSeen = work();
          if (!busy || ++w.busyWindows >= kBusyWindows) {
            w.busyWindows = 0;
            w.rotate = true;
            break;
          }
        }
        // The lowest group runs, at every step, not only when a turn starts:
        // a group that jumped past a lower one (a case of a switch, to the
        // switch's end) waits there for it, as a GPU reconverges the warp.
        // Running on, it went round its loop ahead of the others, met them at
        // the back edge iterations apart, and left the loop without them
        // (ForwardProgress then warned about a valid program). Not while
        // groups rotate: a spin loop waits for a higher group to move.
        if (others && !w.rotate && pc > othersAt.lowest) {
          lowerGroupPc = othersAt.lowest;  // (what selectPc would find: no lane stopped or left)
          break;
        }
      }
      if (yield || executed >= budget) break;
    }
    if (!written) forLanes(mask, [&](uint32_t l) { w.pc[l] = pc; });
    w.lastPc = pc;
    progress.stopped(L, w);
    if (yield) break;
  }
  w.windowWorked |= work() != workSeen;  // (other warps run before its next turn)
  return executed;
}

absl::Status Runner::run() {
  std::mt19937_64 rng(L.cfg.schedule.seed);
  bool random = L.cfg.schedule.policy == ScheduleOptions::Policy::Random;
  uint64_t quantum = std::max<uint32_t>(L.cfg.schedule.quantum, 1);
  uint64_t limit = L.cfg.schedule.stepLimit;
  LivelockDetector livelock;
  auto start = std::chrono::steady_clock::now();  // moved on by the time spent waiting for the host
  const std::chrono::duration<double> timeLimit(L.cfg.schedule.timeLimitSeconds);
  uint32_t nblocks = uint32_t(L.blocks.size());
  Residency residency(L);  // blocks come in waves, as on the GPU (sim/Residency.h)
  uint32_t resident = residency.limit();
  std::vector<uint32_t> order, alive;
  std::vector<uint32_t> liveWarps(nblocks, 0);
  uint32_t nextBlock = 0, blocksDone = 0;
  uint32_t finishedInRound = 0;  // blocks done since the round began (retired at the next)
  double nextProgress = L.cfg.schedule.progressSeconds;
  // Between blocks too: a round of many blocks can take minutes. The clock
  // is read once, and only when a progress line or a time limit needs it.
  auto interruptedOrProgress = [&]() -> absl::Status {
    bool reporting = L.cfg.schedule.onProgress && nextProgress > 0, timed = timeLimit.count() > 0;
    auto elapsed = reporting || timed ? std::chrono::steady_clock::now() - start : std::chrono::nanoseconds(0);
    if (double secs = std::chrono::duration<double>(elapsed).count(); reporting && secs >= nextProgress) {
      L.cfg.schedule.onProgress(LaunchProgress{blocksDone + finishedInRound, nblocks, L.steps, secs});
      while (nextProgress <= secs) nextProgress += L.cfg.schedule.progressSeconds;
    }
    if (L.cfg.schedule.interrupt && L.cfg.schedule.interrupt->load(std::memory_order_relaxed))
      return absl::CancelledError("kernel '" + L.kernelName + "': interrupted by a signal; live warps:" +
                                  waitingReport(true));
    if (timed && elapsed > timeLimit) {
      return absl::DeadlineExceededError("kernel '" + L.kernelName + "': time limit of " +
                                         seconds(L.cfg.schedule.timeLimitSeconds) + " s reached after " +
                                         std::to_string(L.steps) +
                                         " warp instructions (an endless loop?); live warps:" + waitingReport(true));
    }
    return absl::OkStatus();
  };
  auto admit = [&]() {
    uint32_t b = nextBlock++;
    materialize(L, b);
    for (uint32_t wi = L.blocks[b].firstWarp; wi < L.blocks[b].firstWarp + L.blocks[b].numWarps; ++wi) order.push_back(wi);
    liveWarps[b] = L.blocks[b].numWarps;
  };
  L.warps.reserve(size_t(resident) * (nblocks ? L.blocks[0].numWarps : 0));
  while (nextBlock < resident) admit();
  while (!order.empty()) {
    alive.clear();
    uint32_t retired = 0;
    for (uint32_t i : order) {
      if (!L.warps[i].done()) { alive.push_back(i); continue; }
      uint32_t b = L.warps[i].block;
      if (--liveWarps[b] == 0) { retire(L, b); ++retired; ++blocksDone; }
    }
    order.swap(alive);
    while (retired-- > 0 && nextBlock < nblocks) admit();
    if (order.empty()) break;
    if (random) std::shuffle(order.begin(), order.end(), rng);
    if (absl::Status s = interruptedOrProgress(); !s.ok()) return s;
    bool progress = false;
    finishedInRound = 0;
    // Round-robin goes block by block: a block's warps take turns (a
    // quantum each) until they finish or all wait, or until kQuietPasses
    // turns in a row changed no memory and read nothing new (a spin-wait on
    // another block; Launch::novelReads), before
    // the next block's; the random schedule shuffles warps. (One turn per
    // warp per round interleaved every resident block, and the analysis's
    // shadow of a block's words was out of the caches by its next turn:
    // histogram 102 -> 61 s.)
    for (size_t at = 0; at < order.size();) {
      size_t end = at + 1;
      if (!random)
        while (end < order.size() && L.warps[order[end]].block == L.warps[order[at]].block) ++end;
      uint64_t changes = L.memoryChanges, novelReads = L.novelReads;
      uint32_t quiet = 0, readOnly = 0;
      for (uint32_t pass = 0; pass < (random ? 1 : kMaxBlockPasses); ++pass) {
        bool ran = false;
        barrierReleased_ = false;
        for (size_t k = at; k < end; ++k) {
          Warp& w = L.warps[order[k]];
          if (w.done()) continue;
          uint64_t budget = random ? 1 + rng() % quantum : quantum;
          budget = std::min<uint64_t>(budget, limit - std::min(limit, L.steps));
          uint64_t n = runWarp(w, budget);
          L.steps += n;
          if (!L.error.ok()) return L.error;
          if (n) ran = true;
          if (L.steps >= limit) {
            return absl::ResourceExhaustedError("kernel '" + L.kernelName + "': step limit of " +
                                                std::to_string(limit) +
                                                " warp instructions reached (a livelock, or a lock that is never "
                                                "released? a longer run needs --step-limit); live warps:" +
                                                waitingReport(true));
          }
          // After a barrier the warps go on in warp order, so a tile that
          // every warp reads meets its readers in order (the warp that came
          // last went on first, and each of the others' reads of a word was
          // put before its record: a quarter of matrixMul's analysis). (A
          // pass that released a barrier and changed no memory is still
          // quiet: a spin-wait on another block with __syncthreads in its
          // loop lets the next block run.)
          if (barrierReleased_ && !random) break;
        }
        progress |= ran;
        if (!ran) break;
        if (L.memoryChanges != changes) {
          changes = L.memoryChanges;
          novelReads = L.novelReads;
          quiet = readOnly = 0;
        } else if (L.novelReads != novelReads && ++readOnly < kReadOnlyPasses) {
          novelReads = L.novelReads;  // reading on: not a spin-wait
        } else if (++quiet >= kQuietPasses) {
          break;
        }
        if (pass % 64 == 63)
          if (absl::Status s = interruptedOrProgress(); !s.ok()) return s;
      }
      if (!random) {
        bool finished = true;
        for (size_t k = at; k < end; ++k) finished = finished && L.warps[order[k]].done();
        finishedInRound += finished;
        if (absl::Status s = interruptedOrProgress(); !s.ok()) return s;
      }
      at = end;
    }
    bool anyLive = false;
    for (uint32_t i : order) anyLive = anyLive || !L.warps[i].done();
    if (anyLive && !progress) {
      return absl::FailedPreconditionError("kernel '" + L.kernelName + "': deadlock: every live warp waits forever:" +
                                           waitingReport(false));
    }
    bool stuck = anyLive && !random && livelock.afterRound(L, order);  // sound for the deterministic schedule only
    if (anyLive && nextBlock < nblocks) {
      if (uint32_t more = residency.admitOnDemand(L, order, stuck, random); more > 0) {
        while (more-- > 0 && nextBlock < nblocks) admit();
        L.residencyWarning = residency.warning(L);
        continue;
      }
    }
    if (stuck) {
      if (auto waited = waitForHost(L)) {  // the host went on, and may have written what this launch waits for
        start += *waited;
        livelock = LivelockDetector{};
        continue;
      }
      return absl::FailedPreconditionError(
          "kernel '" + L.kernelName +
          "': deadlock: the running warps spin without changing memory, so no thread can ever make progress "
          "(a spin-wait on a value only a waiting thread would write?)" + hostHandOffNote(L) + ":" +
          waitingReport(true));
    }
    if (absl::Status s = interruptedOrProgress(); !s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace predatar::sim::detail
