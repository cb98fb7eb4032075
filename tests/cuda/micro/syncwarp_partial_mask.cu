// dynamic/syncwarp_partial_mask: __syncwarp with a mask that leaves out a
// lane that communicates: lane 15 reads buf[16], written by lane 16, which
// is not in the mask. gwcp and hb report it; lockset misses it (two lanes of
// one warp in different instructions).
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
  __shared__ int buf[32];
  int lane = threadIdx.x % 32;
  buf[lane] = lane;                 // (A)
  if (lane < 16) {
    __syncwarp(0x0000ffff);
    out[lane] = buf[lane + 1];      // (B)
  }
}

int main() {
  int *out, host[16];
  CHECK(cudaMalloc(&out, sizeof host));
  CHECK(cudaMemset(out, 0, sizeof host));
  k<<<1, 32>>>(out);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(host, out, sizeof host, cudaMemcpyDeviceToHost));
  std::printf("syncwarp_partial_mask: out[15] = %d\n", host[15]);
  CHECK(cudaFree(out));
  return 0;
}
