// A stream created with cudaStreamNonBlocking does not synchronize with the
// legacy default stream: the kernel on stream 0 (line 14) and the one on the
// non-blocking stream (line 15) race.
#include <cstdio>

#define CHECK(call)                                                               \
  do {                                                                            \
    cudaError_t e_ = (call);                                                      \
    if (e_ != cudaSuccess) { printf("%s: %s\n", #call, cudaGetErrorName(e_)); return 1; } \
  } while (0)

__global__ void init(int* data) { data[threadIdx.x] = 1; }
__global__ void atomicBump(int* data) { atomicAdd(&data[threadIdx.x], 1); }
__global__ void write(int* data) { data[threadIdx.x] = threadIdx.x; }
__global__ void read(const int* data, int* out) { out[threadIdx.x] = data[threadIdx.x]; }

int main() {
  const int n = 32;
  int *data, *out;
  CHECK(cudaMalloc(&data, n * sizeof(int)));
  CHECK(cudaMalloc(&out, n * sizeof(int)));
  cudaStream_t blocking, nonBlocking;
  CHECK(cudaStreamCreate(&blocking));
  CHECK(cudaStreamCreateWithFlags(&nonBlocking, cudaStreamNonBlocking));
  init<<<1, n>>>(data);
  CHECK(cudaDeviceSynchronize());
  // Device-scope atomics of unordered kernels do not race.
  atomicBump<<<1, n, 0, blocking>>>(data);
  atomicBump<<<1, n, 0, nonBlocking>>>(data);
  CHECK(cudaDeviceSynchronize());
  write<<<1, n>>>(data);
  read<<<1, n, 0, nonBlocking>>>(data, out);
  CHECK(cudaStreamSynchronize(nonBlocking));
  int h[n];
  CHECK(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
  printf("out[3]=%d\n", h[3]);
  return 0;
}
