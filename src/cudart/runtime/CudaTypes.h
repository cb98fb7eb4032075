// The few CUDA runtime types the replacement library needs, declared here so
// that PreDataR builds without the CUDA toolkit. Layouts and values follow
// CUDA 13's driver_types.h / cuda_runtime_api.h (tests/cudart/TypesTest.cpp
// checks them against the real headers when those are installed).
#pragma once

#include <cstddef>
#include <cstdint>

extern "C" {

using cudaError_t = int;

struct dim3 {
  unsigned int x, y, z;
};

struct CUstream_st;
struct CUevent_st;
struct CUkern_st;
using cudaStream_t = CUstream_st*;
using cudaEvent_t = CUevent_st*;
using cudaKernel_t = CUkern_st*;

struct cudaUUID_t {
  char bytes[16];
};

struct cudaDeviceProp {
  char         name[256];
  cudaUUID_t   uuid;
  char         luid[8];
  unsigned int luidDeviceNodeMask;
  size_t       totalGlobalMem;
  size_t       sharedMemPerBlock;
  int          regsPerBlock;
  int          warpSize;
  size_t       memPitch;
  int          maxThreadsPerBlock;
  int          maxThreadsDim[3];
  int          maxGridSize[3];
  size_t       totalConstMem;
  int          major;
  int          minor;
  size_t       textureAlignment;
  size_t       texturePitchAlignment;
  int          multiProcessorCount;
  int          integrated;
  int          canMapHostMemory;
  int          maxTexture1D;
  int          maxTexture1DMipmap;
  int          maxTexture2D[2];
  int          maxTexture2DMipmap[2];
  int          maxTexture2DLinear[3];
  int          maxTexture2DGather[2];
  int          maxTexture3D[3];
  int          maxTexture3DAlt[3];
  int          maxTextureCubemap;
  int          maxTexture1DLayered[2];
  int          maxTexture2DLayered[3];
  int          maxTextureCubemapLayered[2];
  int          maxSurface1D;
  int          maxSurface2D[2];
  int          maxSurface3D[3];
  int          maxSurface1DLayered[2];
  int          maxSurface2DLayered[3];
  int          maxSurfaceCubemap;
  int          maxSurfaceCubemapLayered[2];
  size_t       surfaceAlignment;
  int          concurrentKernels;
  int          ECCEnabled;
  int          pciBusID;
  int          pciDeviceID;
  int          pciDomainID;
  int          tccDriver;
  int          asyncEngineCount;
  int          unifiedAddressing;
  int          memoryBusWidth;
  int          l2CacheSize;
  int          persistingL2CacheMaxSize;
  int          maxThreadsPerMultiProcessor;
  int          streamPrioritiesSupported;
  int          globalL1CacheSupported;
  int          localL1CacheSupported;
  size_t       sharedMemPerMultiprocessor;
  int          regsPerMultiprocessor;
  int          managedMemory;
  int          isMultiGpuBoard;
  int          multiGpuBoardGroupID;
  int          hostNativeAtomicSupported;
  int          pageableMemoryAccess;
  int          concurrentManagedAccess;
  int          computePreemptionSupported;
  int          canUseHostPointerForRegisteredMem;
  int          cooperativeLaunch;
  size_t       sharedMemPerBlockOptin;
  int          pageableMemoryAccessUsesHostPageTables;
  int          directManagedMemAccessFromHost;
  int          maxBlocksPerMultiProcessor;
  int          accessPolicyMaxWindowSize;
  size_t       reservedSharedMemPerBlock;
  int          hostRegisterSupported;
  int          sparseCudaArraySupported;
  int          hostRegisterReadOnlySupported;
  int          timelineSemaphoreInteropSupported;
  int          memoryPoolsSupported;
  int          gpuDirectRDMASupported;
  unsigned int gpuDirectRDMAFlushWritesOptions;
  int          gpuDirectRDMAWritesOrdering;
  unsigned int memoryPoolSupportedHandleTypes;
  int          deferredMappingCudaArraySupported;
  int          ipcEventSupported;
  int          clusterLaunch;
  int          unifiedFunctionPointers;
  int          deviceNumaConfig;
  int          deviceNumaId;
  int          mpsEnabled;
  int          hostNumaId;
  unsigned int gpuPciDeviceID;
  unsigned int gpuPciSubsystemID;
  int          hostNumaMultinodeIpcSupported;
  int          reserved[56];
};

struct cudaFuncAttributes {
  size_t sharedSizeBytes;
  size_t constSizeBytes;
  size_t localSizeBytes;
  int maxThreadsPerBlock;
  int numRegs;
  int ptxVersion;
  int binaryVersion;
  int cacheModeCA;
  int maxDynamicSharedSizeBytes;
  int preferredShmemCarveout;
  int clusterDimMustBeSet;
  int requiredClusterWidth;
  int requiredClusterHeight;
  int requiredClusterDepth;
  int clusterSchedulingPolicyPreference;
  int nonPortableClusterSizeAllowed;
  int reserved[16];
};

struct cudaMemLocation {
  int type;  // cudaMemLocationType
  int id;
};

using cudaHostFn_t = void (*)(void* userData);
using cudaStreamCallback_t = void (*)(cudaStream_t stream, cudaError_t status, void* userData);

struct cudaPointerAttributes {
  int type;  // cudaMemoryType
  int device;
  void* devicePointer;
  void* hostPointer;
  long reserved[8];
};

// cudaLaunchKernelExC's configuration. A launch attribute is an id and a
// 64-byte union; only the members the emulator reads are named.
struct cudaLaunchAttribute {
  int id;
  char pad[4];
  union {
    char bytes[64];
    int cooperative;      // cudaLaunchAttributeCooperative
    int programmaticStreamSerializationAllowed;
    struct {
      unsigned int x, y, z;
    } clusterDim;         // cudaLaunchAttributeClusterDimension
  } val;
};

struct cudaLaunchConfig_t {
  dim3 gridDim;
  dim3 blockDim;
  size_t dynamicSmemBytes;
  cudaStream_t stream;
  cudaLaunchAttribute* attrs;
  unsigned int numAttrs;
};

}  // extern "C"

namespace predatar::cudart {

// cudaError_t values used by the library.
enum : int {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2,
  cudaErrorInitializationError = 3,
  cudaErrorInvalidConfiguration = 9,
  cudaErrorInvalidPitchValue = 12,
  cudaErrorInvalidSymbol = 13,
  cudaErrorInvalidMemcpyDirection = 21,
  cudaErrorInvalidDevice = 101,
  cudaErrorInvalidKernelImage = 200,
  cudaErrorUnsupportedLimit = 215,
  cudaErrorNoKernelImageForDevice = 209,
  cudaErrorInvalidPtx = 218,
  cudaErrorInvalidResourceHandle = 400,
  cudaErrorSymbolNotFound = 500,
  cudaErrorNotReady = 600,
  cudaErrorIllegalAddress = 700,
  cudaErrorLaunchOutOfResources = 701,
  cudaErrorLaunchTimeout = 702,
  cudaErrorAssert = 710,
  cudaErrorHostMemoryAlreadyRegistered = 712,
  cudaErrorHostMemoryNotRegistered = 713,
  cudaErrorIllegalInstruction = 715,
  cudaErrorMisalignedAddress = 716,
  cudaErrorLaunchFailure = 719,
  cudaErrorNotSupported = 801,
  cudaErrorInvalidDeviceFunction = 98,
  cudaErrorUnknown = 999,
};

enum MemcpyKind : int {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4,
};

enum MemoryType : int {
  cudaMemoryTypeUnregistered = 0,
  cudaMemoryTypeHost = 1,
  cudaMemoryTypeDevice = 2,
  cudaMemoryTypeManaged = 3,
};

enum FuncAttribute : int {
  cudaFuncAttributeMaxDynamicSharedMemorySize = 8,
  cudaFuncAttributePreferredSharedMemoryCarveout = 9,
};

// cudaDeviceAttr values answered by cudaDeviceGetAttribute.
enum DeviceAttr : int {
  cudaDevAttrMaxThreadsPerBlock = 1,
  cudaDevAttrMaxBlockDimX = 2,
  cudaDevAttrMaxBlockDimY = 3,
  cudaDevAttrMaxBlockDimZ = 4,
  cudaDevAttrMaxGridDimX = 5,
  cudaDevAttrMaxGridDimY = 6,
  cudaDevAttrMaxGridDimZ = 7,
  cudaDevAttrMaxSharedMemoryPerBlock = 8,
  cudaDevAttrTotalConstantMemory = 9,
  cudaDevAttrWarpSize = 10,
  cudaDevAttrMaxPitch = 11,
  cudaDevAttrMaxRegistersPerBlock = 12,
  cudaDevAttrClockRate = 13,
  cudaDevAttrTextureAlignment = 14,
  cudaDevAttrGpuOverlap = 15,
  cudaDevAttrMultiProcessorCount = 16,
  cudaDevAttrKernelExecTimeout = 17,
  cudaDevAttrIntegrated = 18,
  cudaDevAttrCanMapHostMemory = 19,
  cudaDevAttrComputeMode = 20,
  cudaDevAttrConcurrentKernels = 31,
  cudaDevAttrEccEnabled = 32,
  cudaDevAttrPciBusId = 33,
  cudaDevAttrPciDeviceId = 34,
  cudaDevAttrMemoryClockRate = 36,
  cudaDevAttrGlobalMemoryBusWidth = 37,
  cudaDevAttrL2CacheSize = 38,
  cudaDevAttrMaxThreadsPerMultiProcessor = 39,
  cudaDevAttrAsyncEngineCount = 40,
  cudaDevAttrUnifiedAddressing = 41,
  cudaDevAttrPciDomainId = 50,
  cudaDevAttrComputeCapabilityMajor = 75,
  cudaDevAttrComputeCapabilityMinor = 76,
  cudaDevAttrStreamPrioritiesSupported = 78,
  cudaDevAttrGlobalL1CacheSupported = 79,
  cudaDevAttrLocalL1CacheSupported = 80,
  cudaDevAttrMaxSharedMemoryPerMultiprocessor = 81,
  cudaDevAttrMaxRegistersPerMultiprocessor = 82,
  cudaDevAttrManagedMemory = 83,
  cudaDevAttrIsMultiGpuBoard = 84,
  cudaDevAttrHostNativeAtomicSupported = 86,
  cudaDevAttrPageableMemoryAccess = 88,
  cudaDevAttrConcurrentManagedAccess = 89,
  cudaDevAttrComputePreemptionSupported = 90,
  cudaDevAttrCooperativeLaunch = 95,
  cudaDevAttrMaxSharedMemoryPerBlockOptin = 97,
  cudaDevAttrMaxBlocksPerMultiprocessor = 106,
  cudaDevAttrMaxPersistingL2CacheSize = 108,
  cudaDevAttrMaxAccessPolicyWindowSize = 109,
  cudaDevAttrReservedSharedMemoryPerBlock = 111,
  cudaDevAttrMemoryPoolsSupported = 115,
};

}  // namespace predatar::cudart
