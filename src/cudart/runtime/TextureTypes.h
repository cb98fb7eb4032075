// The runtime's CUDA arrays and texture and surface objects as the program
// sees them (layouts as CUDA's headers have them), and the functions
// lib/libcuda.so.1 builds its own on (src/cudart/driver/DriverTextures.cpp).
#pragma once

#include <cstddef>

#include "cudart/runtime/Api.h"
#include "cudart/runtime/GraphTypes.h"

extern "C" {
struct cudaChannelFormatDesc {
  int x, y, z, w;
  int f;  // cudaChannelFormatKind: 0 signed, 1 unsigned, 2 float
};
struct cudaResourceDesc {
  int resType;  // 0 array, 1 mipmapped array, 2 linear, 3 pitch2D
  union {
    struct { cudaArray* array; } array;
    struct { void* devPtr; cudaChannelFormatDesc desc; size_t sizeInBytes; } linear;
    struct { void* devPtr; cudaChannelFormatDesc desc; size_t width, height, pitchInBytes; } pitch2D;
    int reserved[32];
  } res;
  unsigned int flags;
};
static_assert(sizeof(cudaResourceDesc) == 144 && offsetof(cudaResourceDesc, flags) == 136);
struct cudaTextureDesc {
  int addressMode[3];
  int filterMode;
  int readMode;
  int sRGB;
  float borderColor[4];
  int normalizedCoords;
  unsigned int maxAnisotropy;
  int mipmapFilterMode;
  float mipmapLevelBias, minMipmapLevelClamp, maxMipmapLevelClamp;
  int disableTrilinearOptimization;
  int seamlessCubemap;
};
static_assert(sizeof(cudaTextureDesc) == 72 && offsetof(cudaTextureDesc, normalizedCoords) == 40);

cudaError_t cudaMallocArray(cudaArray** array, const cudaChannelFormatDesc* desc, size_t width, size_t height,
                            unsigned int flags);
cudaError_t cudaMalloc3DArray(cudaArray** array, const cudaChannelFormatDesc* desc, cudaExtent extent,
                              unsigned int flags);
cudaError_t cudaFreeArray(cudaArray* array);
cudaError_t cudaArrayGetInfo(cudaChannelFormatDesc* desc, cudaExtent* extent, unsigned int* flags, cudaArray* array);
cudaError_t cudaMemcpy2DToArray(cudaArray* dst, size_t wOffset, size_t hOffset, const void* src, size_t spitch,
                                size_t width, size_t height, int kind);
cudaError_t cudaMemcpyToArray(cudaArray* dst, size_t wOffset, size_t hOffset, const void* src, size_t count,
                              int kind);
cudaError_t cudaMemcpyFromArray(void* dst, cudaArray* src, size_t wOffset, size_t hOffset, size_t count, int kind);
cudaError_t cudaMemcpy2DFromArray(void* dst, size_t dpitch, cudaArray* src, size_t wOffset, size_t hOffset,
                                  size_t width, size_t height, int kind);
cudaError_t cudaCreateTextureObject(unsigned long long* object, const cudaResourceDesc* res,
                                    const cudaTextureDesc* tex, const void* view);
cudaError_t cudaDestroyTextureObject(unsigned long long object);
cudaError_t cudaCreateSurfaceObject(unsigned long long* object, const cudaResourceDesc* res);
cudaError_t cudaDestroySurfaceObject(unsigned long long object);
}
