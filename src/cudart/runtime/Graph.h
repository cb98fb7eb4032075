// CUDA graphs: explicit construction, stream capture and execution
// (Graph.cpp). The other runtime functions call the capture hooks: work
// issued to a capturing stream becomes a graph node instead of running.
#pragma once

#include <set>
#include <vector>

#include "cudart/runtime/GraphTypes.h"
#include "cudart/runtime/Runtime.h"

namespace predatar::cudart {

inline constexpr cudaError_t kErrorIllegalState = 401;
inline constexpr cudaError_t kErrorStreamCaptureUnsupported = 900;
inline constexpr cudaError_t kErrorStreamCaptureInvalidated = 901;
inline constexpr cudaError_t kErrorStreamCaptureUnmatched = 903;
inline constexpr cudaError_t kErrorStreamCaptureImplicit = 906;

// cudaGraphSetConditional from a kernel (the runtime lock is held): false
// when `handle` is not one cudaGraphConditionalHandleCreate returned.
bool setGraphConditional(uint64_t handle, uint32_t value);
// Whether `stream` belongs to an active capture (call with the runtime lock held).
bool isCapturing(cudaStream_t stream);
// Add a node to the capture of `stream` (the arguments are copied).
cudaError_t captureKernel(KernelRecord& kernel, dim3 grid, dim3 block, void** args, uint64_t sharedBytes,
                          cudaStream_t stream);
cudaError_t captureCopy(void* dst, const void* src, uint64_t bytes, int kind, cudaStream_t stream);
cudaError_t captureFill(void* dst, int value, uint64_t bytes, cudaStream_t stream);
cudaError_t captureHost(cudaHostFn_t fn, void* userData, cudaStream_t stream);
// Events recorded on / waited for by a capturing stream carry its dependencies.
cudaError_t captureEventRecord(cudaEvent_t event, cudaStream_t stream);
// Returns true when the wait was a capture join (handled).
bool captureEventWait(cudaStream_t stream, cudaEvent_t event);
// cudaMallocAsync / cudaFreeAsync on a capturing stream: memory alloc / free nodes.
cudaError_t captureAlloc(void** pointer, size_t bytes, cudaStream_t stream);
cudaError_t captureFree(void* pointer, cudaStream_t stream);

// Graph memory (GraphMemory.cpp). An allocation node gets its address when
// it is created, as in CUDA: a block of its own, or the block of an earlier
// allocation of the same graph whose free node the new node follows (CUDA
// reuses such addresses). Blocks stay for the rest of the process: every
// launch of the graph "allocates" again at that address, and a free node,
// cudaFree or cudaFreeAsync of it only marks it unused.
cudaError_t reserveGraphMemory(void** pointer, size_t bytes, const CUgraph_st* graph,
                               const std::vector<CUgraphNode_st*>& deps);
bool isGraphMemory(const void* pointer);
// A free node of `pointer` was added to `graph` (its address may be reused after it).
void noteGraphFree(const void* pointer, const CUgraph_st* graph, const CUgraphNode_st* freeNode);
// Marks graph memory used (an allocation node ran) or unused (freed).
void markGraphMemory(const void* pointer, bool used);
// The physical memory behind graph allocations, as the graph memory
// attributes report it: mapped when an executable graph launches, kept by it
// afterwards, reused by a later launch ordered after it (the same stream, or
// after the host synchronized), released by cudaDeviceGraphMemTrim.
// The blocks `graph`'s allocation nodes use (child graphs' too), which a
// launch maps (graphLaunchBegins) and may leave unfreed (graphLaunchEnds).
std::set<const void*> graphAllocations(const CUgraph_st& graph);
void graphLaunchBegins(const CUgraphExec_st* exec, const std::set<const void*>& allocations, cudaStream_t stream);
void graphLaunchEnds(const CUgraphExec_st* exec, const std::set<const void*>& allocations);
void forgetGraphExec(const CUgraphExec_st* exec);
// The host saw `stream` complete (cudaStreamSynchronize), or every stream.
void graphMemoryStreamSynchronized(cudaStream_t stream);
void graphMemoryDeviceSynchronized();

}  // namespace predatar::cudart
