// The warp scheduler of a launch (private to the sim module): Runner makes
// blocks resident, steps warps (control flow, calls, barriers, warp syncs)
// and reports who waits on what when a launch stops progressing.
#pragma once

#include <string>
#include <vector>

#include "sim/Exec.h"
#include "sim/ForwardProgress.h"

namespace predatar::sim::detail {

using ptx::Instr;
using ptx::Op;

inline uint64_t alignUp(uint64_t v, uint64_t a) { return a <= 1 ? v : (v + a - 1) / a * a; }

class Runner {
 public:
  explicit Runner(Launch& L) : L(L), code(L.M.ir.code), fns(L.M.fns), ctrl(L.M.ctrl) {}

  absl::Status run();
  const std::string& progressWarning() const { return progress.warning(); }

 private:
  uint64_t runWarp(Warp& w, uint64_t budget);
  uint32_t selectPc(Warp& w, uint32_t ready);
  static constexpr uint32_t kSeveralPcs = UINT32_MAX;
  // A block's turns per round (run()): at most, and in a row without a memory change.
  static constexpr uint32_t kMaxBlockPasses = 1u << 20;
  static constexpr uint32_t kQuietPasses = 1;
  // Turns in a row that read new words (Launch::novelReads) but changed no
  // memory: a warp that polls more words than Warp::recentReads holds must
  // still let the next block run.
  static constexpr uint32_t kReadOnlyPasses = 256;
  struct OtherPcs {
    uint32_t shared = kSeveralPcs;  // the pc all of them are at, or kSeveralPcs
    uint32_t lowest = UINT32_MAX;
    uint64_t bits = 0;              // bit pc % 64 of each one's pc: one can be at pc only if it is set
  };
  static OtherPcs otherPcs(const Warp& w, uint32_t lanes, uint32_t groupPc, uint32_t& group);
  void exitLanes(Warp& w, uint32_t lanes, uint32_t pc);
  void checkBarrier(Block& b, uint32_t id, uint32_t pc);
  bool barrier(Warp& w, Ctx& x, const Instr& in, uint32_t pc, uint32_t mask, uint32_t exec);
  // returns true when the group may continue at pc+1 with `mask` updated
  bool warpSync(Warp& w, Ctx& x, const Instr& in, uint32_t pc, uint32_t& mask, uint32_t exec);
  void releaseWarpSyncAfterExit(Warp& w);
  bool sameExchange(Ctx& x, const ptx::Instr& other, uint32_t lane, const ptx::Instr& in, uint32_t member);
  void exchangeAcrossInstructions(Warp& w, Ctx& x, const ptx::Instr& in, uint32_t here, uint32_t elsewhere);
  std::string waitingReport(bool includeRunning);

  Launch& L;
  const std::vector<Instr>& code;
  const std::vector<ExecFn>& fns;
  const std::vector<Ctrl>& ctrl;
  ForwardProgress progress;  // lanes of a warp that need a scheduler fairer than the GPU's
  // A barrier of the running block released its waiters: the turn ends and
  // the block's next pass starts at its first warp (run()).
  bool barrierReleased_ = false;
  BarrierEvent barrierEvent_;  // the one being sent (its lists keep their room)
};

}  // namespace predatar::sim::detail
