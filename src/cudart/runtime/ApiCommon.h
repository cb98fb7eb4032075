// What the files of exported CUDA runtime functions share (Api.cpp,
// ApiStreams.cpp): the runtime, the per-thread default stream, and the lock
// each call takes with its sticky-error check.
#pragma once

#include <mutex>

#include "cudart/StreamOrder.h"
#include "cudart/runtime/Runtime.h"

namespace predatar::cudart::api {

inline Runtime& rt() { return Runtime::get(); }

// The _ptsz entry points (nvcc --default-stream per-thread): stream 0 is the
// per-thread default stream. (The stream order keeps launches live for a
// blocking stream first used later: StreamOrder::forgetCompleted.)
inline cudaStream_t perThreadDefault(cudaStream_t stream) {
  return stream == nullptr ? reinterpret_cast<cudaStream_t>(StreamOrder::kPerThread) : stream;
}

// Set on a thread by its first runtime call that works with the device (the
// two macros below, cudaSetDevice): NVIDIA's runtime makes the device's
// primary context current on the thread then, so the driver API has a
// context there (predatarDriverPrimaryContextCurrent, DriverBridge.h).
inline thread_local bool primaryContextCurrent = false;

// Most calls return a pending sticky launch error before doing anything, as a
// GPU context does after a fault. They need the device's earlier work done:
// a launch suspended while it waits for the host goes on, and the stream work
// queued behind it runs (Runtime::settleSuspendedLaunch); the launches'
// races are in the report and printed (Runtime::settleDetectors).
#define PREDATAR_LOCK_AND_CHECK_STICKY()                  \
  primaryContextCurrent = true;                           \
  std::lock_guard lock(rt().mutex());                     \
  rt().settleSuspendedLaunch();                           \
  rt().settleDetectors();                                 \
  if (rt().sticky() != cudaSuccess) return rt().failWithSticky(__func__)

// Calls that neither wait for the device nor change what it computes (creating
// a stream, prefetch hints): a suspended launch stays suspended.
#define PREDATAR_LOCK_LEAVING_SUSPENDED_LAUNCH()          \
  primaryContextCurrent = true;                           \
  std::lock_guard lock(rt().mutex());                     \
  if (rt().sticky() != cudaSuccess) return rt().failWithSticky(__func__)

}  // namespace predatar::cudart::api
