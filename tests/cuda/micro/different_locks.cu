// dynamic/different_locks: two blocks protect the same word with different
// locks.
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


__global__ void k(int *a, int *b, int *x) {
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    lock(a);
    *x += 1;  // (A)
    unlock(a);
  }
  if (blockIdx.x == 1 && threadIdx.x == 0) {
    lock(b);
    *x += 1;  // (B)
    unlock(b);
  }
}

int main() {
  int *buf, host[3];
  CHECK(cudaMalloc(&buf, sizeof host));
  CHECK(cudaMemset(buf, 0, sizeof host));
  k<<<2, 32>>>(buf, buf + 1, buf + 2);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(host, buf, sizeof host, cudaMemcpyDeviceToHost));
  std::printf("different_locks: x = %d\n", host[2]);
  CHECK(cudaFree(buf));
  return 0;
}
