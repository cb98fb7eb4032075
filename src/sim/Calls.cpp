// Calls beyond a static call tree.
//
// Indirect calls (virtual functions, function pointers): the callee is the
// function whose address (Launch's function window, as `mov %rd, f` and
// vtable initializers give it) the lane's register holds; lanes calling
// different functions call them one group after the other, as a GPU
// serializes them.
//
// Recursive calls. Two things differ from calls in a call tree: the depth is
// known only at run time (bounded, as on a GPU, by the stack limit), and a
// function's PTX registers belong to one activation while ours belong to the
// function, so a call into a function that may already be active saves that
// function's registers for the lane, and its return restores them.
#include <algorithm>
#include <bit>
#include <string>

#include "sim/Exec.h"

namespace predatar::sim {

uint32_t resolveIndirectCall(Ctx& x, const ptx::Instr& in, uint32_t exec, uint32_t& callee) {
  Launch& L = *x.L;
  const ptx::Module& ir = L.M.ir;
  const ptx::CallSite& cs = ir.calls[in.call];
  const uint64_t* target = S(x, in.src[0]);
  uint32_t first = uint32_t(std::countr_zero(exec));
  uint64_t address = target[first];
  uint64_t f = address - kFunctionWindow;
  std::string why;
  if (address < kFunctionWindow || f >= ir.functions.size() || !ir.functions[f].defined || ir.functions[f].entry ||
      L.funcBase[f] == UINT32_MAX)
    why = "indirect call to " + hex(address) + ", which is not the address of a device function";
  else if (ir.functions[f].params.size() != cs.argOffsets.size() || ir.functions[f].rets.size() != cs.retOffsets.size())
    why = "indirect call to '" + ir.functions[f].name + "' with " + std::to_string(cs.argOffsets.size()) +
          " arguments and " + std::to_string(cs.retOffsets.size()) + " results; it takes " +
          std::to_string(ir.functions[f].params.size()) + " and returns " + std::to_string(ir.functions[f].rets.size());
  if (!why.empty()) {
    L.fault(*x.W, first, x.pc, why);
    return 0;
  }
  callee = uint32_t(f);
  uint32_t now = 0;
  forLanes(exec, [&](uint32_t l) { now |= uint32_t(target[l] == address) << l; });
  return now;
}

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
