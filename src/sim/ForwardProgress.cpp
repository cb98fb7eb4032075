#include "sim/ForwardProgress.h"

#include <bit>

namespace predatar::sim {
namespace {

// A forward branch leaves a loop when the code it jumps over holds a branch
// back to the branch itself or before it (the loop's back edge).
// The loop's first instruction (its back edge's target), or UINT32_MAX when
// the forward branch at `pc` does not leave a loop: the code it jumps over
// holds no branch back to `pc` or before it.
uint32_t loopStartOverBackEdge(const ptx::Module& ir, uint32_t pc, uint32_t target) {
  for (uint32_t p = pc + 1; p < target && p < ir.code.size(); ++p)
    if (ir.code[p].op == ptx::Op::Bra && ir.code[p].target <= pc) return ir.code[p].target;
  return UINT32_MAX;
}

// A loop that spins on an atomic (a lock acquire: atomicCAS until it
// succeeds) is left alone: NVIDIA documents mutexes contended by the lanes of
// one warp as starvation-free from sm_70 on.
bool spinsOnAtomic(const ptx::Module& ir, uint32_t from, uint32_t to) {
  for (uint32_t p = from; p <= to && p < ir.code.size(); ++p)
    if (ir.code[p].op == ptx::Op::Atom) return true;
  return false;
}

bool leavesSpinLoop(const ptx::Module& ir, uint32_t pc, uint32_t target) {
  uint32_t start = loopStartOverBackEdge(ir, pc, target);
  return start != UINT32_MAX && !spinsOnAtomic(ir, start, target);
}

}  // namespace

void ForwardProgress::diverged(const Launch& L, const Warp& w, uint32_t pc, uint32_t target, uint32_t taken,
                               uint32_t notTaken) {
  // In a recursive kernel lanes at one PC may be in different activations
  // (depths) of the function, so a PC does not name one loop.
  if (warned_ || L.maxRecursionDepth) return;
  LoopExit exit;
  exit.branchPc = pc;
  if (target <= pc) {  // the taken lanes loop again, the others leave
    if (spinsOnAtomic(L.M.ir, target, pc)) return;
    exit.reconvergePc = pc + 1;
    exit.inLoop = taken;
    exit.left = notTaken;
  } else if (auto [known, added] = leavesLoop_.try_emplace(pc, false);
             added ? (known->second = leavesSpinLoop(L.M.ir, pc, target)) : known->second) {  // the taken lanes leave
    exit.reconvergePc = target;
    exit.inLoop = notTaken;
    exit.left = taken;
  } else {
    return;
  }
  auto it = open_.find(w.index);
  if (it != open_.end() && it->second.reconvergePc == exit.reconvergePc) {  // more lanes leave the same loop
    it->second.left |= exit.left;
    it->second.inLoop &= ~exit.left;
    return;
  }
  // Only a loop that the whole warp runs converged: lanes that the emulator
  // let run ahead into a later iteration (a GPU holds them back where the
  // warp reconverges) and met there are not the program's doing.
  if ((taken | notTaken) != (w.exists & ~w.exited)) return;
  if (it != open_.end()) it->second = exit;
  else open_.emplace(w.index, exit);
}

void ForwardProgress::scheduled(const Launch& L, const Warp& w, uint32_t pc, uint32_t mask) {
  watched_.reset();
  if (open_.empty()) return;
  auto it = open_.find(w.index);
  if (it == open_.end()) return;
  LoopExit& exit = it->second;
  uint32_t live = w.exists & ~w.exited;
  exit.inLoop &= live;
  uint32_t spinning = 0;  // lanes of the loop still before its end and able to run
  for (uint32_t m = exit.inLoop & ~w.waiting; m; m &= m - 1) {
    uint32_t l = uint32_t(std::countr_zero(m));
    if (w.pc[l] < exit.reconvergePc) spinning |= 1u << l;
  }
  if (!spinning) {
    open_.erase(it);
    return;
  }
  if ((mask & exit.left) && pc >= exit.reconvergePc && (mask & spinning) == 0) {
    watched_ = exit;
    watchedWarp_ = w.index;
    changesBefore_ = L.memoryChanges;
  }
}

void ForwardProgress::stopped(const Launch& L, const Warp& w) {
  if (!watched_ || warned_) return;
  const LoopExit exit = *watched_;
  watched_.reset();
  if (w.index != watchedWarp_ || L.memoryChanges == changesBefore_) return;
  warned_ = true;
  uint32_t lane = uint32_t(std::countr_zero(exit.left));
  warning_ =
      "kernel '" + L.kernelName + "': " + L.threadName(w, lane) + " left the loop at " + L.where(exit.branchPc) +
      " and ran on past it, changing memory, while other lanes of its warp were still in the loop: a GPU "
      "reconverges the warp where the loop ends first, so those lanes would wait there for lanes that wait for "
      "them, and the program may hang on the hardware (its progress relies on a scheduler fairer than the "
      "GPU's; do the work inside the loop)";
  open_.clear();
}

}  // namespace predatar::sim
