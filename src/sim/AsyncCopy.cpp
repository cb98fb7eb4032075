// Asynchronous copies (cp.async.{ca,cg}.shared.global, commit_group,
// wait_group, wait_all, cp.async.mbarrier.arrive) and memory barriers
// (mbarrier.init / arrive / arrive_drop / expect_tx / complete_tx /
// test_wait / try_wait / pending_count / inval).
//
// cp.async: the addresses are checked when the copy is issued; the copy
// itself (the global read and the shared write, memory events at the
// cp.async's pc) happens when the thread waits for it: wait_group/wait_all,
// or cp.async.mbarrier.arrive. Until then its destination keeps its old
// bytes, and accesses ordered before the wait do not see it, as on the GPU.
//
// mbarrier: the 64-bit object in memory holds the emulator's own encoding
// (the object is opaque to programs): pending arrivals (bits 0-19), expected
// arrivals (20-39), pending transaction bytes (40-62) and the phase (63).
// For the detectors, an arrive is a release: a fence and a strong RMW of the
// object (scope .cta unless stated); a test_wait/try_wait that sees its
// phase complete is an acquire: a strong read of the object and a fence. The
// detectors' message passing (analysis/MessagePassing) follows the object's
// RMW chain, so every arrival of the phase happens before the waiter's later
// accesses. init and inval are plain writes.
#include "sim/Exec.h"

namespace predatar::sim {

using ptx::Instr;
using ptx::Op;

namespace {

constexpr uint64_t kCountMask = (1ull << 20) - 1;
constexpr uint64_t kTxMask = (1ull << 23) - 1;
constexpr uint64_t kPhaseBit = 1ull << 63;

struct Barrier64 {
  uint64_t pending, expected, tx, phase;
  static Barrier64 decode(uint64_t w) {
    return {w & kCountMask, (w >> 20) & kCountMask, (w >> 40) & kTxMask, w >> 63};
  }
  uint64_t encode() const { return pending | expected << 20 | (tx & kTxMask) << 40 | phase << 63; }
  void completeIfDone() {
    if (pending != 0 || tx != 0) return;
    phase ^= 1;
    pending = expected;
  }
};

void emitFenceFor(Ctx& x, uint32_t mask, Scope scope) {
  if (!mask) return;
  FenceEvent ev;
  ev.lanes = WarpLanes{x.W->block, x.W->inBlock, mask};
  ev.scope = scope;
  ev.origin = x.L->origin(x.pc);
  x.L->sink.fence(ev);
}

Scope barrierScope(const Instr& in) { return in.scope == ptx::Scope::Cta ? Scope::Block : toEventScope(in.scope); }

// ---------------------------------------------------------------- cp.async

void completeCopies(Ctx& x, uint32_t lanes, uint32_t waitGroups, bool all) {
  Warp& w = *x.W;
  Launch& L = *x.L;
  auto due = [&](const AsyncCopy& c) {
    if (!((lanes >> c.lane) & 1)) return false;
    if (all) return true;
    uint32_t committed = w.asyncCommitted[c.lane];
    return c.group != 0 && committed >= waitGroups && c.group <= committed - waitGroups;
  };
  std::vector<AsyncCopy> keep;
  size_t i = 0;
  while (i < w.asyncCopies.size()) {
    const AsyncCopy& first = w.asyncCopies[i];
    if (!due(first)) { keep.push_back(first); ++i; continue; }
    // One read and one write event per issuing instruction instance.
    LaneAccess src, dst;
    uint32_t bytes = first.bytes, srcBytes = first.srcBytes, pc = first.pc;
    uint64_t issue = first.issue;
    for (; i < w.asyncCopies.size() && w.asyncCopies[i].issue == issue; ++i) {
      const AsyncCopy& c = w.asyncCopies[i];
      if (!due(c)) { keep.push_back(c); continue; }
      uint8_t* to = L.blocks[w.block].shared.get() + c.dstOffset;
      uint8_t* from = reinterpret_cast<uint8_t*>(c.src);
      if (std::memcmp(to, from, c.srcBytes) != 0) ++L.memoryChanges;
      std::memcpy(to, from, c.srcBytes);
      std::memset(to + c.srcBytes, 0, c.bytes - c.srcBytes);
      src.addr[c.lane] = c.src;
      if (c.srcBytes) src.globalMask |= 1u << c.lane;
      dst.addr[c.lane] = c.dstOffset;
      dst.sharedMask |= 1u << c.lane;
    }
    emitLaneAccess(x, src, AccessType::Read, srcBytes, pc);
    emitLaneAccess(x, dst, AccessType::Write, bytes, pc);
  }
  w.asyncCopies.swap(keep);
}

void cpAsync(Ctx& x, const Instr& in, uint32_t m) {
  const ptx::MatrixOperands& mo = x.L->M.ir.matrixOps[in.target];
  Warp& w = *x.W;
  uint32_t first = uint32_t(std::countr_zero(m));
  uint32_t bytes = uint32_t(S(x, in.src[0])[first]);
  bool cg = in.mode & 2;
  if (!(bytes == 4 || bytes == 8 || bytes == 16) || (cg && bytes != 16)) {
    x.L->fault(w, first, x.pc, "cp.async copy size " + std::to_string(bytes) + " (must be 4, 8 or 16; .cg: 16)");
    x.faulted = true;
    return;
  }
  const uint64_t* srcSize = (in.nsrc > 1 && !(in.mode & 1)) ? S(x, in.src[1]) : nullptr;
  uint64_t to[32], from[32];
  forLanes(m, [&](uint32_t l) {
    to[l] = laneAddressOf(x, in.addr, l);
    from[l] = laneAddressOf(x, mo.source, l);
  });
  LaneAccess dst, src;
  if (!resolveLanes(x, ptx::Space::Shared, to, m, bytes, dst, "cp.async destination")) return;
  if (!resolveLanes(x, ptx::Space::Global, from, m, bytes, src, "cp.async source")) return;
  uint64_t issue = ++w.asyncIssued;
  forLanes(m, [&](uint32_t l) {
    uint32_t n = srcSize ? uint32_t(std::min<uint64_t>(srcSize[l], bytes)) : bytes;
    w.asyncCopies.push_back(AsyncCopy{src.addr[l], uint32_t(dst.addr[l]), uint8_t(bytes), uint8_t(n), uint8_t(l),
                                      0, x.pc, issue});
  });
}

void cpAsyncCommit(Ctx& x, uint32_t m) {
  Warp& w = *x.W;
  forLanes(m, [&](uint32_t l) { ++w.asyncCommitted[l]; });
  for (AsyncCopy& c : w.asyncCopies)
    if (c.group == 0 && ((m >> c.lane) & 1)) c.group = w.asyncCommitted[c.lane];
}

// ---------------------------------------------------------------- mbarrier

// Resolves the 8-byte object of every lane; false after a fault.
bool barrierObjects(Ctx& x, const Instr& in, uint32_t m, LaneAccess& acc) {
  uint64_t addr[32];
  forLanes(m, [&](uint32_t l) { addr[l] = laneAddressOf(x, in.addr, l); });
  return resolveLanes(x, in.space, addr, m, 8, acc, "mbarrier access");
}

uint64_t readWord(const LaneAccess& acc, uint32_t l) {
  uint64_t v;
  std::memcpy(&v, acc.ptr[l], 8);
  return v;
}
void writeWord(Ctx& x, const LaneAccess& acc, uint32_t l, uint64_t v) {
  if (readWord(acc, l) != v) ++x.L->memoryChanges;
  std::memcpy(acc.ptr[l], &v, 8);
}

void mbarrierInit(Ctx& x, const Instr& in, uint32_t m, bool inval) {
  LaneAccess acc;
  if (!barrierObjects(x, in, m, acc)) return;
  const uint64_t* count = inval ? nullptr : S(x, in.src[0]);
  bool bad = false;
  forLanes(m, [&](uint32_t l) {
    uint64_t n = count ? count[l] : 0;
    if (count && (n == 0 || n > kCountMask)) bad = true;
    writeWord(x, acc, l, n | n << 20);
  });
  if (bad) {
    x.L->fault(*x.W, uint32_t(std::countr_zero(m)), x.pc, "mbarrier.init count outside 1.." + std::to_string(kCountMask));
    x.faulted = true;
    return;
  }
  emitLaneAccess(x, acc, AccessType::Write, 8, x.pc);
}

// A release arrive of `count` (drop: also for the later phases) after `tx`
// more transaction bytes are expected; returns the state token per lane.
void mbarrierArrive(Ctx& x, const Instr& in, uint32_t m, const uint64_t* count, bool drop, const uint64_t* tx,
                    uint64_t* state) {
  LaneAccess acc;
  if (!barrierObjects(x, in, m, acc)) return;
  Scope scope = barrierScope(in);
  if (in.sem != ptx::Sem::Relaxed) emitFenceFor(x, acc.globalMask | acc.sharedMask, scope);
  uint32_t bad = 0;
  forLanes(m, [&](uint32_t l) {
    Barrier64 b = Barrier64::decode(readWord(acc, l));
    uint64_t n = count ? count[l] : 1;
    if (tx) b.tx = (b.tx + tx[l]) & kTxMask;
    if (n > b.pending || (drop && n > b.expected)) { bad |= 1u << l; return; }
    uint64_t phase = b.phase;
    b.pending -= n;
    if (drop) b.expected -= n;
    b.completeIfDone();
    writeWord(x, acc, l, b.encode());
    if (state) state[l] = phase << 63 | b.pending;
  });
  if (bad) {
    x.L->fault(*x.W, uint32_t(std::countr_zero(bad)), x.pc, "mbarrier arrive of more than its pending arrivals");
    x.faulted = true;
    return;
  }
  x.L->locks.access(x.W->firstThread, acc.globalMask | acc.sharedMask);
  emitLaneAccess(x, acc, AccessType::AtomicRmw, 8, x.pc, true, scope);
}

void mbarrierTx(Ctx& x, const Instr& in, uint32_t m) {
  LaneAccess acc;
  if (!barrierObjects(x, in, m, acc)) return;
  const uint64_t* n = S(x, in.src[0]);
  bool complete = in.mode & 1;
  forLanes(m, [&](uint32_t l) {
    Barrier64 b = Barrier64::decode(readWord(acc, l));
    b.tx = (complete ? b.tx - std::min<uint64_t>(b.tx, n[l]) : b.tx + n[l]) & kTxMask;
    if (complete) b.completeIfDone();
    writeWord(x, acc, l, b.encode());
  });
  emitLaneAccess(x, acc, AccessType::AtomicRmw, 8, x.pc, true, barrierScope(in));
}

void mbarrierTestWait(Ctx& x, const Instr& in, uint32_t m) {
  LaneAccess acc;
  if (!barrierObjects(x, in, m, acc)) return;
  const uint64_t* token = S(x, in.src[0]);
  uint64_t* done = D(x, in.dst[0]);
  bool parity = in.mode & 1;
  uint32_t complete = 0;
  forLanes(m, [&](uint32_t l) {
    uint64_t phase = readWord(acc, l) >> 63;
    uint64_t waited = parity ? (token[l] & 1) : (token[l] >> 63);
    bool ok = phase != waited;
    done[l] = ok;
    complete |= uint32_t(ok) << l;
  });
  Scope scope = barrierScope(in);
  emitLaneAccess(x, acc, AccessType::Read, 8, x.pc, true, scope);
  if (in.sem != ptx::Sem::Relaxed) emitFenceFor(x, complete & (acc.globalMask | acc.sharedMask), scope);
}

void execAsync(Ctx& x, const Instr& in, uint32_t m) {
  switch (in.op) {
    case Op::CpAsync: cpAsync(x, in, m); break;
    case Op::CpAsyncCommit: cpAsyncCommit(x, m); break;
    case Op::CpAsyncWait:
      if (in.mode == 1) {
        cpAsyncCommit(x, m);
        completeCopies(x, m, 0, true);
      } else {
        completeCopies(x, m, uint32_t(S(x, in.src[0])[std::countr_zero(m)]), false);
      }
      break;
    case Op::CpAsyncMbarrierArrive: {
      completeCopies(x, m, 0, true);
      // Without .noinc the pending count is raised by one first: no net arrival.
      static const uint64_t zeros[32] = {};
      mbarrierArrive(x, in, m, (in.mode & 1) ? nullptr : zeros, false, nullptr, nullptr);
      break;
    }
    case Op::MbarrierInit: mbarrierInit(x, in, m, false); break;
    case Op::MbarrierInval: mbarrierInit(x, in, m, true); break;
    case Op::MbarrierArrive: {
      bool expectTx = in.mode & 2;
      const uint64_t* operand = in.nsrc > 0 ? S(x, in.src[0]) : nullptr;
      mbarrierArrive(x, in, m, expectTx ? nullptr : operand, in.mode & 1, expectTx ? operand : nullptr,
                     in.ndst > 0 && in.dst[0] != ptx::kNoRef ? D(x, in.dst[0]) : nullptr);
      break;
    }
    case Op::MbarrierTx: mbarrierTx(x, in, m); break;
    case Op::MbarrierTestWait: mbarrierTestWait(x, in, m); break;
    case Op::MbarrierPendingCount: {
      const uint64_t* s = S(x, in.src[0]);
      uint64_t* d = D(x, in.dst[0]);
      forLanes(m, [&](uint32_t l) { d[l] = s[l] & kCountMask; });
      break;
    }
    default: break;
  }
}

}  // namespace

ExecFn selectAsyncCopy(const Instr& in, std::string& error) {
  switch (in.op) {
    case Op::CpAsync: case Op::CpAsyncCommit: case Op::CpAsyncWait: case Op::CpAsyncMbarrierArrive:
    case Op::MbarrierInit: case Op::MbarrierInval: case Op::MbarrierArrive: case Op::MbarrierTx:
    case Op::MbarrierTestWait: case Op::MbarrierPendingCount:
      return &execAsync;
    default:
      error = std::string("unsupported instruction ") + ptx::toString(in.op);
      return nullptr;
  }
}

}  // namespace predatar::sim
