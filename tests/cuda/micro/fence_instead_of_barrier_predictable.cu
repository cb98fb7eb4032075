// predictable/fence_instead_of_barrier: __threadfence_block() used instead
// of __syncthreads(), in the run where every write happens before every
// read (the warps wait on an arrival counter, a hand-made barrier whose
// atomics and volatile loads order nothing). gwcp and hb report s; lockset
// misses it: every read follows the writer's block fence (rule 3).
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


__global__ void k(int *out, int *arrived) {
  __shared__ int s[64];
  int t = threadIdx.x;
  s[t] = t;                                         // (A)
  __threadfence_block();                            // should be __syncthreads()
  if (t % 32 == 0) atomicAdd(arrived, 1);
  while (*(volatile int *)arrived < 2);             // both warps have written
  out[t] = s[(t + 32) % 64];                        // (B)
}

int main() {
  int *g, host[65];
  CHECK(cudaMalloc(&g, sizeof host));
  CHECK(cudaMemset(g, 0, sizeof host));
  k<<<1, 64>>>(g, g + 64);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(host, g, sizeof host, cudaMemcpyDeviceToHost));
  std::printf("fence_instead_of_barrier: out[0] = %d, out[32] = %d\n", host[0], host[32]);
  CHECK(cudaFree(g));
  return 0;
}
