// Streams, events and graphs captured from streams, of the driver API
// (Driver.h): the runtime's (CU_STREAM_*, CU_EVENT_* and capture modes are
// the runtime's numbers), so the detectors order the driver's work as they
// order the runtime's.
#include "cudart/driver/Driver.h"
#include "cudart/runtime/Api.h"
#include "cudart/runtime/GraphTypes.h"

#define PREDATAR_DRIVER_API extern "C" __attribute__((visibility("default")))

extern "C" {
cudaError_t cudaStreamBeginCapture(cudaStream_t stream, int mode);
cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t* graph);
cudaError_t cudaStreamIsCapturing(cudaStream_t stream, int* status);
cudaError_t cudaGraphInstantiate(cudaGraphExec_t* exec, cudaGraph_t graph, unsigned long long flags);
cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t stream);
cudaError_t cudaGraphDestroy(cudaGraph_t graph);
cudaError_t cudaGraphExecDestroy(cudaGraphExec_t exec);
}

using namespace predatar::driver;


PREDATAR_DRIVER_API CUresult cuStreamCreate(cudaStream_t* stream, unsigned flags) {
  PREDATAR_REQUIRE_CONTEXT();
  return fromRuntime(cudaStreamCreateWithFlags(stream, flags));
}
PREDATAR_DRIVER_API CUresult cuStreamCreateWithPriority(cudaStream_t* stream, unsigned flags, int priority) {
  PREDATAR_REQUIRE_CONTEXT();
  return fromRuntime(cudaStreamCreateWithPriority(stream, flags, priority));
}
PREDATAR_DRIVER_API CUresult cuStreamDestroy_v2(cudaStream_t stream) { return fromRuntime(cudaStreamDestroy(stream)); }
PREDATAR_DRIVER_API CUresult cuStreamSynchronize(cudaStream_t stream) {
  return fromRuntime(cudaStreamSynchronize(stream));
}
PREDATAR_DRIVER_API CUresult cuStreamQuery(cudaStream_t stream) { return fromRuntime(cudaStreamQuery(stream)); }
PREDATAR_DRIVER_API CUresult cuStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned flags) {
  return fromRuntime(cudaStreamWaitEvent(stream, event, flags));
}
PREDATAR_DRIVER_API CUresult cuLaunchHostFunc(cudaStream_t stream, cudaHostFn_t function, void* data) {
  return fromRuntime(cudaLaunchHostFunc(stream, function, data));
}

PREDATAR_DRIVER_API CUresult cuEventCreate(cudaEvent_t* event, unsigned flags) {
  PREDATAR_REQUIRE_CONTEXT();
  return fromRuntime(cudaEventCreateWithFlags(event, flags));
}
PREDATAR_DRIVER_API CUresult cuEventRecord(cudaEvent_t event, cudaStream_t stream) {
  return fromRuntime(cudaEventRecord(event, stream));
}
PREDATAR_DRIVER_API CUresult cuEventQuery(cudaEvent_t event) { return fromRuntime(cudaEventQuery(event)); }
PREDATAR_DRIVER_API CUresult cuEventSynchronize(cudaEvent_t event) {
  return fromRuntime(cudaEventSynchronize(event));
}
PREDATAR_DRIVER_API CUresult cuEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
  return fromRuntime(cudaEventElapsedTime(ms, start, end));
}
PREDATAR_DRIVER_API CUresult cuEventElapsedTime_v2(float* ms, cudaEvent_t start, cudaEvent_t end) {
  return fromRuntime(cudaEventElapsedTime(ms, start, end));
}
PREDATAR_DRIVER_API CUresult cuEventDestroy_v2(cudaEvent_t event) { return fromRuntime(cudaEventDestroy(event)); }
PREDATAR_DRIVER_API CUresult cuStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback, void* data,
                                                unsigned flags) {
  return fromRuntime(cudaStreamAddCallback(stream, callback, data, flags));
}
PREDATAR_DRIVER_API CUresult cuEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream, unsigned flags) {
  return fromRuntime(cudaEventRecordWithFlags(event, stream, flags));
}
PREDATAR_DRIVER_API CUresult cuCtxGetStreamPriorityRange(int* least, int* greatest) {
  PREDATAR_REQUIRE_CONTEXT();
  return fromRuntime(cudaDeviceGetStreamPriorityRange(least, greatest));
}

// ---------------------------------------------------------------- graphs captured from streams

PREDATAR_DRIVER_API CUresult cuStreamBeginCapture_v2(cudaStream_t stream, int mode) {
  return fromRuntime(cudaStreamBeginCapture(stream, mode));
}
PREDATAR_DRIVER_API CUresult cuStreamEndCapture(cudaStream_t stream, cudaGraph_t* graph) {
  return fromRuntime(cudaStreamEndCapture(stream, graph));
}
PREDATAR_DRIVER_API CUresult cuStreamIsCapturing(cudaStream_t stream, int* status) {
  return fromRuntime(cudaStreamIsCapturing(stream, status));
}
PREDATAR_DRIVER_API CUresult cuGraphInstantiateWithFlags(cudaGraphExec_t* exec, cudaGraph_t graph,
                                                        unsigned long long flags) {
  return fromRuntime(cudaGraphInstantiate(exec, graph, flags));
}
PREDATAR_DRIVER_API CUresult cuGraphLaunch(cudaGraphExec_t exec, cudaStream_t stream) {
  return fromRuntime(cudaGraphLaunch(exec, stream));
}
PREDATAR_DRIVER_API CUresult cuGraphDestroy(cudaGraph_t graph) { return fromRuntime(cudaGraphDestroy(graph)); }
PREDATAR_DRIVER_API CUresult cuGraphExecDestroy(cudaGraphExec_t exec) {
  return fromRuntime(cudaGraphExecDestroy(exec));
}
