// The exported CUDA runtime functions of streams and events (Api.cpp has
// the rest): the order they put launches in (cudart/StreamOrder), and the
// work a launch that waits for the host leaves queued (Runtime::defer).
#include "cudart/runtime/Api.h"

#include <chrono>

#include "cudart/runtime/ApiCommon.h"
#include "cudart/runtime/Graph.h"
#include "cudart/runtime/Runtime.h"

using namespace predatar::cudart;
using namespace predatar::cudart::api;

extern "C" {

// ---------------------------------------------------------------- streams and events

cudaError_t cudaStreamCreate(cudaStream_t* stream) {
  PREDATAR_LOCK_LEAVING_SUSPENDED_LAUNCH();
  if (stream == nullptr) return fail(cudaErrorInvalidValue);
  *stream = rt().createStream();
  return cudaSuccess;
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned int flags) {
  PREDATAR_LOCK_LEAVING_SUSPENDED_LAUNCH();
  if (stream == nullptr) return fail(cudaErrorInvalidValue);
  *stream = rt().createStream((flags & 1) != 0);  // cudaStreamNonBlocking
  return cudaSuccess;
}

cudaError_t cudaStreamCreateWithPriority(cudaStream_t* stream, unsigned int flags, int) {
  return cudaStreamCreateWithFlags(stream, flags);
}

cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  std::lock_guard lock(rt().mutex());
  if (stream == nullptr) return fail(cudaErrorInvalidResourceHandle);
  return rt().destroyStream(stream) ? cudaSuccess : fail(cudaErrorInvalidResourceHandle);
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
  PREDATAR_LOCK_AND_CHECK_STICKY();
  if (!rt().validStream(stream)) return fail(cudaErrorInvalidResourceHandle);
  rt().order().synchronizeStream(reinterpret_cast<uintptr_t>(stream));
  graphMemoryStreamSynchronized(stream);
  return cudaSuccess;
}

PREDATAR_CUDART_API cudaError_t cudaStreamSynchronize_ptsz(cudaStream_t stream) {
  return cudaStreamSynchronize(perThreadDefault(stream));
}

// The work of a stream is complete (the host saw it complete), unless some of
// it waits for a launch that waits for the host: that launch goes on as far
// as it can first. Another stream's query leaves it waiting.
cudaError_t cudaStreamQuery(cudaStream_t stream) {
  PREDATAR_LOCK_LEAVING_SUSPENDED_LAUNCH();
  if (!rt().validStream(stream)) return fail(cudaErrorInvalidResourceHandle);
  if (!rt().queryReady(stream, nullptr)) return cudaErrorNotReady;
  if (rt().sticky() != cudaSuccess) return fail(rt().sticky());  // a launch that failed as it went on
  rt().order().synchronizeStream(reinterpret_cast<uintptr_t>(stream));
  graphMemoryStreamSynchronized(stream);
  return cudaSuccess;
}

PREDATAR_CUDART_API cudaError_t cudaStreamQuery_ptsz(cudaStream_t stream) {
  return cudaStreamQuery(perThreadDefault(stream));
}

cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags) {
  PREDATAR_LOCK_LEAVING_SUSPENDED_LAUNCH();
  if (!rt().validStream(stream) || rt().event(event) == nullptr) return fail(cudaErrorInvalidResourceHandle);
  if (rt().launchSuspended() && !isCapturing(stream)) {
    rt().defer(stream, [=] { return cudaStreamWaitEvent(stream, event, flags); });
    return cudaSuccess;
  }
  captureEventWait(stream, event);
  if (!isCapturing(stream))
    rt().order().waitEvent(reinterpret_cast<uintptr_t>(stream), reinterpret_cast<uintptr_t>(event));
  return cudaSuccess;
}

PREDATAR_CUDART_API cudaError_t cudaStreamWaitEvent_ptsz(cudaStream_t stream, cudaEvent_t event, unsigned int flags) {
  return cudaStreamWaitEvent(perThreadDefault(stream), event, flags);
}

cudaError_t cudaEventCreate(cudaEvent_t* event) {
  PREDATAR_LOCK_LEAVING_SUSPENDED_LAUNCH();
  if (event == nullptr) return fail(cudaErrorInvalidValue);
  *event = rt().createEvent();
  return cudaSuccess;
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int) { return cudaEventCreate(event); }

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
  PREDATAR_LOCK_LEAVING_SUSPENDED_LAUNCH();
  Runtime::Event* e = rt().event(event);
  if (e == nullptr || !rt().validStream(stream)) return fail(cudaErrorInvalidResourceHandle);
  if (isCapturing(stream)) return fail(captureEventRecord(event, stream));
  if (rt().launchSuspended()) {  // recorded when the work before it is done
    rt().defer(stream, [=] { return cudaEventRecord(event, stream); }, event);
    return cudaSuccess;
  }
  e->recorded = true;
  e->time = std::chrono::steady_clock::now();
  rt().order().recordEvent(reinterpret_cast<uintptr_t>(event), reinterpret_cast<uintptr_t>(stream));
  return cudaSuccess;
}

PREDATAR_CUDART_API cudaError_t cudaEventRecord_ptsz(cudaEvent_t event, cudaStream_t stream) {
  return cudaEventRecord(event, perThreadDefault(stream));
}

cudaError_t cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream, unsigned int) {
  return cudaEventRecord(event, stream);
}

// Recorded work is complete (the host saw it complete), unless the record
// waits behind a launch that waits for the host (as cudaStreamQuery).
cudaError_t cudaEventQuery(cudaEvent_t event) {
  PREDATAR_LOCK_LEAVING_SUSPENDED_LAUNCH();
  if (!rt().event(event)) return fail(cudaErrorInvalidResourceHandle);
  if (!rt().queryReady(nullptr, event)) return cudaErrorNotReady;
  if (rt().sticky() != cudaSuccess) return fail(rt().sticky());
  rt().order().synchronizeEvent(reinterpret_cast<uintptr_t>(event));
  return cudaSuccess;
}

cudaError_t cudaEventSynchronize(cudaEvent_t event) {
  PREDATAR_LOCK_AND_CHECK_STICKY();
  if (!rt().event(event)) return fail(cudaErrorInvalidResourceHandle);
  rt().order().synchronizeEvent(reinterpret_cast<uintptr_t>(event));
  return cudaSuccess;
}

cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
  PREDATAR_LOCK_AND_CHECK_STICKY();
  if (ms == nullptr) return fail(cudaErrorInvalidValue);
  Runtime::Event* a = rt().event(start);
  Runtime::Event* b = rt().event(end);
  if (a == nullptr || b == nullptr) return fail(cudaErrorInvalidResourceHandle);
  if (!a->recorded || !b->recorded) return fail(cudaErrorInvalidResourceHandle);
  *ms = std::chrono::duration<float, std::milli>(b->time - a->time).count();
  return cudaSuccess;
}

cudaError_t cudaEventDestroy(cudaEvent_t event) {
  std::lock_guard lock(rt().mutex());
  return rt().destroyEvent(event) ? cudaSuccess : fail(cudaErrorInvalidResourceHandle);
}

}  // extern "C"
