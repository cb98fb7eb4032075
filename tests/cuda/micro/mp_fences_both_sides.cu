// predictable/mp_fences_both_sides: message passing with a fence on both
// sides (hb rule 4): the producer fences before its atomic flag write, the
// consumer after its atomic flag read. No detector reports anything.
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


__global__ void k(int *data, int *flag, int *out) {
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    *data = 42;
    __threadfence();
    atomicExch(flag, 1);
  }
  if (blockIdx.x == 1 && threadIdx.x == 0) {
    while (atomicAdd(flag, 0) == 0);
    __threadfence();
    out[0] = *data;
  }
}

int main() {
  int *g, host[4];
  CHECK(cudaMalloc(&g, sizeof host));
  CHECK(cudaMemset(g, 0, sizeof host));
  k<<<2, 32>>>(g, g + 1, g + 2);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(host, g, sizeof host, cudaMemcpyDeviceToHost));
  std::printf("mp_fences_both_sides: %d %d %d\n", host[0], host[1], host[2]);
  CHECK(cudaFree(g));
  return 0;
}
