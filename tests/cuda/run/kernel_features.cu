// Kernel features the runtime must pass through: templates, a struct passed
// by value, dynamic shared memory (with the opt-in attribute), 2D grids,
// cudaLaunchKernel with an argument array, managed memory, __constant__ arrays.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(call)                                                              \
  do {                                                                           \
    cudaError_t err_ = (call);                                                   \
    if (err_ != cudaSuccess) {                                                   \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,         \
                   cudaGetErrorString(err_));                                    \
      std::exit(1);                                                              \
    }                                                                            \
  } while (0)

struct Params {
  int n;
  float scale;
  double offset;
};

__constant__ int weights[4] = {1, 10, 100, 1000};

template <typename T>
__global__ void affine(T* data, Params p) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < p.n) data[i] = data[i] * T(p.scale) + T(p.offset) + T(weights[i % 4]);
}

__global__ void reverse(const int* in, int* out) {
  extern __shared__ int buf[];
  buf[threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = buf[blockDim.x - 1 - threadIdx.x];
}

__global__ void grid2d(int* out, int width) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  out[y * width + x] = x + 100 * y;
}

int main() {
  const int n = 64;
  float* f;
  CHECK(cudaMallocManaged(&f, n * sizeof(float)));
  for (int i = 0; i < n; ++i) f[i] = float(i);
  affine<float><<<2, 32>>>(f, Params{n, 2.0f, 0.5});
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::printf("affine<float>: %.1f %.1f %.1f\n", f[0], f[1], f[63]);

  double* d;
  CHECK(cudaMalloc(&d, n * sizeof(double)));
  CHECK(cudaMemset(d, 0, n * sizeof(double)));
  affine<double><<<1, 64>>>(d, Params{n, 1.0f, 0.25});
  double hd[n];
  CHECK(cudaMemcpy(hd, d, sizeof hd, cudaMemcpyDeviceToHost));
  std::printf("affine<double>: %.2f %.2f\n", hd[2], hd[3]);

  const int threads = 256;
  int *in, *out, host[threads];
  for (int i = 0; i < threads; ++i) host[i] = i * 3;
  CHECK(cudaMalloc(&in, sizeof host));
  CHECK(cudaMalloc(&out, sizeof host));
  CHECK(cudaMemcpy(in, host, sizeof host, cudaMemcpyHostToDevice));
  CHECK(cudaFuncSetAttribute(reverse, cudaFuncAttributeMaxDynamicSharedMemorySize, 64 * 1024));
  void* args[] = {&in, &out};
  CHECK(cudaLaunchKernel((const void*)reverse, dim3(1), dim3(threads), args, threads * sizeof(int), 0));
  CHECK(cudaMemcpy(host, out, sizeof host, cudaMemcpyDeviceToHost));
  std::printf("reverse: %d %d\n", host[0], host[threads - 1]);

  int* g;
  CHECK(cudaMalloc(&g, 16 * 16 * sizeof(int)));
  grid2d<<<dim3(2, 2), dim3(8, 8)>>>(g, 16);
  int hg[256];
  CHECK(cudaMemcpy(hg, g, sizeof hg, cudaMemcpyDeviceToHost));
  std::printf("grid2d: %d %d\n", hg[17], hg[255]);

  CHECK(cudaFree(f));
  CHECK(cudaFree(d));
  CHECK(cudaFree(in));
  CHECK(cudaFree(out));
  CHECK(cudaFree(g));
  return 0;
}
