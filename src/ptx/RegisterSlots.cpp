#include "ptx/RegisterSlots.h"

#include <algorithm>
#include <bit>
#include <functional>
#include <queue>
#include <type_traits>
#include <utility>

#include "ptx/FunctionFlow.h"

namespace predatar::ptx {
namespace {

struct Interval {
  uint32_t start = UINT32_MAX, end = 0;
  bool used() const { return start != UINT32_MAX; }
};

// A set of the registers [first, first + 64 * words.size()), one bit each.
struct RegisterSet {
  uint32_t first = 0;
  std::vector<uint64_t> words;
  RegisterSet(uint32_t firstRegister, size_t wordCount) : first(firstRegister), words(wordCount) {}
  bool holds(uint32_t r) const { return r >= first && r - first < 64 * words.size(); }
  bool has(uint32_t r) const { return words[(r - first) / 64] >> ((r - first) % 64) & 1; }
  void add(uint32_t r) { words[(r - first) / 64] |= uint64_t(1) << ((r - first) % 64); }
  template <class F>
  void forEach(F&& f) const {
    for (size_t w = 0; w < words.size(); ++w)
      for (uint64_t bits = words[w]; bits; bits &= bits - 1)
        f(first + uint32_t(w * 64 + size_t(std::countr_zero(bits))));
  }
};

// liveIntervals' dataflow for the registers [first, first + 64 * words): calls
// cover(register, pc) at every block start where one is live in, and at
// every block end where it is live out.
void coverLiveRanges(const Module& module, const std::vector<BasicBlock>& blocks, uint32_t first, size_t words,
                     const std::function<void(uint32_t, uint32_t)>& cover) {
  std::vector<RegisterSet> reads(blocks.size(), RegisterSet(first, words)), writes = reads;
  for (size_t b = 0; b < blocks.size(); ++b)
    for (uint32_t pc = blocks[b].begin; pc < blocks[b].end; ++pc) {
      const Instr& in = module.code[pc];
      forEachRegister(in, matrixOperandsOf(module, in), [&](const Ref& ref, bool read) {
        uint32_t r = ref & kRefIndexMask;
        if (!reads[b].holds(r)) return;
        if (read && !writes[b].has(r)) reads[b].add(r);
        if (!read) writes[b].add(r);
      });
    }
  // liveIn = reads | (liveOut & ~writes), liveOut = union of the successors' liveIn.
  std::vector<RegisterSet> liveIn = reads, liveOut(blocks.size(), RegisterSet(first, words));
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t b = blocks.size(); b-- > 0;) {
      RegisterSet& out = liveOut[b];
      for (uint32_t s : blocks[b].successors)
        for (size_t w = 0; w < words; ++w) out.words[w] |= liveIn[s].words[w];
      for (size_t w = 0; w < words; ++w) {
        uint64_t in = reads[b].words[w] | (out.words[w] & ~writes[b].words[w]);
        if (in != liveIn[b].words[w]) {
          liveIn[b].words[w] = in;
          changed = true;
        }
      }
    }
  }
  for (size_t b = 0; b < blocks.size(); ++b) {
    liveIn[b].forEach([&](uint32_t r) { cover(r, blocks[b].begin); });
    liveOut[b].forEach([&](uint32_t r) { cover(r, blocks[b].end - 1); });
  }
}

// Where each register may hold a value, as an interval of code positions:
// every position that mentions it (a write stores into its slot even when
// nothing reads it), and every position where it is live, by the classic
// backward dataflow over the basic blocks (live at a block's start if read
// there before it is written, or live at its end and not written in it; a
// guarded write leaves the old value to the lanes it skips, so it reads the
// register too). A register read before any write is live from the
// function's start (the first block's), so no other value is in its slot
// there (registers start cleared). Registers whose intervals do not overlap are never live
// at once on any path, so they may share a slot.
//
// (Intervals used to be widened to every loop they overlapped, which is
// safe without liveness but kept every temporary of a loop's body alive for
// the whole loop: a tensor-core GEMM whose kernel is one loop around 35000
// registers of unrolled code kept 35000 slots, 8.9 MB a warp.)
std::vector<Interval> liveIntervals(const Module& module, const Function& f, size_t maxSetWords) {
  std::vector<Interval> live(f.numRegs);
  auto cover = [&](uint32_t r, uint32_t pc) {
    if (r >= live.size()) return;
    Interval& iv = live[r];
    iv.start = std::min(iv.start, pc);
    iv.end = std::max(iv.end, pc);
  };
  for (uint32_t pc = f.begin; pc < f.end; ++pc) {
    const Instr& in = module.code[pc];
    forEachRegister(in, matrixOperandsOf(module, in), [&](const Ref& ref, bool) { cover(ref & kRefIndexMask, pc); });
  }
  // Registers in batches, so that each set takes at most maxSetWords words
  // whatever the function's size (35000 registers in 10000 blocks would be
  // 44 MB a set at once, and there are four).
  std::vector<BasicBlock> blocks = basicBlocks(module, f);
  size_t totalWords = (size_t(f.numRegs) + 63) / 64;
  size_t batch = std::clamp<size_t>(maxSetWords / std::max<size_t>(blocks.size(), 1), 1, std::max<size_t>(totalWords, 1));
  for (size_t w = 0; w < totalWords; w += batch)
    coverLiveRanges(module, blocks, uint32_t(64 * w), std::min(batch, totalWords - w), cover);
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

SlotAssignment assignRegisterSlots(const Module& module, uint32_t f, size_t maxSetWords) {
  const Function& function = module.functions[f];
  std::vector<Interval> live = liveIntervals(module, function, maxSetWords);
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
