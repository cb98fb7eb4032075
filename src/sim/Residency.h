// Which blocks of a grid are resident (have registers, shared and local
// memory) at once. A GPU runs a grid in waves: an SM holds as many blocks as
// its threads, shared memory and registers allow, and a block starts when a
// resident one finishes. The emulator does the same, so that its memory grows
// with what runs at once, not with the grid.
//
// Programs whose blocks spin-wait on blocks that are not resident (a grid-wide
// barrier, a producer with a higher block index) would hang on a GPU whose
// grid does not fit at once; the hardware promises no co-residency outside
// cooperative launches. The emulator does not hang: when every resident warp
// is provably stuck (the livelock detector's proof, round-robin schedule) or
// memory has not changed for a long time (random schedule), more blocks are
// brought in, doubling each time, and the launch carries a warning that names
// the kernel and the blocks that waited.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/Exec.h"

namespace predatar::sim {

// The figures of the sm_90-class device the emulator claims to be (as the
// runtime reports them in cudaDeviceProp).
struct DeviceLimits {
  uint32_t multiprocessors = 132;
  uint32_t threadsPerSm = 2048;
  uint32_t blocksPerSm = 32;
  uint64_t sharedPerSm = 228 * 1024;
  uint64_t reservedSharedPerBlock = 1024;  // the runtime's per-block reservation
  uint32_t registersPerSm = 65536;
  uint32_t registerUnit = 256;             // registers are allocated per warp in units of 256
};

// Blocks an SM holds for this launch (at least 1), from threads, shared memory
// and the registers the kernel uses (PTX registers of the reachable functions,
// at most 255 per thread as ptxas allows).
uint32_t blocksPerSm(const Launch& L, const DeviceLimits& device = {});

class Residency {
 public:
  explicit Residency(const Launch& L);
  // Blocks resident at the start (and whenever one retires, one more comes).
  uint32_t limit() const { return limit_; }
  // After a scheduling round with blocks still pending. `stuck`: the resident
  // warps provably can never finish on their own. Returns how many more blocks
  // to admit now (0: none); remembers the blocks that waited for the warning.
  uint32_t admitOnDemand(const Launch& L, const std::vector<uint32_t>& order, bool stuck, bool randomSchedule);
  // The warning for the user; empty when no block was brought in on demand.
  std::string warning(const Launch& L) const;

 private:
  uint32_t limit_ = 0;
  uint32_t extra_ = 0;              // blocks admitted on demand so far
  uint32_t episodes_ = 0;
  bool heuristic_ = false;          // an admission came from the random schedule's quiet heuristic
  std::vector<uint32_t> waited_;    // blocks resident at the first admission (first few)
  uint64_t lastChanges_ = UINT64_MAX;
  uint64_t quietSince_ = 0;
};

}  // namespace predatar::sim
