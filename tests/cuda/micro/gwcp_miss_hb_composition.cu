// predictable/gwcp_miss_hb_composition: a race GWCP misses through
// composition with HB: rule (i) orders block 0's release of l before block
// 1's write of y, rule (iv) composes that with rel k -> acq k, so block 0's
// write of x is ordered before block 2's read. hb and lockset miss it too.
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


__global__ void k(int *l, int *kk, int *x, int *y, int *p, int *q,
                  int *f1, int *f2, int *out) {
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    *x = 1;  // (A)
    lock(l);
    *y = 1;
    unlock(l);
    *(volatile int *)f1 = 1;
  }
  if (blockIdx.x == 1 && threadIdx.x == 0) {
    while (*(volatile int *)f1 == 0);
    lock(l);
    *y = 2;
    unlock(l);
    lock(kk);
    *p = 1;
    unlock(kk);
    *(volatile int *)f2 = 1;
  }
  if (blockIdx.x == 2 && threadIdx.x == 0) {
    while (*(volatile int *)f2 == 0);
    lock(kk);
    *q = 1;
    unlock(kk);
    out[0] = *x;  // (B)
  }
}

int main() {
  int *g, host[9];
  CHECK(cudaMalloc(&g, sizeof host));
  CHECK(cudaMemset(g, 0, sizeof host));
  k<<<3, 32>>>(g, g + 1, g + 2, g + 3, g + 4, g + 5, g + 6, g + 7, g + 8);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(host, g, sizeof host, cudaMemcpyDeviceToHost));
  std::printf("gwcp_miss_hb_composition: block 2 read x = %d\n", host[8]);
  CHECK(cudaFree(g));
  return 0;
}
