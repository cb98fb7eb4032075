// dynamic/interwarp_shared_ww: write-write race between the warps of a block
// on one shared word (a "last writer wins" flag).
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
  __shared__ int found;
  if (threadIdx.x % 32 == 1) found = threadIdx.x;  // (A)
  __syncthreads();
  if (threadIdx.x == 0) out[0] = found;
}

int main() {
  int *out, host = -1;
  CHECK(cudaMalloc(&out, sizeof(int)));
  CHECK(cudaMemset(out, 0, sizeof(int)));
  k<<<1, 64>>>(out);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(&host, out, sizeof host, cudaMemcpyDeviceToHost));
  std::printf("interwarp_shared_ww: found = %d\n", host);
  CHECK(cudaFree(out));
  return 0;
}
