// norace/rule_ii_chain: message passing through two nested device locks,
// ordered only by GWCP's rule (ii); block 0 runs first (block 1 waits on a
// volatile flag). gwcp and hb: no race. lockset reports z (a false
// positive: written holding l, read holding nothing).
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


__global__ void k(int *l, int *n, int *y, int *z, int *w, int *flag, int *out) {
  if (blockIdx.x == 0) {
    lock(l);
    lock(n);
    *y = 1;
    unlock(n);
    *z = 42;  // (A)
    unlock(l);
    *(volatile int *)flag = 1;
  } else {
    while (*(volatile int *)flag == 0);
    lock(n);
    int seen = *y;
    unlock(n);
    if (seen) {
      lock(l);
      *w = 1;
      unlock(l);
      out[0] = *z;  // (B)
    }
  }
}

int main() {
  int *g, host[7];
  CHECK(cudaMalloc(&g, sizeof host));
  CHECK(cudaMemset(g, 0, sizeof host));
  k<<<2, 1>>>(g, g + 1, g + 2, g + 3, g + 4, g + 5, g + 6);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(host, g, sizeof host, cudaMemcpyDeviceToHost));
  std::printf("rule_ii_chain: block 1 read z = %d\n", host[6]);
  CHECK(cudaFree(g));
  return 0;
}
