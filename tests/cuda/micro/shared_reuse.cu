// norace/shared_reuse: a shared buffer reused across two loop iterations,
// with both barriers in place, in two blocks.
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
  int acc = 0;
  for (int it = 0; it < 2; ++it) {
    s[threadIdx.x] = it + threadIdx.x;
    __syncthreads();
    acc += s[(threadIdx.x + 32) % 64];
    __syncthreads();  // the barrier that makes reuse safe
  }
  out[blockIdx.x * 64 + threadIdx.x] = acc;
}

int main() {
  int *out, host[128];
  CHECK(cudaMalloc(&out, sizeof host));
  CHECK(cudaMemset(out, 0, sizeof host));
  k<<<2, 64>>>(out);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(host, out, sizeof host, cudaMemcpyDeviceToHost));
  std::printf("shared_reuse: out[0] = %d, out[127] = %d\n", host[0], host[127]);
  CHECK(cudaFree(out));
  return 0;
}
