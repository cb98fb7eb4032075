// dynamic/interblock_global_ww: every block writes its partial result to the
// same word instead of its own (partial[0] should be partial[blockIdx.x]).
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


__global__ void k(int *partial) {
  __shared__ int acc;
  if (threadIdx.x == 0) acc = 10 * (blockIdx.x + 1);  // computed earlier
  __syncthreads();
  if (threadIdx.x == 0) partial[0] = acc;  // (A)
}

int main() {
  int *partial, host[2];
  CHECK(cudaMalloc(&partial, sizeof host));
  CHECK(cudaMemset(partial, 0, sizeof host));
  k<<<2, 32>>>(partial);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(host, partial, sizeof host, cudaMemcpyDeviceToHost));
  std::printf("interblock_global_ww: partial = %d %d\n", host[0], host[1]);
  CHECK(cudaFree(partial));
  return 0;
}
