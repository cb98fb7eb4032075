// dynamic/mixed_scope_lock_cross_block: one lock word taken with block scope
// by block 0 and with device scope by block 1; the two do not overlap.
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

// Device-scoped spin lock (the emulator infers acquire = successful CAS then
// fence, release = fence then exchange).
__device__ void lock(int *m) { while (atomicCAS(m, 0, 1) != 0); __threadfence(); }
__device__ void unlock(int *m) { __threadfence(); atomicExch(m, 0); }

// Block-scoped spin lock.
__device__ void lock_b(int *m) { while (atomicCAS_block(m, 0, 1) != 0); __threadfence_block(); }
__device__ void unlock_b(int *m) { __threadfence_block(); atomicExch_block(m, 0); }


__global__ void k(int *m, int *x) {
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    lock_b(m);
    *x += 1;  // (A)
    unlock_b(m);
  }
  if (blockIdx.x == 1 && threadIdx.x == 0) {
    lock(m);
    *x += 1;  // (B)
    unlock(m);
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
  std::printf("mixed_scope_lock_cross_block: x = %d\n", host[1]);
  CHECK(cudaFree(buf));
  return 0;
}
