// Device memory is as large as the device says (cudaDeviceProp::totalGlobalMem,
// cudaMemGetInfo): asking for more fails with cudaErrorMemoryAllocation, as on
// a GPU, and freeing makes room again. Large allocations cost only the pages
// a kernel touches.
#include <cstdio>

__global__ void touch(char* p, size_t stride) { p[threadIdx.x * stride] = char(threadIdx.x + 1); }
__global__ void sum(const char* p, size_t stride, int* out) { atomicAdd(out, p[threadIdx.x * stride]); }

int main() {
  const size_t gib = size_t(1) << 30;
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
  size_t free0 = 0, total = 0;
  cudaMemGetInfo(&free0, &total);
  printf("total %zu GiB, equal to totalGlobalMem: %s\n", total / gib, total == prop.totalGlobalMem ? "yes" : "no");

  char* tooBig = nullptr;
  cudaError_t e = cudaMalloc(&tooBig, total + 1);
  printf("cudaMalloc(total + 1): %s\n", cudaGetErrorName(e));
  printf("last error: %s\n", cudaGetErrorName(cudaGetLastError()));

  char *big = nullptr, *more = nullptr;
  e = cudaMalloc(&big, 60 * gib);
  printf("cudaMalloc(60 GiB): %s\n", cudaGetErrorName(e));
  size_t free1 = 0;
  cudaMemGetInfo(&free1, &total);
  printf("free went down by 60 GiB: %s\n", free0 - free1 == 60 * gib ? "yes" : "no");
  e = cudaMalloc(&more, 20 * gib);
  printf("cudaMalloc(20 GiB) with 60 GiB in use: %s\n", cudaGetErrorName(e));
  cudaGetLastError();
  cudaFree(big);
  e = cudaMalloc(&more, 20 * gib);
  printf("cudaMalloc(20 GiB) after cudaFree: %s\n", cudaGetErrorName(e));

  // 32 bytes, 512 MiB apart, in the 20 GiB allocation.
  const size_t stride = size_t(512) << 20;
  int* out = nullptr;
  cudaMalloc(&out, sizeof(int));
  cudaMemset(out, 0, sizeof(int));
  touch<<<1, 32>>>(more, stride);
  sum<<<1, 32>>>(more, stride, out);
  int total32 = 0;
  cudaMemcpy(&total32, out, sizeof(int), cudaMemcpyDeviceToHost);
  printf("sum of the touched bytes: %d\n", total32);
  cudaFree(more);
  cudaFree(out);
  return 0;
}
