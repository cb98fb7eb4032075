// Whether a launch is a pure function of what the runtime can compare: its
// kernel, configuration, arguments and the memory kernels can reach. The
// emulator's round-robin schedule is deterministic, so two such launches from
// equal states run the same instructions, emit the same events and leave the
// same memory; what breaks that is anything the state does not hold.
#include <string>
#include <vector>

#include "sim/Exec.h"

namespace predatar::sim {
namespace {

std::string problemOf(const ptx::Module& ir, const ptx::Instr& in) {
  if (in.op == ptx::Op::ReadClock) return "reads a clock or timer";
  // The runtime learns from running it whether a programmatic dependent
  // launch after it may overlap it (LaunchStats::launchedDependents).
  if (in.op == ptx::Op::GridDepLaunch) return "triggers programmatic dependent launches";
  if (in.op == ptx::Op::Call && in.mode != ptx::kNotBuiltin)
    return in.mode == ptx::kVprintf ? "prints"
           : in.mode == ptx::kAssertFail ? "asserts"
           : in.mode == ptx::kMalloc || in.mode == ptx::kFree ? "uses the device heap"
                                         : "uses the device runtime (" + ir.functions[in.target].name + ")";
  return {};
}

// The first non-empty `check(instruction)` over the code `kernel` can run.
template <class Check>
std::string scanReachable(const Module& moduleBase, std::string_view kernel, Check check) {
  const auto* mod = dynamic_cast<const LoadedModule*>(&moduleBase);
  if (mod == nullptr) return "not a loaded module";
  const ptx::Module& ir = mod->ir;
  int32_t entry = ir.findFunction(kernel);
  if (entry < 0) return "no such kernel";
  std::vector<bool> seen(ir.functions.size(), false);
  std::vector<uint32_t> todo{uint32_t(entry)};
  seen[entry] = true;
  while (!todo.empty()) {
    const ptx::Function& f = ir.functions[todo.back()];
    todo.pop_back();
    for (uint32_t pc = f.begin; pc < f.end; ++pc)
      if (std::string why = check(ir, ir.code[pc]); !why.empty()) return why;
    for (uint32_t callee : f.callees)
      if (!seen[callee]) {
        seen[callee] = true;
        todo.push_back(callee);
      }
  }
  return {};
}

}  // namespace

std::string repeatabilityProblem(const Module& module, std::string_view kernel) {
  return scanReachable(module, kernel, [](const ptx::Module& ir, const ptx::Instr& in) {
    std::string why = problemOf(ir, in);
    return why.empty() ? why : "it " + why;
  });
}

namespace {

// Taint of the values a thread computes from memory it read, per register
// slot at one program point: loads (but of kernel parameters), texture and
// surface fetches, and whatever is computed from them or under a tainted
// guard. Per program point, not per register: the emulator's registers are
// slots that unrelated values share in turn (ptx/RegisterSlots.h).
class DataTaint {
 public:
  explicit DataTaint(uint32_t slots) : bits_(slots + 1, false) {}  // (the last: the .cc carry flag)
  bool tainted(ptx::Ref r) const {
    return r != ptx::kNoRef && (r & ptx::kRefKindMask) == ptx::kRefReg && bits_[r & ptx::kRefIndexMask];
  }
  bool anySource(const ptx::Instr& in) const {
    for (uint8_t i = 0; i < in.nsrc; ++i)
      if (tainted(in.src[i])) return true;
    return tainted(in.guard) || ((in.carry & ptx::kCarryIn) && bits_.back());
  }
  // After `in`, whose results are tainted when `yes`. A guarded instruction
  // may leave a result as it was: its old taint stays.
  void step(const ptx::Instr& in, bool yes) {
    bool keep = in.guard != ptx::kNoRef;
    for (uint8_t i = 0; i < in.ndst; ++i) set(in.dst[i], yes, keep);
    if (in.carry & ptx::kCarryOut) bits_.back() = yes || (keep && bits_.back());
  }
  // This |= other; whether this changed.
  bool merge(const DataTaint& other) {
    bool changed = false;
    for (size_t i = 0; i < bits_.size(); ++i)
      if (other.bits_[i] && !bits_[i]) bits_[i] = changed = true;
    return changed;
  }

 private:
  void set(ptx::Ref r, bool yes, bool keep) {
    if (r == ptx::kNoRef || (r & ptx::kRefKindMask) != ptx::kRefReg) return;
    auto bit = bits_[r & ptx::kRefIndexMask];
    bit = yes || (keep && bit);
  }
  std::vector<bool> bits_;
};

bool readsData(const ptx::Instr& in) {
  switch (in.op) {
    case ptx::Op::Ld: return in.space != ptx::Space::Param && in.addr.base != ptx::Address::Base::Param;
    case ptx::Op::Tex: case ptx::Op::SurfLoad: return true;
    default: return false;
  }
}

// Instructions whose effect on the event stream, the schedule or control is
// more than the values they compute: under a tainted guard, they happen or
// not by the data.
bool actsBeyondValues(ptx::Op op) {
  switch (op) {
    case ptx::Op::Ld: case ptx::Op::St: case ptx::Op::Prefetch: case ptx::Op::Membar: case ptx::Op::Bar:
    case ptx::Op::BarWarpSync: case ptx::Op::Shfl: case ptx::Op::Vote: case ptx::Op::Match: case ptx::Op::Redux:
    case ptx::Op::Bra: case ptx::Op::BrxIdx: case ptx::Op::Ret: case ptx::Op::Exit: case ptx::Op::Trap:
    case ptx::Op::Nanosleep: case ptx::Op::GridDepWait: case ptx::Op::SurfStore:
      return true;
    default:
      return false;
  }
}

// The operand of a warp-synchronizing instruction that names its members
// (as sim/WarpSync.cpp reads it).
int memberMaskOperand(ptx::Op op) {
  switch (op) {
    case ptx::Op::Shfl: return 3;
    case ptx::Op::BarWarpSync: return 0;
    case ptx::Op::Vote: case ptx::Op::Match: case ptx::Op::Redux: return 1;
    default: return -1;
  }
}

std::string at(const ptx::Instr& in, const char* what) {
  return std::string(what) + " at PTX line " + std::to_string(in.line) + " depends on data it read";
}

// Why a use of tainted values in `in` could change the events or the schedule.
std::string taintedUse(const DataTaint& taint, const ptx::Instr& in) {
  if (in.addr.base == ptx::Address::Base::Ref && taint.tainted(in.addr.ref) &&
      (in.op == ptx::Op::Ld || in.op == ptx::Op::St || in.op == ptx::Op::Prefetch))
    return at(in, "the address of a memory access");
  if (taint.tainted(in.guard) && actsBeyondValues(in.op)) return at(in, "whether an instruction runs");
  if (in.op == ptx::Op::BrxIdx && taint.tainted(in.src[0])) return at(in, "an indexed branch");
  if (int m = memberMaskOperand(in.op); m >= 0 && taint.tainted(in.src[m])) return at(in, "a member mask");
  if (in.op == ptx::Op::Bar && (taint.tainted(in.src[0]) || taint.tainted(in.src[1])))
    return at(in, "a barrier's id or thread count");
  return {};
}

std::string refusedOp(const ptx::Instr& in) {
  switch (in.op) {
    case ptx::Op::Atom: case ptx::Op::Red: return "it uses atomics (what a CAS or exchange finds decides its events)";
    case ptx::Op::Call: return "it calls functions";
    case ptx::Op::WmmaLoad: case ptx::Op::WmmaStore: case ptx::Op::WmmaMma: case ptx::Op::CpAsync:
    case ptx::Op::CpAsyncCommit: case ptx::Op::CpAsyncWait: case ptx::Op::CpAsyncMbarrierArrive:
    case ptx::Op::MbarrierInit: case ptx::Op::MbarrierInval: case ptx::Op::MbarrierArrive: case ptx::Op::MbarrierTx:
    case ptx::Op::MbarrierTestWait: case ptx::Op::MbarrierPendingCount:
      return "it uses matrix, asynchronous-copy or memory-barrier instructions";
    case ptx::Op::Unsupported: return "it has an instruction the emulator does not implement";
    default: return {};
  }
}

// Where control goes after instruction `i` of `f` (indices in the function).
std::vector<uint32_t> successors(const ptx::Module& ir, const ptx::Function& f, const ptx::Instr& in, uint32_t i) {
  bool guarded = in.guard != ptx::kNoRef;
  switch (in.op) {
    case ptx::Op::Bra:
      if (guarded) return {in.target - f.begin, i + 1};
      return {in.target - f.begin};
    case ptx::Op::BrxIdx: {
      std::vector<uint32_t> next;
      for (uint32_t target : ir.branchTables[in.target]) next.push_back(target - f.begin);
      if (guarded) next.push_back(i + 1);
      return next;
    }
    case ptx::Op::Exit: case ptx::Op::Ret: case ptx::Op::Trap:
      if (guarded) return {i + 1};
      return {};
    default:
      return {i + 1};
  }
}

}  // namespace

std::string dataDependenceProblem(const Module& moduleBase, std::string_view kernel) {
  const auto* mod = dynamic_cast<const LoadedModule*>(&moduleBase);
  if (mod == nullptr) return "not a loaded module";
  const ptx::Module& ir = mod->ir;
  int32_t entry = ir.findFunction(kernel);
  if (entry < 0) return "no such kernel";
  const ptx::Function& f = ir.functions[entry];
  if (!f.callees.empty() || f.callsIndirectly) return "it calls functions";
  for (uint32_t pc = f.begin; pc < f.end; ++pc)
    if (std::string why = refusedOp(ir.code[pc]); !why.empty()) return why;
  // Taint before each instruction, to a fixpoint over the control flow
  // (taint only grows at each point: this ends).
  const uint32_t n = f.end - f.begin;
  if (n == 0) return {};
  std::vector<DataTaint> before(n, DataTaint(f.numRegs));
  std::vector<bool> reached(n, false), queued(n, false);
  std::vector<uint32_t> work{0};
  reached[0] = queued[0] = true;
  while (!work.empty()) {
    uint32_t i = work.back();
    work.pop_back();
    queued[i] = false;
    const ptx::Instr& in = ir.code[f.begin + i];
    DataTaint after = before[i];
    after.step(in, readsData(in) || before[i].anySource(in));
    for (uint32_t next : successors(ir, f, in, i)) {
      if (next >= n) continue;
      bool changed = before[next].merge(after) || !reached[next];
      reached[next] = true;
      if (changed && !queued[next]) queued[next] = true, work.push_back(next);
    }
  }
  for (uint32_t i = 0; i < n; ++i)
    if (reached[i])
      if (std::string why = taintedUse(before[i], ir.code[f.begin + i]); !why.empty()) return why;
  return {};
}

bool writesAreEvents(const Module& module, std::string_view kernel) {
  return scanReachable(module, kernel, [](const ptx::Module&, const ptx::Instr& in) {
           return in.op == ptx::Op::SurfStore ? std::string("surface store") : std::string();
         }).empty();
}

}  // namespace predatar::sim
