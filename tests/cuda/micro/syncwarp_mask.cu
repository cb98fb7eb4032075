// norace/syncwarp_mask: the lower half-warp exchanges values through shared
// memory and synchronizes with exactly the lanes that communicate.
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


__global__ void half(int *out) {
  __shared__ int buf[32];
  int lane = threadIdx.x % 32;
  if (lane < 16) {
    buf[lane] = lane;
    __syncwarp(0x0000ffff);
    out[lane] = buf[(lane + 1) % 16];
  }
}

int main() {
  int *out, host[16];
  CHECK(cudaMalloc(&out, sizeof host));
  CHECK(cudaMemset(out, 0, sizeof host));
  half<<<1, 32>>>(out);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(host, out, sizeof host, cudaMemcpyDeviceToHost));
  std::printf("syncwarp_mask: out[0] = %d, out[15] = %d\n", host[0], host[15]);
  CHECK(cudaFree(out));
  return 0;
}
