// dynamic/missing_barrier: shared-memory exchange between two warps with the
// __syncthreads() missing.
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


__global__ void k(int *out) {
  __shared__ int s[64];
  s[threadIdx.x] = threadIdx.x;                          // (A)
  // __syncthreads();  missing
  out[threadIdx.x] = s[(threadIdx.x + 32) % 64];         // (B)
}

int main() {
  int *out, host[64];
  CHECK(cudaMalloc(&out, sizeof host));
  CHECK(cudaMemset(out, 0, sizeof host));
  k<<<1, 64>>>(out);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(host, out, sizeof host, cudaMemcpyDeviceToHost));
  std::printf("missing_barrier: out[0] = %d, out[32] = %d\n", host[0], host[32]);
  CHECK(cudaFree(out));
  return 0;
}
