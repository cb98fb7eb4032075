// Memory instructions (ld, st, atom, red), fences and warp-level exchange
// (shfl, vote, match); memory and fence events and lock inference.
#include <bit>
#include <cmath>
#include <type_traits>

#include "sim/Exec.h"
#include "sim/HalfFloat.h"

namespace predatar::sim {

using ptx::Instr;
using ptx::Op;
using ptx::Type;

Scope toEventScope(ptx::Scope s) {
  switch (s) {
    case ptx::Scope::Cta: return Scope::Block;
    case ptx::Scope::Sys: return Scope::System;
    default: return Scope::Device;
  }
}

namespace {

enum class Kind : uint8_t { Global, Const, Shared, Local, Param };

using Access = LaneAccess;

// Kernel parameters (ld.param at every kernel's start): every lane in the
// parameter window and in bounds. They raise no events.
template <class AddrOf>
bool resolveUniformParam(Ctx& x, AddrOf addrOf, uint32_t m, uint32_t bytes, LaneAccess& acc) {
  const std::vector<uint8_t>& params = x.L->params;
  bool bad = false;
  forLanes(m, [&](uint32_t l) {
    uint64_t a = addrOf(l), off = a & kWindowMask;
    bad |= (a >> kWindowShift) != 3 || off + bytes > params.size();
    acc.ptr[l] = const_cast<uint8_t*>(params.data()) + off;
  });
  if (bad) return false;
  acc.globalMask = acc.sharedMask = 0;
  return true;
}

// The usual access, resolved without a switch per lane: every lane global (or
// const) inside the cached allocation, or every lane shared in bounds, all
// aligned. False when any lane is anything else; the per-lane path then
// resolves the access again and names the fault, so the result is the same.
// `addrOf(l)`: lane l's address (a register plus an offset, computed where it
// is used rather than stored first: one pass over the lanes fewer).
template <class AddrOf>
bool resolveUniform(Ctx& x, ptx::Space space, AddrOf addrOf, uint32_t m, uint32_t bytes, LaneAccess& acc) {
  Launch& L = *x.L;
  if (bytes == 0 || (bytes & (bytes - 1)) != 0) return false;  // odd sizes: the per-lane path
  uint64_t alignMask = bytes - 1;
  bool globalOk = false;  // else: every lane shared
  bool isConst = space == ptx::Space::Const;
  uint64_t offMask = space == ptx::Space::Shared ? 0xFFFFFFFFull : kWindowMask;
  if (space == ptx::Space::Generic) {
    uint64_t any = 0, all = ~uint64_t(0);
    forLanes(m, [&](uint32_t l) {
      uint64_t a = addrOf(l);
      any |= a;
      all &= a;
    });
    uint64_t anyWindow = any >> kWindowShift, allWindow = all >> kWindowShift;
    if (anyWindow == 0) globalOk = true;
    else if (anyWindow != 1 || allWindow != 1) return false;
  } else if (space == ptx::Space::Shared) {
  } else if (space == ptx::Space::Global || isConst) {
    globalOk = true;
  } else if (space == ptx::Space::Param) {
    return resolveUniformParam(x, addrOf, m, bytes, acc);
  } else {
    return false;
  }
  if (globalOk) {
    uint64_t lo = ~uint64_t(0), hi = 0;
    uint64_t misaligned = 0;
    forLanes(m, [&](uint32_t l) {
      uint64_t a = addrOf(l);
      misaligned |= a;
      lo = std::min(lo, a);
      hi = std::max(hi, a);
      acc.ptr[l] = reinterpret_cast<uint8_t*>(a);
      acc.addr[l] = a;
    });
    if ((misaligned & alignMask) != 0 || hi + bytes < hi) return false;
    // Kernels alternate between arrays (keys and values, input and output):
    // one lookup per instruction refills the cache, not one per lane.
    if (!L.allocationCache.holds(lo, hi + bytes)) {
      auto range = L.memory.rangeOf(lo, hi + bytes - lo);
      if (!range) return false;
      L.allocationCache.add(range->base, range->base + range->bytes);
    }
    if (!isConst) acc.globalMask = m;
    return true;
  }
  uint8_t* shared = L.blocks[x.W->block].shared.get();
  uint64_t size = L.sharedBytes;
  // (bitwise, not short-circuit: no branch per lane)
  uint64_t misaligned = 0, highest = 0;
  forLanes(m, [&](uint32_t l) {
    uint64_t off = addrOf(l) & offMask;
    misaligned |= off;
    highest = std::max(highest, off);
    acc.ptr[l] = shared + off;
    acc.addr[l] = off;
  });
  if ((misaligned & alignMask) != 0 || highest + bytes > size) return false;
  acc.sharedMask = m;
  return true;
}

// Lanes of `m` whose lock id is a shared-memory address (tagged kSharedWindow).
LaneMask sharedLockLanes(uint32_t m, const LockInference::Addresses& locks) {
  LaneMask shared = 0;
  forLanes(m, [&](uint32_t l) {
    if (locks[l] & kSharedWindow) shared |= 1u << l;
  });
  return shared;
}

}  // namespace

uint64_t laneAddressOf(Ctx& x, const ptx::Address& a, uint32_t l) {
  switch (a.base) {
    case ptx::Address::Base::Ref: return S(x, a.ref)[l] + uint64_t(a.offset);
    case ptx::Address::Base::Frame: return x.W->frameBase[l] + uint64_t(a.offset);
    case ptx::Address::Base::Param: return kParamWindow + uint64_t(a.offset);
  }
  return 0;
}

// LaunchConfig::programmaticOverlap: the lanes whose global access comes
// before their griddepcontrol.wait, which the stream's previous kernel may
// still be running at (it ran to completion first here, one schedule of the
// overlap; the detectors check the accesses as unordered with it).
static LaneMask beforeDependencyWait(const Ctx& x, uint32_t globalMask) {
  return x.L->cfg.programmaticOverlap ? globalMask & ~x.W->gridDependencyWaited : 0;
}

// Every lane on its own, each lane's fault named: what resolveUniform leaves.
static bool resolveEachLane(Ctx& x, ptx::Space space, const uint64_t* addr, uint32_t m, uint32_t bytes,
                            LaneAccess& acc, const char* what) {
  acc.globalMask = acc.sharedMask = 0;
  Launch& L = *x.L;
  Warp& w = *x.W;
  Block& blk = L.blocks[w.block];
  bool ok = true;
  forLanes(m, [&](uint32_t l) {
    if (!ok) return;
    uint64_t a = addr[l];
    Kind kind;
    uint64_t off = a;
    switch (space) {
      case ptx::Space::Global: kind = Kind::Global; break;
      case ptx::Space::Const: kind = Kind::Const; break;
      // Shared and local addresses are 32 bits wide on the hardware: the
      // register + offset sum wraps (nvcc -O2 emits 0xFFFFFFC0 + 68 for 4).
      case ptx::Space::Shared: kind = Kind::Shared; off = uint32_t(a); break;
      case ptx::Space::Local: kind = Kind::Local; off = uint32_t(a); break;
      case ptx::Space::Param:
        if ((a >> kWindowShift) == 3) { kind = Kind::Param; off = a & kWindowMask; }
        else { kind = Kind::Local; off = uint32_t(a); }
        break;
      default:
        switch (a >> kWindowShift) {
          case 0: kind = Kind::Global; break;
          case 1: kind = Kind::Shared; off = a & kWindowMask; break;
          case 2: kind = Kind::Local; off = a & kWindowMask; break;
          case 3: kind = Kind::Param; off = a & kWindowMask; break;
          default: kind = Kind::Global; break;
        }
    }
    if (bytes > 1 && (off % bytes) != 0 && kind != Kind::Param) {
      L.fault(w, l, x.pc, std::string("misaligned ") + what + " of " + std::to_string(bytes) + " bytes at " +
                              (kind == Kind::Shared ? "shared offset " : kind == Kind::Local ? "local offset " : "address ") +
                              hex(off));
      ok = false;
      return;
    }
    switch (kind) {
      case Kind::Global:
      case Kind::Const: {
        if (!L.allocationCache.holds(a, a + bytes)) {
          auto alloc = L.memory.rangeOf(a, bytes);
          if (!alloc) {
            L.fault(w, l, x.pc, std::string("out-of-bounds ") + what + " of " + std::to_string(bytes) +
                                    " bytes at global address " + hex(a) + " (" +
                                    L.memory.describeMiss(a, bytes) + ")");
            ok = false;
            return;
          }
          L.allocationCache.add(alloc->base, alloc->base + alloc->bytes);
        }
        acc.ptr[l] = reinterpret_cast<uint8_t*>(a);
        acc.addr[l] = a;
        if (kind == Kind::Global) acc.globalMask |= 1u << l;
        break;
      }
      case Kind::Shared:
        if (off + bytes > L.sharedBytes) {
          L.fault(w, l, x.pc, std::string("out-of-bounds ") + what + " of " + std::to_string(bytes) +
                                  " bytes at shared offset " + hex(off) + " (block has " +
                                  std::to_string(L.sharedBytes) + " bytes of shared memory)");
          ok = false;
          return;
        }
        acc.ptr[l] = blk.shared.get() + off;
        acc.addr[l] = off;
        acc.sharedMask |= 1u << l;
        break;
      case Kind::Local:
        if (off + bytes > L.stackBytes) {
          L.fault(w, l, x.pc, std::string("out-of-bounds ") + what + " of " + std::to_string(bytes) +
                                  " bytes at local offset " + hex(off) + " (thread has " +
                                  std::to_string(L.stackBytes) + " bytes of local memory)");
          ok = false;
          return;
        }
        acc.ptr[l] = w.local.get() + size_t(l) * L.stackBytes + off;
        break;
      case Kind::Param:
        if (off + bytes > L.params.size()) {
          L.fault(w, l, x.pc, std::string("out-of-bounds ") + what + " of kernel parameters at offset " + std::to_string(off));
          ok = false;
          return;
        }
        acc.ptr[l] = const_cast<uint8_t*>(L.params.data()) + off;
        break;
    }
  });
  if (!ok) x.faulted = true;
  return ok;
}

bool resolveLanes(Ctx& x, ptx::Space space, const uint64_t* addr, uint32_t m, uint32_t bytes, LaneAccess& acc,
                  const char* what) {
  if (m != 0 && resolveUniform(x, space, [addr](uint32_t l) { return addr[l]; }, m, bytes, acc)) return true;
  return resolveEachLane(x, space, addr, m, bytes, acc, what);
}

namespace {

// Resolves every lane's address of `in`'s operand; false (and a fault) on an
// invalid access.
bool resolve(Ctx& x, const Instr& in, uint32_t m, uint32_t bytes, LaneAccess& acc, const char* what) {
  ptx::Space space = in.space;
  if (in.addr.base == ptx::Address::Base::Frame) space = ptx::Space::Local;
  if (in.addr.base == ptx::Address::Base::Param) space = ptx::Space::Param;
  uint64_t addr[32];
  if (in.addr.base == ptx::Address::Base::Ref) {  // the common case: a register plus an offset
    const uint64_t* r = S(x, in.addr.ref);
    uint64_t offset = uint64_t(in.addr.offset);
    if (m != 0 && resolveUniform(x, space, [r, offset](uint32_t l) { return r[l] + offset; }, m, bytes, acc))
      return true;
    forLanes(m, [&](uint32_t l) { addr[l] = r[l] + offset; });
    return resolveEachLane(x, space, addr, m, bytes, acc, what);
  }
  if (in.addr.base == ptx::Address::Base::Param && m != 0) {  // a kernel parameter: one address for every lane
    uint64_t offset = uint64_t(in.addr.offset);
    // (out of the window or the parameters: the per-lane path names the fault)
    if (resolveUniformParam(x, [offset](uint32_t) { return kParamWindow + offset; }, m, bytes, acc)) return true;
  }
  forLanes(m, [&](uint32_t l) { addr[l] = laneAddressOf(x, in.addr, l); });
  return resolveLanes(x, space, addr, m, bytes, acc, what);
}

}  // namespace

void emitLaneAccess(Ctx& x, const LaneAccess& acc, AccessType type, uint32_t bytes, uint32_t pc, bool strong,
                    Scope scope) {
  Launch& L = *x.L;
  if (L.initShadow) checkGlobalInit(x, acc.globalMask, acc.addr, bytes, type, pc);
  if (!L.eventsConsumed) return;
  Warp& w = *x.W;
  for (int s = 0; s < 2; ++s) {
    uint32_t mask = s == 0 ? acc.globalMask : acc.sharedMask;
    if (!mask) continue;
    MemoryEvent ev;
    ev.lanes = WarpLanes{w.block, w.inBlock, mask};
    ev.type = type;
    ev.strong = strong || type == AccessType::AtomicRmw;
    ev.scope = scope;
    ev.space = s == 0 ? MemorySpace::Global : MemorySpace::Shared;
    ev.size = uint8_t(std::min<uint32_t>(bytes, 255));
    forLanes(mask, [&](uint32_t l) { ev.address[l] = acc.addr[l]; });
    ev.origin = L.origin(pc);
    if (s == 0) ev.beforeDependencyWait = beforeDependencyWait(x, mask);
    L.sink.memory(ev);
  }
}

namespace {

void emitMemory(Ctx& x, const Instr& in, const Access& acc, AccessType type, uint32_t bytes, AtomicOp op,
                LaneMask lockLanes = 0, LaneMask unchangedWrites = 0) {
  Launch& L = *x.L;
  if (L.initShadow) checkGlobalInit(x, acc.globalMask, acc.addr, bytes, type, x.pc);
  if (!L.eventsConsumed) return;
  Warp& w = *x.W;
  bool strong = type == AccessType::AtomicRmw || (in.sem != ptx::Sem::Weak);
  Scope scope = in.sem == ptx::Sem::Volatile ? Scope::System : toEventScope(in.scope);
  for (int s = 0; s < 2; ++s) {
    uint32_t mask = s == 0 ? acc.globalMask : acc.sharedMask;
    if (!mask) continue;
    MemoryEvent ev;
    ev.lanes = WarpLanes{w.block, w.inBlock, mask};
    ev.type = type;
    ev.strong = strong;
    ev.isVolatile = in.sem == ptx::Sem::Volatile;
    ev.lockLanes = lockLanes & mask;
    ev.scope = scope;
    ev.op = op;
    ev.space = s == 0 ? MemorySpace::Global : MemorySpace::Shared;
    ev.size = uint8_t(std::min<uint32_t>(bytes, 255));
    forLanes(mask, [&](uint32_t l) { ev.address[l] = acc.addr[l]; });
    ev.origin = L.origin(x.pc);
    if (s == 0) ev.beforeDependencyWait = beforeDependencyWait(x, mask);
    ev.unchangedWrites = unchangedWrites & mask;
    L.sink.memory(ev);
  }
}

void emitFence(Ctx& x, uint32_t mask, Scope scope) {
  Launch& L = *x.L;
  if (!L.eventsConsumed) return;
  Warp& w = *x.W;
  FenceEvent ev;
  ev.lanes = WarpLanes{w.block, w.inBlock, mask};
  ev.scope = scope;
  ev.origin = L.origin(x.pc);
  L.sink.fence(ev);
}

inline bool isAcquire(ptx::Sem s) { return s == ptx::Sem::Acquire || s == ptx::Sem::AcqRel || s == ptx::Sem::Sc; }
inline bool isRelease(ptx::Sem s) { return s == ptx::Sem::Release || s == ptx::Sem::AcqRel || s == ptx::Sem::Sc; }

inline uint64_t loadBits(const uint8_t* p, uint32_t size, bool sign) {
  switch (size) {
    case 1: { uint8_t v; std::memcpy(&v, p, 1); return sign ? uint64_t(int64_t(int8_t(v))) : v; }
    case 2: { uint16_t v; std::memcpy(&v, p, 2); return sign ? uint64_t(int64_t(int16_t(v))) : v; }
    case 4: { uint32_t v; std::memcpy(&v, p, 4); return sign ? uint64_t(int64_t(int32_t(v))) : v; }
    default: { uint64_t v; std::memcpy(&v, p, 8); return v; }
  }
}
// (A switch, not memcpy(p, &v, size): a size known only at run time made
// every lane's store a call of memcpy.)
inline void storeBits(uint8_t* p, uint32_t size, uint64_t v) {
  switch (size) {
    case 1: *p = uint8_t(v); break;
    case 2: { uint16_t w = uint16_t(v); std::memcpy(p, &w, 2); break; }
    case 4: { uint32_t w = uint32_t(v); std::memcpy(p, &w, 4); break; }
    case 8: std::memcpy(p, &v, 8); break;
    default: std::memcpy(p, &v, size); break;
  }
}
// Whether storing the low `size` bytes of v at p changes memory (little endian: low bytes first).
inline bool storeChanges(const uint8_t* p, uint32_t size, uint64_t v) {
  switch (size) {
    case 1: return *p != uint8_t(v);
    case 2: { uint16_t o; std::memcpy(&o, p, 2); return o != uint16_t(v); }
    case 4: { uint32_t o; std::memcpy(&o, p, 4); return o != uint32_t(v); }
    case 8: { uint64_t o; std::memcpy(&o, p, 8); return o != v; }
    default: return std::memcmp(p, &v, size) != 0;
  }
}

// Launch::novelReads: whether the first or last lane read a word its warp
// had not read lately (two lanes: a spin-wait's lanes read what they read
// before, a table walk's move on).
inline void noteNovelRead(Launch& L, Warp& w, const Access& acc, uint32_t mask) {
  bool novel = false;
  for (uint32_t lane : {uint32_t(std::countr_zero(mask)), uint32_t(31 - std::countl_zero(mask))}) {
    uintptr_t word = reinterpret_cast<uintptr_t>(acc.ptr[lane]) >> 2;
    uintptr_t& slot = w.recentReads[(word * 0x9E3779B97F4A7C15ull) >> 60];
    novel |= slot != word;
    slot = word;
  }
  L.novelReads += novel;
}

void execLd(Ctx& x, const Instr& in, uint32_t m) {
  uint32_t size = ptx::typeBytes(in.type);
  uint32_t total = size * in.vec;
  Access acc;
  if (!resolve(x, in, m, total, acc, "load")) return;
  bool sign = ptx::isSigned(in.type);
  for (uint32_t k = 0; k < in.vec; ++k) {
    if (in.dst[k] == ptx::kNoRef) continue;
    uint64_t* d = D(x, in.dst[k]);
    if (size == 4 && !sign) {  // the usual width, without a switch per lane
      forLanes(m, [&](uint32_t l) { uint32_t v; std::memcpy(&v, acc.ptr[l] + k * 4, 4); d[l] = v; });
      continue;
    }
    forLanes(m, [&](uint32_t l) { d[l] = loadBits(acc.ptr[l] + k * size, size, sign); });
  }
  uint32_t evMask = acc.globalMask | acc.sharedMask;
  if (evMask) {
    Launch& L = *x.L;
    noteNovelRead(L, *x.W, acc, evMask);
    L.locks.access(x.W->firstThread, evMask);
    emitMemory(x, in, acc, AccessType::Read, total, AtomicOp::None);
    if (isAcquire(in.sem)) emitFence(x, evMask, toEventScope(in.scope));
  }
}

void execSt(Ctx& x, const Instr& in, uint32_t m) {
  uint32_t size = ptx::typeBytes(in.type);
  uint32_t total = size * in.vec;
  Access acc;
  if (!resolve(x, in, m, total, acc, "store")) return;
  uint32_t evMask = acc.globalMask | acc.sharedMask;
  if (evMask && isRelease(in.sem)) emitFence(x, evMask, toEventScope(in.scope));
  LaneMask changed = 0;  // lanes that changed some byte (MemoryEvent::unchangedWrites)
  for (uint32_t k = 0; k < in.vec; ++k) {
    const uint64_t* s = S(x, in.src[k]);
    LaneMask changedHere = 0;  // (of this component: each counts in memoryChanges)
    if (size == 4) {  // the usual width, without a switch per lane
      forLanes(m, [&](uint32_t l) {
        uint8_t* p = acc.ptr[l] + k * 4;
        uint32_t old, v = uint32_t(s[l]);
        std::memcpy(&old, p, 4);
        changedHere |= LaneMask(old != v) << l;
        std::memcpy(p, &v, 4);
      });
    } else {
      forLanes(m, [&](uint32_t l) {
        uint8_t* p = acc.ptr[l] + k * size;
        changedHere |= LaneMask(storeChanges(p, size, s[l])) << l;
        storeBits(p, size, s[l]);
      });
    }
    x.L->memoryChanges += std::popcount(changedHere);
    changed |= changedHere;
  }
  if (evMask) {
    x.L->locks.access(x.W->firstThread, evMask);
    emitMemory(x, in, acc, AccessType::Write, total, AtomicOp::None, 0, m & ~changed);
  }
}

template <class T>
T atomicApply(ptx::AtomOp op, T old, T b, T c) {
  using ptx::AtomOp;
  if constexpr (requires { T::apply(op, old, b, c); }) {  // f16 / bf16 (HalfFloat.h)
    return T::apply(op, old, b, c);
  } else if constexpr (std::is_floating_point_v<T>) {
    switch (op) {
      case AtomOp::Add: return old + b;
      case AtomOp::Min: return std::fmin(old, b);
      case AtomOp::Max: return std::fmax(old, b);
      case AtomOp::Exch: return b;
      case AtomOp::Cas: return old == b ? c : old;
      default: return old;
    }
  } else {
    using UT = std::make_unsigned_t<T>;
    switch (op) {
      case AtomOp::Add: return T(UT(old) + UT(b));
      case AtomOp::Inc: return UT(old) >= UT(b) ? T(0) : T(UT(old) + 1);
      case AtomOp::Dec: return (old == 0 || UT(old) > UT(b)) ? b : T(UT(old) - 1);
      case AtomOp::Min: return old < b ? old : b;
      case AtomOp::Max: return old > b ? old : b;
      case AtomOp::And: return T(old & b);
      case AtomOp::Or: return T(old | b);
      case AtomOp::Xor: return T(old ^ b);
      case AtomOp::Exch: return b;
      case AtomOp::Cas: return old == b ? c : old;
      default: return old;
    }
  }
}

AtomicOp eventOp(ptx::AtomOp op) {
  switch (op) {
    case ptx::AtomOp::Add: return AtomicOp::Add;
    case ptx::AtomOp::Inc: return AtomicOp::Inc;
    case ptx::AtomOp::Dec: return AtomicOp::Dec;
    case ptx::AtomOp::Min: return AtomicOp::Min;
    case ptx::AtomOp::Max: return AtomicOp::Max;
    case ptx::AtomOp::And: return AtomicOp::And;
    case ptx::AtomOp::Or: return AtomicOp::Or;
    case ptx::AtomOp::Xor: return AtomicOp::Xor;
    case ptx::AtomOp::Exch: return AtomicOp::Exch;
    case ptx::AtomOp::Cas: return AtomicOp::Cas;
    default: return AtomicOp::None;
  }
}

template <class T>
void execAtom(Ctx& x, const Instr& in, uint32_t m) {
  constexpr uint32_t size = sizeof(T);
  Access acc;
  if (!resolve(x, in, m, size, acc, "atomic")) return;
  Launch& L = *x.L;
  Warp& w = *x.W;
  uint32_t evMask = acc.globalMask | acc.sharedMask;
  Scope scope = toEventScope(in.scope);
  // lock ids: global address, or the shared offset tagged with the block
  LockInference::Addresses lockAddr{};
  forLanes(evMask, [&](uint32_t l) {
    lockAddr[l] = (acc.sharedMask >> l) & 1 ? (kSharedWindow | (uint64_t(w.block) << 32) | acc.addr[l]) : acc.addr[l];
  });
  LaneMask lockLanes = in.atom == ptx::AtomOp::Cas ? evMask : 0;
  if (evMask && in.atom == ptx::AtomOp::Exch) {
    LockInference::Addresses locks{};
    Scope ls;
    uint32_t rel = L.locks.exch(w.firstThread, evMask, lockAddr, scope, locks, ls);
    lockLanes = rel;
    if (rel) {
      LockEvent ev;
      ev.lanes = WarpLanes{w.block, w.inBlock, rel};
      ev.scope = ls;
      ev.lock = locks;
      ev.origin = L.origin(x.pc);
      ev.blockLocal = sharedLockLanes(rel, locks);
      L.sink.release(ev);
    }
  }
  if (evMask && isRelease(in.sem)) emitFence(x, evMask, scope);
  uint64_t* d = in.op == Op::Atom ? D(x, in.dst[0]) : nullptr;
  const uint64_t* b = S(x, in.src[0]);
  const uint64_t* c = in.nsrc > 1 ? S(x, in.src[1]) : b;
  uint32_t success = 0;
  forLanes(m, [&](uint32_t l) {
    T old;
    std::memcpy(&old, acc.ptr[l], size);
    T bv, cv;
    uint64_t bb = b[l], cb = c[l];
    std::memcpy(&bv, &bb, size);
    std::memcpy(&cv, &cb, size);
    T nv = atomicApply<T>(in.atom, old, bv, cv);
    if (std::memcmp(&nv, &old, size) != 0) ++L.memoryChanges;
    std::memcpy(acc.ptr[l], &nv, size);
    if (in.atom == ptx::AtomOp::Cas && old == bv) success |= 1u << l;
    if (d) {
      uint64_t o = 0;
      std::memcpy(&o, &old, size);
      if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) o = uint64_t(int64_t(old));
      d[l] = o;
    }
  });
  if (evMask) {
    if (in.atom == ptx::AtomOp::Cas) L.locks.cas(w.firstThread, evMask, success & evMask, lockAddr, scope);
    else if (in.atom != ptx::AtomOp::Exch) L.locks.access(w.firstThread, evMask);
    emitMemory(x, in, acc, AccessType::AtomicRmw, size, eventOp(in.atom), lockLanes);
    if (isAcquire(in.sem)) emitFence(x, evMask, scope);
  }
}

void execFence(Ctx& x, const Instr& in, uint32_t m) {
  Launch& L = *x.L;
  Warp& w = *x.W;
  Scope scope = toEventScope(in.scope);
  emitFence(x, m, scope);
  LockInference::Addresses locks{};
  Scope ls;
  uint32_t acq = L.locks.fence(w.firstThread, m, scope, locks, ls);
  if (acq) {
    LockEvent ev;
    ev.lanes = WarpLanes{w.block, w.inBlock, acq};
    ev.scope = ls;
    ev.lock = locks;
    ev.origin = L.origin(x.pc);
    ev.blockLocal = sharedLockLanes(acq, locks);
    L.sink.acquire(ev);
  }
}

void execNop(Ctx&, const Instr&, uint32_t) {}

// Launches run one after the other: the previous kernel of the stream has
// completed, so the wait has nothing to wait for; it only marks the lanes
// that may now touch global memory (LaunchConfig::programmaticOverlap).
void execGridDependencyWait(Ctx& x, const Instr&, uint32_t m) { x.W->gridDependencyWaited |= m; }
void execLaunchDependents(Ctx& x, const Instr&, uint32_t) { x.L->launchedDependents = true; }

}  // namespace

ExecFn selectMemory(const Instr& in, std::string& error) {
  switch (in.op) {
    case Op::Ld: {
      if (ptx::typeBytes(in.type) > 8) { error = "unsupported 128-bit load"; return nullptr; }
      return &execLd;
    }
    case Op::St: {
      if (ptx::typeBytes(in.type) > 8) { error = "unsupported 128-bit store"; return nullptr; }
      return &execSt;
    }
    case Op::Atom:
    case Op::Red: {
      bool isF = ptx::isFloat(in.type);
      if (isF && !(in.atom == ptx::AtomOp::Add || in.atom == ptx::AtomOp::Min || in.atom == ptx::AtomOp::Max ||
                   in.atom == ptx::AtomOp::Exch || in.atom == ptx::AtomOp::Cas)) {
        error = "unsupported float atomic";
        return nullptr;
      }
      switch (in.type) {
        case Type::U32: case Type::B32: return &execAtom<uint32_t>;
        case Type::S32: return &execAtom<int32_t>;
        case Type::U64: case Type::B64: return &execAtom<uint64_t>;
        case Type::S64: return &execAtom<int64_t>;
        case Type::F32: return &execAtom<float>;
        case Type::F64: return &execAtom<double>;
        case Type::B16: case Type::U16: return &execAtom<uint16_t>;  // atom.cas.b16
        case Type::F16: return &execAtom<F16Atomic>;
        case Type::BF16: return &execAtom<BF16Atomic>;
        case Type::F16x2: return &execAtom<F16x2Atomic>;
        case Type::BF16x2: return &execAtom<BF16x2Atomic>;
        default: error = std::string("unsupported atomic type .") + ptx::toString(in.type); return nullptr;
      }
    }
    case Op::Membar: return &execFence;
    case Op::Nop: case Op::Prefetch: return &execNop;
    case Op::GridDepWait: return &execGridDependencyWait;
    case Op::GridDepLaunch: return &execLaunchDependents;
    default: break;
  }
  error = std::string("unsupported instruction ") + ptx::toString(in.op);
  return nullptr;
}

// ---------------------------------------------------------------- warp-level exchange

// Each lane's first source operand: `values` when given (lanes of one
// warp-synchronous exchange at different instructions), else `in`'s.
static const uint64_t* sourceValues(Ctx& x, const Instr& in, const uint64_t* values) {
  return values ? values : S(x, in.src[0]);
}

// The source lane of lane `lane` for shfl mode M, and whether it is in
// range (the predicate). A lane out of range gets its own value (PTX ISA).
// A source lane in range that does not take part (no such thread, exited, or
// outside the member mask) leaves the value undefined in CUDA; an H200 gives
// 0 there (bench/native/RESULTS.md), and NVIDIA's reduction sample relies on
// it, so predatar gives 0 too and returns those lanes (a note for the user).
// (A template: the mode is chosen once per instruction, not once per lane:
// shuffle reductions are a sixth of a warp-reduction kernel's emulation.)
template <ptx::ShflMode M>
static uint32_t shflLanes(uint32_t lanes, uint32_t mask, const uint64_t* val, const uint64_t* b, const uint64_t* c,
                          uint64_t* result, bool* pred) {
  uint32_t absentSources = 0;
  forLanes(lanes, [&](uint32_t l) {
    int32_t lane = int32_t(l);
    uint32_t bval = uint32_t(b[l]), cval = uint32_t(c[l]);
    int32_t segmask = int32_t((cval >> 8) & 0x1F);
    int32_t maxLane = (lane & segmask) | (int32_t(cval & 0x1F) & ~segmask);
    int32_t minLane = lane & segmask;
    int32_t j = lane;
    bool pval = false;
    if constexpr (M == ptx::ShflMode::Up) {
      j = lane - int32_t(bval);
      pval = j >= maxLane;
    } else if constexpr (M == ptx::ShflMode::Down) {
      j = lane + int32_t(bval);
      pval = j <= maxLane;
    } else if constexpr (M == ptx::ShflMode::Bfly) {
      j = lane ^ int32_t(bval);
      pval = j <= maxLane;
    } else {
      j = minLane | (int32_t(bval & 0x1F) & ~segmask);
      pval = j <= maxLane;
    }
    if (!pval || j < 0 || j > 31) j = lane;
    bool present = (mask >> j) & 1;
    result[l] = present ? val[j] : 0;
    if (!present) absentSources |= 1u << l;
    pred[l] = pval;
  });
  return absentSources;
}

// The first time a launch's shuffle read a lane taking no part: what the user should know.
static void noteAbsentSource(Ctx& x, uint32_t readers) {
  Launch& L = *x.L;
  if (L.undefinedShuffle.noted(x.pc)) return;
  uint32_t lane = uint32_t(std::countr_zero(readers));
  int others = std::popcount(readers) - 1;
  L.undefinedShuffle.byPc[x.pc] = "shfl.sync at " + L.userLine(x.pc) + ": " + L.threadName(*x.W, lane) +
                       (others ? " and " + std::to_string(others) + " more lanes" : std::string()) +
                       " read a lane that takes no part "
                       "(no such thread, exited, or outside the member mask). CUDA leaves that value undefined; "
                       "predatar gives 0, as an H200 does. Make every source lane take part in the shuffle.";
}

void execShfl(Ctx& x, const Instr& in, uint32_t mask, uint32_t write, const uint64_t* values) {
  const uint64_t* val = sourceValues(x, in, values);
  const uint64_t* b = S(x, in.src[1]);
  const uint64_t* c = S(x, in.src[2]);
  uint64_t* d = D(x, in.dst[0]);
  uint64_t* p = in.ndst > 1 ? D(x, in.dst[1]) : nullptr;
  uint32_t lanes = write ? write : mask;
  uint64_t result[32];
  bool pred[32];
  uint32_t absent = 0;
  switch (ptx::ShflMode(in.mode)) {
    case ptx::ShflMode::Up: absent = shflLanes<ptx::ShflMode::Up>(lanes, mask, val, b, c, result, pred); break;
    case ptx::ShflMode::Down: absent = shflLanes<ptx::ShflMode::Down>(lanes, mask, val, b, c, result, pred); break;
    case ptx::ShflMode::Bfly: absent = shflLanes<ptx::ShflMode::Bfly>(lanes, mask, val, b, c, result, pred); break;
    case ptx::ShflMode::Idx: absent = shflLanes<ptx::ShflMode::Idx>(lanes, mask, val, b, c, result, pred); break;
  }
  if (absent) noteAbsentSource(x, absent);
  // Written after every lane has read: a destination may be another lane's source.
  forLanes(lanes, [&](uint32_t l) { d[l] = result[l]; });
  if (p) forLanes(lanes, [&](uint32_t l) { p[l] = pred[l]; });
}

void execVote(Ctx& x, const Instr& in, uint32_t mask, uint32_t write, const uint64_t* values) {
  const uint64_t* a = sourceValues(x, in, values);
  uint32_t ballot = trueLanes(a, mask, in.negC);
  uint64_t r = 0;
  switch (ptx::VoteMode(in.mode)) {
    case ptx::VoteMode::All: r = ballot == mask; break;
    case ptx::VoteMode::Any: r = ballot != 0; break;
    case ptx::VoteMode::Uni: r = ballot == 0 || ballot == mask; break;
    case ptx::VoteMode::Ballot: r = ballot; break;
  }
  uint64_t* d = D(x, in.dst[0]);
  forLanes(write ? write : mask, [&](uint32_t l) { d[l] = r; });
}

void execRedux(Ctx& x, const Instr& in, uint32_t mask, uint32_t write, const uint64_t* values) {
  const uint64_t* a = sourceValues(x, in, values);
  bool sign = ptx::isSigned(in.type);
  uint32_t first = uint32_t(std::countr_zero(mask));
  uint32_t acc = uint32_t(a[first]);
  forLanes(mask & ~(1u << first), [&](uint32_t l) {
    uint32_t v = uint32_t(a[l]);
    switch (in.atom) {
      case ptx::AtomOp::Add: acc += v; break;
      case ptx::AtomOp::Min: acc = sign ? uint32_t(std::min(int32_t(acc), int32_t(v))) : std::min(acc, v); break;
      case ptx::AtomOp::Max: acc = sign ? uint32_t(std::max(int32_t(acc), int32_t(v))) : std::max(acc, v); break;
      case ptx::AtomOp::And: acc &= v; break;
      case ptx::AtomOp::Or: acc |= v; break;
      case ptx::AtomOp::Xor: acc ^= v; break;
      default: break;
    }
  });
  uint64_t* d = D(x, in.dst[0]);
  forLanes(write ? write : mask, [&](uint32_t l) { d[l] = acc; });
}

void execMatch(Ctx& x, const Instr& in, uint32_t mask, uint32_t write, const uint64_t* values) {
  const uint64_t* a = sourceValues(x, in, values);
  bool is64 = ptx::typeBytes(in.type) == 8;
  auto v = [&](uint32_t l) { return is64 ? a[l] : uint64_t(uint32_t(a[l])); };
  uint64_t vals[32];
  forLanes(mask, [&](uint32_t l) { vals[l] = v(l); });
  uint64_t* d = D(x, in.dst[0]);
  uint64_t* p = in.ndst > 1 ? D(x, in.dst[1]) : nullptr;
  if (in.mode == 0) {  // any
    uint32_t res[32];
    forLanes(mask, [&](uint32_t l) {
      uint32_t same = 0;
      forLanes(mask, [&](uint32_t k) { if (vals[k] == vals[l]) same |= 1u << k; });
      res[l] = same;
    });
    forLanes(write ? write : mask, [&](uint32_t l) { d[l] = res[l]; });
  } else {
    bool all = true;
    uint32_t first = uint32_t(std::countr_zero(mask));
    forLanes(mask, [&](uint32_t l) { if (vals[l] != vals[first]) all = false; });
    forLanes(write ? write : mask, [&](uint32_t l) {
      d[l] = all ? mask : 0;
      if (p) p[l] = all;
    });
  }
}

}  // namespace predatar::sim
