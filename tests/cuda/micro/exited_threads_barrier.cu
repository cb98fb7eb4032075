// norace/exited_threads_barrier: threads beyond n = 40 return early; the
// others exchange through shared memory across a __syncthreads() (exited
// threads do not take part in the barrier).
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
  if (threadIdx.x >= 40) return;
  s[threadIdx.x] = threadIdx.x;
  __syncthreads();
  if (threadIdx.x + 1 < 40) out[threadIdx.x] = s[threadIdx.x + 1];
}

int main() {
  int *out, host[40];
  CHECK(cudaMalloc(&out, sizeof host));
  CHECK(cudaMemset(out, 0, sizeof host));
  k<<<1, 64>>>(out);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(host, out, sizeof host, cudaMemcpyDeviceToHost));
  std::printf("exited_threads_barrier: out[31] = %d, out[38] = %d\n", host[31], host[38]);
  CHECK(cudaFree(out));
  return 0;
}
