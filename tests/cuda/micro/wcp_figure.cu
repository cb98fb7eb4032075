// predictable/wcp_figure: the WCP paper's example. t0 and t32 (two warps of
// one block) both write x; t32's write is in a critical section on l that
// t0's write is not. The observed run (t0 first, forced by a volatile flag)
// orders the writes through the lock, but the critical sections could be
// swapped: gwcp reports x, hb misses it, lockset reports it (l held on one
// side only).
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


__global__ void k(int *l, int *x, int *y, int *flag) {
  if (threadIdx.x == 0) {
    *x = 1;  // (A)
    lock(l);
    *y = 1;
    unlock(l);
    *(volatile int *)flag = 1;
  }
  if (threadIdx.x == 32) {
    while (*(volatile int *)flag == 0);
    lock(l);
    *x = 2;  // (B)
    *y = 2;
    unlock(l);
  }
}

int main() {
  int *g, host[4];
  CHECK(cudaMalloc(&g, sizeof host));
  CHECK(cudaMemset(g, 0, sizeof host));
  k<<<1, 64>>>(g, g + 1, g + 2, g + 3);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(host, g, sizeof host, cudaMemcpyDeviceToHost));
  std::printf("wcp_figure: x = %d, y = %d\n", host[1], host[2]);
  CHECK(cudaFree(g));
  return 0;
}
