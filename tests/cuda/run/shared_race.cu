// A block-level reduction with a missing __syncthreads(): threads read their
// neighbour's shared memory slot before it is written (a write-read race),
// plus a global counter incremented without atomics (a write-write race).
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

__device__ int launches;

__global__ void shiftSum(const int* in, int* out) {
  __shared__ int tile[64];
  int t = threadIdx.x;
  tile[t] = in[blockIdx.x * blockDim.x + t];
  // missing __syncthreads() here
  int right = tile[(t + 1) % blockDim.x];
  out[blockIdx.x * blockDim.x + t] = tile[t] + right;
  if (t == 0) launches = launches + 1;  // every block: unsynchronized update
}

int main() {
  const int blocks = 2, threads = 64, n = blocks * threads;
  int host[n];
  for (int i = 0; i < n; ++i) host[i] = i;
  int *in, *out;
  CHECK(cudaMalloc(&in, sizeof host));
  CHECK(cudaMalloc(&out, sizeof host));
  CHECK(cudaMemcpy(in, host, sizeof host, cudaMemcpyHostToDevice));
  shiftSum<<<blocks, threads>>>(in, out);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(host, out, sizeof host, cudaMemcpyDeviceToHost));
  int count = 0;
  CHECK(cudaMemcpyFromSymbol(&count, launches, sizeof count));
  std::printf("shiftSum: out[0] = %d, launches = %d\n", host[0], count);
  CHECK(cudaFree(in));
  CHECK(cudaFree(out));
  return 0;
}
