// predictable/reordered_critical_sections: an unprotected read before a
// critical section and an unprotected write after another, unrelated
// critical section on the same device lock; block 0 goes first (volatile
// flag). gwcp reports x; hb and lockset miss it.
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


__global__ void k(int *m, int *x, int *p, int *q, int *flag) {
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    int v = *x;  // (A)
    lock(m);
    *p += v;
    unlock(m);
    *(volatile int *)flag = 1;
  }
  if (blockIdx.x == 1 && threadIdx.x == 0) {
    while (*(volatile int *)flag == 0);
    lock(m);
    *q += 1;
    unlock(m);
    *x = 5;  // (B)
  }
}

int main() {
  int *g, host[5];
  CHECK(cudaMalloc(&g, sizeof host));
  CHECK(cudaMemset(g, 0, sizeof host));
  k<<<2, 32>>>(g, g + 1, g + 2, g + 3, g + 4);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(host, g, sizeof host, cudaMemcpyDeviceToHost));
  std::printf("reordered_critical_sections: x = %d, p = %d, q = %d\n", host[1], host[2], host[3]);
  CHECK(cudaFree(g));
  return 0;
}
