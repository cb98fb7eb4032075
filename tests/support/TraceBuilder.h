// Hand-built traces for tests, one event per call, in the spirit of a litmus
// file: TraceBuilder(1, 2).wr(0, 0, "x").acq(0, 1, "m")...
//
// Locations are "name" or "name[i]" (a 4-byte word); a name is global
// unless declared with shared(). Every name becomes a MemorySymbol of 64
// words on first use; locks become lockNames (a lock declared with shared()
// is one lock per block). Origin.seq is the index in the trace, Origin.pc the
// index + 1.
#pragma once

#include <algorithm>
#include <cstdint>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "events/Trace.h"
#include "report/Race.h"

namespace predatar::testsupport {

class TraceBuilder {
 public:
  TraceBuilder(uint32_t blocks, uint32_t threadsPerBlock) {
    trace_.kernel.name = "builder";
    trace_.kernel.grid = {blocks, 1, 1};
    trace_.kernel.block = {threadsPerBlock, 1, 1};
    exited_.assign(blocks, std::vector<bool>(threadsPerBlock, false));
  }

  TraceBuilder& shared(std::initializer_list<std::string> names) {
    for (const auto& n : names) sharedNames_.insert(n);
    return *this;
  }

  // Single-thread accesses.
  TraceBuilder& rd(uint32_t b, uint32_t t, std::string_view loc) { return access(b, t, AccessType::Read, false, Scope::Device, loc); }
  TraceBuilder& wr(uint32_t b, uint32_t t, std::string_view loc) { return access(b, t, AccessType::Write, false, Scope::Device, loc); }
  TraceBuilder& ard(uint32_t b, uint32_t t, std::string_view loc, Scope s = Scope::Device) { return access(b, t, AccessType::Read, true, s, loc); }
  TraceBuilder& awr(uint32_t b, uint32_t t, std::string_view loc, Scope s = Scope::Device) { return access(b, t, AccessType::Write, true, s, loc); }
  TraceBuilder& atom(uint32_t b, uint32_t t, std::string_view loc, Scope s = Scope::Device) { return access(b, t, AccessType::AtomicRmw, true, s, loc); }

  TraceBuilder& access(uint32_t b, uint32_t t, AccessType type, bool strong, Scope scope, std::string_view loc,
                       uint8_t size = 4) {
    MemoryEvent e = memoryEvent(single(b, t), type, strong, scope, loc);
    e.size = size;
    return push(e);
  }

  // A warp access: every lane in `mask` at `loc` (lane-uniform), or, with
  // perLane, at word index (index of loc) + lane.
  TraceBuilder& warpAccess(uint32_t b, uint32_t w, LaneMask mask, AccessType type, bool strong, Scope scope,
                           std::string_view loc, bool perLane = false) {
    MemoryEvent e = memoryEvent({b, w, mask}, type, strong, scope, loc);
    auto [name, index] = parse(loc);
    uint64_t base = symbol(name).base + 4 * index;
    for (uint32_t lane = 0; lane < kWarpSize; ++lane) e.address[lane] = (mask >> lane & 1) ? base + (perLane ? 4ull * lane : 0) : 0;
    return push(e);
  }

  TraceBuilder& acq(uint32_t b, uint32_t t, std::string_view lock, Scope s = Scope::Device) {
    AcquireEvent e;
    lockEvent(e, b, t, lock, s);
    return push(e);
  }
  TraceBuilder& rel(uint32_t b, uint32_t t, std::string_view lock, Scope s = Scope::Device) {
    ReleaseEvent e;
    lockEvent(e, b, t, lock, s);
    return push(e);
  }

  TraceBuilder& fence(uint32_t b, uint32_t t, Scope s = Scope::Device) {
    FenceEvent e;
    e.lanes = single(b, t);
    e.scope = s;
    return push(e);
  }

  TraceBuilder& exit(uint32_t b, uint32_t t) {
    ExitEvent e;
    e.lanes = single(b, t);
    exited_.at(b).at(t) = true;
    return push(e);
  }

  // `bar` of block b: every non-exited thread of the block.
  TraceBuilder& bar(uint32_t b) {
    std::vector<uint32_t> threads;
    for (uint32_t t = 0; t < exited_.at(b).size(); ++t)
      if (!exited_[b][t]) threads.push_back(t);
    return barThreads(b, threads);
  }
  // A barrier event with an explicit thread list, as a front end could send it.
  TraceBuilder& barThreads(uint32_t b, std::vector<uint32_t> threads) {
    BarrierEvent e;
    e.block = b;
    e.threads = std::move(threads);
    return push(e);
  }

  TraceBuilder& syncwarp(uint32_t b, uint32_t w, LaneMask mask) {
    SyncWarpEvent e;
    e.lanes = {b, w, mask};
    return push(e);
  }

  // The key a detector reports for `loc` (shared: in block b).
  LocationKey loc(std::string_view loc, uint32_t b = 0) {
    auto [name, index] = parse(loc);
    MemorySpace space = sharedNames_.count(name) ? MemorySpace::Shared : MemorySpace::Global;
    return {space, space == MemorySpace::Shared ? b : 0, symbol(name).base + 4 * index};
  }

  const Trace& trace() const { return trace_; }
  Trace build() const { return trace_; }

 private:
  Trace trace_;
  std::set<std::string> sharedNames_;
  std::vector<std::vector<bool>> exited_;

  static WarpLanes single(uint32_t b, uint32_t t) { return {b, t / kWarpSize, LaneMask(1) << (t % kWarpSize)}; }

  static std::pair<std::string, uint64_t> parse(std::string_view loc) {
    auto open = loc.find('[');
    if (open == std::string_view::npos) return {std::string(loc), 0};
    if (loc.back() != ']') throw std::invalid_argument("TraceBuilder: bad location " + std::string(loc));
    return {std::string(loc.substr(0, open)), std::stoull(std::string(loc.substr(open + 1, loc.size() - open - 2)))};
  }

  const MemorySymbol& symbol(const std::string& name) {
    auto& syms = trace_.kernel.symbols;
    for (const auto& s : syms)
      if (s.name == name) return s;
    MemorySpace space = sharedNames_.count(name) ? MemorySpace::Shared : MemorySpace::Global;
    syms.push_back({name, space, 0x1000ull * (syms.size() + 1), 256, 4});
    return syms.back();
  }

  MemoryEvent memoryEvent(WarpLanes lanes, AccessType type, bool strong, Scope scope, std::string_view loc) {
    auto [name, index] = parse(loc);
    const MemorySymbol& s = symbol(name);
    MemoryEvent e;
    e.lanes = lanes;
    e.type = type;
    e.strong = strong || type == AccessType::AtomicRmw;
    e.scope = scope;
    e.op = type == AccessType::AtomicRmw ? AtomicOp::Add : AtomicOp::None;
    e.space = s.space;
    for (uint32_t lane = 0; lane < kWarpSize; ++lane)
      if (lanes.mask >> lane & 1) e.address[lane] = s.base + 4 * index;
    return e;
  }

  uint64_t lockId(std::string_view name) {
    auto& names = trace_.kernel.lockNames;
    auto it = std::find(names.begin(), names.end(), name);
    if (it != names.end()) return uint64_t(it - names.begin());
    names.emplace_back(name);
    return names.size() - 1;
  }

  // A lock declared with shared() lives in its block's shared memory: one
  // lock per block ("name@block"), marked LockEvent::blockLocal.
  void lockEvent(LockEvent& e, uint32_t b, uint32_t t, std::string_view lock, Scope s) {
    e.lanes = single(b, t);
    e.scope = s;
    bool blockLocal = sharedNames_.count(std::string(lock)) > 0;
    e.lock[t % kWarpSize] = blockLocal ? lockId(std::string(lock) + "@" + std::to_string(b)) : lockId(lock);
    if (blockLocal) e.blockLocal = LaneMask(1) << (t % kWarpSize);
  }

  template <typename E>
  TraceBuilder& push(E e) {
    uint64_t index = trace_.events.size();
    e.origin.seq = index;
    e.origin.pc = index + 1;
    trace_.events.push_back(std::move(e));
    return *this;
  }
};

}  // namespace predatar::testsupport
