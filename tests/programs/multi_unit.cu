// A program of two translation units (nvcc -rdc=true; the other one is
// units/multi_unit_lib.cu): its PTX units are linked into one module, so a
// kernel calls a device function and reads a variable of the other unit,
// launches of the other unit's kernels are checked like any other, names
// with internal linkage stay each unit's own, and the source lines of both
// units are right in race reports.
#include <cstdio>

extern __device__ int offset;
__device__ int scaleAndShift(int x);
__global__ void libraryKernel(int* out);
__global__ void racyLibraryKernel(int* counter);

static __device__ int twice(int x) { return 20 * x; }  // not the other unit's twice()

template <int N>
__device__ int addN(int x) { return x + N; }

__global__ void mainKernel(int* out) {
  int i = threadIdx.x;
  out[i] = scaleAndShift(i) + twice(1) + addN<7>(0) + offset;
  if (i == 0) printf("main kernel: %d\n", out[0]);
}

__global__ void childLauncher(int* out) {
  if (threadIdx.x == 0) libraryKernel<<<1, 32>>>(out);
}

int main() {
  int* out;
  cudaMalloc(&out, 32 * sizeof(int));
  mainKernel<<<1, 32>>>(out);
  int host[32];
  cudaMemcpy(host, out, sizeof host, cudaMemcpyDeviceToHost);
  bool ok = true;
  for (int i = 0; i < 32; ++i) ok = ok && host[i] == 2 * i + 100 + 20 + 7 + 100;
  printf("cross-unit call and variable: %s\n", ok ? "correct" : "WRONG");

  libraryKernel<<<1, 32>>>(out);
  cudaMemcpy(host, out, sizeof host, cudaMemcpyDeviceToHost);
  printf("kernel of the other unit: %s\n", host[31] == 38 ? "correct" : "WRONG");

  childLauncher<<<1, 32>>>(out);
  cudaError_t child = cudaDeviceSynchronize();
  printf("launched from the device: %s\n", cudaGetErrorString(child));

  racyLibraryKernel<<<1, 64>>>(out);
  cudaDeviceSynchronize();
  cudaFree(out);
  return 0;
}
