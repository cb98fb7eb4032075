// dynamic/mixed_atomic_plain: a counter updated with atomicAdd by one warp
// and reset with a plain store by another.
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


__global__ void k(int *cnt) {
  if (threadIdx.x < 32) atomicAdd(cnt, 1);   // (A)
  else if (threadIdx.x == 32) *cnt = 0;      // (B)
}

int main() {
  int *cnt, host = -1;
  CHECK(cudaMalloc(&cnt, sizeof(int)));
  CHECK(cudaMemset(cnt, 0, sizeof(int)));
  k<<<1, 64>>>(cnt);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(&host, cnt, sizeof host, cudaMemcpyDeviceToHost));
  std::printf("mixed_atomic_plain: cnt = %d\n", host);
  CHECK(cudaFree(cnt));
  return 0;
}
