// dynamic/block_lock_cross_block: a block-scoped lock used to protect global
// data across blocks; block-scoped release/acquire of different blocks do
// not synchronize (all detectors report total).
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

// Block-scoped spin lock.
__device__ void lock_b(int *m) { while (atomicCAS_block(m, 0, 1) != 0); __threadfence_block(); }
__device__ void unlock_b(int *m) { __threadfence_block(); atomicExch_block(m, 0); }


__global__ void k(int *m, int *total) {
  if (threadIdx.x == 0) {
    lock_b(m);
    *total += 1;  // (A)
    unlock_b(m);
  }
}

int main() {
  int *buf, host[2];
  CHECK(cudaMalloc(&buf, sizeof host));
  CHECK(cudaMemset(buf, 0, sizeof host));
  k<<<2, 32>>>(buf, buf + 1);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(host, buf, sizeof host, cudaMemcpyDeviceToHost));
  std::printf("block_lock_cross_block: total = %d\n", host[1]);
  CHECK(cudaFree(buf));
  return 0;
}
