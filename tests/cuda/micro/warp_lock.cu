// norace/warp_lock: one lock for an entire warp (the paper's Figure "Common
// lock for entire warp"): lane 0 takes a block-scoped lock for its warp, the
// other lanes are ordered with it by __syncwarp.
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


__global__ void k(int *data, int *lock) {
  int wtid = threadIdx.x % 32;
  __syncwarp();
  while (wtid == 0 && atomicCAS_block(lock, 0, 1) != 0);
  __threadfence_block();
  __syncwarp();
  data[wtid] += 1;
  __threadfence_block();
  __syncwarp();
  if (wtid == 0) atomicExch_block(lock, 0);
}

int main() {
  int *g, host[33];
  CHECK(cudaMalloc(&g, sizeof host));
  CHECK(cudaMemset(g, 0, sizeof host));
  k<<<1, 64>>>(g, g + 32);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(host, g, sizeof host, cudaMemcpyDeviceToHost));
  std::printf("warp_lock: data[0] = %d, data[31] = %d\n", host[0], host[31]);
  CHECK(cudaFree(g));
  return 0;
}
