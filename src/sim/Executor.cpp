// loadPtx and launch: decoding into handlers, launch setup, the warp
// scheduler and the control-flow / synchronization instructions.
#include <cxxabi.h>

#include <algorithm>
#include <chrono>
#include <random>

#include "ptx/Parser.h"
#include "sim/Exec.h"
#include "sim/BarrierCheck.h"
#include "sim/ForwardProgress.h"
#include "sim/Livelock.h"
#include "sim/Residency.h"

namespace predatar::sim {

using ptx::Instr;
using ptx::Op;

namespace {

constexpr uint64_t kRotateSteps = 256;  // divergent group steps before another group gets a turn

std::string demangle(const std::string& name) {
  int status = 0;
  char* d = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
  if (status != 0 || !d) return name;
  std::string r(d);
  std::free(d);
  return r;
}

uint64_t alignUp(uint64_t v, uint64_t a) { return a <= 1 ? v : (v + a - 1) / a * a; }

std::string functionName(const ptx::Module& m, uint32_t f) { return f < m.functions.size() ? m.functions[f].name : "?"; }

// CUDA's own headers (atomicCAS, __shfl_sync, ...): reports show the user's
// line that called them, not the header's.
bool toolkitHeader(const std::string& file) {
  return file.find("/include/") != std::string::npos &&
         (file.find("cuda") != std::string::npos || file.find("crt/") != std::string::npos);
}

// A .loc with its inlining chain: the innermost position in user code, then
// each call site out, named by the function it lies in (the next inlined
// function out, or the PTX function at the end).
SourcePosition sourcePosition(const ptx::Module& ir, const ptx::SourceLoc& loc) {
  std::vector<InlinedCall> frames;  // [0]: own position; then call sites
  frames.push_back(InlinedCall{"", ir.fileName(loc.file), loc.line, loc.column});
  const ptx::SourceLoc* cur = &loc;
  for (int depth = 0; cur->inlinedAt < ir.sources.size() && depth < 64; ++depth) {
    const ptx::SourceLoc& site = ir.sources[cur->inlinedAt];
    std::string caller;
    if (site.inlinedAt != UINT32_MAX && !site.function.empty()) {
      auto name = ir.debugStrings.find(site.function);
      caller = name != ir.debugStrings.end() ? demangle(name->second) : site.function;
    } else {
      caller = demangle(functionName(ir, cur->enclosing));
    }
    frames.push_back(InlinedCall{caller.substr(0, caller.find('(')), ir.fileName(site.file), site.line, site.column});
    cur = &site;
  }
  size_t first = 0;
  while (first + 1 < frames.size() && toolkitHeader(frames[first].file)) ++first;
  SourcePosition p{frames[first].file, frames[first].line, frames[first].column};
  p.inlinedInto.assign(frames.begin() + long(first) + 1, frames.end());
  return p;
}

}  // namespace

// ---------------------------------------------------------------- loading

absl::StatusOr<std::unique_ptr<Module>> loadPtx(std::string_view ptxText, std::string sourceName,
                                                DeviceMemory& memory) {
  auto parsed = ptx::parse(ptxText, sourceName);
  if (!parsed.ok()) return parsed.status();
  auto mod = std::make_unique<LoadedModule>();
  mod->ir = std::move(*parsed);
  const ptx::Module& ir = mod->ir;
  mod->fns.assign(ir.code.size(), nullptr);
  mod->ctrl.assign(ir.code.size(), Ctrl::Plain);
  for (uint32_t pc = 0; pc < ir.code.size(); ++pc) {
    const Instr& in = ir.code[pc];
    std::string error;
    switch (in.op) {
      case Op::Bra: mod->ctrl[pc] = Ctrl::Bra; continue;
      case Op::Call: mod->ctrl[pc] = Ctrl::Call; continue;
      case Op::Ret: mod->ctrl[pc] = Ctrl::Ret; continue;
      case Op::Exit: mod->ctrl[pc] = Ctrl::Exit; continue;
      case Op::Trap: mod->ctrl[pc] = Ctrl::Trap; continue;
      case Op::Bar: mod->ctrl[pc] = Ctrl::Bar; continue;
      case Op::BarWarpSync: case Op::Shfl: case Op::Vote: case Op::Match: case Op::Redux:
        mod->ctrl[pc] = Ctrl::WarpSync;
        continue;
      case Op::Nanosleep: mod->ctrl[pc] = Ctrl::Nanosleep; continue;
      case Op::BrxIdx: mod->ctrl[pc] = Ctrl::BrxIdx; continue;
      case Op::AddCarry: case Op::SubCarry: case Op::MadCarry: case Op::Mul24: case Op::Mad24: case Op::Dp4a:
      case Op::Dp2a: case Op::Vabsdiff4:
        mod->fns[pc] = selectIntegerExtended(in, error);
        break;
      case Op::Tex: case Op::SurfLoad: case Op::SurfStore: mod->fns[pc] = selectTexture(in, error); break;
      case Op::WmmaLoad: case Op::WmmaStore: case Op::WmmaMma:  // warp-collective
        error = checkWarpMatrix(ir, in);
        if (error.empty()) { mod->ctrl[pc] = Ctrl::WarpSync; continue; }
        error = "unsupported instruction '" + ptx::describe(ir, pc) + "': " + error;
        break;
      case Op::CpAsync: case Op::CpAsyncCommit: case Op::CpAsyncWait: case Op::CpAsyncMbarrierArrive:
      case Op::MbarrierInit: case Op::MbarrierInval: case Op::MbarrierArrive: case Op::MbarrierTx:
      case Op::MbarrierTestWait: case Op::MbarrierPendingCount:
        mod->fns[pc] = selectAsyncCopy(in, error);
        break;
      case Op::CvtTf32: mod->fns[pc] = &execCvtTf32; break;
      case Op::Unsupported: error = "unsupported instruction '" + ir.unsupported.at(pc) + "'"; break;
      case Op::Ld: case Op::St: case Op::Atom: case Op::Red: case Op::Membar: case Op::Nop: case Op::Prefetch:
        mod->fns[pc] = selectMemory(in, error);
        break;
      default: mod->fns[pc] = selectAlu(in, error); break;
    }
    if (!mod->fns[pc]) {
      // Refused by name when a thread executes it (kernel, PC, line, thread),
      // so that kernels of the module that do not use it still run.
      mod->ctrl[pc] = Ctrl::Unsupported;
      mod->unsupported[pc] = error;
    }
  }
  mod->varAddress.assign(ir.variables.size(), 0);
  for (size_t i = 0; i < ir.variables.size(); ++i) {
    const ptx::Variable& v = ir.variables[i];
    if (v.space != ptx::Space::Global && v.space != ptx::Space::Const) continue;
    uint64_t a = memory.allocate(std::max<uint64_t>(v.bytes, 1), v.name);
    if (!v.init.empty()) std::memcpy(reinterpret_cast<void*>(a), v.init.data(), std::min<size_t>(v.init.size(), v.bytes));
    mod->varAddress[i] = a;
    mod->globalVars.push_back(GlobalVariable{v.name, a, v.bytes, v.space == ptx::Space::Const});
  }
  for (auto& f : ir.functions) {
    if (!f.entry || !f.defined) continue;
    KernelSignature sig;
    sig.name = f.name;
    for (auto& p : f.params) sig.params.push_back(KernelParam{p.name, p.bytes, p.align});
    mod->sigs.push_back(std::move(sig));
  }
  return std::unique_ptr<Module>(std::move(mod));
}

// ---------------------------------------------------------------- diagnostics

std::string Launch::where(uint32_t pc) const {
  const ptx::Module& ir = M.ir;
  std::string s = "pc " + std::to_string(pc);
  if (pc < ir.code.size()) {
    const Instr& in = ir.code[pc];
    s += " (" + ir.sourceName + ":" + std::to_string(in.line);
    if (in.source != UINT32_MAX) {
      const auto& loc = ir.sources[in.source];
      s += ", " + ir.fileName(loc.file) + ":" + std::to_string(loc.line) + ":" + std::to_string(loc.column);
    }
    s += ", " + ptx::describe(ir, pc);
    if (in.func != kernel) s += " in " + functionName(ir, in.func);
    s += ")";
  }
  return s;
}

std::string Launch::threadName(const Warp& w, uint32_t lane) const {
  const Block& b = blocks[w.block];
  uint32_t t = w.inBlock * 32 + lane;
  uint32_t bx = cfg.block.x, by = cfg.block.y;
  return "block (" + std::to_string(b.idx.x) + "," + std::to_string(b.idx.y) + "," + std::to_string(b.idx.z) +
         ") thread (" + std::to_string(t % bx) + "," + std::to_string((t / bx) % by) + "," +
         std::to_string(t / (bx * by)) + ")";
}

void Launch::recordFaultSite(const Warp& w, uint32_t lane, uint32_t pc) {
  if (faultSite) return;
  FaultSite site;
  site.pc = pc;
  const Block& b = blocks[w.block];
  uint32_t t = w.inBlock * 32 + lane;
  site.blockIdx = b.idx;
  site.threadIdx = Dim3{t % cfg.block.x, (t / cfg.block.x) % cfg.block.y, t / (cfg.block.x * cfg.block.y)};
  const ptx::Module& ir = M.ir;
  if (pc < ir.code.size()) {
    const Instr& in = ir.code[pc];
    site.ptxLine = in.line;
    if (in.source < ir.sources.size()) {
      SourcePosition pos = sourcePosition(ir, ir.sources[in.source]);  // the user's line, not a CUDA header's
      site.file = pos.file;
      site.line = pos.line;
      site.column = pos.column;
    }
  }
  faultSite = std::move(site);
}

void Launch::fault(const Warp& w, uint32_t lane, uint32_t pc, const std::string& what) {
  if (!error.ok()) return;
  recordFaultSite(w, lane, pc);
  error = absl::FailedPreconditionError("kernel '" + kernelName + "': " + what + " at " + where(pc) + " by " +
                                        threadName(w, lane));
}

// ---------------------------------------------------------------- execution

namespace {

// Allocates a block's shared memory and its warps' registers and local memory.
void materialize(Launch& L, uint32_t b) {
  const LaunchConfig& config = L.cfg;
  Block& blk = L.blocks[b];
  blk.resident = true;
  if (L.sharedBytes) {
    blk.shared = std::make_unique<uint8_t[]>(L.sharedBytes);
    std::memset(blk.shared.get(), 0, L.sharedBytes);
  }
  size_t slots = size_t(L.slotsPerWarp) * 32;
  uint32_t wpb = blk.numWarps;
  for (uint32_t wi = 0; wi < wpb; ++wi) {
    Warp& w = L.warps[blk.firstWarp + wi];
    w.regs = std::make_unique<uint64_t[]>(slots);
    std::memset(w.regs.get(), 0, slots * 8);
    uint64_t* sp = w.regs.get();
    auto setSp = [&](uint32_t idx, auto fn) {
      for (uint32_t l = 0; l < 32; ++l) sp[idx * 32 + l] = fn(l);
    };
    setSp(ptx::kTidX, [&](uint32_t l) { return (wi * 32 + l) % config.block.x; });
    setSp(ptx::kTidY, [&](uint32_t l) { return ((wi * 32 + l) / config.block.x) % config.block.y; });
    setSp(ptx::kTidZ, [&](uint32_t l) { return (wi * 32 + l) / (config.block.x * config.block.y); });
    setSp(ptx::kNtidX, [&](uint32_t) { return config.block.x; });
    setSp(ptx::kNtidY, [&](uint32_t) { return config.block.y; });
    setSp(ptx::kNtidZ, [&](uint32_t) { return config.block.z; });
    setSp(ptx::kCtaidX, [&](uint32_t) { return blk.idx.x; });
    setSp(ptx::kCtaidY, [&](uint32_t) { return blk.idx.y; });
    setSp(ptx::kCtaidZ, [&](uint32_t) { return blk.idx.z; });
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
    if (L.stackBytes) {
      w.local = std::make_unique<uint8_t[]>(32 * L.stackBytes);
      std::memset(w.local.get(), 0, 32 * L.stackBytes);
    }
    if (L.hasCalls) w.calls.resize(size_t(32) * L.maxDepth);
    w.started = true;
  }
}

// Frees the memory of a finished block.
void retire(Launch& L, uint32_t b) {
  Block& blk = L.blocks[b];
  blk.shared.reset();
  for (uint32_t wi = blk.firstWarp; wi < blk.firstWarp + blk.numWarps; ++wi) {
    Warp& w = L.warps[wi];
    w.regs.reset();
    w.local.reset();
    std::vector<CallFrame>().swap(w.calls);
  }
}

class Runner {
 public:
  explicit Runner(Launch& L) : L(L), code(L.M.ir.code), fns(L.M.fns), ctrl(L.M.ctrl) {}

  absl::Status run();
  const std::string& progressWarning() const { return progress.warning(); }

 private:
  uint64_t runWarp(Warp& w, uint64_t budget);
  uint32_t selectPc(Warp& w, uint32_t ready);
  void exitLanes(Warp& w, uint32_t lanes, uint32_t pc);
  void checkBarrier(Block& b, uint32_t id, uint32_t pc);
  bool barrier(Warp& w, Ctx& x, const Instr& in, uint32_t pc, uint32_t mask, uint32_t exec);
  // returns true when the group may continue at pc+1 with `mask` updated
  bool warpSync(Warp& w, Ctx& x, const Instr& in, uint32_t pc, uint32_t& mask, uint32_t exec);
  void releaseWarpSyncAfterExit(Warp& w);
  std::string waitingReport(bool includeRunning);

  Launch& L;
  const std::vector<Instr>& code;
  const std::vector<ExecFn>& fns;
  const std::vector<Ctrl>& ctrl;
  ForwardProgress progress;  // lanes of a warp that need a scheduler fairer than the GPU's
};

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
  for (uint32_t active = b.activeBarriers; active; active &= active - 1)
    checkBarrier(b, uint32_t(std::countr_zero(active)), pc);
  if (w.waiting) releaseWarpSyncAfterExit(w);
}

void Runner::checkBarrier(Block& b, uint32_t id, uint32_t pc) {
  if (!(b.activeBarriers & (1u << id))) return;
  Barrier& bar = b.barriers[id];
  uint32_t expected = bar.expected ? bar.expected : b.threads - b.exitedThreads;
  if (bar.arrived < expected) return;
  if (auto divergent = findDivergentBarrier(L, b, id)) {  // synccheck: waiters stay, the launch stops
    L.fault(*divergent->warp, divergent->lane, divergent->pc, divergent->what);
    return;
  }
  BarrierEvent ev;
  ev.block = b.index;
  ev.threads = std::move(bar.threads);
  std::sort(ev.threads.begin(), ev.threads.end());
  ev.origin = L.origin(pc);
  L.sink.barrier(ev);
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
  }
  bar = Barrier{};
  b.activeBarriers &= ~(1u << id);
}

bool Runner::barrier(Warp& w, Ctx& x, const Instr& in, uint32_t pc, uint32_t mask, uint32_t exec) {
  forLanes(mask & ~exec, [&](uint32_t l) { w.pc[l] = pc + 1; });
  if (!exec) return true;
  uint32_t first = uint32_t(std::countr_zero(exec));
  uint32_t id = uint32_t(S(x, in.src[0])[first]);
  uint32_t count = (in.nsrc > 1 && in.src[1] != ptx::kNoRef) ? uint32_t(S(x, in.src[1])[first]) : 0;
  if (id >= 16) {
    L.fault(w, first, pc, "barrier id " + std::to_string(id) + " out of range");
    x.faulted = true;
    return false;
  }
  Block& b = L.blocks[w.block];
  Barrier& bar = b.barriers[id];
  if (!(b.activeBarriers & (1u << id))) {
    bar = Barrier{};
    bar.expected = count;
    b.activeBarriers |= 1u << id;
  }
  auto kind = ptx::BarKind(in.mode);
  bar.arrived += uint32_t(std::popcount(exec));
  forLanes(exec, [&](uint32_t l) { bar.threads.push_back(w.inBlock * 32 + l); });
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
  }
  checkBarrier(b, id, pc);
  if (!L.error.ok()) {
    x.faulted = true;
    return false;
  }
  return true;
}

uint32_t memberMaskSrc(const Instr& in) {
  switch (in.op) {
    case Op::Shfl: return 3;
    case Op::BarWarpSync: return 0;
    default: return 1;
  }
}

bool Runner::warpSync(Warp& w, Ctx& x, const Instr& in, uint32_t pc, uint32_t& mask, uint32_t exec) {
  if (!exec) return true;
  uint32_t first = uint32_t(std::countr_zero(exec));
  uint32_t member = uint32_t(S(x, in.src[memberMaskSrc(in)])[first]);
  uint32_t live = w.exists & ~w.exited;
  uint32_t required = member & live;
  bool anyPc = in.op == Op::BarWarpSync;
  uint32_t waitersHere = 0, waitersElsewhere = 0;
  forLanes(w.waiting, [&](uint32_t l) {
    if (w.waitKind[l] != kWaitWarpSync) return;
    if (w.pc[l] == pc) waitersHere |= 1u << l;
    else if (anyPc && code[w.pc[l]].op == Op::BarWarpSync) waitersElsewhere |= 1u << l;
  });
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
  switch (in.op) {
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

uint64_t Runner::runWarp(Warp& w, uint64_t budget) {
  Ctx x;
  x.L = &L;
  x.W = &w;
  x.special = w.regs.get();
  uint64_t executed = 0;
  while (executed < budget) {
    uint32_t ready = w.exists & ~w.exited & ~w.waiting;
    if (!ready) break;
    uint32_t pc = selectPc(w, ready);
    uint32_t mask = 0;
    forLanes(ready, [&](uint32_t l) { if (w.pc[l] == pc) mask |= 1u << l; });
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
      if (in.guard != ptx::kNoRef) {
        const uint64_t* g = S(x, in.guard);
        uint32_t gm = 0;
        forLanes(mask, [&](uint32_t l) { gm |= uint32_t((g[l] != 0) != in.guardNeg) << l; });
        exec = gm;
      }
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
              L.fault(w, uint32_t(std::countr_zero(exec)), pc, "trap instruction executed");
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
              bool ok = true;
              forLanes(exec, [&](uint32_t l) { if (ok) ok = execBuiltin(x, in, l); });
              if (!ok) {
                forLanes(mask, [&](uint32_t l) { w.pc[l] = pc; });
                x.faulted = true;
                return executed;
              }
              ++pc;
              break;
            }
            const ptx::CallSite& cs = L.M.ir.calls[in.call];
            const ptx::Function& callee = L.M.ir.functions[cs.callee];
            const ptx::Function& caller = L.M.ir.functions[in.func];
            bool ok = true;
            forLanes(exec, [&](uint32_t l) {
              if (!ok) return;
              uint64_t newBase = w.frameBase[l] + alignUp(caller.frameBytes, 16);
              if (w.depth[l] >= L.maxDepth || newBase + callee.frameBytes > L.stackBytes) {
                L.fault(w, l, pc, "call stack overflow");
                ok = false;
                return;
              }
              uint8_t* local = w.local.get() + size_t(l) * L.stackBytes;
              L.memoryChanges += !cs.argOffsets.empty();  // frames are memory: see Livelock.h
              for (size_t i = 0; i < cs.argOffsets.size(); ++i)
                std::memcpy(local + newBase + callee.params[i].offset, local + w.frameBase[l] + cs.argOffsets[i],
                            callee.params[i].bytes);
              w.calls[size_t(l) * L.maxDepth + w.depth[l]] = CallFrame{pc, in.call, w.frameBase[l]};
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
              forLanes(mask, [&](uint32_t l) { w.pc[l] = ((exec >> l) & 1) ? callee.begin : pc + 1; });
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
              CallFrame f = w.calls[size_t(l) * L.maxDepth + (--w.depth[l])];
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
        forLanes(others, [&](uint32_t l) { if (w.pc[l] == pc) join |= 1u << l; });
        if (join) {
          mask |= join;
          others &= ~join;
          w.groupSteps = 0;
          if (!others) w.rotate = false;
        } else if (++w.groupSteps > kRotateSteps) {
          w.groupSteps = 0;
          w.rotate = true;
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
  return executed;
}

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

// What a real device refuses at launch, refused here before anything is
// allocated: an sm_90 block has at most 227 KiB of shared memory and a thread
// at most 512 KiB of local memory (stack frames).
constexpr uint64_t kMaxSharedBytesPerBlock = 227 * 1024;
constexpr uint64_t kMaxLocalBytesPerThread = 512 * 1024;

std::string seconds(double s) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", s);
  return text;
}

absl::Status checkMemoryPerBlock(const Launch& L) {
  if (L.sharedBytes > kMaxSharedBytesPerBlock)
    return absl::InvalidArgumentError("kernel '" + L.kernelName + "': " + std::to_string(L.sharedBytes) +
                                      " bytes of shared memory per block (static + dynamic); the device has " +
                                      std::to_string(kMaxSharedBytesPerBlock));
  if (L.stackBytes > kMaxLocalBytesPerThread)
    return absl::InvalidArgumentError("kernel '" + L.kernelName + "': " + std::to_string(L.stackBytes) +
                                      " bytes of local memory per thread; the device allows " +
                                      std::to_string(kMaxLocalBytesPerThread));
  return absl::OkStatus();
}

absl::Status Runner::run() {
  std::mt19937_64 rng(L.cfg.schedule.seed);
  bool random = L.cfg.schedule.policy == ScheduleOptions::Policy::Random;
  uint64_t quantum = std::max<uint32_t>(L.cfg.schedule.quantum, 1);
  uint64_t limit = L.cfg.schedule.stepLimit;
  LivelockDetector livelock;
  const auto start = std::chrono::steady_clock::now();
  const std::chrono::duration<double> timeLimit(L.cfg.schedule.timeLimitSeconds);
  uint32_t nblocks = uint32_t(L.blocks.size());
  Residency residency(L);  // blocks come in waves, as on the GPU (sim/Residency.h)
  uint32_t resident = residency.limit();
  std::vector<uint32_t> order, alive;
  std::vector<uint32_t> liveWarps(nblocks, 0);
  uint32_t nextBlock = 0;
  auto admit = [&]() {
    uint32_t b = nextBlock++;
    materialize(L, b);
    for (uint32_t wi = L.blocks[b].firstWarp; wi < L.blocks[b].firstWarp + L.blocks[b].numWarps; ++wi) order.push_back(wi);
    liveWarps[b] = L.blocks[b].numWarps;
  };
  while (nextBlock < resident) admit();
  while (!order.empty()) {
    alive.clear();
    uint32_t retired = 0;
    for (uint32_t i : order) {
      if (!L.warps[i].done()) { alive.push_back(i); continue; }
      uint32_t b = L.warps[i].block;
      if (--liveWarps[b] == 0) { retire(L, b); ++retired; }
    }
    order.swap(alive);
    while (retired-- > 0 && nextBlock < nblocks) admit();
    if (order.empty()) break;
    if (random) std::shuffle(order.begin(), order.end(), rng);
    if (L.cfg.schedule.interrupt && L.cfg.schedule.interrupt->load(std::memory_order_relaxed))
      return absl::CancelledError("kernel '" + L.kernelName + "': interrupted by a signal; live warps:" +
                                  waitingReport(true));
    bool progress = false;
    for (uint32_t i : order) {
      Warp& w = L.warps[i];
      if (w.done()) continue;
      uint64_t budget = random ? 1 + rng() % quantum : quantum;
      budget = std::min<uint64_t>(budget, limit - std::min(limit, L.steps));
      uint64_t n = runWarp(w, budget);
      L.steps += n;
      if (!L.error.ok()) return L.error;
      if (n) progress = true;
      if (L.steps >= limit) {
        return absl::ResourceExhaustedError("kernel '" + L.kernelName + "': step limit of " + std::to_string(limit) +
                                            " warp instructions reached (a livelock, or a lock that is never "
                                            "released? a longer run needs --step-limit); live warps:" + waitingReport(true));
      }
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
      return absl::FailedPreconditionError(
          "kernel '" + L.kernelName +
          "': deadlock: the running warps spin without changing memory, so no thread can ever make progress "
          "(a spin-wait on a value only a waiting thread would write?):" + waitingReport(true));
    }
    if (timeLimit.count() > 0 && std::chrono::steady_clock::now() - start > timeLimit) {
      return absl::DeadlineExceededError("kernel '" + L.kernelName + "': time limit of " +
                                         seconds(L.cfg.schedule.timeLimitSeconds) + " s reached after " + std::to_string(L.steps) +
                                         " warp instructions (an endless loop?); live warps:" + waitingReport(true));
    }
  }
  return absl::OkStatus();
}

}  // namespace

// ---------------------------------------------------------------- launch

std::string demangledName(const std::string& mangled) { return demangle(mangled); }

const char* cudaErrorNameOf(const absl::Status& status) {
  std::string m(status.message());
  auto has = [&](const char* what) { return m.find(what) != std::string::npos; };
  switch (status.code()) {
    case absl::StatusCode::kOk: return "cudaSuccess";
    case absl::StatusCode::kFailedPrecondition:  // faults of the emulated kernel
      if (has("misaligned")) return "cudaErrorMisalignedAddress";
      if (has("out-of-bounds") || has("out of bounds") || has("illegal address")) return "cudaErrorIllegalAddress";
      if (has("deadlock")) return "cudaErrorLaunchTimeout";
      if (has("assert")) return "cudaErrorAssert";
      return "cudaErrorLaunchFailure";
    case absl::StatusCode::kOutOfRange: return "cudaErrorIllegalAddress";
    case absl::StatusCode::kDeadlineExceeded:
    case absl::StatusCode::kResourceExhausted: return "cudaErrorLaunchTimeout";
    case absl::StatusCode::kUnimplemented: return "cudaErrorNotSupported";
    case absl::StatusCode::kInvalidArgument: return "cudaErrorInvalidValue";
    default: return "cudaErrorLaunchFailure";
  }
}

absl::Status launch(const Module& module, std::string_view kernel, const LaunchConfig& config,
                    DeviceMemory& memory, EventSink& sink) {
  return launch(module, kernel, config, memory, sink, nullptr);
}

absl::Status launch(const Module& moduleBase, std::string_view kernelName, const LaunchConfig& config,
                    DeviceMemory& memory, EventSink& sink, LaunchStats* stats) {
  const auto* mod = dynamic_cast<const LoadedModule*>(&moduleBase);
  if (!mod) return absl::InvalidArgumentError("module was not created by loadPtx");
  const ptx::Module& ir = mod->ir;
  int32_t k = -1;
  for (size_t i = 0; i < ir.functions.size() && k < 0; ++i) {
    const auto& f = ir.functions[i];
    if (!f.entry || !f.defined) continue;
    if (f.name == kernelName) k = int32_t(i);
  }
  for (size_t i = 0; i < ir.functions.size() && k < 0; ++i) {
    const auto& f = ir.functions[i];
    if (!f.entry || !f.defined) continue;
    std::string d = demangle(f.name);
    if (d == kernelName || d.substr(0, d.find('(')) == kernelName) k = int32_t(i);
  }
  if (k < 0) return absl::NotFoundError("no kernel '" + std::string(kernelName) + "' in " + ir.sourceName);
  const ptx::Function& K = ir.functions[k];
  Launch L(*mod, memory, sink);
  L.kernel = uint32_t(k);
  L.kernelName = demangle(K.name);
  L.cfg = config;
  if (config.grid.count() == 0 || config.block.count() == 0)
    return absl::InvalidArgumentError("kernel '" + L.kernelName + "': empty grid or block");
  if (config.block.count() > 1024)
    return absl::InvalidArgumentError("kernel '" + L.kernelName + "': more than 1024 threads per block");
  if (config.args.size() != K.params.size())
    return absl::InvalidArgumentError("kernel '" + L.kernelName + "' takes " + std::to_string(K.params.size()) +
                                      " arguments, " + std::to_string(config.args.size()) + " given");
  // parameters
  L.params.assign(std::max<uint32_t>(K.paramBytes, 1), 0);
  for (size_t i = 0; i < K.params.size(); ++i) {
    if (!config.args[i]) return absl::InvalidArgumentError("null argument pointer for parameter " + K.params[i].name);
    std::memcpy(L.params.data() + K.params[i].offset, config.args[i], K.params[i].bytes);
  }
  // reachable functions, recursion check, stack size
  std::vector<int> state(ir.functions.size(), 0);  // 0 new, 1 visiting, 2 done
  std::vector<uint64_t> stack(ir.functions.size(), 0);
  std::vector<uint32_t> depth(ir.functions.size(), 0);
  std::vector<uint32_t> reach;
  std::string recursion;
  std::function<void(uint32_t)> visit = [&](uint32_t f) {
    state[f] = 1;
    uint64_t deepest = 0;
    uint32_t d = 0;
    for (uint32_t c : ir.functions[f].callees) {
      if (state[c] == 1) { recursion = ir.functions[c].name; continue; }
      if (state[c] == 0) visit(c);
      deepest = std::max(deepest, stack[c]);
      d = std::max(d, depth[c]);
    }
    stack[f] = alignUp(ir.functions[f].frameBytes, 16) + deepest;
    depth[f] = d + (ir.functions[f].callees.empty() ? 0 : 1);
    state[f] = 2;
    reach.push_back(f);
  };
  visit(uint32_t(k));
  if (!recursion.empty())
    return absl::UnimplementedError("kernel '" + L.kernelName + "': recursive call to '" + recursion +
                                    "' is not supported");
  L.stackBytes = stack[k];
  L.maxDepth = depth[k];
  L.hasCalls = L.maxDepth > 0;
  // registers
  L.funcBase.assign(ir.functions.size(), UINT32_MAX);
  uint32_t slot = ptx::kNumSpecials;
  for (uint32_t f : reach) {
    L.funcBase[f] = slot;
    slot += ir.functions[f].numRegs;
  }
  L.slotsPerWarp = slot;
  // shared memory layout
  L.sharedOffset.assign(ir.variables.size(), 0);
  uint64_t shared = 0;
  std::vector<uint32_t> sharedVars, dynVars, globalVars;
  for (uint32_t f : reach)
    for (uint32_t v : ir.functions[f].variables) {
      const auto& var = ir.variables[v];
      auto& list = var.space == ptx::Space::Shared ? (var.externDynamic ? dynVars : sharedVars) : globalVars;
      if (std::find(list.begin(), list.end(), v) == list.end()) list.push_back(v);
    }
  for (uint32_t v : sharedVars) {
    shared = alignUp(shared, ir.variables[v].align);
    L.sharedOffset[v] = shared;
    shared += ir.variables[v].bytes;
  }
  uint64_t dynBase = alignUp(shared, 16);
  for (uint32_t v : dynVars) L.sharedOffset[v] = dynBase;
  L.sharedBytes = (config.dynamicSharedBytes || !dynVars.empty()) ? dynBase + config.dynamicSharedBytes : shared;
  if (auto st = checkMemoryPerBlock(L); !st.ok()) return st;
  // constants
  L.consts.assign(ir.functions.size(), {});
  for (uint32_t f : reach) {
    const auto& cs = ir.functions[f].consts;
    auto& table = L.consts[f];
    table.resize(std::max<size_t>(cs.size(), 1) * 32);
    for (size_t i = 0; i < cs.size(); ++i) {
      uint64_t v = cs[i].value;
      if (cs[i].kind == ptx::Constant::Kind::VariableAddr) {
        const auto& var = ir.variables[cs[i].symbol];
        v += var.space == ptx::Space::Shared ? L.sharedOffset[cs[i].symbol] : mod->varAddress[cs[i].symbol];
      } else if (cs[i].kind == ptx::Constant::Kind::KernelParamAddr) {
        v += kParamWindow;
      }
      std::fill(table.begin() + i * 32, table.begin() + i * 32 + 32, v);
    }
  }
  // kernel info
  L.info.name = L.kernelName;
  L.info.grid = config.grid;
  L.info.block = config.block;
  for (const auto& s : ir.sources) L.info.sources.push_back(sourcePosition(ir, s));
  // nvcc declares typed arrays as `.align A .b8 name[bytes]` with A the
  // element's alignment (int tile[64] -> .align 4 .b8 tile[256]), so reports
  // index such arrays by the alignment, not by byte.
  auto elementBytes = [](const ptx::Variable& var) {
    if (var.elementBytes == 1 && var.align > 1 && var.align <= 16) return var.align;
    return std::max<uint32_t>(var.elementBytes, 1);
  };
  for (uint32_t v : globalVars) {
    const auto& var = ir.variables[v];
    if (var.space != ptx::Space::Global) continue;
    L.info.symbols.push_back(
        MemorySymbol{demangle(var.name), MemorySpace::Global, mod->varAddress[v], var.bytes, elementBytes(var)});
  }
  for (uint32_t v : sharedVars) {
    const auto& var = ir.variables[v];
    L.info.symbols.push_back(
        MemorySymbol{demangle(var.name), MemorySpace::Shared, L.sharedOffset[v], var.bytes, elementBytes(var)});
  }
  for (uint32_t v : dynVars) {
    const auto& var = ir.variables[v];
    L.info.symbols.push_back(
        MemorySymbol{var.name, MemorySpace::Shared, L.sharedOffset[v], config.dynamicSharedBytes, elementBytes(var)});
  }
  // blocks and warps (their memory is allocated when a block becomes resident)
  uint32_t tpb = uint32_t(config.block.count());
  uint32_t wpb = (tpb + 31) / 32;
  uint64_t nblocks = config.grid.count();
  if (nblocks * wpb > (1ull << 26)) return absl::InvalidArgumentError("grid too large for the emulator");
  L.blocks.resize(nblocks);
  L.warps.resize(nblocks * wpb);
  for (uint32_t b = 0; b < nblocks; ++b) {
    Block& blk = L.blocks[b];
    blk.index = b;
    blk.idx = Dim3{b % config.grid.x, (b / config.grid.x) % config.grid.y, b / (config.grid.x * config.grid.y)};
    blk.threads = tpb;
    blk.firstWarp = b * wpb;
    blk.numWarps = wpb;
    for (uint32_t wi = 0; wi < wpb; ++wi) {
      Warp& w = L.warps[b * wpb + wi];
      w.block = b;
      w.inBlock = wi;
      w.index = b * wpb + wi;
      w.firstThread = uint64_t(b) * tpb + wi * 32;
      uint32_t n = std::min<uint32_t>(32, tpb - wi * 32);
      w.exists = n == 32 ? 0xFFFFFFFFu : ((1u << n) - 1);
      for (uint32_t l = 0; l < 32; ++l) w.pc[l] = K.begin;
    }
  }
  L.locks.reset(nblocks * tpb);
  L.clockBase = uint64_t(std::chrono::steady_clock::now().time_since_epoch().count());
  sink.kernelBegin(L.info);
  Runner runner(L);
  absl::Status st = runner.run();
  sink.kernelEnd();
  if (stats) {
    stats->warpInstructions = L.steps;
    stats->threadInstructions = L.threadSteps;
    if (!L.residencyWarning.empty()) stats->warnings.push_back(L.residencyWarning);
    if (!runner.progressWarning().empty()) stats->warnings.push_back(runner.progressWarning());
    if (!st.ok()) stats->fault = L.faultSite;
  }
  return st;
}

}  // namespace predatar::sim
