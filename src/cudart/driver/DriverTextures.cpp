// CUDA arrays, 2D copies and texture and surface objects of the driver API
// (Driver.h): the runtime's (runtime/TextureApi.cpp), from the driver's
// descriptors.
#include <cstddef>
#include <string>

#include "cudart/driver/Driver.h"
#include "cudart/runtime/TextureTypes.h"

#define PREDATAR_DRIVER_API extern "C" __attribute__((visibility("default")))

using namespace predatar::driver;

namespace {

// The driver's descriptors, laid out as cuda.h has them.
struct ArrayDescriptor {
  size_t width, height;
  int format;  // CUarray_format
  unsigned channels;
};
static_assert(sizeof(ArrayDescriptor) == 24);
struct Array3DDescriptor {
  size_t width, height, depth;
  int format;
  unsigned channels, flags;
};
static_assert(sizeof(Array3DDescriptor) == 40);
struct Memcpy2D {
  size_t srcXInBytes, srcY;
  int srcMemoryType;
  const void* srcHost;
  CUdeviceptr srcDevice;
  cudaArray* srcArray;
  size_t srcPitch;
  size_t dstXInBytes, dstY;
  int dstMemoryType;
  void* dstHost;
  CUdeviceptr dstDevice;
  cudaArray* dstArray;
  size_t dstPitch;
  size_t widthInBytes, height;
};
static_assert(sizeof(Memcpy2D) == 128);
struct ResourceDescriptor {
  int type;  // CUresourcetype: 0 array, 1 mipmapped array, 2 linear, 3 pitch 2D (the runtime's numbers)
  union {
    struct { cudaArray* array; } array;
    struct { CUdeviceptr address; int format; unsigned channels; size_t bytes; } linear;
    struct { CUdeviceptr address; int format; unsigned channels; size_t width, height, pitch; } pitch2D;
    int reserved[32];
  } res;
  unsigned flags;
};
static_assert(sizeof(ResourceDescriptor) == 144 && offsetof(ResourceDescriptor, flags) == 136);
struct TextureDescriptor {
  int addressMode[3];  // CUaddress_mode: the runtime's numbers
  int filterMode;      // CUfilter_mode: the runtime's numbers
  unsigned flags;      // CU_TRSF_*
  unsigned maxAnisotropy;
  int mipmapFilterMode;
  float mipmapLevelBias, minMipmapLevelClamp, maxMipmapLevelClamp;
  float borderColor[4];
  int reserved[12];
};
static_assert(sizeof(TextureDescriptor) == 104 && offsetof(TextureDescriptor, borderColor) == 40);

constexpr unsigned kReadAsInteger = 0x1, kNormalizedCoordinates = 0x2, kSrgb = 0x10, kDisableTrilinear = 0x20,
                   kSeamlessCubemap = 0x40;
// CUmemorytype
constexpr int kHost = 1, kDevice = 2, kArray = 3, kUnified = 4;

// The runtime's channel description of `channels` components of `format`,
// or false for a format the emulator does not sample.
bool channelDesc(int format, unsigned channels, cudaChannelFormatDesc& desc) {
  int bits = 0, kind = 0;  // cudaChannelFormatKind: 0 signed, 1 unsigned, 2 float
  switch (format) {
    case 0x01: bits = 8, kind = 1; break;   // UNSIGNED_INT8
    case 0x02: bits = 16, kind = 1; break;  // UNSIGNED_INT16
    case 0x03: bits = 32, kind = 1; break;  // UNSIGNED_INT32
    case 0x08: bits = 8, kind = 0; break;   // SIGNED_INT8
    case 0x09: bits = 16, kind = 0; break;  // SIGNED_INT16
    case 0x0a: bits = 32, kind = 0; break;  // SIGNED_INT32
    case 0x10: bits = 16, kind = 2; break;  // HALF
    case 0x20: bits = 32, kind = 2; break;  // FLOAT
    default: return false;
  }
  if (channels != 1 && channels != 2 && channels != 4) return false;
  desc = cudaChannelFormatDesc{bits, channels > 1 ? bits : 0, channels > 2 ? bits : 0, channels > 3 ? bits : 0, kind};
  return true;
}

// The driver's CUarray_format of a runtime channel description (0: none).
int formatOf(const cudaChannelFormatDesc& d) {
  switch (d.f) {
    case 0: return d.x == 8 ? 0x08 : d.x == 16 ? 0x09 : d.x == 32 ? 0x0a : 0;
    case 1: return d.x == 8 ? 0x01 : d.x == 16 ? 0x02 : d.x == 32 ? 0x03 : 0;
    case 2: return d.x == 16 ? 0x10 : d.x == 32 ? 0x20 : 0;
    default: return 0;
  }
}

CUresult refuseFormat(const char* function, int format, unsigned channels) {
  return refuse((std::string(function) + " with array format " + std::to_string(format) + " and " +
                 std::to_string(channels) + " channels")
                    .c_str());
}

// A copy side's address: host or device memory at (x bytes, row y).
const void* linearAddress(int type, const void* host, CUdeviceptr device, size_t x, size_t y, size_t pitch) {
  const char* base = type == kHost ? static_cast<const char*>(host) : reinterpret_cast<const char*>(device);
  return base + y * pitch + x;
}

}  // namespace

PREDATAR_DRIVER_API CUresult cuArrayCreate_v2(cudaArray** array, const ArrayDescriptor* d) {
  PREDATAR_REQUIRE_CONTEXT();
  if (array == nullptr || d == nullptr) return CUDA_ERROR_INVALID_VALUE;
  cudaChannelFormatDesc desc{};
  if (!channelDesc(d->format, d->channels, desc)) return refuseFormat("cuArrayCreate", d->format, d->channels);
  return fromRuntime(cudaMallocArray(array, &desc, d->width, d->height, 0));
}

// CUDA_ARRAY3D_* flags are cudaArray* flags (layered 1, surface load/store 2, cubemap 4).
PREDATAR_DRIVER_API CUresult cuArray3DCreate_v2(cudaArray** array, const Array3DDescriptor* d) {
  PREDATAR_REQUIRE_CONTEXT();
  if (array == nullptr || d == nullptr) return CUDA_ERROR_INVALID_VALUE;
  cudaChannelFormatDesc desc{};
  if (!channelDesc(d->format, d->channels, desc)) return refuseFormat("cuArray3DCreate", d->format, d->channels);
  return fromRuntime(cudaMalloc3DArray(array, &desc, cudaExtent{d->width, d->height, d->depth}, d->flags));
}

PREDATAR_DRIVER_API CUresult cuArrayDestroy(cudaArray* array) { return fromRuntime(cudaFreeArray(array)); }

// A 2D copy between host or device memory and arrays.
PREDATAR_DRIVER_API CUresult cuMemcpy2D_v2(const Memcpy2D* p) {
  if (p == nullptr) return CUDA_ERROR_INVALID_VALUE;
  for (int type : {p->srcMemoryType, p->dstMemoryType})
    if (type != kHost && type != kDevice && type != kArray && type != kUnified) return CUDA_ERROR_INVALID_VALUE;
  constexpr int kDefault = 4;  // cudaMemcpyDefault: the runtime tells host from device
  if (p->srcMemoryType == kArray && p->dstMemoryType == kArray)
    return refuse("cuMemcpy2D from an array to an array");
  if (p->dstMemoryType == kArray)
    return fromRuntime(cudaMemcpy2DToArray(
        p->dstArray, p->dstXInBytes, p->dstY,
        linearAddress(p->srcMemoryType, p->srcHost, p->srcDevice, p->srcXInBytes, p->srcY, p->srcPitch), p->srcPitch,
        p->widthInBytes, p->height, kDefault));
  void* dst = const_cast<void*>(
      linearAddress(p->dstMemoryType, p->dstHost, p->dstDevice, p->dstXInBytes, p->dstY, p->dstPitch));
  if (p->srcMemoryType == kArray)
    return fromRuntime(cudaMemcpy2DFromArray(dst, p->dstPitch, p->srcArray, p->srcXInBytes, p->srcY,
                                             p->widthInBytes, p->height, kDefault));
  return fromRuntime(cudaMemcpy2D(
      dst, p->dstPitch,
      linearAddress(p->srcMemoryType, p->srcHost, p->srcDevice, p->srcXInBytes, p->srcY, p->srcPitch), p->srcPitch,
      p->widthInBytes, p->height, kDefault));
}

PREDATAR_DRIVER_API CUresult cuMemcpy2DUnaligned_v2(const Memcpy2D* p) { return cuMemcpy2D_v2(p); }

// (In stream order: the emulator's copies complete before they return.)
PREDATAR_DRIVER_API CUresult cuMemcpy2DAsync_v2(const Memcpy2D* p, cudaStream_t stream) {
  if (cudaError_t e = cudaStreamSynchronize(stream)) return fromRuntime(e);
  return cuMemcpy2D_v2(p);
}

PREDATAR_DRIVER_API CUresult cuMemcpyHtoA_v2(cudaArray* dst, size_t dstOffset, const void* src, size_t bytes) {
  return fromRuntime(cudaMemcpyToArray(dst, dstOffset, 0, src, bytes, 1 /* host to device */));
}

PREDATAR_DRIVER_API CUresult cuMemcpyAtoH_v2(void* dst, cudaArray* src, size_t srcOffset, size_t bytes) {
  return fromRuntime(cudaMemcpyFromArray(dst, src, srcOffset, 0, bytes, 2 /* device to host */));
}

PREDATAR_DRIVER_API CUresult cuArrayGetDescriptor_v2(ArrayDescriptor* d, cudaArray* array) {
  if (d == nullptr) return CUDA_ERROR_INVALID_VALUE;
  cudaChannelFormatDesc desc{};
  cudaExtent extent{};
  if (cudaError_t e = cudaArrayGetInfo(&desc, &extent, nullptr, array)) return fromRuntime(e);
  d->width = extent.width;
  d->height = extent.height;
  d->channels = 1u + (desc.y > 0) + (desc.z > 0) + (desc.w > 0);
  d->format = formatOf(desc);
  return d->format ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

namespace {

// The runtime's resource description of the driver's.
CUresult resourceOf(const ResourceDescriptor& d, const char* function, cudaResourceDesc& r) {
  r = cudaResourceDesc{};
  r.resType = d.type;
  switch (d.type) {
    case 0:
      r.res.array.array = d.res.array.array;
      return CUDA_SUCCESS;
    case 2:
      if (!channelDesc(d.res.linear.format, d.res.linear.channels, r.res.linear.desc))
        return refuseFormat(function, d.res.linear.format, d.res.linear.channels);
      r.res.linear.devPtr = reinterpret_cast<void*>(d.res.linear.address);
      r.res.linear.sizeInBytes = d.res.linear.bytes;
      return CUDA_SUCCESS;
    case 3:
      if (!channelDesc(d.res.pitch2D.format, d.res.pitch2D.channels, r.res.pitch2D.desc))
        return refuseFormat(function, d.res.pitch2D.format, d.res.pitch2D.channels);
      r.res.pitch2D.devPtr = reinterpret_cast<void*>(d.res.pitch2D.address);
      r.res.pitch2D.width = d.res.pitch2D.width;
      r.res.pitch2D.height = d.res.pitch2D.height;
      r.res.pitch2D.pitchInBytes = d.res.pitch2D.pitch;
      return CUDA_SUCCESS;
    default:
      return refuse((std::string(function) + " with resource type " + std::to_string(d.type)).c_str());
  }
}

// Whether the texels of `r` are integers: an array's own channels say, linear
// memory's were described by resourceOf (false for an array the runtime does not know).
bool integerTexels(const cudaResourceDesc& r) {
  cudaChannelFormatDesc desc{};
  if (r.resType == 0) {
    if (cudaArrayGetInfo(&desc, nullptr, nullptr, r.res.array.array) != 0) return false;
  } else {
    desc = r.resType == 2 ? r.res.linear.desc : r.res.pitch2D.desc;
  }
  return desc.f != 2;  // cudaChannelFormatKindFloat
}

}  // namespace

PREDATAR_DRIVER_API CUresult cuTexObjectCreate(unsigned long long* object, const ResourceDescriptor* resource,
                                              const TextureDescriptor* texture, const void* view) {
  if (object == nullptr || resource == nullptr || texture == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (view != nullptr) return refuse("cuTexObjectCreate with a resource view");
  cudaResourceDesc r{};
  if (CUresult e = resourceOf(*resource, "cuTexObjectCreate", r); e != CUDA_SUCCESS) return e;
  cudaTextureDesc t{};
  for (int i = 0; i < 3; ++i) t.addressMode[i] = texture->addressMode[i];
  t.filterMode = texture->filterMode;
  // Without CU_TRSF_READ_AS_INTEGER the driver promotes integer texels to
  // normalized floats: the runtime's cudaReadModeNormalizedFloat.
  bool integer = integerTexels(r);
  t.readMode = integer && !(texture->flags & kReadAsInteger) ? 1 : 0;
  t.sRGB = (texture->flags & kSrgb) ? 1 : 0;
  for (int i = 0; i < 4; ++i) t.borderColor[i] = texture->borderColor[i];
  t.normalizedCoords = (texture->flags & kNormalizedCoordinates) ? 1 : 0;
  t.maxAnisotropy = texture->maxAnisotropy;
  t.mipmapFilterMode = texture->mipmapFilterMode;
  t.mipmapLevelBias = texture->mipmapLevelBias;
  t.minMipmapLevelClamp = texture->minMipmapLevelClamp;
  t.maxMipmapLevelClamp = texture->maxMipmapLevelClamp;
  t.disableTrilinearOptimization = (texture->flags & kDisableTrilinear) ? 1 : 0;
  t.seamlessCubemap = (texture->flags & kSeamlessCubemap) ? 1 : 0;
  return fromRuntime(cudaCreateTextureObject(object, &r, &t, nullptr));
}

PREDATAR_DRIVER_API CUresult cuTexObjectDestroy(unsigned long long object) {
  return fromRuntime(cudaDestroyTextureObject(object));
}

PREDATAR_DRIVER_API CUresult cuSurfObjectCreate(unsigned long long* object, const ResourceDescriptor* resource) {
  if (object == nullptr || resource == nullptr) return CUDA_ERROR_INVALID_VALUE;
  cudaResourceDesc r{};
  if (CUresult e = resourceOf(*resource, "cuSurfObjectCreate", r); e != CUDA_SUCCESS) return e;
  return fromRuntime(cudaCreateSurfaceObject(object, &r));
}

PREDATAR_DRIVER_API CUresult cuSurfObjectDestroy(unsigned long long object) {
  return fromRuntime(cudaDestroySurfaceObject(object));
}
