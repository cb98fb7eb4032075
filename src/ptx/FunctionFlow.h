// What the passes over a function's code share (private to src/ptx): its
// register operands, read and written, and its basic blocks.
#pragma once

#include <type_traits>
#include <vector>

#include "ptx/Ir.h"

namespace predatar::ptx {

inline bool isRegister(Ref r) { return r != kNoRef && (r & kRefKindMask) == kRefReg; }

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

// A function's basic blocks, [begin, end) in the code, with their successors.
struct BasicBlock {
  uint32_t begin = 0, end = 0;
  std::vector<uint32_t> successors;  // block indices
};

inline bool endsBlock(Op op) { return op == Op::Bra || op == Op::BrxIdx || op == Op::Ret || op == Op::Exit || op == Op::Trap; }

inline std::vector<BasicBlock> basicBlocks(const Module& module, const Function& f) {
  std::vector<bool> leader(f.end - f.begin + 1, false);
  leader[0] = true;
  auto mark = [&](uint32_t pc) {
    if (pc >= f.begin && pc <= f.end) leader[pc - f.begin] = true;
  };
  for (uint32_t pc = f.begin; pc < f.end; ++pc) {
    const Instr& in = module.code[pc];
    if (in.op == Op::Bra) mark(in.target);
    if (in.op == Op::BrxIdx && in.target < module.branchTables.size())
      for (uint32_t target : module.branchTables[in.target]) mark(target);
    if (endsBlock(in.op)) mark(pc + 1);
  }
  std::vector<BasicBlock> blocks;
  std::vector<uint32_t> blockAt(f.end - f.begin + 1, UINT32_MAX);
  for (uint32_t pc = f.begin; pc < f.end; ++pc) {
    if (leader[pc - f.begin]) blocks.push_back({pc, pc, {}});
    blocks.back().end = pc + 1;
    blockAt[pc - f.begin] = uint32_t(blocks.size() - 1);
  }
  auto edge = [&](BasicBlock& b, uint32_t pc) {
    if (pc >= f.begin && pc < f.end) b.successors.push_back(blockAt[pc - f.begin]);
  };
  for (BasicBlock& b : blocks) {
    const Instr& last = module.code[b.end - 1];
    bool guarded = isRegister(last.guard);
    if (last.op == Op::Bra) edge(b, last.target);
    if (last.op == Op::BrxIdx && last.target < module.branchTables.size())
      for (uint32_t target : module.branchTables[last.target]) edge(b, target);
    if (!endsBlock(last.op) || guarded) edge(b, b.end);  // falls through (a guarded jump or exit may)
  }
  return blocks;
}

}  // namespace predatar::ptx
