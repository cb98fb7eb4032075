// A race-free CUDA program as users write it: allocate, copy, launch, check.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(call)                                                              \
  do {                                                                           \
    cudaError_t err_ = (call);                                                   \
    if (err_ != cudaSuccess) {                                                   \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,         \
                   cudaGetErrorString(err_));                                    \
      std::exit(1);                                                              \
    }                                                                            \
  } while (0)

__constant__ int scale;

__global__ void vectorAdd(const int* a, const int* b, int* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = scale * (a[i] + b[i]);
}

int main() {
  const int n = 200;
  int ha[n], hb[n], hc[n];
  for (int i = 0; i < n; ++i) {
    ha[i] = i;
    hb[i] = 2 * i;
  }
  int *da, *db, *dc;
  CHECK(cudaMalloc(&da, n * sizeof(int)));
  CHECK(cudaMalloc(&db, n * sizeof(int)));
  CHECK(cudaMalloc(&dc, n * sizeof(int)));
  CHECK(cudaMemcpy(da, ha, n * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(db, hb, n * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(dc, 0, n * sizeof(int)));
  int s = 3;
  CHECK(cudaMemcpyToSymbol(scale, &s, sizeof s));
  vectorAdd<<<(n + 63) / 64, 64>>>(da, db, dc, n);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(hc, dc, n * sizeof(int), cudaMemcpyDeviceToHost));
  int errors = 0;
  for (int i = 0; i < n; ++i)
    if (hc[i] != 3 * (ha[i] + hb[i])) ++errors;
  CHECK(cudaFree(da));
  CHECK(cudaFree(db));
  CHECK(cudaFree(dc));
  std::printf("vectorAdd: %d elements, %d errors\n", n, errors);
  return errors ? 1 : 0;
}
