// An atomics-heavy histogram, the shape issue 13 item 2 measures: every
// thread of a big grid adds its input element's bin with a device-scoped
// atomicAdd to one of 256 global bins, so each bin word is updated by
// thousands of threads of hundreds of blocks in one launch. Sizes (threads):
// small 2^16 (ctest), large 2^20, paper 2^22; large and paper together show
// whether the detectors' cost stays linear in the threads.
//
// Race-free: the bins are only touched by atomics during the launch and read
// by the host after it. Built with -DRACEY, thread 0 of the last block reads
// bin 0 with a plain load while other blocks may still add to it.
#include <cstdio>
#include <vector>

#include "../apps/common.h"

namespace {

constexpr int kBins = 256;
constexpr int kBlockThreads = 256;

__global__ void histogram(const unsigned* input, unsigned* bins, unsigned* peek, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&bins[input[i] % kBins], 1u);
#ifdef RACEY
  if (blockIdx.x == gridDim.x - 1 && threadIdx.x == 0) *peek = bins[0];  // RACE: plain read of an atomically updated bin
#endif
}

}  // namespace

int main(int argc, char** argv) {
  Size size = parseSize(argc, argv);
  int n = pick(size, 1 << 16, 1 << 20, 1 << 22);
  std::vector<unsigned> input(n);
  std::vector<unsigned> expected(kBins, 0);
  Lcg rng(7);
  for (int i = 0; i < n; ++i) ++expected[(input[i] = rng.next() >> 8) % kBins];
  unsigned *dInput, *dBins, *dPeek;
  CHECK(cudaMalloc(&dInput, n * sizeof(unsigned)));
  CHECK(cudaMalloc(&dBins, kBins * sizeof(unsigned)));
  CHECK(cudaMalloc(&dPeek, sizeof(unsigned)));
  CHECK(cudaMemcpy(dInput, input.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(dBins, 0, kBins * sizeof(unsigned)));
  histogram<<<(n + kBlockThreads - 1) / kBlockThreads, kBlockThreads>>>(dInput, dBins, dPeek, n);
  CHECK(cudaGetLastError());
  std::vector<unsigned> bins(kBins);
  CHECK(cudaMemcpy(bins.data(), dBins, kBins * sizeof(unsigned), cudaMemcpyDeviceToHost));
  int wrong = 0;
  for (int b = 0; b < kBins; ++b) wrong += bins[b] != expected[b];
  char detail[96];
  std::snprintf(detail, sizeof detail, "%d threads, %d of %d bins wrong", n, wrong, kBins);
  CHECK(cudaFree(dInput));
  CHECK(cudaFree(dBins));
  CHECK(cudaFree(dPeek));
  return verdict("atomic_histogram", wrong == 0, detail);
}
