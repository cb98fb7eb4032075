// The exported CUDA runtime functions: thin wrappers over Runtime that keep
// CUDA's error conventions (last error, sticky launch failures).
#include "cudart/runtime/Api.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <vector>

#include "cudart/runtime/DeviceFeatures.h"
#include "cudart/runtime/DeviceProperties.h"
#include "cudart/runtime/Graph.h"
#include "cudart/runtime/Runtime.h"
#include "cudart/runtime/ApiCommon.h"

using namespace predatar::cudart;
using namespace predatar::cudart::api;

namespace {

struct CallConfiguration {
  dim3 grid, block;
  size_t sharedMem;
  cudaStream_t stream;
};
std::vector<CallConfiguration>& callStack() {
  thread_local std::vector<CallConfiguration> stack;
  return stack;
}


thread_local int currentDevice = 0;

cudaError_t symbolCopy(void* dst, const void* src, const void* symbol, size_t count, size_t offset,
                       bool toSymbol, int kind) {
  PREDATAR_LOCK_AND_CHECK_STICKY();
  uint64_t address = 0, bytes = 0;
  if (cudaError_t e = rt().symbol(symbol, address, bytes); e != cudaSuccess) return fail(e);
  if (offset > bytes || count > bytes - offset) return fail(cudaErrorInvalidValue);
  void* device = reinterpret_cast<void*>(address + offset);
  if (toSymbol) {
    if (kind != cudaMemcpyHostToDevice && kind != cudaMemcpyDeviceToDevice && kind != cudaMemcpyDefault)
      return fail(cudaErrorInvalidMemcpyDirection);
    if (kind == cudaMemcpyDeviceToDevice && !rt().isDeviceRange(src, count)) return fail(cudaErrorInvalidValue);
    if (count) std::memmove(device, src, count);
    rt().memory().noteHostCopy(reinterpret_cast<uint64_t>(device), reinterpret_cast<uint64_t>(src), count);
  } else {
    if (kind != cudaMemcpyDeviceToHost && kind != cudaMemcpyDeviceToDevice && kind != cudaMemcpyDefault)
      return fail(cudaErrorInvalidMemcpyDirection);
    if (kind == cudaMemcpyDeviceToDevice && !rt().isDeviceRange(dst, count)) return fail(cudaErrorInvalidValue);
    if (count) std::memmove(dst, device, count);
    rt().memory().noteHostCopy(reinterpret_cast<uint64_t>(dst), reinterpret_cast<uint64_t>(device), count);
  }
  return cudaSuccess;
}

cudaError_t launchKernel(KernelRecord* kernel, dim3 grid, dim3 block, void** args, size_t sharedMem,
                         cudaStream_t stream) {
  PREDATAR_LOCK_LEAVING_SUSPENDED_LAUNCH();
  if (kernel == nullptr) return fail(cudaErrorInvalidDeviceFunction);
  if (isCapturing(stream)) return fail(captureKernel(*kernel, grid, block, args, sharedMem, stream));
  if (rt().launchSuspended() && !cooperativeLaunchPending() && !programmaticLaunchPending())
    return fail(rt().deferLaunch(*kernel, grid, block, args, sharedMem, stream));
  return fail(rt().launch(*kernel, grid, block, args, sharedMem, stream));
}

}  // namespace

extern "C" {

// ---------------------------------------------------------------- registration

void** __cudaRegisterFatBinary(void* fatCubin) { return rt().registerFatBinary(fatCubin); }

void __cudaRegisterFatBinaryEnd(void** fatCubinHandle) { rt().registerFatBinaryEnd(fatCubinHandle); }

void __cudaUnregisterFatBinary(void** fatCubinHandle) { rt().unregisterFatBinary(fatCubinHandle); }

void __cudaRegisterFunction(void** fatCubinHandle, const char* hostFun, char* deviceFun, const char* deviceName,
                            int, void*, void*, dim3*, dim3*, int*) {
  rt().registerFunction(fatCubinHandle, hostFun, deviceName ? deviceName : deviceFun);
}

void __cudaRegisterVar(void** fatCubinHandle, char* hostVar, char* deviceAddress, const char* deviceName, int,
                       size_t size, int constant, int) {
  rt().registerVariable(fatCubinHandle, hostVar, nullptr, deviceName ? deviceName : deviceAddress, size,
                        constant != 0);
}

void __cudaRegisterManagedVar(void** fatCubinHandle, void** hostVarPtrAddress, char* deviceAddress,
                              const char* deviceName, int, size_t size, int constant, int) {
  rt().registerVariable(fatCubinHandle, hostVarPtrAddress, hostVarPtrAddress,
                        deviceName ? deviceName : deviceAddress, size, constant != 0);
}

char __cudaInitModule(void** fatCubinHandle) { return rt().initModule(fatCubinHandle) ? 1 : 0; }

unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem, cudaStream_t stream) {
  callStack().push_back({gridDim, blockDim, sharedMem, stream});
  return 0;
}

cudaError_t __cudaPopCallConfiguration(dim3* gridDim, dim3* blockDim, size_t* sharedMem, void* stream) {
  auto& stack = callStack();
  if (stack.empty()) return fail(cudaErrorInvalidConfiguration);
  CallConfiguration c = stack.back();
  stack.pop_back();
  if (gridDim) *gridDim = c.grid;
  if (blockDim) *blockDim = c.block;
  if (sharedMem) *sharedMem = c.sharedMem;
  if (stream) *static_cast<cudaStream_t*>(stream) = c.stream;
  return cudaSuccess;
}

cudaError_t __cudaGetKernel(cudaKernel_t* kernel, const void* hostFun) {
  std::lock_guard lock(rt().mutex());
  KernelRecord* k = rt().kernelByHost(hostFun);
  if (kernel == nullptr) return fail(cudaErrorInvalidValue);
  if (k == nullptr) return fail(cudaErrorInvalidDeviceFunction);
  *kernel = reinterpret_cast<cudaKernel_t>(k);
  return cudaSuccess;
}

cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, void** args, size_t sharedMem,
                               cudaStream_t stream) {
  KernelRecord* k;
  {
    std::lock_guard lock(rt().mutex());
    k = rt().kernelByHandle(kernel);
  }
  return launchKernel(k, gridDim, blockDim, args, sharedMem, stream);
}

cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, void** args,
                                    size_t sharedMem, cudaStream_t stream) {
  return __cudaLaunchKernel(kernel, gridDim, blockDim, args, sharedMem, perThreadDefault(stream));
}

// ---------------------------------------------------------------- launch

cudaError_t cudaLaunchKernel(const void* func, dim3 gridDim, dim3 blockDim, void** args, size_t sharedMem,
                             cudaStream_t stream) {
  KernelRecord* k;
  {
    std::lock_guard lock(rt().mutex());
    k = rt().kernelByHost(func);
  }
  return launchKernel(k, gridDim, blockDim, args, sharedMem, stream);
}

cudaError_t cudaLaunchKernel_ptsz(const void* func, dim3 gridDim, dim3 blockDim, void** args, size_t sharedMem,
                                  cudaStream_t stream) {
  return cudaLaunchKernel(func, gridDim, blockDim, args, sharedMem, perThreadDefault(stream));
}

// cudaLaunchCooperativeKernel: DeviceFeatures.cpp (co-residency check).

// Everything before in the stream has completed: host functions run at once.
cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void* userData) {
  {
    PREDATAR_LOCK_LEAVING_SUSPENDED_LAUNCH();
    if (!rt().validStream(stream)) return fail(cudaErrorInvalidResourceHandle);
    if (fn == nullptr) return fail(cudaErrorInvalidValue);
    if (isCapturing(stream)) return fail(captureHost(fn, userData, stream));
    if (rt().launchSuspended()) {  // it runs after the suspended launch
      rt().defer(stream, [=] {
        fn(userData);
        return cudaSuccess;
      });
      return cudaSuccess;
    }
  }
  fn(userData);
  return cudaSuccess;
}

cudaError_t cudaLaunchHostFunc_ptsz(cudaStream_t stream, cudaHostFn_t fn, void* userData)
    __attribute__((alias("cudaLaunchHostFunc"), visibility("default")));

cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback, void* userData,
                                  unsigned int) {
  cudaError_t status;
  {
    std::lock_guard lock(rt().mutex());
    if (!rt().validStream(stream)) return fail(cudaErrorInvalidResourceHandle);
    if (callback == nullptr) return fail(cudaErrorInvalidValue);
    if (rt().launchSuspended()) {  // it runs after the suspended launch
      rt().defer(stream, [=] {
        callback(stream, rt().sticky(), userData);
        return cudaSuccess;
      });
      return cudaSuccess;
    }
    status = rt().sticky();
  }
  callback(stream, status, userData);
  return cudaSuccess;
}

cudaError_t cudaStreamAddCallback_ptsz(cudaStream_t stream, cudaStreamCallback_t callback, void* userData,
                                       unsigned int flags)
    __attribute__((alias("cudaStreamAddCallback"), visibility("default")));

cudaError_t cudaFuncSetAttribute(const void* func, int attr, int value) {
  std::lock_guard lock(rt().mutex());
  KernelRecord* k = rt().kernelByHost(func);
  if (k == nullptr) return fail(cudaErrorInvalidDeviceFunction);
  if (attr == cudaFuncAttributeMaxDynamicSharedMemorySize) {
    if (value < 0 || value > kSharedPerBlockOptin) return fail(cudaErrorInvalidValue);
    k->maxDynamicSharedBytes = value;
  }
  return cudaSuccess;
}

cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* attr, const void* func) {
  std::lock_guard lock(rt().mutex());
  KernelRecord* k = rt().kernelByHost(func);
  if (attr == nullptr) return fail(cudaErrorInvalidValue);
  if (k == nullptr) return fail(cudaErrorInvalidDeviceFunction);
  std::memset(attr, 0, sizeof *attr);
  attr->maxThreadsPerBlock = 1024;
  attr->numRegs = 32;
  attr->ptxVersion = int(k->module->ptxVersion);
  attr->binaryVersion = kMajor * 10 + kMinor;
  attr->maxDynamicSharedSizeBytes = k->maxDynamicSharedBytes;
  attr->preferredShmemCarveout = -1;
  return cudaSuccess;
}

cudaError_t cudaFuncSetCacheConfig(const void* func, int) {
  std::lock_guard lock(rt().mutex());
  return rt().kernelByHost(func) ? cudaSuccess : fail(cudaErrorInvalidDeviceFunction);
}

cudaError_t cudaFuncGetName(const char** name, const void* func) {
  std::lock_guard lock(rt().mutex());
  KernelRecord* k = rt().kernelByHost(func);
  if (name == nullptr) return fail(cudaErrorInvalidValue);
  if (k == nullptr) return fail(cudaErrorInvalidDeviceFunction);
  *name = k->mangled.c_str();
  return cudaSuccess;
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int* numBlocks, const void* func,
                                                                   int blockSize, size_t dynamicSMemSize,
                                                                   unsigned int) {
  std::lock_guard lock(rt().mutex());
  if (numBlocks == nullptr || blockSize <= 0 || blockSize > 1024) return fail(cudaErrorInvalidValue);
  if (rt().kernelByHost(func) == nullptr) return fail(cudaErrorInvalidDeviceFunction);
  *numBlocks = residentBlocksPerSm(blockSize, dynamicSMemSize);
  return cudaSuccess;
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* numBlocks, const void* func, int blockSize,
                                                          size_t dynamicSMemSize) {
  return cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(numBlocks, func, blockSize, dynamicSMemSize, 0);
}

// ---------------------------------------------------------------- memory

cudaError_t cudaMalloc(void** devPtr, size_t size) {
  PREDATAR_LOCK_AND_CHECK_STICKY();
  return fail(rt().allocate(devPtr, size, AllocationKind::Device));
}

cudaError_t cudaFree(void* devPtr) {
  PREDATAR_LOCK_AND_CHECK_STICKY();
  rt().order().synchronizeDevice();  // cudaFree waits for the device
  if (isGraphMemory(devPtr)) {  // reserved for the graph's later launches (GraphMemory.cpp)
    markGraphMemory(devPtr, false);
    return cudaSuccess;
  }
  return fail(rt().release(devPtr, AllocationKind::Device));
}

cudaError_t cudaMallocManaged(void** devPtr, size_t size, unsigned int) {
  PREDATAR_LOCK_AND_CHECK_STICKY();
  return fail(rt().allocate(devPtr, size, AllocationKind::Managed));
}

cudaError_t cudaMallocHost(void** ptr, size_t size) {
  PREDATAR_LOCK_LEAVING_SUSPENDED_LAUNCH();
  return fail(rt().allocate(ptr, size, AllocationKind::Host));
}

cudaError_t cudaHostAlloc(void** pHost, size_t size, unsigned int) { return cudaMallocHost(pHost, size); }

cudaError_t cudaFreeHost(void* ptr) {
  PREDATAR_LOCK_AND_CHECK_STICKY();
  return fail(rt().release(ptr, AllocationKind::Host));
}

cudaError_t cudaHostGetDevicePointer(void** pDevice, void* pHost, unsigned int) {
  PREDATAR_LOCK_LEAVING_SUSPENDED_LAUNCH();
  if (pDevice == nullptr || rt().kindOf(pHost) != AllocationKind::Host) return fail(cudaErrorInvalidValue);
  *pDevice = pHost;
  return cudaSuccess;
}

cudaError_t cudaMallocPitch(void** devPtr, size_t* pitch, size_t width, size_t height) {
  if (pitch == nullptr) return fail(cudaErrorInvalidValue);
  size_t p = (width + 511) / 512 * 512;
  if (p == 0) p = 512;
  *pitch = p;
  return cudaMalloc(devPtr, p * height);
}

// Rows padded as cudaMallocPitch pads them, `height` rows per slice.
cudaError_t cudaMalloc3D(cudaPitchedPtr* ptr, cudaExtent extent) {
  if (ptr == nullptr) return fail(cudaErrorInvalidValue);
  size_t pitch = 0;
  void* p = nullptr;
  size_t rows = std::max<size_t>(extent.height, 1) * std::max<size_t>(extent.depth, 1);
  if (cudaError_t e = cudaMallocPitch(&p, &pitch, extent.width, rows); e != cudaSuccess) return e;
  *ptr = cudaPitchedPtr{p, pitch, extent.width, extent.height};
  return cudaSuccess;
}

cudaError_t cudaMemcpy(void* dst, const void* src, size_t count, int kind) {
  PREDATAR_LOCK_AND_CHECK_STICKY();
  rt().order().legacyOperation(/*blocking=*/true);
  return fail(rt().copy(dst, src, count, kind));
}

PREDATAR_CUDART_API cudaError_t cudaMemcpy_ptds(void* dst, const void* src, size_t count, int kind) {
  PREDATAR_LOCK_AND_CHECK_STICKY();
  rt().order().synchronizeStream(StreamOrder::kPerThread);
  return fail(rt().copy(dst, src, count, kind));
}

cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t count, int kind, cudaStream_t stream) {
  PREDATAR_LOCK_LEAVING_SUSPENDED_LAUNCH();
  if (!rt().validStream(stream)) return fail(cudaErrorInvalidResourceHandle);
  if (isCapturing(stream)) return fail(captureCopy(dst, src, count, kind, stream));
  // Pageable host memory (not the runtime's): CUDA copies a source there
  // before the call returns, and returns from a copy into it once it is done.
  auto pageable = [](const void* p, size_t n) { return !rt().kindOf(p) && !rt().isDeviceRange(p, n); };
  if (rt().launchSuspended() && !pageable(dst, count)) {
    std::shared_ptr<std::vector<char>> staged;
    if (pageable(src, count))
      staged = std::make_shared<std::vector<char>>(static_cast<const char*>(src), static_cast<const char*>(src) + count);
    rt().defer(stream, [=] { return rt().copy(dst, staged ? staged->data() : src, count, kind); });
    return cudaSuccess;
  }
  return fail(rt().copy(dst, src, count, kind));
}

cudaError_t cudaMemcpyAsync_ptsz(void* dst, const void* src, size_t count, int kind, cudaStream_t stream)
    __attribute__((alias("cudaMemcpyAsync"), visibility("default")));

cudaError_t cudaMemcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height,
                         int kind) {
  PREDATAR_LOCK_AND_CHECK_STICKY();
  if (width > dpitch || width > spitch) return fail(cudaErrorInvalidPitchValue);
  for (size_t row = 0; row < height; ++row) {
    cudaError_t e = rt().copy(static_cast<char*>(dst) + row * dpitch, static_cast<const char*>(src) + row * spitch,
                              width, kind);
    if (e != cudaSuccess) return fail(e);
  }
  return cudaSuccess;
}

cudaError_t cudaMemcpyPeer(void* dst, int, const void* src, int, size_t count) {
  return cudaMemcpy(dst, src, count, cudaMemcpyDeviceToDevice);
}

cudaError_t cudaMemset(void* devPtr, int value, size_t count) {
  PREDATAR_LOCK_AND_CHECK_STICKY();
  rt().order().legacyOperation(/*blocking=*/false);
  return fail(rt().fill(devPtr, value, count));
}

cudaError_t cudaMemset_ptds(void* devPtr, int value, size_t count)
    __attribute__((alias("cudaMemset"), visibility("default")));

cudaError_t cudaMemsetAsync(void* devPtr, int value, size_t count, cudaStream_t stream) {
  PREDATAR_LOCK_LEAVING_SUSPENDED_LAUNCH();
  if (!rt().validStream(stream)) return fail(cudaErrorInvalidResourceHandle);
  if (isCapturing(stream)) return fail(captureFill(devPtr, value, count, stream));
  if (rt().launchSuspended()) {
    rt().defer(stream, [=] { return rt().fill(devPtr, value, count); });
    return cudaSuccess;
  }
  return fail(rt().fill(devPtr, value, count));
}

cudaError_t cudaMemsetAsync_ptsz(void* devPtr, int value, size_t count, cudaStream_t stream)
    __attribute__((alias("cudaMemsetAsync"), visibility("default")));

cudaError_t cudaMemcpyToSymbol(const void* symbol, const void* src, size_t count, size_t offset, int kind) {
  return symbolCopy(nullptr, src, symbol, count, offset, true, kind);
}

cudaError_t cudaMemcpyToSymbol_ptds(const void* symbol, const void* src, size_t count, size_t offset, int kind)
    __attribute__((alias("cudaMemcpyToSymbol"), visibility("default")));

cudaError_t cudaMemcpyFromSymbol(void* dst, const void* symbol, size_t count, size_t offset, int kind) {
  return symbolCopy(dst, nullptr, symbol, count, offset, false, kind);
}

cudaError_t cudaMemcpyFromSymbol_ptds(void* dst, const void* symbol, size_t count, size_t offset, int kind)
    __attribute__((alias("cudaMemcpyFromSymbol"), visibility("default")));

cudaError_t cudaMemcpyToSymbolAsync(const void* symbol, const void* src, size_t count, size_t offset, int kind,
                                    cudaStream_t) {
  return symbolCopy(nullptr, src, symbol, count, offset, true, kind);
}

cudaError_t cudaMemcpyToSymbolAsync_ptsz(const void* symbol, const void* src, size_t count, size_t offset,
                                         int kind, cudaStream_t stream)
    __attribute__((alias("cudaMemcpyToSymbolAsync"), visibility("default")));

cudaError_t cudaMemcpyFromSymbolAsync(void* dst, const void* symbol, size_t count, size_t offset, int kind,
                                      cudaStream_t) {
  return symbolCopy(dst, nullptr, symbol, count, offset, false, kind);
}

cudaError_t cudaMemcpyFromSymbolAsync_ptsz(void* dst, const void* symbol, size_t count, size_t offset, int kind,
                                           cudaStream_t stream)
    __attribute__((alias("cudaMemcpyFromSymbolAsync"), visibility("default")));

cudaError_t cudaGetSymbolAddress(void** devPtr, const void* symbol) {
  PREDATAR_LOCK_LEAVING_SUSPENDED_LAUNCH();
  if (devPtr == nullptr) return fail(cudaErrorInvalidValue);
  uint64_t address = 0, bytes = 0;
  if (cudaError_t e = rt().symbol(symbol, address, bytes); e != cudaSuccess) return fail(e);
  *devPtr = reinterpret_cast<void*>(address);
  return cudaSuccess;
}

cudaError_t cudaGetSymbolSize(size_t* size, const void* symbol) {
  PREDATAR_LOCK_LEAVING_SUSPENDED_LAUNCH();
  if (size == nullptr) return fail(cudaErrorInvalidValue);
  uint64_t address = 0, bytes = 0;
  if (cudaError_t e = rt().symbol(symbol, address, bytes); e != cudaSuccess) return fail(e);
  *size = bytes;
  return cudaSuccess;
}

// Managed memory is host memory: prefetching and advice have nothing to do.
cudaError_t cudaMemPrefetchAsync(const void* devPtr, size_t count, cudaMemLocation, unsigned int,
                                 cudaStream_t stream) {
  PREDATAR_LOCK_LEAVING_SUSPENDED_LAUNCH();
  if (!rt().validStream(stream)) return fail(cudaErrorInvalidResourceHandle);
  if (count && !rt().isDeviceRange(devPtr, count)) return fail(cudaErrorInvalidValue);
  return cudaSuccess;
}

cudaError_t cudaMemPrefetchAsync_ptsz(const void* devPtr, size_t count, cudaMemLocation location,
                                      unsigned int flags, cudaStream_t stream)
    __attribute__((alias("cudaMemPrefetchAsync"), visibility("default")));

cudaError_t cudaMemAdvise(const void* devPtr, size_t count, int, cudaMemLocation) {
  PREDATAR_LOCK_LEAVING_SUSPENDED_LAUNCH();
  if (count && !rt().isDeviceRange(devPtr, count)) return fail(cudaErrorInvalidValue);
  return cudaSuccess;
}

cudaError_t cudaStreamAttachMemAsync(cudaStream_t stream, void*, size_t, unsigned int) {
  PREDATAR_LOCK_LEAVING_SUSPENDED_LAUNCH();
  return rt().validStream(stream) ? cudaSuccess : fail(cudaErrorInvalidResourceHandle);
}

cudaError_t cudaStreamAttachMemAsync_ptsz(cudaStream_t stream, void* devPtr, size_t length, unsigned int flags)
    __attribute__((alias("cudaStreamAttachMemAsync"), visibility("default")));

cudaError_t cudaMemGetInfo(size_t* free, size_t* total) {
  if (free == nullptr || total == nullptr) return fail(cudaErrorInvalidValue);
  *total = kGlobalMemory;
  std::lock_guard lock(rt().mutex());
  *free = kGlobalMemory - kGlobalMemoryReserved - std::min(rt().deviceBytesInUse(), kGlobalMemory - kGlobalMemoryReserved);
  return cudaSuccess;
}

cudaError_t cudaPointerGetAttributes(cudaPointerAttributes* attributes, const void* ptr) {
  std::lock_guard lock(rt().mutex());
  if (attributes == nullptr) return fail(cudaErrorInvalidValue);
  std::memset(attributes, 0, sizeof *attributes);
  auto kind = rt().kindOf(ptr);
  if (!kind) {
    attributes->type = cudaMemoryTypeUnregistered;
    attributes->device = -2;
    attributes->hostPointer = const_cast<void*>(ptr);
    return cudaSuccess;
  }
  attributes->device = 0;
  attributes->type = *kind == AllocationKind::Device ? cudaMemoryTypeDevice
                     : *kind == AllocationKind::Host ? cudaMemoryTypeHost : cudaMemoryTypeManaged;
  attributes->devicePointer = const_cast<void*>(ptr);
  if (*kind != AllocationKind::Device) attributes->hostPointer = const_cast<void*>(ptr);
  return cudaSuccess;
}

// ---------------------------------------------------------------- device

cudaError_t cudaDeviceSynchronize(void) {
  PREDATAR_LOCK_AND_CHECK_STICKY();
  rt().order().synchronizeDevice();
  graphMemoryDeviceSynchronized();
  return cudaSuccess;
}

cudaError_t cudaDeviceReset(void) {
  std::lock_guard lock(rt().mutex());
  rt().resetDevice();
  return cudaSuccess;
}

cudaError_t cudaGetDeviceCount(int* count) {
  if (count == nullptr) return fail(cudaErrorInvalidValue);
  *count = deviceCount();
  return cudaSuccess;
}

cudaError_t cudaGetDevice(int* device) {
  if (device == nullptr) return fail(cudaErrorInvalidValue);
  *device = currentDevice;
  return cudaSuccess;
}

cudaError_t cudaSetDevice(int device) {
  if (device < 0 || device >= deviceCount()) return fail(cudaErrorInvalidDevice);
  currentDevice = device;
  primaryContextCurrent = true;  // CUDA 12 on: cudaSetDevice initializes the primary context
  return cudaSuccess;
}

cudaError_t cudaSetDeviceFlags(unsigned int) { return cudaSuccess; }

cudaError_t cudaGetDeviceFlags(unsigned int* flags) {
  if (flags == nullptr) return fail(cudaErrorInvalidValue);
  *flags = 0;
  return cudaSuccess;
}

// cudaLimitStackSize, PrintfFifoSize, MallocHeapSize, DevRuntimeSyncDepth, PendingLaunchCount,
// MaxL2FetchGranularity, PersistingL2CacheSize: hints to the emulator, remembered so that Get
// returns what Set stored.
static std::atomic<size_t> deviceLimits[] = {1024, 1 << 20, 8 << 20, 2, 2048, 32, 0};

cudaError_t cudaDeviceSetLimit(int limit, size_t value) {
  if (limit < 0 || limit >= int(std::size(deviceLimits))) return fail(cudaErrorUnsupportedLimit);
  if (limit == 6 && value > size_t(kPersistingL2CacheMax)) value = kPersistingL2CacheMax;  // CUDA clamps it
  deviceLimits[limit] = value;
  return cudaSuccess;
}

cudaError_t cudaDeviceGetLimit(size_t* value, int limit) {
  if (value == nullptr) return fail(cudaErrorInvalidValue);
  if (limit < 0 || limit >= int(std::size(deviceLimits))) return fail(cudaErrorUnsupportedLimit);
  *value = deviceLimits[limit];
  return cudaSuccess;
}

cudaError_t cudaDeviceSetCacheConfig(int) { return cudaSuccess; }

cudaError_t cudaDeviceGetCacheConfig(int* cacheConfig) {
  if (cacheConfig == nullptr) return fail(cudaErrorInvalidValue);
  *cacheConfig = 0;
  return cudaSuccess;
}

cudaError_t cudaDeviceCanAccessPeer(int* canAccessPeer, int, int) {
  if (canAccessPeer == nullptr) return fail(cudaErrorInvalidValue);
  *canAccessPeer = 0;
  return cudaSuccess;
}

cudaError_t cudaDeviceGetStreamPriorityRange(int* leastPriority, int* greatestPriority) {
  if (leastPriority) *leastPriority = 0;
  if (greatestPriority) *greatestPriority = -5;
  return cudaSuccess;
}

cudaError_t cudaRuntimeGetVersion(int* runtimeVersion) {
  if (runtimeVersion == nullptr) return fail(cudaErrorInvalidValue);
  *runtimeVersion = 13000;
  return cudaSuccess;
}

cudaError_t cudaDriverGetVersion(int* driverVersion) {
  if (driverVersion == nullptr) return fail(cudaErrorInvalidValue);
  *driverVersion = 13000;
  return cudaSuccess;
}

cudaError_t cudaProfilerStart(void) { return cudaSuccess; }
cudaError_t cudaProfilerStop(void) { return cudaSuccess; }

// ---------------------------------------------------------------- errors

cudaError_t cudaGetLastError(void) {
  cudaError_t e = lastError();
  lastError() = cudaSuccess;
  if (e == cudaSuccess) e = rt().sticky();
  return e;
}

cudaError_t cudaPeekAtLastError(void) {
  cudaError_t e = lastError();
  return e != cudaSuccess ? e : rt().sticky();
}

const char* cudaGetErrorString(cudaError_t error) { return errorString(error); }

const char* cudaGetErrorName(cudaError_t error) { return errorName(error); }

}  // extern "C"

// Writes the report when the program exits (after its own exit handlers:
// this library was initialized before the program, so it is finalized after),
// in the process that used the runtime only.
__attribute__((destructor)) static void predatarCudartFinish() {
  Runtime* r = Runtime::existing();
  if (r == nullptr) return;
  std::lock_guard lock(r->mutex());
  r->finish();
}
