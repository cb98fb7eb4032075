// The kernels tests/programs/driver_api.cu loads through the driver API:
// built apart (build.sh: NAME.modules) as a fat binary and as PTX text.
#include <cassert>

extern "C" __device__ int launches = 0;

extern "C" __global__ void scale(float* data, unsigned n, float factor) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] *= factor;
  if (i == 0) atomicAdd(&launches, 1);
}

extern "C" __global__ void increment(int* data, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] += 1;
}

extern "C" __global__ void positive(const int* data) { assert(data[threadIdx.x] > 0); }

extern "C" __global__ void fetch(float* out, cudaTextureObject_t texture, unsigned width, unsigned height) {
  unsigned x = threadIdx.x, y = threadIdx.y;
  if (x < width && y < height) out[y * width + x] = tex2D<float>(texture, x + 0.5f, y + 0.5f);
}
