// norace/lane_indexed: every thread reads and writes only its own element;
// all threads read one common parameter word.
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


__global__ void inc(int *data, const int *param) {
  data[threadIdx.x] = data[threadIdx.x] + param[0];
}

int main() {
  int host[65];
  for (int i = 0; i < 64; ++i) host[i] = i;
  host[64] = 10;
  int *g;
  CHECK(cudaMalloc(&g, sizeof host));
  CHECK(cudaMemcpy(g, host, sizeof host, cudaMemcpyHostToDevice));
  inc<<<1, 64>>>(g, g + 64);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(host, g, sizeof host, cudaMemcpyDeviceToHost));
  std::printf("lane_indexed: data[0] = %d, data[63] = %d\n", host[0], host[63]);
  CHECK(cudaFree(g));
  return 0;
}
