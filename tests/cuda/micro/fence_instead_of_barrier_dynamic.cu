// dynamic/fence_instead_of_barrier: __threadfence_block() used instead of
// __syncthreads() for a shared-memory exchange between two warps. In this
// run warp 0 writes, fences and reads before warp 1 writes (warp 1 waits for
// a volatile flag, which orders nothing). gwcp and hb report every pair;
// lockset only warp 0's reads against warp 1's later writes (the writer's
// fence hides the other direction) -- the same two source lines.
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


__global__ void k(int *out, int *flag) {
  __shared__ int s[64];
  int t = threadIdx.x;
  if (t >= 32) while (*(volatile int *)flag == 0);  // let warp 0 run ahead
  s[t] = t;                                          // (A)
  __threadfence_block();                             // should be __syncthreads()
  out[t] = s[(t + 32) % 64];                         // (B)
  if (t == 0) *(volatile int *)flag = 1;
}

int main() {
  int *buf, host[65];
  CHECK(cudaMalloc(&buf, sizeof host));
  CHECK(cudaMemset(buf, 0, sizeof host));
  k<<<1, 64>>>(buf, buf + 64);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(host, buf, sizeof host, cudaMemcpyDeviceToHost));
  std::printf("fence_instead_of_barrier: out[0] = %d, out[32] = %d\n", host[0], host[32]);
  CHECK(cudaFree(buf));
  return 0;
}
