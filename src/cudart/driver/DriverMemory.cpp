// Memory and copies of the driver API (Driver.h): the runtime's, so the
// detectors see and order them as they do the runtime's.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "cudart/driver/Driver.h"
#include "cudart/runtime/Api.h"
#include "cudart/runtime/DriverBridge.h"

#define PREDATAR_DRIVER_API extern "C" __attribute__((visibility("default")))

extern "C" cudaError_t cudaHostRegister(void* pointer, size_t bytes, unsigned flags);
extern "C" cudaError_t cudaMemset2D(void* pointer, size_t pitch, int value, size_t width, size_t height);
extern "C" cudaError_t cudaHostUnregister(void* pointer);

using namespace predatar::driver;

namespace {

// cudaMemcpyKind
constexpr int kHostToDevice = 1, kDeviceToHost = 2, kDeviceToDevice = 3, kDefault = 4;

void* pointer(CUdeviceptr address) { return reinterpret_cast<void*>(uintptr_t(address)); }

CUresult copy(void* dst, const void* src, size_t bytes, int kind, cudaStream_t stream, bool async) {
  return fromRuntime(async ? cudaMemcpyAsync(dst, src, bytes, kind, stream) : cudaMemcpy(dst, src, bytes, kind));
}

// cuMemsetD16/D32: a value whose bytes differ is copied from a host pattern.
template <class T>
CUresult fill(CUdeviceptr dst, T value, size_t count, cudaStream_t stream, bool async) {
  uint8_t bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  if (std::all_of(bytes, bytes + sizeof(T), [&](uint8_t b) { return b == bytes[0]; }))
    return fromRuntime(async ? cudaMemsetAsync(pointer(dst), bytes[0], count * sizeof(T), stream)
                             : cudaMemset(pointer(dst), bytes[0], count * sizeof(T)));
  // (Copied synchronously, after the stream's work: the pattern buffer does not outlive this call.)
  if (async && stream != nullptr)
    if (cudaError_t e = cudaStreamSynchronize(stream)) return fromRuntime(e);
  constexpr size_t kChunk = size_t(1) << 20;  // elements per copy
  std::vector<T> pattern(std::min(count, kChunk), value);
  for (size_t done = 0; done < count; done += kChunk) {
    size_t n = std::min(kChunk, count - done);
    if (cudaError_t e = cudaMemcpy(pointer(dst + done * sizeof(T)), pattern.data(), n * sizeof(T), kHostToDevice))
      return fromRuntime(e);
  }
  return CUDA_SUCCESS;
}

}  // namespace

// ---------------------------------------------------------------- allocation

PREDATAR_DRIVER_API CUresult cuMemAlloc_v2(CUdeviceptr* address, size_t bytes) {
  PREDATAR_REQUIRE_CONTEXT();
  if (address == nullptr || bytes == 0) return CUDA_ERROR_INVALID_VALUE;
  void* p = nullptr;
  if (cudaError_t e = cudaMalloc(&p, bytes)) return fromRuntime(e);
  *address = reinterpret_cast<uintptr_t>(p);
  return CUDA_SUCCESS;
}

PREDATAR_DRIVER_API CUresult cuMemAllocPitch_v2(CUdeviceptr* address, size_t* pitch, size_t width, size_t height,
                                               unsigned elementBytes) {
  PREDATAR_REQUIRE_CONTEXT();
  if (address == nullptr || pitch == nullptr || (elementBytes != 4 && elementBytes != 8 && elementBytes != 16))
    return CUDA_ERROR_INVALID_VALUE;
  void* p = nullptr;
  if (cudaError_t e = cudaMallocPitch(&p, pitch, width, height)) return fromRuntime(e);
  *address = reinterpret_cast<uintptr_t>(p);
  return CUDA_SUCCESS;
}

PREDATAR_DRIVER_API CUresult cuMemAllocManaged(CUdeviceptr* address, size_t bytes, unsigned flags) {
  PREDATAR_REQUIRE_CONTEXT();
  if (address == nullptr || bytes == 0) return CUDA_ERROR_INVALID_VALUE;
  void* p = nullptr;
  if (cudaError_t e = cudaMallocManaged(&p, bytes, flags)) return fromRuntime(e);
  *address = reinterpret_cast<uintptr_t>(p);
  return CUDA_SUCCESS;
}

PREDATAR_DRIVER_API CUresult cuMemFree_v2(CUdeviceptr address) { return fromRuntime(cudaFree(pointer(address))); }

PREDATAR_DRIVER_API CUresult cuMemGetInfo_v2(size_t* free, size_t* total) {
  PREDATAR_REQUIRE_CONTEXT();
  if (free == nullptr || total == nullptr) return CUDA_ERROR_INVALID_VALUE;
  return fromRuntime(cudaMemGetInfo(free, total));
}

PREDATAR_DRIVER_API CUresult cuMemAllocHost_v2(void** host, size_t bytes) {
  PREDATAR_REQUIRE_CONTEXT();
  return fromRuntime(cudaMallocHost(host, bytes));
}

// CU_MEMHOSTALLOC_* and cudaHostAlloc* flags are the same bits.
PREDATAR_DRIVER_API CUresult cuMemHostAlloc(void** host, size_t bytes, unsigned flags) {
  PREDATAR_REQUIRE_CONTEXT();
  return fromRuntime(cudaHostAlloc(host, bytes, flags));
}

PREDATAR_DRIVER_API CUresult cuMemFreeHost(void* host) { return fromRuntime(cudaFreeHost(host)); }

PREDATAR_DRIVER_API CUresult cuMemHostGetDevicePointer_v2(CUdeviceptr* address, void* host, unsigned flags) {
  if (address == nullptr) return CUDA_ERROR_INVALID_VALUE;
  void* p = nullptr;
  if (cudaError_t e = cudaHostGetDevicePointer(&p, host, flags)) return fromRuntime(e);
  *address = reinterpret_cast<uintptr_t>(p);
  return CUDA_SUCCESS;
}

PREDATAR_DRIVER_API CUresult cuMemHostRegister_v2(void* host, size_t bytes, unsigned flags) {
  return fromRuntime(cudaHostRegister(host, bytes, flags));
}

PREDATAR_DRIVER_API CUresult cuMemHostUnregister(void* host) { return fromRuntime(cudaHostUnregister(host)); }

PREDATAR_DRIVER_API CUresult cuMemAllocAsync(CUdeviceptr* address, size_t bytes, cudaStream_t stream) {
  PREDATAR_REQUIRE_CONTEXT();
  if (address == nullptr) return CUDA_ERROR_INVALID_VALUE;
  void* p = nullptr;
  if (cudaError_t e = cudaMallocAsync(&p, bytes, stream)) return fromRuntime(e);
  *address = reinterpret_cast<uintptr_t>(p);
  return CUDA_SUCCESS;
}

PREDATAR_DRIVER_API CUresult cuMemFreeAsync(CUdeviceptr address, cudaStream_t stream) {
  return fromRuntime(cudaFreeAsync(pointer(address), stream));
}

PREDATAR_DRIVER_API CUresult cuMemGetAddressRange_v2(CUdeviceptr* base, size_t* bytes, CUdeviceptr address) {
  uint64_t b = 0, n = 0;
  if (predatarDriverAddressRange(address, &b, &n) != 0) return CUDA_ERROR_NOT_FOUND;
  if (base) *base = b;
  if (bytes) *bytes = n;
  return CUDA_SUCCESS;
}

// CUpointer_attribute: what the runtime's cudaPointerGetAttributes knows.
PREDATAR_DRIVER_API CUresult cuPointerGetAttribute(void* data, int attribute, CUdeviceptr address) {
  if (data == nullptr) return CUDA_ERROR_INVALID_VALUE;
  cudaPointerAttributes a{};
  if (cudaError_t e = cudaPointerGetAttributes(&a, pointer(address))) return fromRuntime(e);
  constexpr int kUnregistered = 0, kHost = 1, kManaged = 3;  // cudaMemoryType
  if (a.type == kUnregistered) return CUDA_ERROR_INVALID_VALUE;
  switch (attribute) {
    case 1: *static_cast<void**>(data) = nullptr; return CUDA_SUCCESS;  // CONTEXT: contexts own nothing (Driver.h)
    case 2: *static_cast<unsigned*>(data) = a.type == kHost ? 1 : 2; return CUDA_SUCCESS;  // MEMORY_TYPE
    case 3: *static_cast<CUdeviceptr*>(data) = reinterpret_cast<uintptr_t>(a.devicePointer); return CUDA_SUCCESS;
    case 4: *static_cast<void**>(data) = a.hostPointer; return CUDA_SUCCESS;  // HOST_POINTER
    case 8: *static_cast<int*>(data) = a.type == kManaged; return CUDA_SUCCESS;  // IS_MANAGED
    case 9: *static_cast<int*>(data) = a.device; return CUDA_SUCCESS;           // DEVICE_ORDINAL
    case 11:                                                                   // RANGE_START_ADDR
    case 12: {                                                                 // RANGE_SIZE
      CUdeviceptr base = 0;
      size_t bytes = 0;
      if (CUresult e = cuMemGetAddressRange_v2(&base, &bytes, address); e != CUDA_SUCCESS) return e;
      if (attribute == 11) *static_cast<CUdeviceptr*>(data) = base;
      else *static_cast<size_t*>(data) = bytes;
      return CUDA_SUCCESS;
    }
    default:
      return refuse(("cuPointerGetAttribute of attribute " + std::to_string(attribute)).c_str());
  }
}

// ---------------------------------------------------------------- copies and memsets

PREDATAR_DRIVER_API CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void* src, size_t bytes) {
  PREDATAR_REQUIRE_CONTEXT();
  return copy(pointer(dst), src, bytes, kHostToDevice, nullptr, false);
}
PREDATAR_DRIVER_API CUresult cuMemcpyDtoH_v2(void* dst, CUdeviceptr src, size_t bytes) {
  PREDATAR_REQUIRE_CONTEXT();
  return copy(dst, pointer(src), bytes, kDeviceToHost, nullptr, false);
}
PREDATAR_DRIVER_API CUresult cuMemcpyDtoD_v2(CUdeviceptr dst, CUdeviceptr src, size_t bytes) {
  PREDATAR_REQUIRE_CONTEXT();
  return copy(pointer(dst), pointer(src), bytes, kDeviceToDevice, nullptr, false);
}
PREDATAR_DRIVER_API CUresult cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t bytes) {
  PREDATAR_REQUIRE_CONTEXT();
  return copy(pointer(dst), pointer(src), bytes, kDefault, nullptr, false);
}
PREDATAR_DRIVER_API CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void* src, size_t bytes, cudaStream_t s) {
  PREDATAR_REQUIRE_CONTEXT();
  return copy(pointer(dst), src, bytes, kHostToDevice, s, true);
}
PREDATAR_DRIVER_API CUresult cuMemcpyDtoHAsync_v2(void* dst, CUdeviceptr src, size_t bytes, cudaStream_t s) {
  PREDATAR_REQUIRE_CONTEXT();
  return copy(dst, pointer(src), bytes, kDeviceToHost, s, true);
}
PREDATAR_DRIVER_API CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dst, CUdeviceptr src, size_t bytes, cudaStream_t s) {
  PREDATAR_REQUIRE_CONTEXT();
  return copy(pointer(dst), pointer(src), bytes, kDeviceToDevice, s, true);
}
PREDATAR_DRIVER_API CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t bytes, cudaStream_t s) {
  PREDATAR_REQUIRE_CONTEXT();
  return copy(pointer(dst), pointer(src), bytes, kDefault, s, true);
}

PREDATAR_DRIVER_API CUresult cuMemsetD8_v2(CUdeviceptr dst, unsigned char value, size_t count) {
  PREDATAR_REQUIRE_CONTEXT();
  return fill<uint8_t>(dst, value, count, nullptr, false);
}
PREDATAR_DRIVER_API CUresult cuMemsetD16_v2(CUdeviceptr dst, unsigned short value, size_t count) {
  PREDATAR_REQUIRE_CONTEXT();
  return fill<uint16_t>(dst, value, count, nullptr, false);
}
PREDATAR_DRIVER_API CUresult cuMemsetD32_v2(CUdeviceptr dst, unsigned value, size_t count) {
  PREDATAR_REQUIRE_CONTEXT();
  return fill<uint32_t>(dst, value, count, nullptr, false);
}
// 2D memsets: `width` elements in each of `height` rows `pitch` bytes apart.
template <class T>
CUresult fill2D(CUdeviceptr dst, size_t pitch, T value, size_t width, size_t height) {
  for (size_t row = 0; row < height; ++row)
    if (CUresult e = fill<T>(dst + row * pitch, value, width, nullptr, false); e != CUDA_SUCCESS) return e;
  return CUDA_SUCCESS;
}

PREDATAR_DRIVER_API CUresult cuMemsetD2D8_v2(CUdeviceptr dst, size_t pitch, unsigned char value, size_t width,
                                            size_t height) {
  return fromRuntime(cudaMemset2D(pointer(dst), pitch, value, width, height));
}
PREDATAR_DRIVER_API CUresult cuMemsetD2D16_v2(CUdeviceptr dst, size_t pitch, unsigned short value, size_t width,
                                             size_t height) {
  return fill2D<uint16_t>(dst, pitch, value, width, height);
}
PREDATAR_DRIVER_API CUresult cuMemsetD2D32_v2(CUdeviceptr dst, size_t pitch, unsigned value, size_t width,
                                             size_t height) {
  return fill2D<uint32_t>(dst, pitch, value, width, height);
}

PREDATAR_DRIVER_API CUresult cuMemsetD8Async(CUdeviceptr dst, unsigned char value, size_t count, cudaStream_t s) {
  return fill<uint8_t>(dst, value, count, s, true);
}
PREDATAR_DRIVER_API CUresult cuMemsetD16Async(CUdeviceptr dst, unsigned short value, size_t count, cudaStream_t s) {
  return fill<uint16_t>(dst, value, count, s, true);
}
PREDATAR_DRIVER_API CUresult cuMemsetD32Async(CUdeviceptr dst, unsigned value, size_t count, cudaStream_t s) {
  return fill<uint32_t>(dst, value, count, s, true);
}
