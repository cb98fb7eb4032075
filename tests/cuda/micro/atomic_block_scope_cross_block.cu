// dynamic/atomic_block_scope_cross_block: insufficient atomic scope.
// atomicExch_block on a global word from two blocks: block-scoped atomics
// of different blocks are not morally strong, so they race (all detectors).
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


__global__ void k(unsigned *data) {
  atomicExch_block(data, threadIdx.x);  // (A)
}

int main() {
  unsigned *data, host = 0;
  CHECK(cudaMalloc(&data, sizeof(unsigned)));
  CHECK(cudaMemset(data, 0, sizeof(unsigned)));
  k<<<2, 32>>>(data);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(&host, data, sizeof host, cudaMemcpyDeviceToHost));
  std::printf("atomic_block_scope_cross_block: data = %u\n", host);
  CHECK(cudaFree(data));
  return 0;
}
