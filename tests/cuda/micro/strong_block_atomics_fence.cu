// predictable/strong_block_atomics_fence: insufficiently scoped atomics
// separated only by a fence. gwcp and hb report x; lockset misses it
// (block 0's device fence after its atomic covers block 1).
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


__global__ void k(int *x, int *flag) {
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    atomicAdd_block(x, 1);  // (A)
    __threadfence();
    *(volatile int *)flag = 1;
  }
  if (blockIdx.x == 1 && threadIdx.x == 0) {
    while (*(volatile int *)flag == 0);
    atomicAdd_block(x, 1);  // (B)
  }
}

int main() {
  int *g, host[2];
  CHECK(cudaMalloc(&g, sizeof host));
  CHECK(cudaMemset(g, 0, sizeof host));
  k<<<2, 32>>>(g, g + 1);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(host, g, sizeof host, cudaMemcpyDeviceToHost));
  std::printf("strong_block_atomics_fence: x = %d\n", host[0]);
  CHECK(cudaFree(g));
  return 0;
}
