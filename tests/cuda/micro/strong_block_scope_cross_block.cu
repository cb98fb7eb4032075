// dynamic/strong_block_scope_cross_block: a relaxed store at block scope
// read (relaxed, device scope) by another block: strong accesses, but the
// block scope of the store does not cover block 1, so they conflict.
// (cuda::atomic_ref<int, cuda::thread_scope_block>(*v).store(1, relaxed)
// compiles to the same st.relaxed.cta; inline PTX keeps the access on a line
// of this file.)
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


__device__ void store_relaxed_block(int *p, int v) {
  asm volatile("st.relaxed.cta.global.b32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
__device__ int load_relaxed_device(const int *p) {
  int v;
  asm volatile("ld.relaxed.gpu.global.b32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

__global__ void k(int *v, int *out) {
  if (blockIdx.x == 0 && threadIdx.x == 0) store_relaxed_block(v, 1);       // (A)
  if (blockIdx.x == 1 && threadIdx.x == 0) out[0] = load_relaxed_device(v); // (B)
}

int main() {
  int *buf, host[2];
  CHECK(cudaMalloc(&buf, sizeof host));
  CHECK(cudaMemset(buf, 0, sizeof host));
  k<<<2, 32>>>(buf, buf + 1);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(host, buf, sizeof host, cudaMemcpyDeviceToHost));
  std::printf("strong_block_scope_cross_block: v = %d, seen = %d\n", host[0], host[1]);
  CHECK(cudaFree(buf));
  return 0;
}
