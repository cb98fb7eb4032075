// The CUDA runtime entry points the replacement libcudart.so implements
// (signatures as in CUDA 13's cuda_runtime_api.h and crt/host_runtime.h).
// Every other function NVIDIA's library exports is a stub (Stubs.cpp) that
// names itself and fails with cudaErrorNotSupported.
#pragma once

#include "cudart/runtime/CudaTypes.h"

#define PREDATAR_CUDART_API __attribute__((visibility("default")))

extern "C" {

// Registration (called by nvcc-generated host code).
PREDATAR_CUDART_API void** __cudaRegisterFatBinary(void* fatCubin);
PREDATAR_CUDART_API void __cudaRegisterFatBinaryEnd(void** fatCubinHandle);
PREDATAR_CUDART_API void __cudaUnregisterFatBinary(void** fatCubinHandle);
PREDATAR_CUDART_API void __cudaRegisterFunction(void** fatCubinHandle, const char* hostFun, char* deviceFun,
                                                const char* deviceName, int threadLimit, void* tid, void* bid,
                                                dim3* bDim, dim3* gDim, int* wSize);
PREDATAR_CUDART_API void __cudaRegisterVar(void** fatCubinHandle, char* hostVar, char* deviceAddress,
                                           const char* deviceName, int ext, size_t size, int constant, int global);
PREDATAR_CUDART_API void __cudaRegisterManagedVar(void** fatCubinHandle, void** hostVarPtrAddress,
                                                  char* deviceAddress, const char* deviceName, int ext,
                                                  size_t size, int constant, int global);
PREDATAR_CUDART_API char __cudaInitModule(void** fatCubinHandle);
PREDATAR_CUDART_API unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem,
                                                         cudaStream_t stream);
PREDATAR_CUDART_API cudaError_t __cudaPopCallConfiguration(dim3* gridDim, dim3* blockDim, size_t* sharedMem,
                                                           void* stream);
PREDATAR_CUDART_API cudaError_t __cudaGetKernel(cudaKernel_t* kernel, const void* hostFun);
PREDATAR_CUDART_API cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, void** args,
                                                   size_t sharedMem, cudaStream_t stream);
PREDATAR_CUDART_API cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim,
                                                        void** args, size_t sharedMem, cudaStream_t stream);

// Launch.
PREDATAR_CUDART_API cudaError_t cudaLaunchKernel(const void* func, dim3 gridDim, dim3 blockDim, void** args,
                                                 size_t sharedMem, cudaStream_t stream);
PREDATAR_CUDART_API cudaError_t cudaLaunchKernel_ptsz(const void* func, dim3 gridDim, dim3 blockDim,
                                                      void** args, size_t sharedMem, cudaStream_t stream);
PREDATAR_CUDART_API cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t* config, const void* func, void** args);
PREDATAR_CUDART_API cudaError_t cudaLaunchCooperativeKernel(const void* func, dim3 gridDim, dim3 blockDim,
                                                            void** args, size_t sharedMem, cudaStream_t stream);
PREDATAR_CUDART_API cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void* userData);
PREDATAR_CUDART_API cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback,
                                                      void* userData, unsigned int flags);
PREDATAR_CUDART_API cudaError_t cudaFuncSetAttribute(const void* func, int attr, int value);
PREDATAR_CUDART_API cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* attr, const void* func);
PREDATAR_CUDART_API cudaError_t cudaFuncSetCacheConfig(const void* func, int cacheConfig);
PREDATAR_CUDART_API cudaError_t cudaFuncGetName(const char** name, const void* func);
PREDATAR_CUDART_API cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* numBlocks, const void* func,
                                                                              int blockSize, size_t dynamicSMemSize);
PREDATAR_CUDART_API cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
    int* numBlocks, const void* func, int blockSize, size_t dynamicSMemSize, unsigned int flags);

// Memory.
PREDATAR_CUDART_API cudaError_t cudaMalloc(void** devPtr, size_t size);
PREDATAR_CUDART_API cudaError_t cudaFree(void* devPtr);
PREDATAR_CUDART_API cudaError_t cudaMallocManaged(void** devPtr, size_t size, unsigned int flags);
PREDATAR_CUDART_API cudaError_t cudaMallocHost(void** ptr, size_t size);
PREDATAR_CUDART_API cudaError_t cudaHostAlloc(void** pHost, size_t size, unsigned int flags);
PREDATAR_CUDART_API cudaError_t cudaFreeHost(void* ptr);
PREDATAR_CUDART_API cudaError_t cudaHostGetDevicePointer(void** pDevice, void* pHost, unsigned int flags);
PREDATAR_CUDART_API cudaError_t cudaMallocAsync(void** devPtr, size_t size, cudaStream_t stream);
PREDATAR_CUDART_API cudaError_t cudaFreeAsync(void* devPtr, cudaStream_t stream);
PREDATAR_CUDART_API cudaError_t cudaMallocPitch(void** devPtr, size_t* pitch, size_t width, size_t height);
struct cudaPitchedPtr;
struct cudaExtent;
PREDATAR_CUDART_API cudaError_t cudaMalloc3D(cudaPitchedPtr* ptr, cudaExtent extent);  // GraphTypes.h
PREDATAR_CUDART_API cudaError_t cudaMemcpy(void* dst, const void* src, size_t count, int kind);
PREDATAR_CUDART_API cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t count, int kind,
                                                cudaStream_t stream);
PREDATAR_CUDART_API cudaError_t cudaMemcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch,
                                             size_t width, size_t height, int kind);
PREDATAR_CUDART_API cudaError_t cudaMemcpy2DAsync(void* dst, size_t dpitch, const void* src, size_t spitch,
                                                  size_t width, size_t height, int kind, cudaStream_t stream);
PREDATAR_CUDART_API cudaError_t cudaMemcpyPeer(void* dst, int dstDevice, const void* src, int srcDevice,
                                               size_t count);
PREDATAR_CUDART_API cudaError_t cudaMemset(void* devPtr, int value, size_t count);
PREDATAR_CUDART_API cudaError_t cudaMemsetAsync(void* devPtr, int value, size_t count, cudaStream_t stream);
PREDATAR_CUDART_API cudaError_t cudaMemcpyToSymbol(const void* symbol, const void* src, size_t count,
                                                   size_t offset, int kind);
PREDATAR_CUDART_API cudaError_t cudaMemcpyFromSymbol(void* dst, const void* symbol, size_t count,
                                                     size_t offset, int kind);
PREDATAR_CUDART_API cudaError_t cudaMemcpyToSymbolAsync(const void* symbol, const void* src, size_t count,
                                                        size_t offset, int kind, cudaStream_t stream);
PREDATAR_CUDART_API cudaError_t cudaMemcpyFromSymbolAsync(void* dst, const void* symbol, size_t count,
                                                          size_t offset, int kind, cudaStream_t stream);
PREDATAR_CUDART_API cudaError_t cudaGetSymbolAddress(void** devPtr, const void* symbol);
PREDATAR_CUDART_API cudaError_t cudaGetSymbolSize(size_t* size, const void* symbol);
PREDATAR_CUDART_API cudaError_t cudaMemPrefetchAsync(const void* devPtr, size_t count, cudaMemLocation location,
                                                     unsigned int flags, cudaStream_t stream);
PREDATAR_CUDART_API cudaError_t cudaMemAdvise(const void* devPtr, size_t count, int advice, cudaMemLocation location);
PREDATAR_CUDART_API cudaError_t cudaStreamAttachMemAsync(cudaStream_t stream, void* devPtr, size_t length,
                                                         unsigned int flags);
PREDATAR_CUDART_API cudaError_t cudaMemGetInfo(size_t* free, size_t* total);
PREDATAR_CUDART_API cudaError_t cudaPointerGetAttributes(cudaPointerAttributes* attributes, const void* ptr);

// Streams and events.
PREDATAR_CUDART_API cudaError_t cudaStreamCreate(cudaStream_t* stream);
PREDATAR_CUDART_API cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned int flags);
PREDATAR_CUDART_API cudaError_t cudaStreamCreateWithPriority(cudaStream_t* stream, unsigned int flags, int priority);
PREDATAR_CUDART_API cudaError_t cudaStreamDestroy(cudaStream_t stream);
PREDATAR_CUDART_API cudaError_t cudaStreamSynchronize(cudaStream_t stream);
PREDATAR_CUDART_API cudaError_t cudaStreamQuery(cudaStream_t stream);
PREDATAR_CUDART_API cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags);
PREDATAR_CUDART_API cudaError_t cudaEventCreate(cudaEvent_t* event);
PREDATAR_CUDART_API cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int flags);
PREDATAR_CUDART_API cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream);
PREDATAR_CUDART_API cudaError_t cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream, unsigned int flags);
PREDATAR_CUDART_API cudaError_t cudaEventQuery(cudaEvent_t event);
PREDATAR_CUDART_API cudaError_t cudaEventSynchronize(cudaEvent_t event);
PREDATAR_CUDART_API cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end);
PREDATAR_CUDART_API cudaError_t cudaEventDestroy(cudaEvent_t event);

// Device.
PREDATAR_CUDART_API cudaError_t cudaDeviceSynchronize(void);
PREDATAR_CUDART_API cudaError_t cudaDeviceReset(void);
PREDATAR_CUDART_API cudaError_t cudaGetDeviceCount(int* count);
PREDATAR_CUDART_API cudaError_t cudaGetDevice(int* device);
PREDATAR_CUDART_API cudaError_t cudaSetDevice(int device);
PREDATAR_CUDART_API cudaError_t cudaSetDeviceFlags(unsigned int flags);
PREDATAR_CUDART_API cudaError_t cudaGetDeviceFlags(unsigned int* flags);
PREDATAR_CUDART_API cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device);
PREDATAR_CUDART_API cudaError_t cudaChooseDevice(int* device, const cudaDeviceProp* prop);
PREDATAR_CUDART_API cudaError_t cudaDeviceGetAttribute(int* value, int attr, int device);
PREDATAR_CUDART_API cudaError_t cudaDeviceSetLimit(int limit, size_t value);
PREDATAR_CUDART_API cudaError_t cudaDeviceGetLimit(size_t* value, int limit);
PREDATAR_CUDART_API cudaError_t cudaDeviceSetCacheConfig(int cacheConfig);
PREDATAR_CUDART_API cudaError_t cudaDeviceGetCacheConfig(int* cacheConfig);
PREDATAR_CUDART_API cudaError_t cudaDeviceCanAccessPeer(int* canAccessPeer, int device, int peerDevice);
PREDATAR_CUDART_API cudaError_t cudaDeviceGetStreamPriorityRange(int* leastPriority, int* greatestPriority);
PREDATAR_CUDART_API cudaError_t cudaRuntimeGetVersion(int* runtimeVersion);
PREDATAR_CUDART_API cudaError_t cudaDriverGetVersion(int* driverVersion);
PREDATAR_CUDART_API cudaError_t cudaProfilerStart(void);
PREDATAR_CUDART_API cudaError_t cudaProfilerStop(void);

// Errors.
PREDATAR_CUDART_API cudaError_t cudaGetLastError(void);
PREDATAR_CUDART_API cudaError_t cudaPeekAtLastError(void);
PREDATAR_CUDART_API const char* cudaGetErrorString(cudaError_t error);
PREDATAR_CUDART_API const char* cudaGetErrorName(cudaError_t error);

}  // extern "C"
