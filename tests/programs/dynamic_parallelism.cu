// Dynamic parallelism (kernels launching kernels, built with -rdc=true
// -lcudadevrt: see dynamic_parallelism.flags): a child grid sees what its
// parent wrote before launching it; a kernel launches itself recursively into
// device-side streams; device-side cudaMalloc/cudaFree/cudaMemcpyAsync work.
// Each child is a checked launch of its own: the child that races with
// itself is reported at its own lines.
#include <cstdio>

__global__ void child(int* a) { a[threadIdx.x] += 1; }
__global__ void parent(int* a) {
  a[threadIdx.x] = threadIdx.x;
  __syncthreads();
  if (threadIdx.x == 0) child<<<1, 32>>>(a);
}

// Sums [lo, hi) of v into *out by halving: each half is a child grid.
__global__ void treeSum(const int* v, int lo, int hi, int* out) {
  if (hi - lo <= 4) {
    int s = 0;
    for (int i = lo; i < hi; ++i) s += v[i];
    atomicAdd(out, s);
    return;
  }
  cudaStream_t left, right;
  cudaStreamCreateWithFlags(&left, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&right, cudaStreamNonBlocking);
  int mid = (lo + hi) / 2;
  treeSum<<<1, 1, 0, left>>>(v, lo, mid, out);
  treeSum<<<1, 1, 0, right>>>(v, mid, hi, out);
  cudaStreamDestroy(left);
  cudaStreamDestroy(right);
}

__global__ void racyChild(int* a) {
  a[0] = threadIdx.x;  // races: every thread writes a[0]
}
__global__ void deviceMemory(int* out) {
  int* scratch;
  if (cudaMalloc(&scratch, 8 * sizeof(int)) != cudaSuccess) return;
  for (int i = 0; i < 8; ++i) scratch[i] = i * i;
  cudaMemcpyAsync(out, scratch, 8 * sizeof(int), cudaMemcpyDeviceToDevice, 0);
  cudaFree(scratch);
  racyChild<<<1, 2>>>(out + 8);
}

int main() {
  int *a, *v, *sum, *out;
  cudaMalloc(&a, 32 * sizeof(int));
  parent<<<1, 32>>>(a);
  printf("device-side launch: %s\n", cudaGetErrorName(cudaGetLastError()));
  int h[32] = {};
  cudaError_t e = cudaMemcpy(h, a, sizeof h, cudaMemcpyDeviceToHost);
  printf("copy: %s a[5]=%d\n", cudaGetErrorName(e), h[5]);

  int hv[64], expected = 0;
  for (int i = 0; i < 64; ++i) expected += hv[i] = i * 3 + 1;
  cudaMalloc(&v, sizeof hv);
  cudaMalloc(&sum, sizeof(int));
  cudaMemcpy(v, hv, sizeof hv, cudaMemcpyHostToDevice);
  cudaMemset(sum, 0, sizeof(int));
  treeSum<<<1, 1>>>(v, 0, 64, sum);
  int total = 0;
  cudaMemcpy(&total, sum, sizeof total, cudaMemcpyDeviceToHost);
  printf("recursive sum: %d (expected %d)\n", total, expected);

  cudaMalloc(&out, 16 * sizeof(int));
  deviceMemory<<<1, 1>>>(out);
  int ho[8] = {};
  e = cudaMemcpy(ho, out, sizeof ho, cudaMemcpyDeviceToHost);
  printf("device malloc+memcpy: %s %d %d\n", cudaGetErrorName(e), ho[3], ho[7]);
  return 0;
}
