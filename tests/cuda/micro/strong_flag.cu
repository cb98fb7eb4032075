// norace/strong_flag: a flag accessed only with strong accesses: atomicExch
// by block 0, volatile loads by block 1.
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


__global__ void k(int *flag) {
  if (blockIdx.x == 0 && threadIdx.x == 0) atomicExch(flag, 1);
  if (blockIdx.x == 1 && threadIdx.x == 0) while (*(volatile int *)flag == 0);
}

int main() {
  int *flag, host = 0;
  CHECK(cudaMalloc(&flag, sizeof(int)));
  CHECK(cudaMemset(flag, 0, sizeof(int)));
  k<<<2, 32>>>(flag);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(&host, flag, sizeof host, cudaMemcpyDeviceToHost));
  std::printf("strong_flag: flag = %d\n", host);
  CHECK(cudaFree(flag));
  return 0;
}
