// CUDA arrays and texture objects: cudaCreateChannelDesc, cudaMallocArray,
// cudaMalloc3DArray (layered and cubemap arrays too), copies to and from
// arrays (cudaMemcpy3D included), cudaCreateTextureObject over an array, linear or
// pitched memory (sampled by sim/Texture.cpp), surface objects over arrays.
// Mipmapped and sparse arrays, resource views and half-float channels are
// refused by name.
#include <algorithm>
#include <cstring>
#include <mutex>
#include <set>
#include <vector>

#include "cudart/StreamOrder.h"
#include "cudart/runtime/Graph.h"
#include "cudart/runtime/GraphTypes.h"
#include "cudart/runtime/Runtime.h"
#include "cudart/runtime/TextureTypes.h"
#include "cudart/runtime/Unsupported.h"
#include "sim/Texture.h"

using namespace predatar::cudart;


struct cudaArray {
  cudaChannelFormatDesc desc;
  size_t width = 0, height = 0, depth = 0;  // the extent as given: height/depth 0 for 1D/2D, depth = layers
  unsigned int flags = 0;                    // cudaArrayLayered / SurfaceLoadStore / Cubemap
  size_t pitch = 0;                          // bytes per row
  std::vector<uint8_t> data;                 // rows of every slice, slice after slice
};

namespace {

Runtime& rt() { return Runtime::get(); }

std::set<cudaArray*>& arrays() {
  static auto* s = new std::set<cudaArray*>;
  return *s;
}

size_t elementBytes(const cudaChannelFormatDesc& d) { return size_t(d.x + d.y + d.z + d.w) / 8; }

constexpr unsigned kLayered = 0x01, kSurfaceLoadStore = 0x02, kCubemap = 0x04;

// Rows per slice and slices of an array's data (a 1D array has one row).
size_t rowsOf(const cudaArray& a) { return std::max<size_t>(a.height, 1); }
size_t slicesOf(const cudaArray& a) { return std::max<size_t>(a.depth, 1); }

// Allocates an array of `width` x `height` x `depth` elements (0: absent dimension).
cudaArray* newArray(const cudaChannelFormatDesc& desc, size_t width, size_t height, size_t depth,
                    unsigned int flags) {
  auto* a = new cudaArray;
  a->desc = desc;
  a->width = width;
  a->height = height;
  a->depth = depth;
  a->flags = flags;
  a->pitch = width * elementBytes(desc);
  a->data.assign(a->pitch * rowsOf(*a) * slicesOf(*a), 0);
  arrays().insert(a);
  return a;
}

// Flags cudaMalloc3DArray accepts, by name where the emulator cannot honour them.
cudaError_t checkArrayFlags(unsigned int flags) {
  if (flags & 0x08) return unsupported("cudaMalloc3DArray with cudaArrayTextureGather");
  if (flags & 0x10) return unsupported("cudaMalloc3DArray with cudaArrayDepthTexture");
  if (flags & 0x20) return unsupported("cudaMalloc3DArray with cudaArrayColorAttachment");
  if (flags & 0x40) return unsupported("cudaMalloc3DArray with cudaArraySparse");
  if (flags & 0x80) return unsupported("cudaMalloc3DArray with cudaArrayDeferredMapping");
  if (flags & ~(kLayered | kSurfaceLoadStore | kCubemap)) return unsupported("cudaMalloc3DArray with unknown flags");
  return cudaSuccess;
}

// The shapes CUDA allows: 1D, 2D, 3D; layered 1D {w, 0, layers} and 2D {w, h, layers};
// cubemaps {w, w, 6}, layered ones {w, w, 6 x layers}.
bool validArrayShape(size_t w, size_t h, size_t d, unsigned int flags) {
  if (w == 0 || (h == 0 && d != 0 && !(flags & kLayered))) return false;
  if (flags & kCubemap) return h == w && d != 0 && ((flags & kLayered) ? d % 6 == 0 : d == 6);
  if (flags & kLayered) return d != 0;
  return true;
}

// The texel layout of a channel descriptor, or an error naming what is unsupported.
cudaError_t describeChannels(const cudaChannelFormatDesc& d, predatar::sim::TextureObject& t) {
  int bits[4] = {d.x, d.y, d.z, d.w};
  t.channels = 0;
  for (int b : bits)
    if (b) ++t.channels;
  if (t.channels == 0 || d.x == 0) return cudaErrorInvalidValue;
  for (uint32_t c = 1; c < t.channels; ++c)
    if (bits[c] != d.x) return unsupported("cudaCreateTextureObject with channels of different sizes");
  if (d.x != 8 && d.x != 16 && d.x != 32) return unsupported("cudaCreateTextureObject with this channel size");
  t.channelBytes = uint32_t(d.x / 8);
  switch (d.f) {
    case 0: t.kind = predatar::sim::TextureObject::Kind::Signed; break;
    case 1: t.kind = predatar::sim::TextureObject::Kind::Unsigned; break;
    case 2:
      if (d.x != 32) return unsupported("cudaCreateTextureObject with half-float channels");
      t.kind = predatar::sim::TextureObject::Kind::Float;
      break;
    default: return unsupported("cudaCreateTextureObject with this channel format kind");
  }
  return cudaSuccess;
}

// The texels of an array as a texture or surface samples them.
void describeArray(const cudaArray& a, predatar::sim::TextureObject& t) {
  t.data = a.data.data();
  t.width = a.width;
  t.height = rowsOf(a);
  t.depth = slicesOf(a);
  t.pitch = a.pitch;
  t.layered = (a.flags & kLayered) != 0;
  t.cubemap = (a.flags & kCubemap) != 0;
}

// The non-array side of an array copy must be where `kind` says.
bool linearSideValid(const void* p, size_t bytes, int kind, bool isSource) {
  bool device = isSource ? (kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice)
                         : (kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice);
  if (kind == cudaMemcpyDefault) return !rt().kindOf(p) || rt().isDeviceRange(p, bytes);
  return !device || rt().isDeviceRange(p, bytes);
}

// Copies `height` rows of `width` bytes between an array region and pitched linear memory.
cudaError_t arrayCopy(cudaArray* a, size_t wOffset, size_t hOffset, uint8_t* linear, size_t pitch, size_t width,
                      size_t height, int kind, bool toArray) {
  std::lock_guard lock(rt().mutex());
  if (rt().sticky() != cudaSuccess) return fail(rt().sticky());
  if (!arrays().count(a) || linear == nullptr || width > pitch) return fail(cudaErrorInvalidValue);
  size_t rows = rowsOf(*a) * slicesOf(*a);
  if (wOffset + width > a->pitch || hOffset + height > rows) return fail(cudaErrorInvalidValue);
  if (height && !linearSideValid(linear, pitch * (height - 1) + width, kind, toArray))
    return fail(cudaErrorInvalidValue);
  for (size_t r = 0; r < height; ++r) {
    uint8_t* cell = a->data.data() + (hOffset + r) * a->pitch + wOffset;
    if (toArray) std::memcpy(cell, linear + r * pitch, width);
    else std::memcpy(linear + r * pitch, cell, width);
    if (!toArray) rt().memory().noteHostWrite(reinterpret_cast<uint64_t>(linear + r * pitch), width);
  }
  return cudaSuccess;
}

// One side of a 3D copy: where the box's first byte lies and how its rows and
// slices are spaced.
struct CopySide {
  uint8_t* origin = nullptr;
  size_t rowPitch = 0, slicePitch = 0;
};

// An array side: positions and extent in elements of the array.
cudaError_t arraySide(cudaArray* a, const cudaPos& pos, const cudaExtent& e, CopySide& out) {
  if (!arrays().count(a)) return cudaErrorInvalidValue;
  size_t rows = rowsOf(*a), elem = elementBytes(a->desc);
  if (pos.x + e.width > a->width || pos.y + e.height > rows || pos.z + e.depth > slicesOf(*a))
    return cudaErrorInvalidValue;
  out.rowPitch = a->pitch;
  out.slicePitch = a->pitch * rows;
  out.origin = a->data.data() + pos.z * out.slicePitch + pos.y * a->pitch + pos.x * elem;
  return cudaSuccess;
}

// A pitched-pointer side: x in elements of `elem` bytes, slices `ysize` rows
// apart; the memory must be where `kind` says. When an array takes part in
// the copy, the pointer's x is in the array's elements too: the reference
// manual says a pointer's element is a byte, but an H200 (driver 580) copies
// so (bench/native/RESULTS.md, layered_cubemap).
cudaError_t pitchedSide(const cudaPitchedPtr& p, const cudaPos& pos, size_t elem, const cudaExtent& e,
                        size_t rowBytes, int kind, bool isSource, CopySide& out) {
  if (p.ptr == nullptr) return cudaErrorInvalidValue;
  size_t x = pos.x * elem;
  if (x + rowBytes > p.pitch) return cudaErrorInvalidPitchValue;
  if (e.depth > 1 && pos.y + e.height > p.ysize) return cudaErrorInvalidValue;
  out.rowPitch = p.pitch;
  out.slicePitch = p.pitch * p.ysize;
  out.origin = static_cast<uint8_t*>(p.ptr) + pos.z * out.slicePitch + pos.y * p.pitch + x;
  size_t span = (e.depth - 1) * out.slicePitch + (e.height - 1) * out.rowPitch + rowBytes;
  return linearSideValid(out.origin, span, kind, isSource) ? cudaSuccess : cudaErrorInvalidValue;
}

// The bytes per element of a copy: an array's element when one takes part (both
// must agree), else one byte (CUDA's extent is then in bytes).
cudaError_t copyElementBytes(const cudaMemcpy3DParms& p, size_t& elem) {
  elem = 1;
  for (cudaArray* a : {p.srcArray, p.dstArray})
    if (a && arrays().count(a)) elem = elementBytes(a->desc);
  if (p.srcArray && p.dstArray && arrays().count(p.srcArray) && arrays().count(p.dstArray) &&
      elementBytes(p.srcArray->desc) != elementBytes(p.dstArray->desc))
    return cudaErrorInvalidValue;
  return cudaSuccess;
}

// cudaMemcpy3D between arrays and pitched memory in any combination; the caller holds the lock.
cudaError_t copy3D(const cudaMemcpy3DParms* p) {
  if (p == nullptr) return cudaErrorInvalidValue;
  if (p->kind < cudaMemcpyHostToHost || p->kind > cudaMemcpyDefault) return cudaErrorInvalidMemcpyDirection;
  if ((p->srcArray != nullptr) == (p->srcPtr.ptr != nullptr) || (p->dstArray != nullptr) == (p->dstPtr.ptr != nullptr))
    return cudaErrorInvalidValue;  // each side is an array or a pointer, not both or neither
  const cudaExtent& e = p->extent;
  if (e.width == 0 || e.height == 0 || e.depth == 0) return cudaSuccess;
  size_t elem = 1;
  if (cudaError_t err = copyElementBytes(*p, elem); err != cudaSuccess) return err;
  size_t rowBytes = e.width * elem;
  CopySide src, dst;
  cudaError_t err = p->srcArray ? arraySide(p->srcArray, p->srcPos, e, src)
                                : pitchedSide(p->srcPtr, p->srcPos, elem, e, rowBytes, p->kind, true, src);
  if (err == cudaSuccess)
    err = p->dstArray ? arraySide(p->dstArray, p->dstPos, e, dst)
                      : pitchedSide(p->dstPtr, p->dstPos, elem, e, rowBytes, p->kind, false, dst);
  if (err != cudaSuccess) return err;
  for (size_t z = 0; z < e.depth; ++z)
    for (size_t y = 0; y < e.height; ++y) {
      uint8_t* to = dst.origin + z * dst.slicePitch + y * dst.rowPitch;
      const uint8_t* from = src.origin + z * src.slicePitch + y * src.rowPitch;
      std::memmove(to, from, rowBytes);
      rt().memory().noteHostCopy(reinterpret_cast<uint64_t>(to), reinterpret_cast<uint64_t>(from), rowBytes);
    }
  return cudaSuccess;
}

}  // namespace

extern "C" {

// Exported (the library builds with hidden visibility by default).
#pragma GCC visibility push(default)

cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w, int f) {
  return cudaChannelFormatDesc{x, y, z, w, f};
}

cudaError_t cudaMallocArray(cudaArray** array, const cudaChannelFormatDesc* desc, size_t width, size_t height,
                            unsigned int flags) {
  if (array == nullptr || desc == nullptr || width == 0 || elementBytes(*desc) == 0) return fail(cudaErrorInvalidValue);
  if (flags & ~0x2u) return unsupported("cudaMallocArray with flags other than cudaArraySurfaceLoadStore");
  std::lock_guard lock(rt().mutex());
  *array = newArray(*desc, width, height, 0, flags);
  return cudaSuccess;
}

cudaError_t cudaMalloc3DArray(cudaArray** array, const cudaChannelFormatDesc* desc, cudaExtent extent,
                              unsigned int flags) {
  if (array == nullptr || desc == nullptr || elementBytes(*desc) == 0) return fail(cudaErrorInvalidValue);
  if (cudaError_t e = checkArrayFlags(flags); e != cudaSuccess) return e;
  if (!validArrayShape(extent.width, extent.height, extent.depth, flags)) return fail(cudaErrorInvalidValue);
  std::lock_guard lock(rt().mutex());
  *array = newArray(*desc, extent.width, extent.height, extent.depth, flags);
  return cudaSuccess;
}

// Synchronous like cudaMemcpy: ordered after the legacy default stream's work.
cudaError_t cudaMemcpy3D(const cudaMemcpy3DParms* p) {
  std::lock_guard lock(rt().mutex());
  if (rt().sticky() != cudaSuccess) return fail(rt().sticky());
  rt().order().legacyOperation(/*blocking=*/true);
  return fail(copy3D(p));
}

cudaError_t cudaMemcpy3D_ptds(const cudaMemcpy3DParms* p) {
  std::lock_guard lock(rt().mutex());
  if (rt().sticky() != cudaSuccess) return fail(rt().sticky());
  rt().order().synchronizeStream(StreamOrder::kPerThread);
  return fail(copy3D(p));
}

// Done at once, as cudaMemcpyAsync does.
cudaError_t cudaMemcpy3DAsync(const cudaMemcpy3DParms* p, cudaStream_t stream) {
  std::lock_guard lock(rt().mutex());
  if (rt().sticky() != cudaSuccess) return fail(rt().sticky());
  if (!rt().validStream(stream)) return fail(cudaErrorInvalidResourceHandle);
  if (isCapturing(stream)) return unsupported("cudaMemcpy3DAsync during stream capture");
  return fail(copy3D(p));
}
cudaError_t cudaMemcpy3DAsync_ptsz(const cudaMemcpy3DParms* p, cudaStream_t stream)
    __attribute__((alias("cudaMemcpy3DAsync"), visibility("default")));

cudaError_t cudaFreeArray(cudaArray* array) {
  std::lock_guard lock(rt().mutex());
  if (array == nullptr) return cudaSuccess;
  if (!arrays().erase(array)) return fail(cudaErrorInvalidValue);
  delete array;
  return cudaSuccess;
}

cudaError_t cudaArrayGetInfo(cudaChannelFormatDesc* desc, cudaExtent* extent, unsigned int* flags, cudaArray* array) {
  std::lock_guard lock(rt().mutex());
  if (!arrays().count(array)) return fail(cudaErrorInvalidValue);
  if (desc) *desc = array->desc;
  if (extent) *extent = cudaExtent{array->width, array->height, array->depth};
  if (flags) *flags = array->flags;
  return cudaSuccess;
}

cudaError_t cudaMemcpy2DToArray(cudaArray* dst, size_t wOffset, size_t hOffset, const void* src, size_t spitch,
                                size_t width, size_t height, int kind) {
  return arrayCopy(dst, wOffset, hOffset, static_cast<uint8_t*>(const_cast<void*>(src)), spitch, width, height,
                   kind, true);
}
cudaError_t cudaMemcpy2DToArray_ptds(cudaArray* dst, size_t wOffset, size_t hOffset, const void* src, size_t spitch,
                                     size_t width, size_t height, int kind)
    __attribute__((alias("cudaMemcpy2DToArray"), visibility("default")));

cudaError_t cudaMemcpy2DFromArray(void* dst, size_t dpitch, cudaArray* src, size_t wOffset, size_t hOffset,
                                  size_t width, size_t height, int kind) {
  return arrayCopy(src, wOffset, hOffset, static_cast<uint8_t*>(dst), dpitch, width, height, kind, false);
}
cudaError_t cudaMemcpy2DFromArray_ptds(void* dst, size_t dpitch, cudaArray* src, size_t wOffset, size_t hOffset,
                                       size_t width, size_t height, int kind)
    __attribute__((alias("cudaMemcpy2DFromArray"), visibility("default")));

// `count` bytes from (wOffset, hOffset) on, continuing row after row.
cudaError_t cudaMemcpyToArray(cudaArray* dst, size_t wOffset, size_t hOffset, const void* src, size_t count,
                              int kind) {
  {
    std::lock_guard lock(rt().mutex());
    if (!arrays().count(dst)) return fail(cudaErrorInvalidValue);
    if (wOffset == 0 && count % dst->pitch == 0)
      return cudaMemcpy2DToArray(dst, 0, hOffset, src, dst->pitch, dst->pitch, count / dst->pitch, kind);
  }
  if (wOffset + count <= dst->pitch) return cudaMemcpy2DToArray(dst, wOffset, hOffset, src, count, count, 1, kind);
  return unsupported("cudaMemcpyToArray of a partial row range across rows");
}
cudaError_t cudaMemcpyToArray_ptds(cudaArray* dst, size_t wOffset, size_t hOffset, const void* src, size_t count,
                                   int kind) __attribute__((alias("cudaMemcpyToArray"), visibility("default")));

cudaError_t cudaMemcpyFromArray(void* dst, cudaArray* src, size_t wOffset, size_t hOffset, size_t count, int kind) {
  {
    std::lock_guard lock(rt().mutex());
    if (!arrays().count(src)) return fail(cudaErrorInvalidValue);
    if (wOffset == 0 && count % src->pitch == 0)
      return cudaMemcpy2DFromArray(dst, src->pitch, src, 0, hOffset, src->pitch, count / src->pitch, kind);
  }
  if (wOffset + count <= src->pitch) return cudaMemcpy2DFromArray(dst, count, src, wOffset, hOffset, count, 1, kind);
  return unsupported("cudaMemcpyFromArray of a partial row range across rows");
}
cudaError_t cudaMemcpyFromArray_ptds(void* dst, cudaArray* src, size_t wOffset, size_t hOffset, size_t count,
                                     int kind) __attribute__((alias("cudaMemcpyFromArray"), visibility("default")));

// Pitched memory: rows of `width` bytes, `pitch` apart.
cudaError_t cudaMemset2D(void* devPtr, size_t pitch, int value, size_t width, size_t height) {
  std::lock_guard lock(rt().mutex());
  if (rt().sticky() != cudaSuccess) return fail(rt().sticky());
  if (width > pitch) return fail(cudaErrorInvalidValue);
  for (size_t r = 0; r < height; ++r)
    if (cudaError_t e = rt().fill(static_cast<uint8_t*>(devPtr) + r * pitch, value, width); e != cudaSuccess)
      return fail(e);
  return cudaSuccess;
}
cudaError_t cudaMemset2D_ptds(void* devPtr, size_t pitch, int value, size_t width, size_t height)
    __attribute__((alias("cudaMemset2D"), visibility("default")));

// The extent's width in bytes; slices `ysize` rows apart.
cudaError_t cudaMemset3D(cudaPitchedPtr p, int value, cudaExtent extent) {
  for (size_t z = 0; z < extent.depth; ++z)
    if (cudaError_t e = cudaMemset2D(static_cast<uint8_t*>(p.ptr) + z * p.pitch * p.ysize, p.pitch, value,
                                     extent.width, extent.height);
        e != cudaSuccess)
      return e;
  return cudaSuccess;
}
cudaError_t cudaMemset3D_ptds(cudaPitchedPtr p, int value, cudaExtent extent)
    __attribute__((alias("cudaMemset3D"), visibility("default")));

cudaError_t cudaMemset2DAsync(void* devPtr, size_t pitch, int value, size_t width, size_t height,
                              cudaStream_t stream) {
  {
    std::lock_guard lock(rt().mutex());
    if (!rt().validStream(stream)) return fail(cudaErrorInvalidResourceHandle);
    if (isCapturing(stream)) return unsupported("cudaMemset2DAsync during stream capture");
  }
  return cudaMemset2D(devPtr, pitch, value, width, height);
}
cudaError_t cudaMemset2DAsync_ptsz(void* devPtr, size_t pitch, int value, size_t width, size_t height,
                                   cudaStream_t stream)
    __attribute__((alias("cudaMemset2DAsync"), visibility("default")));

cudaError_t cudaMemcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height,
                         int kind);
cudaError_t cudaMemcpy2DAsync(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                              size_t height, int kind, cudaStream_t stream) {
  {
    std::lock_guard lock(rt().mutex());
    if (!rt().validStream(stream)) return fail(cudaErrorInvalidResourceHandle);
    if (isCapturing(stream)) return unsupported("cudaMemcpy2DAsync during stream capture");
  }
  return cudaMemcpy2D(dst, dpitch, src, spitch, width, height, kind);
}
cudaError_t cudaMemcpy2DAsync_ptsz(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                                   size_t height, int kind, cudaStream_t stream)
    __attribute__((alias("cudaMemcpy2DAsync"), visibility("default")));

cudaError_t cudaCreateTextureObject(unsigned long long* object, const cudaResourceDesc* res,
                                    const cudaTextureDesc* tex, const void* view) {
  if (object == nullptr || res == nullptr || tex == nullptr) return fail(cudaErrorInvalidValue);
  if (view != nullptr) return unsupported("cudaCreateTextureObject with a resource view");
  if (tex->sRGB) return unsupported("cudaCreateTextureObject with sRGB conversion");
  std::lock_guard lock(rt().mutex());
  predatar::sim::TextureObject t;
  cudaError_t e = cudaSuccess;
  switch (res->resType) {
    case 0: {
      cudaArray* a = res->res.array.array;
      if (!arrays().count(a)) return fail(cudaErrorInvalidValue);
      e = describeChannels(a->desc, t);
      describeArray(*a, t);
      break;
    }
    case 2:
      e = describeChannels(res->res.linear.desc, t);
      if (e == cudaSuccess && !rt().isDeviceRange(res->res.linear.devPtr, res->res.linear.sizeInBytes))
        e = cudaErrorInvalidValue;
      t.data = static_cast<const uint8_t*>(res->res.linear.devPtr);
      t.linearMemory = true;
      t.width = e == cudaSuccess ? res->res.linear.sizeInBytes / (t.channels * t.channelBytes) : 0;
      t.pitch = res->res.linear.sizeInBytes;
      break;
    case 3: {
      const auto& p = res->res.pitch2D;
      e = describeChannels(p.desc, t);
      if (e == cudaSuccess && (p.height == 0 || !rt().isDeviceRange(p.devPtr, p.pitchInBytes * (p.height - 1) +
                                                                                p.width * t.channels * t.channelBytes)))
        e = cudaErrorInvalidValue;
      t.data = static_cast<const uint8_t*>(p.devPtr);
      t.width = p.width;
      t.height = p.height;
      t.pitch = p.pitchInBytes;
      break;
    }
    default: return unsupported("cudaCreateTextureObject over a mipmapped array");
  }
  if (e != cudaSuccess) return fail(e);
  for (int d = 0; d < 3; ++d) t.address[d] = predatar::sim::TextureObject::Address(tex->addressMode[d] & 3);
  t.linearFilter = tex->filterMode == 1;
  t.normalizedFloat = tex->readMode == 1 && t.kind != predatar::sim::TextureObject::Kind::Float &&
                      t.channelBytes < 4;
  t.normalizedCoords = tex->normalizedCoords != 0;
  std::copy(tex->borderColor, tex->borderColor + 4, t.border);
  if (t.linearFilter && t.kind != predatar::sim::TextureObject::Kind::Float && !t.normalizedFloat)
    return fail(cudaErrorInvalidValue);  // CUDA filters only floating-point results
  *object = predatar::sim::createTexture(t);
  return cudaSuccess;
}

// Surfaces over CUDA arrays (any array: the load/store flag is not enforced).
cudaError_t cudaCreateSurfaceObject(unsigned long long* object, const cudaResourceDesc* res) {
  if (object == nullptr || res == nullptr) return fail(cudaErrorInvalidValue);
  if (res->resType != 0) return unsupported("cudaCreateSurfaceObject over anything but a CUDA array");
  std::lock_guard lock(rt().mutex());
  cudaArray* a = res->res.array.array;
  if (!arrays().count(a)) return fail(cudaErrorInvalidValue);
  predatar::sim::TextureObject t;
  if (cudaError_t e = describeChannels(a->desc, t); e != cudaSuccess) return fail(e);
  t.surface = true;
  describeArray(*a, t);
  *object = predatar::sim::createTexture(t);
  return cudaSuccess;
}

cudaError_t cudaDestroySurfaceObject(unsigned long long object) {
  if (object == 0) return cudaSuccess;
  return predatar::sim::destroyTexture(object) ? cudaSuccess : fail(cudaErrorInvalidValue);
}

cudaError_t cudaDestroyTextureObject(unsigned long long object) {
  if (object == 0) return cudaSuccess;
  return predatar::sim::destroyTexture(object) ? cudaSuccess : fail(cudaErrorInvalidValue);
}

#pragma GCC visibility pop

}  // extern "C"
