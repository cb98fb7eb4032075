// predictable/lock_handshake: a lock used as a handshake: block 1 takes and
// releases m (an empty critical section), then reads data block 0 wrote in
// its critical section. gwcp and lockset report d; hb misses it.
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


__global__ void k(int *m, int *d, int *flag, int *out) {
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    lock(m);
    *d = 1;  // (A)
    unlock(m);
    *(volatile int *)flag = 1;
  }
  if (blockIdx.x == 1 && threadIdx.x == 0) {
    while (*(volatile int *)flag == 0);
    lock(m);
    unlock(m);
    out[0] = *d;  // (B)
  }
}

int main() {
  int *g, host[4];
  CHECK(cudaMalloc(&g, sizeof host));
  CHECK(cudaMemset(g, 0, sizeof host));
  k<<<2, 32>>>(g, g + 1, g + 2, g + 3);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(host, g, sizeof host, cudaMemcpyDeviceToHost));
  std::printf("lock_handshake: block 1 read d = %d\n", host[3]);
  CHECK(cudaFree(g));
  return 0;
}
