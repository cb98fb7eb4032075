// CUDA runtime types of memory pools and graphs (CUDA 13 driver_types.h
// layouts; sizes checked by static_assert against values measured with the
// real headers), declared here so that PreDataR builds without the toolkit.
#pragma once

#include "cudart/runtime/CudaTypes.h"

extern "C" {

struct CUmemPoolHandle_st;
struct CUgraph_st;
struct CUgraphNode_st;
struct CUgraphExec_st;
using cudaMemPool_t = CUmemPoolHandle_st*;
using cudaGraph_t = CUgraph_st*;
using cudaGraphNode_t = CUgraphNode_st*;
using cudaGraphExec_t = CUgraphExec_st*;

enum cudaMemPoolAttrValue {
  cudaMemPoolReuseFollowEventDependencies = 1,
  cudaMemPoolReuseAllowOpportunistic = 2,
  cudaMemPoolReuseAllowInternalDependencies = 3,
  cudaMemPoolAttrReleaseThreshold = 4,
  cudaMemPoolAttrReservedMemCurrent = 5,
  cudaMemPoolAttrReservedMemHigh = 6,
  cudaMemPoolAttrUsedMemCurrent = 7,
  cudaMemPoolAttrUsedMemHigh = 8,
};

struct cudaMemPoolProps {
  int allocType;
  int handleTypes;
  cudaMemLocation location;
  void* win32SecurityAttributes;
  size_t maxSize;
  unsigned short usage;
  unsigned char reserved[54];
};
static_assert(sizeof(cudaMemPoolProps) == 88);

struct cudaMemAccessDesc {
  cudaMemLocation location;
  int flags;
};

struct cudaKernelNodeParams {
  void* func;
  dim3 gridDim;
  dim3 blockDim;
  unsigned int sharedMemBytes;
  void** kernelParams;
  void** extra;
};
static_assert(sizeof(cudaKernelNodeParams) == 56 && offsetof(cudaKernelNodeParams, kernelParams) == 40);

struct cudaMemsetParams {
  void* dst;
  size_t pitch;
  unsigned int value;
  unsigned int elementSize;
  size_t width;
  size_t height;
};
static_assert(sizeof(cudaMemsetParams) == 40 && offsetof(cudaMemsetParams, width) == 24);

struct cudaHostNodeParams {
  cudaHostFn_t fn;
  void* userData;
};

struct cudaArray;
struct cudaPos { size_t x, y, z; };
struct cudaExtent { size_t width, height, depth; };
struct cudaPitchedPtr { void* ptr; size_t pitch, xsize, ysize; };
struct cudaMemcpy3DParms {
  cudaArray* srcArray;
  cudaPos srcPos;
  cudaPitchedPtr srcPtr;
  cudaArray* dstArray;
  cudaPos dstPos;
  cudaPitchedPtr dstPtr;
  cudaExtent extent;
  int kind;
};
static_assert(sizeof(cudaMemcpy3DParms) == 160 && offsetof(cudaMemcpy3DParms, kind) == 152);

enum cudaStreamCaptureStatusValue {
  cudaStreamCaptureStatusNone = 0,
  cudaStreamCaptureStatusActive = 1,
  cudaStreamCaptureStatusInvalidated = 2,
};

enum cudaGraphNodeTypeValue {
  cudaGraphNodeTypeKernel = 0,
  cudaGraphNodeTypeMemcpy = 1,
  cudaGraphNodeTypeMemset = 2,
  cudaGraphNodeTypeHost = 3,
  cudaGraphNodeTypeGraph = 4,
  cudaGraphNodeTypeEmpty = 5,
  cudaGraphNodeTypeWaitEvent = 6,
  cudaGraphNodeTypeEventRecord = 7,
  cudaGraphNodeTypeMemAlloc = 10,
  cudaGraphNodeTypeMemFree = 11,
  cudaGraphNodeTypeConditional = 13,
};

// Conditional nodes (CUDA 12.3+): a handle's value, set by kernels with
// cudaGraphSetConditional, picks the body graphs to run.
using cudaGraphConditionalHandle = unsigned long long;
enum cudaGraphConditionalNodeTypeValue { cudaGraphCondTypeIf = 0, cudaGraphCondTypeWhile = 1, cudaGraphCondTypeSwitch = 2 };
inline constexpr unsigned kGraphCondAssignDefault = 1;
struct cudaConditionalNodeParams {
  cudaGraphConditionalHandle handle;
  int type;
  unsigned int size;
  cudaGraph_t* phGraph_out;
};
static_assert(sizeof(cudaConditionalNodeParams) == 24 && offsetof(cudaConditionalNodeParams, phGraph_out) == 16);

// cudaGraphAddNode's parameters: the node type, then one union member.
struct cudaGraphNodeParams {
  int type;
  int reserved0[3];
  union {
    long long reserved1[29];
    cudaKernelNodeParams kernel;  // cudaKernelNodeParamsV2 has the same layout
    cudaConditionalNodeParams conditional;
  };
  long long reserved2;
};
static_assert(sizeof(cudaGraphNodeParams) == 256 && offsetof(cudaGraphNodeParams, kernel) == 16);

enum cudaStreamUpdateCaptureDependenciesFlagsValue {
  cudaStreamAddCaptureDependencies = 0,
  cudaStreamSetCaptureDependencies = 1,
};

struct cudaMemAllocNodeParams {
  cudaMemPoolProps poolProps;
  const cudaMemAccessDesc* accessDescs;
  size_t accessDescCount;
  size_t bytesize;
  void* dptr;
};
static_assert(sizeof(cudaMemAllocNodeParams) == 120 && offsetof(cudaMemAllocNodeParams, dptr) == 112);

enum cudaGraphMemAttributeTypeValue {
  cudaGraphMemAttrUsedMemCurrent = 0,
  cudaGraphMemAttrUsedMemHigh = 1,
  cudaGraphMemAttrReservedMemCurrent = 2,
  cudaGraphMemAttrReservedMemHigh = 3,
};

inline constexpr unsigned long long kGraphInstantiateFlagAutoFreeOnLaunch = 1;


}  // extern "C"
