// dynamic/interblock_global_rw: read-write race between blocks on global
// memory.
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


__global__ void k(int *a) {
  if (blockIdx.x == 0 && threadIdx.x == 0) a[1] = 5;     // (A)
  if (blockIdx.x == 1 && threadIdx.x == 0) a[2] = a[1];  // (B)
}

int main() {
  int *a, host[3];
  CHECK(cudaMalloc(&a, sizeof host));
  CHECK(cudaMemset(a, 0, sizeof host));
  k<<<2, 32>>>(a);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(host, a, sizeof host, cudaMemcpyDeviceToHost));
  std::printf("interblock_global_rw: a[2] = %d\n", host[2]);
  CHECK(cudaFree(a));
  return 0;
}
