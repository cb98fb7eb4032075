// norace/block_lock_one_block: a block-scoped lock protecting a shared
// counter inside each block; lane 0 of each warp updates it. (The lock word
// is per block, in shared memory: one global word taken with block-scoped
// atomics by two blocks would itself be racy.)
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

// Block-scoped spin lock.
__device__ void lock_b(int *m) { while (atomicCAS_block(m, 0, 1) != 0); __threadfence_block(); }
__device__ void unlock_b(int *m) { __threadfence_block(); atomicExch_block(m, 0); }


__global__ void k(int *out) {
  __shared__ int s, m;
  if (threadIdx.x == 0) { s = 0; m = 0; }
  __syncthreads();
  if (threadIdx.x % 32 == 0) {
    lock_b(&m);
    s += 1;
    unlock_b(&m);
  }
  __syncthreads();
  if (threadIdx.x == 0) out[blockIdx.x] = s;
}

int main() {
  int *out, host[2];
  CHECK(cudaMalloc(&out, sizeof host));
  CHECK(cudaMemset(out, 0, sizeof host));
  k<<<2, 64>>>(out);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(host, out, sizeof host, cudaMemcpyDeviceToHost));
  std::printf("block_lock_one_block: s = %d %d\n", host[0], host[1]);
  CHECK(cudaFree(out));
  return 0;
}
