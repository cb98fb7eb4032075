// dynamic/interwarp_global_ww: write-write race between two warps of a block
// on global memory.
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


__global__ void k(int *result) {
  if (threadIdx.x % 32 == 0) *result = threadIdx.x;  // (A)
}

int main() {
  int *result, host = -1;
  CHECK(cudaMalloc(&result, sizeof(int)));
  CHECK(cudaMemset(result, 0, sizeof(int)));
  k<<<1, 64>>>(result);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(&host, result, sizeof host, cudaMemcpyDeviceToHost));
  std::printf("interwarp_global_ww: result = %d\n", host);
  CHECK(cudaFree(result));
  return 0;
}
