// Flags programs whose progress depends on a scheduler fairer than the GPU's
// within a warp.
//
// What the emulator models: the lanes of a warp that diverge run as groups;
// the group at the lowest PC runs (at every step: one that jumps past a
// lower group waits for it) and, when a group has run 256 steps without
// meeting the others, changing memory or reading new words (a spin loop),
// another group gets a turn (sim/Scheduler.cpp, kRotateSteps). So a lane
// spinning on a word that another lane of its own warp writes always
// finishes here, and lanes that left a loop where others still work wait
// at its end, as on a GPU.
//
// What the hardware promises (sm_70 and later, independent thread
// scheduling): diverged paths are interleaved *before* the point where the
// compiler reconverges them, but a lane that has left a loop waits at the
// loop's end for the lanes of its warp still in the loop. A lane that must run
// code after the loop for the others to leave it (`while (turn != me); work;
// turn = me + 1;` within one warp) hangs on an H100.
//
// The check: when a divergent branch takes lanes out of a loop (a backward
// branch that some lanes take, or a forward branch over the loop's back edge)
// that all live lanes of the warp run converged, the leaving lanes' reconvergence point is the branch's target outside the
// loop. If those lanes later run past that point and change memory while
// lanes of their warp are still in the loop, the launch carries a warning
// naming the kernel, block, warp, loop exit and source line. Lanes that only
// wait there (a __syncthreads after the loop) are what a GPU does too. Loops
// that spin on an atomic (lock acquires) are not flagged: NVIDIA documents
// mutexes contended within a warp as starvation-free from sm_70 on.
// Recursive kernels are not checked: there a PC does not name one loop.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "sim/Exec.h"

namespace predatar::sim {

class ForwardProgress {
 public:
  // A branch at `pc` sent `taken` lanes to `target` and `notTaken` to pc + 1.
  void diverged(const Launch& L, const Warp& w, uint32_t pc, uint32_t target, uint32_t taken, uint32_t notTaken);
  // A group of lanes (`mask`) of `w` starts running at `pc`.
  void scheduled(const Launch& L, const Warp& w, uint32_t pc, uint32_t mask);
  // The group scheduled last has stopped.
  void stopped(const Launch& L, const Warp& w);
  // The warning for the user (at most one per launch); empty when none.
  const std::string& warning() const { return warning_; }

 private:
  struct LoopExit {
    uint32_t branchPc = 0;
    uint32_t reconvergePc = 0;  // where the leaving lanes wait on a GPU
    uint32_t inLoop = 0;        // lanes still in the loop
    uint32_t left = 0;          // lanes that left it
  };
  absl::flat_hash_map<uint32_t, LoopExit> open_;  // by warp index
  absl::flat_hash_map<uint32_t, bool> leavesLoop_;  // forward branch pc -> jumps over a back edge
  std::optional<LoopExit> watched_;  // the running group is past its reconvergence point
  uint32_t watchedWarp_ = 0;
  uint64_t changesBefore_ = 0;
  bool warned_ = false;
  std::string warning_;
};

}  // namespace predatar::sim
