// Dynamic parallelism (a kernel launching a kernel, built with -rdc=true
// -lcudadevrt: see dynamic_parallelism_refused.flags) is refused by name with
// cudaErrorNotSupported, not a sticky error: later host calls still work.
#include <cstdio>

__global__ void child(int* a) { a[threadIdx.x] += 1; }
__global__ void parent(int* a) {
  a[threadIdx.x] = threadIdx.x;
  __syncthreads();
  if (threadIdx.x == 0) child<<<1, 32>>>(a);
}

int main() {
  int* a;
  cudaMalloc(&a, 32 * sizeof(int));
  parent<<<1, 32>>>(a);
  printf("device-side launch: %s\n", cudaGetErrorName(cudaGetLastError()));
  int h[32] = {};
  cudaError_t e = cudaMemcpy(h, a, sizeof h, cudaMemcpyDeviceToHost);
  printf("copy: %s a[5]=%d\n", cudaGetErrorName(e), h[5]);
  return 0;
}
