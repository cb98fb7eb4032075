// dynamic/barrier_other_block: __syncthreads() used as if it synchronized
// the grid; each block reads the word the other block wrote.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(call)                                                          \
  do {                                                                       \
    cudaError_t err_ = (call);                                               \
    if (err_ != cudaSuccess) {                                               \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,     \
                   cudaGetErrorString(err_));                                \
      std::exit(1);                                                          \
    }                                                                        \
  } while (0)


__global__ void k(int *a, int *out) {
  if (threadIdx.x == 0) a[blockIdx.x] = blockIdx.x + 1;           // (A)
  __syncthreads();
  if (threadIdx.x == 0) out[blockIdx.x] = a[1 - blockIdx.x];      // (B)
}

int main() {
  int *buf, host[4];
  CHECK(cudaMalloc(&buf, sizeof host));
  CHECK(cudaMemset(buf, 0, sizeof host));
  k<<<2, 32>>>(buf, buf + 2);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(host, buf, sizeof host, cudaMemcpyDeviceToHost));
  std::printf("barrier_other_block: out = %d %d\n", host[2], host[3]);
  CHECK(cudaFree(buf));
  return 0;
}
