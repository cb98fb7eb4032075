// predictable/last_block_ticket: the "last block" reduction. Each block
// writes its partial sum, fences and takes a ticket with atomicInc; the block
// that draws the last ticket fences, sums the partials and resets the counter.
// The tickets form an RMW chain that carries every block's release to the
// last block (hb rule 4), and the reset follows the last block's own RMW of
// the counter (same-location observation): gwcp and hb report nothing.
// lockset compares the reset only with the last write, the last block's own
// atomicInc, and its fence check covers the partials: nothing either.
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


__device__ int partial[4];

__global__ void k(int *count, int *sum, int *unused) {
  if (threadIdx.x == 0) {
    partial[blockIdx.x] = blockIdx.x + 1;
    __threadfence();
    unsigned ticket = atomicInc((unsigned *)count, gridDim.x);
    if (ticket == gridDim.x - 1) {
      __threadfence();
      int total = 0;
      for (int b = 0; b < gridDim.x; ++b) total += partial[b];
      *sum = total;
      *count = 0;  // reset for the next launch
    }
  }
}

int main() {
  int *g, host[4];
  CHECK(cudaMalloc(&g, sizeof host));
  CHECK(cudaMemset(g, 0, sizeof host));
  k<<<4, 32>>>(g, g + 1, g + 2);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(host, g, sizeof host, cudaMemcpyDeviceToHost));
  std::printf("last_block_ticket: %d %d %d\n", host[0], host[1], host[2]);
  CHECK(cudaFree(g));
  return 0;
}
