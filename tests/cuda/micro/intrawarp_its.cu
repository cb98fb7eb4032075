// dynamic/intrawarp_its: intra-warp race across two instructions, exposed by
// independent thread scheduling. gwcp and hb report it; lockset's per-warp
// metadata never compares two lanes in different instructions (a miss).
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


__global__ void k(int *data) {
  data[threadIdx.x] = 2;      // (A)
  data[1 - threadIdx.x] = 1;  // (B)
}

int main() {
  int *data, host[2];
  CHECK(cudaMalloc(&data, sizeof host));
  CHECK(cudaMemset(data, 0, sizeof host));
  k<<<1, 2>>>(data);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(host, data, sizeof host, cudaMemcpyDeviceToHost));
  std::printf("intrawarp_its: data = %d %d\n", host[0], host[1]);
  CHECK(cudaFree(data));
  return 0;
}
