// predictable/gwcp_figure: the paper's Figure "predictable-race-gwcp": a
// device-scoped lock m and a block-scoped lock n; T1 = block 0 thread 0,
// T2 = block 0 thread 1, T3 = block 1 thread 1, running in that order
// (volatile flags). Rule (i) orders the m sections (y), but block 0's
// block-scoped release of n does not overlap block 1's acquire of n: gwcp
// and hb report x and z; lockset reports z only (T1's acquire fence follows
// its write of x).
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


__global__ void k(int *m, int *n, int *x, int *y, int *z, int *f1, int *f2) {
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    *x = 1;  // (A)
    lock(m);
    *y = 1;
    unlock(m);
    *(volatile int *)f1 = 1;
  }
  if (blockIdx.x == 0 && threadIdx.x == 1) {
    while (*(volatile int *)f1 == 0);
    lock(m);
    *y = 2;
    unlock(m);
    lock_b(n);
    *z = 1;  // (C)
    unlock_b(n);
    *(volatile int *)f2 = 1;
  }
  if (blockIdx.x == 1 && threadIdx.x == 1) {
    while (*(volatile int *)f2 == 0);
    lock_b(n);
    *z = 2;  // (D)
    unlock_b(n);
    *x = 2;  // (B)
  }
}

int main() {
  int *g, host[7];
  CHECK(cudaMalloc(&g, sizeof host));
  CHECK(cudaMemset(g, 0, sizeof host));
  k<<<2, 2>>>(g, g + 1, g + 2, g + 3, g + 4, g + 5, g + 6);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(host, g, sizeof host, cudaMemcpyDeviceToHost));
  std::printf("gwcp_figure: x = %d, y = %d, z = %d\n", host[2], host[3], host[4]);
  CHECK(cudaFree(g));
  return 0;
}
