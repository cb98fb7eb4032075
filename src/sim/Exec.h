// Internal structures of the SIMT emulator shared by its translation units
// (not part of the public API: see sim/Device.h).
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "events/EventSink.h"
#include "ptx/Ir.h"
#include "sim/Device.h"
#include "sim/LockInference.h"

namespace predatar::sim {

// Generic-address windows (above any user-space host address).
inline constexpr uint64_t kWindowShift = 52;
inline constexpr uint64_t kSharedWindow = 1ull << kWindowShift;
inline constexpr uint64_t kLocalWindow = 2ull << kWindowShift;
inline constexpr uint64_t kParamWindow = 3ull << kWindowShift;
inline constexpr uint64_t kWindowMask = (1ull << kWindowShift) - 1;
// Kernels' addresses (`mov.u64 %rd, kernel;` before a device-side launch):
// the function's index in this window, which holds no memory.
inline constexpr uint64_t kFunctionWindow = 5ull << kWindowShift;

struct Ctx;
using ExecFn = void (*)(Ctx&, const ptx::Instr&, uint32_t mask);

enum class Ctrl : uint8_t { Plain, Bra, Call, Ret, Exit, Trap, Bar, WarpSync, Nanosleep, BrxIdx, Unsupported };

class LoadedModule final : public Module {
 public:
  const std::vector<KernelSignature>& kernels() const override { return sigs; }
  const std::vector<GlobalVariable>& globals() const override { return globalVars; }

  ptx::Module ir;
  std::vector<ExecFn> fns;   // per instruction (Plain)
  std::vector<Ctrl> ctrl;    // per instruction
  std::map<uint32_t, std::string> unsupported;  // pc -> why (Ctrl::Unsupported: refused when executed)
  std::vector<KernelSignature> sigs;
  std::vector<GlobalVariable> globalVars;
  std::vector<uint64_t> varAddress;  // per ir variable: host address (global/const); 0 otherwise
  SourceTable sources;               // ir.sources as reports show them (KernelInfo::sources)
  // Per function, the special registers its instructions read (bit i:
  // ptx::Special i): a warp's register file gets only these rows.
  std::vector<uint32_t> specialsRead;
  // Whether any instruction could give lock inference a block-scoped
  // acquire: an atom.cas or a fence of .cta scope (KernelInfo::blockScopedAcquires).
  bool blockScopedAcquires = false;
};

enum LaneWait : uint8_t { kNotWaiting = 0, kWaitBarrier = 1, kWaitWarpSync = 2 };

struct CallFrame {
  uint32_t returnPc;
  uint32_t call;      // CallSite index
  uint64_t frameBase; // caller's frame base
};

// A cp.async copy issued and not complete yet (sim/AsyncCopy.cpp).
struct AsyncCopy {
  uint64_t src = 0;        // global address
  uint32_t dstOffset = 0;  // shared offset
  uint8_t bytes = 0, srcBytes = 0, lane = 0;
  uint32_t group = 0;      // commit group (per lane, from 1); 0: not committed yet
  uint32_t pc = 0;
  uint64_t issue = 0;      // the warp's cp.async instruction instance
};

// A warp's local memory (32 lanes x Launch::stackBytes). Large ones (a
// recursive kernel gets the whole stack limit) are mapped, so that pages no
// thread touches cost nothing.
struct LocalMemoryRelease {
  size_t mappedBytes = 0;  // 0: from new[]
  void operator()(uint8_t* p) const;
};
using LocalMemory = std::unique_ptr<uint8_t[], LocalMemoryRelease>;
LocalMemory allocateLocalMemory(size_t bytes);  // zeroed

struct Warp {
  uint32_t block = 0;       // linear block index
  uint32_t inBlock = 0;     // warp index in block
  uint32_t index = 0;       // global warp index
  uint64_t firstThread = 0; // global linear thread id of lane 0
  uint32_t exists = 0;      // lanes with a thread
  uint32_t exited = 0;
  uint32_t waiting = 0;     // lanes waiting (barrier / warp sync)
  // Live lanes elsewhere while lanes of this warp wait at an aligned
  // block-wide barrier, and not about to exit: each must arrive there too
  // (sim/BarrierCheck.h).
  uint32_t owesBarrier = 0;
  uint32_t carry = 0;       // per lane: the carry flag CC.CF of add.cc / addc ...
  uint32_t pc[32] = {};
  uint8_t waitKind[32] = {};
  uint8_t barrierId[32] = {};
  bool rotate = false;
  bool started = false;  // resident: registers allocated
  uint32_t lastPc = 0;
  uint64_t groupSteps = 0;  // steps of divergent groups since the last merge or rotation
  // Windows of groupSteps in a row whose groups worked (changed memory or
  // read new words), and whether the current one did so far (runWarp): a
  // group that works is not made to rotate (Scheduler.cpp, kRotateSteps).
  uint32_t busyWindows = 0;
  bool windowWorked = false;
  std::unique_ptr<uint64_t[]> regs;  // [specials | function registers] x 32 lanes
  // local memory: 32 lanes x stackBytes
  LocalMemory local;
  uint64_t frameBase[32] = {};
  std::vector<CallFrame> calls;  // 32 x callCapacity
  uint32_t callCapacity = 0;     // Launch::maxDepth; grows in recursive kernels
  uint32_t depth[32] = {};
  // Recursive kernels: per lane, the registers of outer activations of the
  // functions called (PTX registers belong to one activation; ours to the function).
  std::vector<std::vector<uint64_t>> savedRegisters;
  std::vector<AsyncCopy> asyncCopies;  // cp.async in flight, in issue order
  uint32_t asyncCommitted[32] = {};    // per lane: cp.async groups committed
  uint64_t asyncIssued = 0;
  uint32_t gridDependencyWaited = 0;  // lanes past griddepcontrol.wait (LaunchConfig::programmaticOverlap)
  // Words its global and shared loads read lately (execLd, by hash of the
  // word; the first and last lane of each load): a load of another counts in
  // Launch::novelReads.
  std::array<uintptr_t, 16> recentReads{};
  bool done() const { return (exists & ~exited) == 0; }
};

struct Barrier {
  uint32_t arrived = 0;
  uint32_t expected = 0;  // 0: all non-exited threads of the block
  uint32_t redPopc = 0;
  bool redAnd = true, redOr = false;
  // When events are consumed, the lanes of each warp of the block (by warp
  // index in the block, sized on first use) that wait (bar.sync, bar.red)
  // and that arrived only (bar.arrive): the event's thread lists come out
  // ascending with no sort, and a phase after the first allocates nothing.
  std::vector<LaneMask> waiting, arriving;
  // A new phase; the lists keep their room.
  void reset(uint32_t expectedThreads) {
    arrived = 0;
    expected = expectedThreads;
    redPopc = 0;
    redAnd = true;
    redOr = false;
    waiting.clear();
    arriving.clear();
  }
};

constexpr uint32_t kBlockBarriers = 16;  // bar.sync ids 0-15

struct Block {
  uint32_t index = 0;
  Dim3 idx;
  uint32_t threads = 0;
  uint32_t exitedThreads = 0;
  uint32_t firstWarp = 0, numWarps = 0;
  std::unique_ptr<uint8_t[]> shared;
  // kBlockBarriers of them, while the block is resident (materialize and
  // retire, Scheduler.cpp): inline, they made a block 1 KB, and a grid of
  // 4M blocks (HeCBench's flip) 4 GB before it ran.
  std::unique_ptr<Barrier[]> barriers;
  uint32_t activeBarriers = 0;  // bit mask
  bool resident = false;
};

struct Launch {
  Launch(const LoadedModule& m, DeviceMemory& mem, EventSink& sink)
      : M(m), memory(mem), initShadow(mem.initShadow()), sink(sink) {}
  const LoadedModule& M;
  DeviceMemory& memory;
  InitShadow* initShadow;  // --initcheck; null without
  EventSink& sink;
  uint32_t kernel = 0;
  std::string kernelName;
  LaunchConfig cfg;
  KernelInfo info;
  std::vector<uint32_t> funcBase;  // per function: first register slot (UINT32_MAX: unreachable)
  std::vector<std::vector<uint64_t>> consts;  // per function: consts x 32
  uint32_t slotsPerWarp = 0;
  // Per warp of a block, its special registers x 32 lanes as every block's
  // warp of that index starts with them (the block's own, %ctaid, are set
  // apart): built at the first block, copied into each warp's registers.
  std::vector<uint64_t> warpSpecials;
  // The rows of warpSpecials the reachable functions read
  // (LoadedModule::specialsRead): all 28 rows are 7 KB a warp, and copying
  // them was a quarter of a short kernel's emulation (simpleStreams).
  std::vector<uint32_t> specialRowsRead;
  // The PTX registers the reachable functions declare (before they share
  // slots, ptx/RegisterSlots.h): what occupancy counts (sim/Residency.h).
  uint32_t declaredRegisters = 0;
  std::vector<uint8_t> params;
  std::vector<uint64_t> sharedOffset;  // per ir variable (shared): offset in the block window
  uint64_t sharedBytes = 0;
  uint64_t stackBytes = 0;   // per thread local memory
  uint32_t maxDepth = 0;
  bool hasCalls = false;
  // Functions that can be active more than once in a thread (recursion):
  // their registers are saved on a call and restored on return.
  std::vector<bool> recursive;
  uint32_t maxRecursionDepth = 0;  // 0: no recursion
  std::vector<Block> blocks;
  // Warps of the resident blocks only (sim/Residency.h): a block takes
  // numWarps consecutive slots when it becomes resident (Block::firstWarp)
  // and gives them back when it retires, so memory follows the blocks
  // resident at once, not the grid.
  std::vector<Warp> warps;
  std::vector<uint32_t> freeWarpSlots;  // first slots of released ranges
  uint32_t entryPc = 0;                 // the kernel's first instruction
  uint64_t seq = 0;
  uint64_t steps = 0;
  uint64_t threadSteps = 0;
  uint64_t memoryChanges = 0;  // stores and atomics that changed a byte (livelock detection)
  // Loads of words their warp had not read lately (Warp::recentReads). The
  // scheduler keeps a block running while its turns change memory or read
  // new words: a spin-wait does neither, a long phase of loads before the
  // first store (a table every thread reads) does the second.
  uint64_t novelReads = 0;
  bool eventsConsumed = true;  // sink.consumesEvents(): false skips building memory and fence events
  LockInference locks;
  // The allocations the last global accesses fell in, for bounds checks
  // without a lookup. Two: a loop alternates between arrays (simpleStreams'
  // `g[i] += *factor` reads two allocations an iteration, and one entry
  // looked an allocation up at every load).
  struct AllocationCache {
    uint64_t base[2] = {1, 1}, end[2] = {0, 0};
    uint32_t next = 0;  // the entry a miss replaces (the older one)
    bool holds(uint64_t lo, uint64_t endAddr) const {
      return (lo >= base[0] && endAddr <= end[0]) || (lo >= base[1] && endAddr <= end[1]);
    }
    void add(uint64_t b, uint64_t e) {
      base[next] = b;
      end[next] = e;
      next ^= 1;
    }
  } allocationCache;
  absl::Status error;
  std::optional<FaultSite> faultSite;  // the first fault's thread and instruction
  uint64_t clockBase = 0;
  std::string residencyWarning;  // blocks were brought in on demand (sim/Residency.h)
  // Undefined behaviour the launch relied on, of each kind the first
  // thread's at each instruction (a program with the same mistake in two
  // functions hears of both): a shuffle read a lane that took no part
  // (Memory.cpp); a thread skipped an aligned barrier its warp waited at and
  // exited (BarrierCheck.cpp); a thread ran a warp-synchronous instruction
  // whose member mask leaves it out (WarpSync.cpp).
  struct UndefinedNotes {
    static constexpr size_t kMaxSites = 8;  // a kind's sites a launch: a mistake in a macro is one note a use
    std::map<uint32_t, std::string> byPc;
    // Whether the instruction needs no note: it has one, or the kind has its most.
    bool noted(uint32_t pc) const { return byPc.size() >= kMaxSites || byPc.contains(pc); }
  };
  UndefinedNotes undefinedShuffle, skippedBarrier, outsideMemberMask;
  // --initcheck: reads of bytes nothing wrote (InitCheck.cpp), by instruction:
  // the first lane's description and how many lanes' reads there were.
  struct UninitializedReadNote {
    uint64_t count = 0;
    std::string message;
  };
  std::map<uint32_t, UninitializedReadNote> uninitializedReads;
  // Dynamic parallelism (sim/DeviceLaunch.cpp): parameter buffers handed out
  // and not yet launched, and the launches made.
  std::map<uint64_t, DeviceLaunchRequest> parameterBuffers;
  std::vector<uint64_t> heapFreed;  // device malloc blocks free()d, released when the launch ends
  std::vector<DeviceLaunchRequest> deviceLaunches;
  bool launchedDependents = false;  // LaunchStats::launchedDependents

  Origin origin(uint32_t pc) {
    return Origin{seq++, pc, M.ir.code[pc].source == UINT32_MAX ? Origin::kNoSource : M.ir.code[pc].source};
  }
  // Describes a PTX position for errors: "kernel K, pc N (PTX line L, file:line:col)".
  std::string where(uint32_t pc) const;
  // The user's source line of a PTX position ("file.cu:L (pc N, PTX line M)",
  // past CUDA's own headers such as __shfl_down_sync's), or where(pc).
  std::string userLine(uint32_t pc) const;
  std::string threadName(const Warp& w, uint32_t lane) const;
  void fault(const Warp& w, uint32_t lane, uint32_t pc, const std::string& what) {
    stop(absl::StatusCode::kFailedPrecondition, w, lane, pc, what);
  }
  // Stops the launch at something the emulator does not model (cudaErrorNotSupported, not sticky).
  void refuse(const Warp& w, uint32_t lane, uint32_t pc, const std::string& what) {
    stop(absl::StatusCode::kUnimplemented, w, lane, pc, what);
  }
  // The first fault or refusal is the launch's error (with its thread and instruction).
  void stop(absl::StatusCode code, const Warp& w, uint32_t lane, uint32_t pc, const std::string& what);
  void recordFaultSite(const Warp& w, uint32_t lane, uint32_t pc);
};

struct Ctx {
  uint64_t* regs = nullptr;          // current function's register slots
  uint64_t* special = nullptr;       // warp's special register slots
  const uint64_t* consts = nullptr;  // current function's constants
  Launch* L = nullptr;
  Warp* W = nullptr;
  uint32_t pc = 0;
  uint32_t groupMask = 0;
  bool faulted = false;
};

inline const uint64_t* S(const Ctx& x, ptx::Ref r) {
  uint32_t i = r & ptx::kRefIndexMask;
  switch (r & ptx::kRefKindMask) {
    case ptx::kRefReg: return x.regs + size_t(i) * 32;
    case ptx::kRefConst: return x.consts + size_t(i) * 32;
    default: return x.special + size_t(i) * 32;
  }
}
inline uint64_t* D(const Ctx& x, ptx::Ref r) {
  static uint64_t sink[32];
  if (r == ptx::kNoRef) return sink;
  return x.regs + size_t(r & ptx::kRefIndexMask) * 32;
}

template <class F>
inline void forLanes(uint32_t m, F&& f) {
  if (m == 0xFFFFFFFFu) {
    for (uint32_t l = 0; l < 32; ++l) f(l);
  } else {
    while (m) {
      uint32_t l = uint32_t(std::countr_zero(m));
      m &= m - 1;
      f(l);
    }
  }
}

// The lanes of `m` whose predicate `p` is true (!= 0), or false when
// `negate`: a guard's lanes. A full warp takes an unrolled loop of constant
// shifts, where the lane loop's variable shifts were a third of runWarp in
// short kernels (most of their instructions are guarded).
inline uint32_t trueLanes(const uint64_t* p, uint32_t m, bool negate) {
  uint32_t t = 0;
  if (m == 0xFFFFFFFFu) {
#pragma GCC unroll 32
    for (uint32_t l = 0; l < 32; ++l) t |= uint32_t(p[l] != 0) << l;
  } else {
    forLanes(m, [&](uint32_t l) { t |= uint32_t(p[l] != 0) << l; });
  }
  return (negate ? ~t : t) & m;
}

// Handler selection (Alu.cpp / Memory.cpp). Returns nullptr and sets `error`
// when the instruction/type combination is unsupported.
ExecFn selectAlu(const ptx::Instr& in, std::string& error);
ExecFn selectMemory(const ptx::Instr& in, std::string& error);
// add.cc/addc, sub.cc/subc, mad.cc/madc, mul24/mad24, dp4a/dp2a (IntegerExtended.cpp).
ExecFn selectIntegerExtended(const ptx::Instr& in, std::string& error);
// add/sub/min/max on .u16x2/.s16x2 and min/max .relu (IntegerExtended.cpp):
// whether `in` is one, and its function (null for a form PTX does not have).
bool isPackedOrRelu(const ptx::Instr& in);
ExecFn selectPackedOrRelu(const ptx::Instr& in);
// tex through texture objects (Texture.cpp).
ExecFn selectTexture(const ptx::Instr& in, std::string& error);

// Per-lane resolved addresses of one access (Memory.cpp).
struct LaneAccess {
  uint8_t* ptr[32];
  uint64_t addr[32];   // event address (global: host address; shared: offset)
  uint32_t globalMask = 0, sharedMask = 0;
};
// The address of operand `a` for lane l.
uint64_t laneAddressOf(Ctx& x, const ptx::Address& a, uint32_t l);
// Checks `bytes` at every lane's addr[l] in `space` (Generic: by address
// window); false, with a fault naming `what`, on an invalid access.
bool resolveLanes(Ctx& x, ptx::Space space, const uint64_t* addr, uint32_t m, uint32_t bytes, LaneAccess& acc,
                  const char* what);
// --initcheck (InitCheck.cpp): the global accesses of lanes `mask` at pc, `bytes`
// each at addr[l]: a read of bytes nothing wrote is noted, a write marks them.
void checkGlobalInit(Ctx& x, uint32_t mask, const uint64_t* addr, uint32_t bytes, AccessType type, uint32_t pc);
// The memory events of a resolved access, attributed to instruction `pc`.
void emitLaneAccess(Ctx& x, const LaneAccess& acc, AccessType type, uint32_t bytes, uint32_t pc, bool strong = false,
                    Scope scope = Scope::Device);
// wmma.load/store/mma, executed on the whole warp (TensorCore.cpp); checkWarpMatrix: "" or why refused.
void execWarpMatrix(Ctx& x, const ptx::Instr& in, uint32_t mask);
std::string checkWarpMatrix(const ptx::Module& ir, const ptx::Instr& in);
// cvt.{rna,rn,rz}.tf32.f32 (TensorCore.cpp).
void execCvtTf32(Ctx& x, const ptx::Instr& in, uint32_t mask);
// cp.async and mbarrier (AsyncCopy.cpp).
ExecFn selectAsyncCopy(const ptx::Instr& in, std::string& error);

// Warp-level data exchange (Memory.cpp), executed on the full participating mask.
// Warp-level exchanges among the lanes `mask`, writing the lanes `write`
// (0: all of mask); `values`, when given, is each lane's first source (lanes
// of one exchange may be at different instructions: sm_70 and later match
// them by qualifiers and member mask, not by instruction).
void execShfl(Ctx& x, const ptx::Instr& in, uint32_t mask, uint32_t write = 0, const uint64_t* values = nullptr);
void execVote(Ctx& x, const ptx::Instr& in, uint32_t mask, uint32_t write = 0, const uint64_t* values = nullptr);
void execMatch(Ctx& x, const ptx::Instr& in, uint32_t mask, uint32_t write = 0, const uint64_t* values = nullptr);
void execRedux(Ctx& x, const ptx::Instr& in, uint32_t mask, uint32_t write = 0, const uint64_t* values = nullptr);
// vprintf / __assertfail for one lane; false when the lane faults.
bool execBuiltin(Ctx& x, const ptx::Instr& in, uint32_t lane);
// The device runtime of dynamic parallelism (sim/DeviceLaunch.cpp).
bool execDeviceRuntime(Ctx& x, const ptx::Instr& in, uint32_t lane);
// Host pointer for `bytes` at generic address `a` as `lane` sees it (global,
// shared, local, param), or null; and argument `i` of a call's frame.
uint8_t* hostPointer(Ctx& x, uint32_t lane, uint64_t a, uint64_t bytes);
uint64_t frameArg(Ctx& x, const ptx::Instr& in, uint32_t lane, size_t i, uint32_t bytes);

// Indirect calls (Calls.cpp): of the lanes `exec`, those calling the same
// function as the first one (its index in `callee`); 0 after a fault.
uint32_t resolveIndirectCall(Ctx& x, const ptx::Instr& in, uint32_t exec, uint32_t& callee);
// Recursive kernels (Calls.cpp): a warp's call stack grows up to
// Launch::maxRecursionDepth (false: it cannot); a call into a recursive
// function saves its registers for the lane, its return restores them.
bool growCallStack(const Launch& L, Warp& w);
void saveRegisters(const Launch& L, Warp& w, uint32_t lane, uint32_t function);
void restoreRegisters(const Launch& L, Warp& w, uint32_t lane, uint32_t function);

Scope toEventScope(ptx::Scope s);

inline std::string hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

}  // namespace predatar::sim
