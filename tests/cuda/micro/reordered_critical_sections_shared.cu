// predictable/reordered_critical_sections_shared: the same pattern in shared
// memory with a block-scoped lock, two warps of one block (t0 first, t32
// waits on a volatile flag). gwcp reports s; hb and lockset miss it.
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
  __shared__ int s, a, b, m;
  __shared__ volatile int flag;
  if (threadIdx.x == 0) { s = 0; a = 0; b = 0; m = 0; flag = 0; }
  __syncthreads();
  if (threadIdx.x == 0) {
    s = 1;  // (A)
    lock_b(&m);
    a += 1;
    unlock_b(&m);
    flag = 1;
  }
  if (threadIdx.x == 32) {
    while (flag == 0);
    lock_b(&m);
    b += 1;
    unlock_b(&m);
    out[0] = s;  // (B)
  }
}

int main() {
  int *out, host = -1;
  CHECK(cudaMalloc(&out, sizeof(int)));
  CHECK(cudaMemset(out, 0, sizeof(int)));
  k<<<1, 64>>>(out);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(&host, out, sizeof host, cudaMemcpyDeviceToHost));
  std::printf("reordered_critical_sections_shared: t32 read s = %d\n", host);
  CHECK(cudaFree(out));
  return 0;
}
