// predictable/gwcp_miss_conflict_early: a race GWCP misses because the
// critical sections conflict (y): rule (i) orders block 0's release before
// block 1's write of y and hence before its later write of x. hb misses it
// too; lockset reports x (locked write vs unlocked write).
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


__global__ void k(int *m, int *x, int *y, int *flag) {
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    lock(m);
    *x = 1;  // (A)
    *y = 1;
    unlock(m);
    *(volatile int *)flag = 1;
  }
  if (blockIdx.x == 1 && threadIdx.x == 0) {
    while (*(volatile int *)flag == 0);
    lock(m);
    *y = 2;
    unlock(m);
    *x = 2;  // (B)
  }
}

int main() {
  int *g, host[4];
  CHECK(cudaMalloc(&g, sizeof host));
  CHECK(cudaMemset(g, 0, sizeof host));
  k<<<2, 32>>>(g, g + 1, g + 2, g + 3);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(host, g, sizeof host, cudaMemcpyDeviceToHost));
  std::printf("gwcp_miss_conflict_early: x = %d, y = %d\n", host[1], host[2]);
  CHECK(cudaFree(g));
  return 0;
}
