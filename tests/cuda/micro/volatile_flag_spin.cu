// predictable/volatile_flag_spin: message passing through a volatile flag,
// with fences on both sides. By default volatile is plain: the flag races and
// nothing orders data (gwcp, hb; lockset: the flag). Under --volatile strong
// the pattern is complete and no detector reports anything
// (volatile_flag_spin_strong.expect).
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


__global__ void k(int *data, int *flag, int *out) {
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    *data = 42;  // (A)
    __threadfence();
    *(volatile int *)flag = 1;
  }
  if (blockIdx.x == 1 && threadIdx.x == 0) {
    while (*(volatile int *)flag == 0);
    __threadfence();
    out[0] = *data;  // (B)
  }
}

int main() {
  int *g, host[4];
  CHECK(cudaMalloc(&g, sizeof host));
  CHECK(cudaMemset(g, 0, sizeof host));
  k<<<2, 32>>>(g, g + 1, g + 2);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(host, g, sizeof host, cudaMemcpyDeviceToHost));
  std::printf("volatile_flag_spin: %d %d %d\n", host[0], host[1], host[2]);
  CHECK(cudaFree(g));
  return 0;
}
