// Two streams with nothing ordering them: the kernels may overlap on a GPU,
// so the writer (line 15) and the reader (line 16) race.
#include <cstdio>

#define CHECK(call)                                                               \
  do {                                                                            \
    cudaError_t e_ = (call);                                                      \
    if (e_ != cudaSuccess) { printf("%s: %s\n", #call, cudaGetErrorName(e_)); return 1; } \
  } while (0)

__global__ void produce(int* data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] = i * 2;
}
__global__ void write(int* data) { data[threadIdx.x] = threadIdx.x; }
__global__ void read(const int* data, int* out) { out[threadIdx.x] = data[threadIdx.x] + 1; }

int main() {
  const int n = 64;
  int *data, *out;
  CHECK(cudaMalloc(&data, n * sizeof(int)));
  CHECK(cudaMalloc(&out, n * sizeof(int)));
  cudaStream_t s1, s2;
  CHECK(cudaStreamCreate(&s1));
  CHECK(cudaStreamCreate(&s2));
  // Ordered on one stream: no race.
  produce<<<2, 32, 0, s1>>>(data, n);
  write<<<1, n, 0, s1>>>(data);
  // Unordered with everything on s1.
  read<<<1, n, 0, s2>>>(data, out);
  CHECK(cudaDeviceSynchronize());
  int h[n];
  CHECK(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
  printf("out[5]=%d\n", h[5]);
  CHECK(cudaStreamDestroy(s1));
  CHECK(cudaStreamDestroy(s2));
  return 0;
}
