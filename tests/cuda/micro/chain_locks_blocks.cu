// predictable/chain_locks_blocks: HB order through a chain of unrelated
// critical sections on two locks across three blocks; each block waits for
// the previous one through a volatile flag (which orders nothing). No two
// critical sections conflict, so gwcp predicts the race on x; hb (lock
// chain) and lockset (block 0's acquire fence follows its write) miss it.
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


__global__ void k(int *a, int *b, int *x, int *p, int *q, int *r, int *u,
                  int *f1, int *f2, int *out) {
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    *x = 1;  // (A)
    lock(a);
    *p = 1;
    unlock(a);
    *(volatile int *)f1 = 1;
  }
  if (blockIdx.x == 1 && threadIdx.x == 0) {
    while (*(volatile int *)f1 == 0);
    lock(a);
    *q = 1;
    unlock(a);
    lock(b);
    *r = 1;
    unlock(b);
    *(volatile int *)f2 = 1;
  }
  if (blockIdx.x == 2 && threadIdx.x == 0) {
    while (*(volatile int *)f2 == 0);
    lock(b);
    *u = 1;
    unlock(b);
    out[0] = *x;  // (B)
  }
}

int main() {
  int *g, host[10];
  CHECK(cudaMalloc(&g, sizeof host));
  CHECK(cudaMemset(g, 0, sizeof host));
  k<<<3, 32>>>(g, g + 1, g + 2, g + 3, g + 4, g + 5, g + 6, g + 7, g + 8, g + 9);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(host, g, sizeof host, cudaMemcpyDeviceToHost));
  std::printf("chain_locks_blocks: block 2 read x = %d\n", host[9]);
  CHECK(cudaFree(g));
  return 0;
}
