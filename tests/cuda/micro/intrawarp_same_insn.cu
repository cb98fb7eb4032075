// dynamic/intrawarp_same_insn: the 32 lanes of one store instruction write
// the same word.
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


__global__ void k(int *data) {
  data[0] = threadIdx.x;  // (A)
}

int main() {
  int *data, host = -1;
  CHECK(cudaMalloc(&data, sizeof(int)));
  CHECK(cudaMemset(data, 0, sizeof(int)));
  k<<<1, 32>>>(data);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(&host, data, sizeof host, cudaMemcpyDeviceToHost));
  std::printf("intrawarp_same_insn: data = %d\n", host);
  CHECK(cudaFree(data));
  return 0;
}
