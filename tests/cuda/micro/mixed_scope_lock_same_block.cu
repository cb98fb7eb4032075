// norace/mixed_scope_lock_same_block: one lock word used with block scope by
// one warp and with device scope by another warp of the same block: within
// a block the two scopes overlap.
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

// Block-scoped spin lock.
__device__ void lock_b(int *m) { while (atomicCAS_block(m, 0, 1) != 0); __threadfence_block(); }
__device__ void unlock_b(int *m) { __threadfence_block(); atomicExch_block(m, 0); }


__global__ void k(int *m, int *out) {
  __shared__ int s;
  if (threadIdx.x == 0) s = 0;
  __syncthreads();
  if (threadIdx.x == 0) { lock_b(m); s += 1; unlock_b(m); }
  if (threadIdx.x == 32) { lock(m); s += 1; unlock(m); }
  __syncthreads();
  if (threadIdx.x == 0) out[0] = s;
}

int main() {
  int *g, host[2];
  CHECK(cudaMalloc(&g, sizeof host));
  CHECK(cudaMemset(g, 0, sizeof host));
  k<<<1, 64>>>(g, g + 1);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(host, g, sizeof host, cudaMemcpyDeviceToHost));
  std::printf("mixed_scope_lock_same_block: s = %d\n", host[1]);
  CHECK(cudaFree(g));
  return 0;
}
