// norace/atomics_block_one_block: block-scoped atomics within one block, and
// the plain write before / plain read after are separated by barriers.
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


__global__ void count(int *out) {
  __shared__ int cnt;
  if (threadIdx.x == 0) cnt = 0;
  __syncthreads();
  atomicAdd_block(&cnt, 1);
  __syncthreads();
  if (threadIdx.x == 0) out[0] = cnt;
}

int main() {
  int *out, host = -1;
  CHECK(cudaMalloc(&out, sizeof(int)));
  CHECK(cudaMemset(out, 0, sizeof(int)));
  count<<<1, 64>>>(out);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(&host, out, sizeof host, cudaMemcpyDeviceToHost));
  std::printf("atomics_block_one_block: count = %d\n", host);
  CHECK(cudaFree(out));
  return 0;
}
