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

}  // namespace predatar::sim
