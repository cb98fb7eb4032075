// norace/barrier_shared_exchange: shared-memory exchange between two warps
// separated by __syncthreads(), in two blocks.
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


__global__ void exchange(int *out) {
  __shared__ int s[64];
  s[threadIdx.x] = threadIdx.x + 100 * blockIdx.x;
  __syncthreads();
  out[blockIdx.x * 64 + threadIdx.x] = s[(threadIdx.x + 32) % 64];
}

int main() {
  int *out, host[128];
  CHECK(cudaMalloc(&out, sizeof host));
  CHECK(cudaMemset(out, 0, sizeof host));
  exchange<<<2, 64>>>(out);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(host, out, sizeof host, cudaMemcpyDeviceToHost));
  std::printf("barrier_shared_exchange: out[0] = %d, out[64] = %d\n", host[0], host[64]);
  CHECK(cudaFree(out));
  return 0;
}
