// A block's threads spin on a shared counter that they all update
// atomically until it reaches a target (a block's work counter; the shape
// of simpleAttributes' kernel), each also updating its own global word:
// every access to the counter meets the records of the block's threads.
// Sizes: small 2 blocks and 4 iterations a thread (ctest), large 8 blocks
// and 64, paper 32 blocks and 256, of 1024 threads each.
//
// Race-free: the loop reads the counter with an atomic. Built with -DRACEY,
// it reads it with a plain load while the other threads add to it.
#include <cstdio>
#include <vector>

#include "../apps/common.h"

namespace {

constexpr int kBlockThreads = 1024;

__global__ void spin(unsigned* iterations, unsigned* totals, unsigned target) {
  __shared__ unsigned count;
  unsigned me = blockIdx.x * blockDim.x + threadIdx.x;
  if (threadIdx.x == 0) count = 0;
  __syncthreads();
#ifdef RACEY
  while (count < target) {  // RACE: plain read of a counter the block's threads add to
#else
  while (atomicOr(&count, 0u) < target) {
#endif
    ++iterations[me];
    atomicAdd(&count, 1u);
  }
  __syncthreads();
  if (threadIdx.x == 0) totals[blockIdx.x] = count;
}

}  // namespace

int main(int argc, char** argv) {
  Size size = parseSize(argc, argv);
  int blocks = pick(size, 2, 8, 32);
  unsigned target = kBlockThreads * pick(size, 4u, 64u, 256u);
  int threads = blocks * kBlockThreads;
  unsigned *dIterations, *dTotals;
  CHECK(cudaMalloc(&dIterations, threads * sizeof(unsigned)));
  CHECK(cudaMalloc(&dTotals, blocks * sizeof(unsigned)));
  CHECK(cudaMemset(dIterations, 0, threads * sizeof(unsigned)));
  spin<<<blocks, kBlockThreads>>>(dIterations, dTotals, target);
  CHECK(cudaGetLastError());
  std::vector<unsigned> iterations(threads), totals(blocks);
  CHECK(cudaMemcpy(iterations.data(), dIterations, threads * sizeof(unsigned), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(totals.data(), dTotals, blocks * sizeof(unsigned), cudaMemcpyDeviceToHost));
  // Each block's counter ends at the sum of its threads' additions, at least the target.
  int wrong = 0;
  for (int b = 0; b < blocks; ++b) {
    unsigned sum = 0;
    for (int t = 0; t < kBlockThreads; ++t) sum += iterations[b * kBlockThreads + t];
    wrong += sum != totals[b] || totals[b] < target;
  }
  char detail[96];
  std::snprintf(detail, sizeof detail, "%d blocks of %d threads, %d counters wrong", blocks, kBlockThreads, wrong);
  CHECK(cudaFree(dIterations));
  CHECK(cudaFree(dTotals));
  return verdict("block_counter", wrong == 0, detail);
}
