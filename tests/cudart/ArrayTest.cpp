// CUDA arrays made by cudaMalloc3DArray (layered, cubemap, 3D) and cudaMemcpy3D
// called directly: the shapes CUDA accepts, flags refused by name, and copies
// with offsets and their errors.
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cudart/runtime/Api.h"
#include "cudart/runtime/GraphTypes.h"

// As the runtime defines them (TextureApi.cpp); the CUDA headers' layout.
extern "C" {
struct cudaChannelFormatDesc {
  int x, y, z, w;
  int f;
};
cudaError_t cudaMalloc3DArray(cudaArray** array, const cudaChannelFormatDesc* desc, cudaExtent extent,
                              unsigned int flags);
cudaError_t cudaArrayGetInfo(cudaChannelFormatDesc* desc, cudaExtent* extent, unsigned int* flags, cudaArray* array);
cudaError_t cudaFreeArray(cudaArray* array);
cudaError_t cudaMemcpy3D(const cudaMemcpy3DParms* p);
}

namespace predatar::cudart {
namespace {

const cudaChannelFormatDesc kFloat{32, 0, 0, 0, 2};

cudaError_t make(size_t w, size_t h, size_t d, unsigned int flags, cudaArray** out = nullptr) {
  cudaArray* a = nullptr;
  cudaError_t e = cudaMalloc3DArray(&a, &kFloat, cudaExtent{w, h, d}, flags);
  cudaGetLastError();
  if (out) *out = a;
  else if (a) cudaFreeArray(a);
  return e;
}

TEST(Arrays, ShapesAsCudaDefinesThem) {
  EXPECT_EQ(make(8, 0, 0, 0), cudaSuccess);        // 1D
  EXPECT_EQ(make(8, 4, 2, 0), cudaSuccess);        // 3D
  EXPECT_EQ(make(8, 0, 3, 0x01), cudaSuccess);     // 1D layered
  EXPECT_EQ(make(8, 4, 3, 0x01), cudaSuccess);     // 2D layered
  EXPECT_EQ(make(4, 4, 6, 0x04), cudaSuccess);     // cubemap
  EXPECT_EQ(make(4, 4, 12, 0x05), cudaSuccess);    // two layered cubemaps
  EXPECT_EQ(make(4, 4, 6, 0x06), cudaSuccess);     // cubemap with surface load/store
  EXPECT_EQ(make(0, 4, 6, 0), cudaErrorInvalidValue);
  EXPECT_EQ(make(8, 4, 0, 0x01), cudaErrorInvalidValue);  // layered without layers
  EXPECT_EQ(make(4, 5, 6, 0x04), cudaErrorInvalidValue);  // a cube face must be square
  EXPECT_EQ(make(4, 4, 7, 0x04), cudaErrorInvalidValue);  // six faces
  EXPECT_EQ(make(4, 4, 9, 0x05), cudaErrorInvalidValue);  // six faces per layer
}

TEST(Arrays, UnsupportedFlagsFailByName) {
  testing::internal::CaptureStderr();
  EXPECT_EQ(make(8, 8, 0, 0x08), cudaErrorNotSupported);
  EXPECT_EQ(make(8, 8, 0, 0x40), cudaErrorNotSupported);
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("cudaArrayTextureGather"), std::string::npos) << err;
  EXPECT_NE(err.find("cudaArraySparse"), std::string::npos) << err;
}

TEST(Arrays, InfoGivesExtentAndFlags) {
  cudaArray* a = nullptr;
  ASSERT_EQ(make(4, 4, 12, 0x05, &a), cudaSuccess);
  cudaChannelFormatDesc desc{};
  cudaExtent extent{};
  unsigned int flags = 0;
  ASSERT_EQ(cudaArrayGetInfo(&desc, &extent, &flags, a), cudaSuccess);
  EXPECT_EQ(desc.x, 32);
  EXPECT_EQ(desc.f, 2);
  EXPECT_EQ(extent.width, 4u);
  EXPECT_EQ(extent.height, 4u);
  EXPECT_EQ(extent.depth, 12u);
  EXPECT_EQ(flags, 0x05u);
  EXPECT_EQ(cudaFreeArray(a), cudaSuccess);
}

// Host box -> array at an offset -> host, through a pitched pointer with row padding.
TEST(Arrays, Memcpy3DHonoursPositionsAndPitches) {
  cudaArray* a = nullptr;
  ASSERT_EQ(make(4, 3, 2, 0x01, &a), cudaSuccess);
  std::vector<float> in(6 * 3 * 2), out(4 * 3 * 2, -1.0f);  // rows of 6 floats, 3 rows a slice
  for (size_t i = 0; i < in.size(); ++i) in[i] = float(i);
  cudaMemcpy3DParms p{};
  p.srcPtr = cudaPitchedPtr{in.data(), 6 * sizeof(float), 6, 3};
  // A pointer's x is in the array's elements when an array takes part, as an H200 copies
  // (bench/native/RESULTS.md), not in bytes as the reference manual says.
  p.srcPos = cudaPos{2, 1, 0};
  p.dstArray = a;
  p.dstPos = cudaPos{1, 0, 1};  // elements of an array
  p.extent = cudaExtent{3, 2, 1};
  p.kind = cudaMemcpyHostToDevice;
  ASSERT_EQ(cudaMemcpy3D(&p), cudaSuccess);
  cudaMemcpy3DParms back{};
  back.srcArray = a;
  back.dstPtr = cudaPitchedPtr{out.data(), 4 * sizeof(float), 4, 3};
  back.extent = cudaExtent{4, 3, 2};
  back.kind = cudaMemcpyDeviceToHost;
  ASSERT_EQ(cudaMemcpy3D(&back), cudaSuccess);
  for (size_t z = 0; z < 2; ++z)
    for (size_t y = 0; y < 3; ++y)
      for (size_t x = 0; x < 4; ++x) {
        bool inside = z == 1 && y < 2 && x >= 1;
        float want = inside ? in[(y + 1) * 6 + (x - 1 + 2)] : 0.0f;
        EXPECT_EQ(out[(z * 3 + y) * 4 + x], want) << x << "," << y << "," << z;
      }
  p.dstPos = cudaPos{2, 0, 1};  // 2 + 3 > 4 elements
  EXPECT_EQ(cudaMemcpy3D(&p), cudaErrorInvalidValue);
  p.dstPos = cudaPos{0, 0, 0};
  p.dstPtr = cudaPitchedPtr{out.data(), 16, 4, 3};  // an array and a pointer
  EXPECT_EQ(cudaMemcpy3D(&p), cudaErrorInvalidValue);
  cudaGetLastError();
  EXPECT_EQ(cudaFreeArray(a), cudaSuccess);
}

}  // namespace
}  // namespace predatar::cudart
