// Recursive calls. Two things differ from calls in a call tree: the depth is
// known only at run time (bounded, as on a GPU, by the stack limit), and a
// function's PTX registers belong to one activation while ours belong to the
// function, so a call into a function that may already be active saves that
// function's registers for the lane, and its return restores them.
#include <algorithm>

#include "sim/Exec.h"

namespace predatar::sim {

bool growCallStack(const Launch& L, Warp& w) {
  if (w.callCapacity >= L.maxRecursionDepth) return false;
  uint32_t capacity = std::min(std::max<uint32_t>(2 * w.callCapacity, 4), L.maxRecursionDepth);
  std::vector<CallFrame> calls(size_t(32) * capacity);
  for (uint32_t l = 0; l < 32; ++l)
    std::copy_n(w.calls.begin() + size_t(l) * w.callCapacity, w.depth[l], calls.begin() + size_t(l) * capacity);
  w.calls.swap(calls);
  w.callCapacity = capacity;
  return true;
}

void saveRegisters(const Launch& L, Warp& w, uint32_t lane, uint32_t function) {
  const uint64_t* slot = w.regs.get() + size_t(L.funcBase[function]) * 32 + lane;
  std::vector<uint64_t>& saved = w.savedRegisters[lane];
  for (uint32_t r = 0; r < L.M.ir.functions[function].numRegs; ++r) saved.push_back(slot[size_t(r) * 32]);
}

void restoreRegisters(const Launch& L, Warp& w, uint32_t lane, uint32_t function) {
  uint64_t* slot = w.regs.get() + size_t(L.funcBase[function]) * 32 + lane;
  std::vector<uint64_t>& saved = w.savedRegisters[lane];
  uint32_t n = L.M.ir.functions[function].numRegs;
  for (uint32_t r = n; r-- > 0;) {
    slot[size_t(r) * 32] = saved.back();
    saved.pop_back();
  }
}

}  // namespace predatar::sim
