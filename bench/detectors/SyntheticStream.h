// Synthetic event streams shaped like real kernels, generated on the fly (a
// stream of 10^7 warp events is never stored), for the detector benchmarks.
#pragma once

#include <cstdint>
#include <string>

#include "events/EventSink.h"

namespace predatar::bench {

enum class Shape {
  BarrierStencil,  // shared-memory stencil: load, __syncthreads, neighbours, __syncthreads, store
  LockHeavy,       // every thread updates a global counter under a device-scoped lock
  AtomicsHeavy,    // histogram: device-scoped atomics on a few bins, plain reads of input
  WarpLock,        // lane 0 takes a block lock for its warp, __syncwarp, warp updates, release
};

const char* toString(Shape shape);

struct StreamSpec {
  Shape shape = Shape::BarrierStencil;
  uint64_t threads = 1 << 14;      // rounded to whole blocks of `blockSize`
  uint32_t blockSize = 256;
  uint64_t targetEvents = 1 << 20; // rounds continue until at least this many events
};

// Feeds kernelBegin, the events, kernelEnd; returns the number of events.
uint64_t generate(const StreamSpec& spec, EventSink& sink);

}  // namespace predatar::bench
