// The legacy default stream: a launch on stream 0 waits for the work of every
// blocking stream and every blocking stream's later work waits for it, so
// these kernels of three streams are ordered: no race.
#include <cstdio>

#define CHECK(call)                                                               \
  do {                                                                            \
    cudaError_t e_ = (call);                                                      \
    if (e_ != cudaSuccess) { printf("%s: %s\n", #call, cudaGetErrorName(e_)); return 1; } \
  } while (0)

__global__ void write(int* data, int v) { data[threadIdx.x] = threadIdx.x + v; }
__global__ void increment(int* data) { data[threadIdx.x] += 1; }

int main() {
  const int n = 64;
  int* data;
  CHECK(cudaMalloc(&data, n * sizeof(int)));
  cudaStream_t s1, s2;
  CHECK(cudaStreamCreate(&s1));
  CHECK(cudaStreamCreate(&s2));
  write<<<1, n, 0, s1>>>(data, 10);  // s1
  increment<<<1, n>>>(data);          // legacy stream: after s1
  increment<<<1, n, 0, s2>>>(data);   // s2: after the legacy launch
  increment<<<1, n>>>(data);          // legacy: after s2
  increment<<<1, n, 0, s1>>>(data);   // s1: after it
  int h[n];
  CHECK(cudaMemcpy(h, data, sizeof h, cudaMemcpyDeviceToHost));
  printf("data[0]=%d data[63]=%d\n", h[0], h[63]);
  return 0;
}
