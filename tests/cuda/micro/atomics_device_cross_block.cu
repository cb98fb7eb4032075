// norace/atomics_device_cross_block: a global counter updated with
// device-scoped atomics by every thread of two blocks, also read with a
// relaxed (strong) device-scoped load: morally strong, no conflict.
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


__device__ int load_relaxed_device(const int *p) {
  int v;
  asm volatile("ld.relaxed.gpu.global.b32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

__global__ void count(int *cnt, int *seen) {
  atomicAdd(cnt, 1);
  if (threadIdx.x == 0) seen[blockIdx.x] = load_relaxed_device(cnt);
}

int main() {
  int *g, host[3];
  CHECK(cudaMalloc(&g, sizeof host));
  CHECK(cudaMemset(g, 0, sizeof host));
  count<<<2, 64>>>(g, g + 1);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(host, g, sizeof host, cudaMemcpyDeviceToHost));
  std::printf("atomics_device_cross_block: count = %d\n", host[0]);
  CHECK(cudaFree(g));
  return 0;
}
