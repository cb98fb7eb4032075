#include "ptx/Contraction.h"

#include <optional>
#include <vector>

#include "ptx/FunctionFlow.h"

namespace predatar::ptx {
namespace {

bool unmodified(const Instr& in) {
  return in.round == Round::None && !in.sat && in.guard == kNoRef && (in.type == Type::F32 || in.type == Type::F64);
}

bool writes(const Instr& in, Ref r) {
  for (Ref d : in.dst)
    if (d == r) return true;
  return false;
}

// One function's registers (how often each is read and written, and where
// it is written last) and blocks (which one holds each instruction, and
// whether a block can run again after itself: it lies on a cycle).
class FunctionFacts {
 public:
  FunctionFacts(const Module& module, const Function& f)
      : f_(f), reads_(f.numRegs), writes_(f.numRegs), definedAt_(f.numRegs, UINT32_MAX),
        blocks_(basicBlocks(module, f)), blockAt_(f.end - f.begin) {
    for (uint32_t pc = f.begin; pc < f.end; ++pc) {
      const Instr& in = module.code[pc];
      forEachRegister(in, matrixOperandsOf(module, in), [&](const Ref& ref, bool read) {
        uint32_t r = ref & kRefIndexMask;
        if (r >= f.numRegs) return;
        if (read) ++reads_[r];
        else ++writes_[r], definedAt_[r] = pc;
      });
    }
    for (uint32_t b = 0; b < blocks_.size(); ++b)
      for (uint32_t pc = blocks_[b].begin; pc < blocks_[b].end; ++pc) blockAt_[pc - f.begin] = b;
    onCycle_.resize(blocks_.size());
  }

  uint32_t reads(Ref r) const { return reads_[r & kRefIndexMask]; }
  uint32_t writes(Ref r) const { return writes_[r & kRefIndexMask]; }
  uint32_t definedAt(Ref r) const { return definedAt_[r & kRefIndexMask]; }
  uint32_t blockAt(uint32_t pc) const { return blockAt_[pc - f_.begin]; }

  // Whether block b can be reached again from itself (found once, then kept).
  bool onCycle(uint32_t b) {
    if (!onCycle_[b]) {
      std::vector<bool> seen(blocks_.size(), false);
      std::vector<uint32_t> todo(blocks_[b].successors);
      bool cycle = false;
      while (!todo.empty() && !cycle) {
        uint32_t next = todo.back();
        todo.pop_back();
        if (next == b) cycle = true;
        if (seen[next]) continue;
        seen[next] = true;
        todo.insert(todo.end(), blocks_[next].successors.begin(), blocks_[next].successors.end());
      }
      onCycle_[b] = cycle;
    }
    return *onCycle_[b];
  }

 private:
  const Function& f_;
  std::vector<uint32_t> reads_, writes_, definedAt_;
  std::vector<BasicBlock> blocks_;
  std::vector<uint32_t> blockAt_;
  std::vector<std::optional<bool>> onCycle_;
};

// Whether the operand `r` of the mul at `mulPc` holds at `pc` the value the
// mul read. In the mul's block, when nothing between writes it. Anywhere,
// when it is written once, in a block that runs at most once per thread:
// ptxas fuses the mul of a value computed before a loop into an add in the
// loop (dxtc's `9.0f * color_sum - alphax_sum`).
bool sameValueAt(FunctionFacts& facts, const Module& module, Ref r, uint32_t mulPc, uint32_t pc) {
  if (!isRegister(r)) return true;
  if (facts.blockAt(mulPc) == facts.blockAt(pc) && mulPc < pc) {
    bool written = false;
    for (uint32_t between = mulPc + 1; between < pc && !written; ++between) written = writes(module.code[between], r);
    if (!written) return true;
  }
  return facts.writes(r) == 1 && !facts.onCycle(facts.blockAt(facts.definedAt(r)));
}

// The mul that defines `term`, when it can be fused into the add at pc: its
// product is used by that add alone.
const Instr* fusableMul(FunctionFacts& facts, const Module& module, uint32_t pc, Ref term) {
  const Instr& add = module.code[pc];
  if (!isRegister(term) || facts.reads(term) != 1 || facts.writes(term) != 1) return nullptr;
  uint32_t mulPc = facts.definedAt(term);
  const Instr& mul = module.code[mulPc];
  if (mul.op != Op::Mul || !unmodified(mul) || mul.type != add.type || mul.ftz != add.ftz) return nullptr;
  for (int k = 0; k < 2; ++k)
    if (!sameValueAt(facts, module, mul.src[k], mulPc, pc)) return nullptr;
  return &mul;
}

uint32_t contractFunction(Module& module, const Function& f) {
  FunctionFacts facts(module, f);
  uint32_t fused = 0;
  for (uint32_t pc = f.begin; pc < f.end; ++pc) {
    Instr& add = module.code[pc];
    if ((add.op != Op::Add && add.op != Op::Sub) || !unmodified(add)) continue;
    // Both terms products: the first is fused (dxtc matches an H200 so, not the other way).
    for (int k = 0; k < 2; ++k) {
      const Instr* mul = fusableMul(facts, module, pc, add.src[k]);
      if (!mul) continue;
      Ref other = add.src[1 - k];
      // a*b + x, x + a*b: fma(a, b, x); a*b - x: fma(a, b, -x); x - a*b: fma(-a, b, x)
      add.mode = add.op == Op::Add ? 0 : k == 0 ? kFmaNegateAddend : kFmaNegateProduct;
      add.op = Op::Fma;
      add.src[0] = mul->src[0];
      add.src[1] = mul->src[1];
      add.src[2] = other;
      add.nsrc = 3;
      ++fused;
      break;
    }
  }
  return fused;
}

}  // namespace

uint32_t contractMultiplyAdds(Module& module) {
  uint32_t fused = 0;
  for (const Function& f : module.functions)
    if (f.defined && f.end > f.begin) fused += contractFunction(module, f);
  return fused;
}

}  // namespace predatar::ptx
