#include "ptx/RegisterSlots.h"

#include <algorithm>
#include <functional>
#include <queue>
#include <type_traits>
#include <utility>

namespace predatar::ptx {
namespace {

bool isRegister(Ref r) { return r != kNoRef && (r & kRefKindMask) == kRefReg; }

// The instructions whose operands the emulator also reads from
// Module::matrixOps[target].
bool hasMatrixOperands(Op op) {
  return op == Op::WmmaLoad || op == Op::WmmaStore || op == Op::WmmaMma || op == Op::CpAsync;
}

// Calls f(ref, read) for every register operand of `in` (and of `mo`, its
// matrix operands, when not null): first those it reads, then those it
// writes, as it executes. A predicated instruction's destinations count as
// read too: lanes whose guard is false keep the old value.
template <class InstrT, class OperandsT, class F>
void forEachRegister(InstrT& in, OperandsT* mo, F&& f) {
  bool guarded = isRegister(in.guard);
  for (auto& r : in.src)
    if (isRegister(r)) f(r, true);
  if (guarded) f(in.guard, true);
  if (in.addr.base == Address::Base::Ref && isRegister(in.addr.ref)) f(in.addr.ref, true);
  if (mo) {
    for (auto* list : {&mo->a, &mo->b, &mo->c})
      for (auto& r : *list)
        if (isRegister(r)) f(r, true);
    if (mo->source.base == Address::Base::Ref && isRegister(mo->source.ref)) f(mo->source.ref, true);
  }
  for (auto& r : in.dst)
    if (isRegister(r)) f(r, guarded);
  if (mo)
    for (auto& r : mo->d)
      if (isRegister(r)) f(r, guarded);
}

template <class ModuleT>
auto* matrixOperandsOf(ModuleT& module, const Instr& in) {
  using Operands = std::remove_reference_t<decltype(module.matrixOps[0])>;
  return hasMatrixOperands(in.op) && in.target < module.matrixOps.size() ? &module.matrixOps[in.target]
                                                                          : static_cast<Operands*>(nullptr);
}

struct Interval {
  uint32_t start = UINT32_MAX, end = 0;
  bool used() const { return start != UINT32_MAX; }
};

// Where each register may hold a value, as an interval of code positions:
// from its first to its last mention, from the function's start when its
// first mention reads it (a value from an earlier iteration, or none), and
// widened to cover every loop (a back edge's [target, branch]) it overlaps
// until nothing changes. Then no path from where a value is written to where
// it is read leaves the interval: leaving it needs a jump out and a back edge
// into it, and any such back edge overlaps the interval, which then spans it.
std::vector<Interval> liveIntervals(const Module& module, const Function& f) {
  std::vector<Interval> live(f.numRegs);
  std::vector<std::pair<uint32_t, uint32_t>> loops;  // [target, branch]
  for (uint32_t pc = f.begin; pc < f.end; ++pc) {
    const Instr& in = module.code[pc];
    forEachRegister(in, matrixOperandsOf(module, in), [&](const Ref& r, bool read) {
      Interval& iv = live[r & kRefIndexMask];
      if (!iv.used()) iv.start = read ? f.begin : pc;
      iv.end = pc;
    });
    if (in.op == Op::Bra && in.target <= pc) loops.emplace_back(in.target, pc);
    if (in.op == Op::BrxIdx && in.target < module.branchTables.size())
      for (uint32_t target : module.branchTables[in.target])
        if (target <= pc) loops.emplace_back(target, pc);
  }
  for (bool changed = true; changed;) {
    changed = false;
    for (auto [from, to] : loops)
      for (Interval& iv : live) {
        if (!iv.used() || iv.end < from || iv.start > to || (iv.start <= from && iv.end >= to)) continue;
        iv.start = std::min(iv.start, from);
        iv.end = std::max(iv.end, to);
        changed = true;
      }
  }
  return live;
}

// Every register's matrix operand list, checked: only the instructions of
// hasMatrixOperands may name registers there, one instruction an entry, or
// the renumbering would miss some or renumber some twice.
bool matrixOperandsAccountedFor(const Module& module) {
  std::vector<bool> owned(module.matrixOps.size());
  for (const Instr& in : module.code) {
    if (!hasMatrixOperands(in.op) || in.target >= owned.size()) continue;
    if (owned[in.target]) return false;
    owned[in.target] = true;
  }
  for (size_t i = 0; i < module.matrixOps.size(); ++i) {
    if (owned[i]) continue;
    const MatrixOperands& mo = module.matrixOps[i];
    for (const auto* list : {&mo.d, &mo.a, &mo.b, &mo.c})
      if (std::any_of(list->begin(), list->end(), isRegister)) return false;
    if (mo.source.base == Address::Base::Ref && isRegister(mo.source.ref)) return false;
  }
  return true;
}

}  // namespace

SlotAssignment assignRegisterSlots(const Module& module, uint32_t f) {
  const Function& function = module.functions[f];
  std::vector<Interval> live = liveIntervals(module, function);
  std::vector<uint32_t> order;
  for (uint32_t r = 0; r < live.size(); ++r)
    if (live[r].used()) order.push_back(r);
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return live[a].start < live[b].start; });
  // Linear scan: a slot is free again after its value's last position (not
  // at it: an instruction may read one register and write another).
  SlotAssignment result;
  result.slotOf.assign(live.size(), UINT32_MAX);
  using Busy = std::pair<uint32_t, uint32_t>;  // (end, slot)
  std::priority_queue<Busy, std::vector<Busy>, std::greater<>> busy;
  std::vector<uint32_t> freeSlots;
  for (uint32_t r : order) {
    while (!busy.empty() && busy.top().first < live[r].start) {
      freeSlots.push_back(busy.top().second);
      busy.pop();
    }
    uint32_t slot = result.slots;
    if (freeSlots.empty()) {
      ++result.slots;
    } else {
      slot = freeSlots.back();
      freeSlots.pop_back();
    }
    result.slotOf[r] = slot;
    busy.emplace(live[r].end, slot);
  }
  return result;
}

void shareRegisterSlots(Module& module) {
  if (!matrixOperandsAccountedFor(module)) return;  // an operand form this pass does not know: keep one slot each
  for (uint32_t f = 0; f < module.functions.size(); ++f) {
    Function& function = module.functions[f];
    if (!function.defined || function.numRegs == 0) continue;
    SlotAssignment slots = assignRegisterSlots(module, f);
    for (uint32_t pc = function.begin; pc < function.end; ++pc) {
      Instr& in = module.code[pc];
      forEachRegister(in, matrixOperandsOf(module, in),
                      [&](Ref& r, bool) { r = regRef(slots.slotOf[r & kRefIndexMask]); });
    }
    function.numRegs = slots.slots;
  }
}

}  // namespace predatar::ptx
