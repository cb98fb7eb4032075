// dynamic/interwarp_shared_rw: read-write race between two warps on shared
// memory (no __syncthreads() between the write and the read).
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


__global__ void k(const int *in, int *out) {
  __shared__ int s;
  if (threadIdx.x == 0) s = in[0];        // (A)
  if (threadIdx.x == 32) out[0] = s;      // (B)
}

int main() {
  int *buf, host[2] = {7, -1};
  CHECK(cudaMalloc(&buf, sizeof host));
  CHECK(cudaMemcpy(buf, host, sizeof host, cudaMemcpyHostToDevice));
  k<<<1, 64>>>(buf, buf + 1);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(host, buf, sizeof host, cudaMemcpyDeviceToHost));
  std::printf("interwarp_shared_rw: out = %d\n", host[1]);
  CHECK(cudaFree(buf));
  return 0;
}
