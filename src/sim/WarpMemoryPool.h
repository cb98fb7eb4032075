// Register files of retired warps, kept for the warps of the next blocks and
// launches (private to the sim module).
//
// Why: a register file is [specials | registers of the kernel's functions] x
// 32 lanes of 64 bits; nvcc's PTX declares hundreds of registers, so a
// 1024-thread block of matrixMul needs ~2.5 MB, and allocating and zeroing it
// anew for every block (fresh pages from the kernel each time) cost more than
// emulating the block. A reused buffer is zeroed again, so every warp still
// starts with zeroed registers, as before.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "sim/Exec.h"

namespace predatar::sim {

class WarpMemoryPool {
 public:
  // A register file of `words` 64-bit slots, zeroed past the first
  // `uninitialized`, which keep what a retired warp left there (the caller
  // writes those it reads: a warp's special registers); a new one is zeroed.
  static std::unique_ptr<uint64_t[]> take(size_t words, size_t uninitialized = 0);
  // Returns a register file of `words` slots for later warps.
  static void giveBack(std::unique_ptr<uint64_t[]> buffer, size_t words);
  // An empty warp table, with the capacity of the last one given back: a
  // grid of 10^5 warps needs tens of MB of warp state, fresh pages on every
  // launch otherwise.
  static std::vector<Warp> takeWarps();
  static void giveBackWarps(std::vector<Warp> warps);
};

}  // namespace predatar::sim
