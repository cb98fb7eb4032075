// Stream-ordered allocation and memory pools: cudaMallocAsync/cudaFreeAsync
// and cudaMallocFromPoolAsync allocate at once (execution is serialized); the
// pools count their bytes for cudaMemPoolGetAttribute.
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "cudart/runtime/Graph.h"
#include "cudart/runtime/GraphTypes.h"
#include "cudart/runtime/Runtime.h"
#include "cudart/runtime/Unsupported.h"

using namespace predatar::cudart;

struct CUmemPoolHandle_st {
  uint64_t releaseThreshold = 0;
  uint64_t used = 0, usedHigh = 0;
  int reuseFlags[3] = {1, 1, 1};
  std::map<void*, uint64_t> allocations;
};

namespace {

Runtime& rt() { return Runtime::get(); }

struct Pools {
  CUmemPoolHandle_st defaultPool;
  cudaMemPool_t current = &defaultPool;
  std::vector<std::unique_ptr<CUmemPoolHandle_st>> created;
  bool valid(cudaMemPool_t pool) const {
    if (pool == &defaultPool) return true;
    for (const auto& p : created)
      if (p.get() == pool) return true;
    return false;
  }
};
Pools& pools() {
  static auto* p = new Pools;  // never destroyed: exit handlers may still free
  return *p;
}

cudaError_t allocateFrom(cudaMemPool_t pool, void** pointer, size_t bytes, cudaStream_t stream) {
  std::lock_guard lock(rt().mutex());
  if (rt().sticky() != cudaSuccess) return fail(rt().sticky());
  if (pointer == nullptr || !pools().valid(pool)) return fail(cudaErrorInvalidValue);
  if (!rt().validStream(stream)) return fail(cudaErrorInvalidResourceHandle);
  if (isCapturing(stream)) return fail(captureAlloc(pointer, bytes, stream));
  if (cudaError_t e = rt().allocate(pointer, bytes, AllocationKind::Device); e != cudaSuccess) return fail(e);
  if (*pointer) {
    pool->allocations[*pointer] = bytes;
    pool->used += bytes;
    pool->usedHigh = std::max(pool->usedHigh, pool->used);
  }
  return cudaSuccess;
}

}  // namespace

extern "C" {

// Exported (the library builds with hidden visibility by default).
#pragma GCC visibility push(default)

cudaError_t cudaMallocAsync(void** devPtr, size_t size, cudaStream_t stream) {
  return allocateFrom(pools().current, devPtr, size, stream);
}
cudaError_t cudaMallocAsync_ptsz(void** devPtr, size_t size, cudaStream_t stream)
    __attribute__((alias("cudaMallocAsync"), visibility("default")));

cudaError_t cudaMallocFromPoolAsync(void** ptr, size_t size, cudaMemPool_t memPool, cudaStream_t stream) {
  return allocateFrom(memPool, ptr, size, stream);
}
cudaError_t cudaMallocFromPoolAsync_ptsz(void** ptr, size_t size, cudaMemPool_t memPool, cudaStream_t stream)
    __attribute__((alias("cudaMallocFromPoolAsync"), visibility("default")));

// Memory from cudaMalloc may be freed here too, as CUDA allows.
cudaError_t cudaFreeAsync(void* devPtr, cudaStream_t stream) {
  std::lock_guard lock(rt().mutex());
  if (rt().sticky() != cudaSuccess) return fail(rt().sticky());
  if (!rt().validStream(stream)) return fail(cudaErrorInvalidResourceHandle);
  if (isCapturing(stream)) return fail(captureFree(devPtr, stream));
  if (isGraphMemory(devPtr)) {  // reserved for the graph's later launches (GraphMemory.cpp)
    markGraphMemory(devPtr, false);
    return cudaSuccess;
  }
  Pools& p = pools();
  auto forget = [&](CUmemPoolHandle_st& pool) {
    auto it = pool.allocations.find(devPtr);
    if (it == pool.allocations.end()) return;
    pool.used -= it->second;
    pool.allocations.erase(it);
  };
  forget(p.defaultPool);
  for (auto& pool : p.created) forget(*pool);
  return fail(rt().release(devPtr, AllocationKind::Device));
}
cudaError_t cudaFreeAsync_ptsz(void* devPtr, cudaStream_t stream)
    __attribute__((alias("cudaFreeAsync"), visibility("default")));

cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t* memPool, int device) {
  if (memPool == nullptr) return fail(cudaErrorInvalidValue);
  if (device != 0) return fail(cudaErrorInvalidDevice);
  std::lock_guard lock(rt().mutex());
  *memPool = &pools().defaultPool;
  return cudaSuccess;
}

cudaError_t cudaDeviceGetMemPool(cudaMemPool_t* memPool, int device) {
  if (memPool == nullptr) return fail(cudaErrorInvalidValue);
  if (device != 0) return fail(cudaErrorInvalidDevice);
  std::lock_guard lock(rt().mutex());
  *memPool = pools().current;
  return cudaSuccess;
}

cudaError_t cudaDeviceSetMemPool(int device, cudaMemPool_t memPool) {
  if (device != 0) return fail(cudaErrorInvalidDevice);
  std::lock_guard lock(rt().mutex());
  if (!pools().valid(memPool)) return fail(cudaErrorInvalidValue);
  pools().current = memPool;
  return cudaSuccess;
}

cudaError_t cudaMemPoolCreate(cudaMemPool_t* memPool, const cudaMemPoolProps* props) {
  if (memPool == nullptr || props == nullptr) return fail(cudaErrorInvalidValue);
  std::lock_guard lock(rt().mutex());
  pools().created.push_back(std::make_unique<CUmemPoolHandle_st>());
  *memPool = pools().created.back().get();
  return cudaSuccess;
}

// The pool's allocations stay valid until freed, as CUDA leaves them.
cudaError_t cudaMemPoolDestroy(cudaMemPool_t memPool) {
  std::lock_guard lock(rt().mutex());
  Pools& p = pools();
  if (memPool == &p.defaultPool || !p.valid(memPool)) return fail(cudaErrorInvalidValue);
  if (p.current == memPool) p.current = &p.defaultPool;
  for (auto it = p.created.begin(); it != p.created.end(); ++it)
    if (it->get() == memPool) {
      for (auto& [pointer, bytes] : (*it)->allocations) p.defaultPool.allocations[pointer] = bytes;
      p.created.erase(it);
      break;
    }
  return cudaSuccess;
}

cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t memPool, int attr, void* value) {
  std::lock_guard lock(rt().mutex());
  if (!pools().valid(memPool) || value == nullptr) return fail(cudaErrorInvalidValue);
  switch (attr) {
    case cudaMemPoolReuseFollowEventDependencies: case cudaMemPoolReuseAllowOpportunistic:
    case cudaMemPoolReuseAllowInternalDependencies:
      memPool->reuseFlags[attr - 1] = *static_cast<int*>(value);
      return cudaSuccess;
    case cudaMemPoolAttrReleaseThreshold: memPool->releaseThreshold = *static_cast<uint64_t*>(value); return cudaSuccess;
    case cudaMemPoolAttrReservedMemHigh: case cudaMemPoolAttrUsedMemHigh:
      if (*static_cast<uint64_t*>(value) != 0) return fail(cudaErrorInvalidValue);  // only a reset to 0
      memPool->usedHigh = memPool->used;
      return cudaSuccess;
    default: return fail(cudaErrorInvalidValue);
  }
}

cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t memPool, int attr, void* value) {
  std::lock_guard lock(rt().mutex());
  if (!pools().valid(memPool) || value == nullptr) return fail(cudaErrorInvalidValue);
  switch (attr) {
    case cudaMemPoolReuseFollowEventDependencies: case cudaMemPoolReuseAllowOpportunistic:
    case cudaMemPoolReuseAllowInternalDependencies:
      *static_cast<int*>(value) = memPool->reuseFlags[attr - 1];
      return cudaSuccess;
    case cudaMemPoolAttrReleaseThreshold: *static_cast<uint64_t*>(value) = memPool->releaseThreshold; return cudaSuccess;
    // Memory is returned as soon as it is freed: reserved equals used.
    case cudaMemPoolAttrReservedMemCurrent: case cudaMemPoolAttrUsedMemCurrent:
      *static_cast<uint64_t*>(value) = memPool->used;
      return cudaSuccess;
    case cudaMemPoolAttrReservedMemHigh: case cudaMemPoolAttrUsedMemHigh:
      *static_cast<uint64_t*>(value) = memPool->usedHigh;
      return cudaSuccess;
    default: return fail(cudaErrorInvalidValue);
  }
}

cudaError_t cudaMemPoolTrimTo(cudaMemPool_t memPool, size_t) {
  std::lock_guard lock(rt().mutex());
  return pools().valid(memPool) ? cudaSuccess : fail(cudaErrorInvalidValue);
}

cudaError_t cudaMemPoolSetAccess(cudaMemPool_t memPool, const cudaMemAccessDesc* descList, size_t count) {
  std::lock_guard lock(rt().mutex());
  if (!pools().valid(memPool) || (count && descList == nullptr)) return fail(cudaErrorInvalidValue);
  return cudaSuccess;
}

// The one device always has read-write access (cudaMemAccessFlagsProtReadWrite).
cudaError_t cudaMemPoolGetAccess(int* flags, cudaMemPool_t memPool, cudaMemLocation* location) {
  std::lock_guard lock(rt().mutex());
  if (!pools().valid(memPool) || flags == nullptr || location == nullptr) return fail(cudaErrorInvalidValue);
  *flags = 3;
  return cudaSuccess;
}

#pragma GCC visibility pop

}  // extern "C"
