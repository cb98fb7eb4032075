// The synchronization check compute-sanitizer's synccheck makes: a block-wide
// barrier (bar.sync / __syncthreads() without a thread count) must be reached
// by all of the block's live threads at the same barrier instruction. When
// the threads of one barrier wait at different instructions (the two sides of
// a branch each call __syncthreads(), or one side calls it inside a loop),
// the program has undefined behaviour on a GPU ("Barrier error detected.
// Divergent thread(s) in block/warp"); the emulator would silently let them
// meet. Threads that exited count as arrived, as on the hardware, so an early
// `return` before __syncthreads() is not an error. Barriers with a thread
// count (named barriers, bar.arrive producer/consumer pairs) may legitimately
// be reached at different instructions and are not checked.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "sim/Exec.h"

namespace predatar::sim {

struct BarrierDivergence {
  const Warp* warp = nullptr;  // a thread of the minority instruction, for the fault site
  uint32_t lane = 0;
  uint32_t pc = 0;             // that thread's barrier instruction
  std::string what;            // the message (other instruction, threads at each)
};

// Called when barrier `id` of block `b` completes, before its waiters are
// released (they still sit at their barrier instruction).
std::optional<BarrierDivergence> findDivergentBarrier(const Launch& L, const Block& b, uint32_t id);

// The other half of the check, for a thread that skips the barrier and exits
// (`if (c) __syncthreads();` with c false for some lanes of a warp, which then
// reach the end of the kernel): exited threads count as arrived, so the
// barrier completes, but an aligned barrier (bar.sync, __syncthreads()) is
// executed by a warp's threads together, so skipping it is undefined
// behaviour ("Divergent thread(s) in warp"). Not an error for a lane already
// on its way out when its warp reached the barrier: an early `return` becomes
// a predicated EXIT that the hardware takes before the barrier.
//
// When `arrived` lanes of `w` start waiting at an aligned block-wide barrier:
// the warp's other live lanes (not about to exit) owe it (Warp::owesBarrier).
void noteLanesOwingBarrier(const Launch& L, Warp& w, uint32_t arrived);
// When `lanes` of `w` exit at `pc`: those that owed a barrier are noted, the
// launch's first such case in Launch::skippedBarrier (undefined behaviour the
// launch relied on, reported once per site).
void noteSkippedBarrier(Launch& L, const Warp& w, uint32_t lanes, uint32_t pc);

}  // namespace predatar::sim
