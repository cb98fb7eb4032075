// Streams created after a launch: CUDA orders a new blocking stream's work
// after the legacy default stream's earlier work only, and a non-blocking
// stream's after nothing the host has not waited for. Races: the stores of
// two streams each created right before its launch (line 16); a store on a
// created stream and a load on cudaStreamPerThread (lines 16, 17).
#include <cstdio>

#define CHECK(call)                                                                          \
  do {                                                                                       \
    cudaError_t e_ = (call);                                                                 \
    if (e_ != cudaSuccess) { printf("%s: %s\n", #call, cudaGetErrorName(e_)); return 1; }   \
  } while (0)

// (one pair of kernels in every case, with a third to tell the ordered case
// apart: only the streams differ)
__global__ void store(int* data, int v) { data[threadIdx.x] = v; }
__global__ void load(const int* data, int* out) { out[threadIdx.x] = data[threadIdx.x]; }
__global__ void copy(const int* data, int* out) { out[threadIdx.x] = data[threadIdx.x]; }

int main() {
  const int n = 32;
  int *data, *out;
  CHECK(cudaMalloc(&data, n * sizeof(int)));
  CHECK(cudaMalloc(&out, n * sizeof(int)));
  CHECK(cudaMemset(out, 0, n * sizeof(int)));
  // Each stream created right before its launch: the two stores are unordered.
  cudaStream_t s[2];
  for (int i = 0; i < 2; ++i) {
    CHECK(cudaStreamCreate(&s[i]));
    store<<<1, n, 0, s[i]>>>(data, i);
  }
  CHECK(cudaDeviceSynchronize());
  // The per-thread default stream, first named here, waits for the legacy
  // stream but not for s[0].
  store<<<1, n, 0, s[0]>>>(data, 2);
  load<<<1, n, 0, cudaStreamPerThread>>>(data, out);
  CHECK(cudaDeviceSynchronize());
  // A blocking stream created after a launch on the default stream is ordered after it.
  store<<<1, n>>>(data, 3);
  cudaStream_t later;
  CHECK(cudaStreamCreate(&later));
  copy<<<1, n, 0, later>>>(data, out);
  // A non-blocking one is not, but that launch is forgotten by now (every
  // stream is ordered after it): predatar says so when the stream is created.
  cudaStream_t nonBlocking;
  CHECK(cudaStreamCreateWithFlags(&nonBlocking, cudaStreamNonBlocking));
  CHECK(cudaDeviceSynchronize());
  int h[n];
  CHECK(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
  printf("out[5]=%d\n", h[5]);
  return 0;
}
