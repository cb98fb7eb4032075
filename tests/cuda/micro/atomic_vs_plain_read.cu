// dynamic/atomic_vs_plain_read: block 0 counts with atomicAdd, block 1 reads
// the counter with a plain load (a plain read conflicts with an atomic).
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


__global__ void k(int *cnt, int *out) {
  if (blockIdx.x == 0) atomicAdd(cnt, 1);         // (A)
  else if (threadIdx.x == 0) out[0] = *cnt;       // (B)
}

int main() {
  int *buf, host[2];
  CHECK(cudaMalloc(&buf, sizeof host));
  CHECK(cudaMemset(buf, 0, sizeof host));
  k<<<2, 32>>>(buf, buf + 1);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(host, buf, sizeof host, cudaMemcpyDeviceToHost));
  std::printf("atomic_vs_plain_read: cnt = %d, seen = %d\n", host[0], host[1]);
  CHECK(cudaFree(buf));
  return 0;
}
