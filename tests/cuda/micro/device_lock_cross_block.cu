// norace/device_lock_cross_block: a device-scoped spin lock protecting a
// global sum across blocks; lane 0 of each warp adds its value.
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

// Device-scoped spin lock (the emulator infers acquire = successful CAS then
// fence, release = fence then exchange).
__device__ void lock(int *m) { while (atomicCAS(m, 0, 1) != 0); __threadfence(); }
__device__ void unlock(int *m) { __threadfence(); atomicExch(m, 0); }


__global__ void sum(int *m, int *total, const int *v) {
  if (threadIdx.x % 32 == 0) {
    lock(m);
    *total += v[blockIdx.x * blockDim.x + threadIdx.x];
    unlock(m);
  }
}

int main() {
  int host_v[128];
  for (int i = 0; i < 128; ++i) host_v[i] = i;
  int *g, *v, total = 0;
  CHECK(cudaMalloc(&g, 2 * sizeof(int)));
  CHECK(cudaMalloc(&v, sizeof host_v));
  CHECK(cudaMemset(g, 0, 2 * sizeof(int)));
  CHECK(cudaMemcpy(v, host_v, sizeof host_v, cudaMemcpyHostToDevice));
  sum<<<2, 64>>>(g, g + 1, v);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(&total, g + 1, sizeof total, cudaMemcpyDeviceToHost));
  std::printf("device_lock_cross_block: total = %d\n", total);
  CHECK(cudaFree(g));
  CHECK(cudaFree(v));
  return 0;
}
