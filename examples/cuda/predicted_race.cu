// A predicted race that the observed run hides: PreDataR (gwcp) reports it,
// a happens-before detector (hb) does not.
//
// Two blocks build a histogram. Each block counts its 32 inputs in a shared
// histogram, then thread 0 merges the non-empty bins into the global
// histogram under a spin lock and publishes how many inputs its block
// counted in block_total[]. Block 1 then adds up the grand total -- reading
// block 0's block_total[0] WITHOUT any synchronization, trusting that "block
// 0 took the lock before us, so its total is there".
//
// In the run we observe, block 0 does go first (the volatile `turn` flag
// below forces that interleaving, as the paper does; it orders nothing). A
// happens-before detector sees
//     block 0: block_total[0] = 32  ->  unlock(lock)  ->  block 1: lock(lock)  ->  read block_total[0]
// and calls the read ordered. But the two critical sections touch different
// bins (block 0's inputs fall in bins 0-3, block 1's in bins 4-7): they do
// not conflict, so they could just as well run in the other order -- and
// then block 1 reads block_total[0] before block 0 writes it (a wrong grand
// total). GWCP orders critical sections only when they conflict, so
// `predatar run -- ./predicted_race` reports the race (lines marked below),
// while `predatar run --detectors hb` reports nothing.
//
// Build: nvcc -cudart shared -lineinfo -arch=sm_75 -o predicted_race predicted_race.cu
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

constexpr int kBins = 8;
constexpr int kThreads = 32;

__device__ void lock(int *m) { while (atomicCAS(m, 0, 1) != 0); __threadfence(); }
__device__ void unlock(int *m) { __threadfence(); atomicExch(m, 0); }

__global__ void histogram(const int *in, int *bins, int *lock_word,
                          int *block_total, int *grand_total, int *turn) {
  __shared__ int local[kBins];
  if (threadIdx.x < kBins) local[threadIdx.x] = 0;
  __syncthreads();
  atomicAdd_block(&local[in[blockIdx.x * kThreads + threadIdx.x] % kBins], 1);
  __syncthreads();
  if (threadIdx.x != 0) return;

  if (blockIdx.x == 1) while (*(volatile int *)turn == 0);  // observed run: block 0 first

  block_total[blockIdx.x] = kThreads;  // RACE (write): published without synchronization
  lock(lock_word);
  for (int b = 0; b < kBins; ++b)
    if (local[b] != 0) bins[b] += local[b];
  unlock(lock_word);

  if (blockIdx.x == 0) *(volatile int *)turn = 1;
  if (blockIdx.x == 1)
    *grand_total = block_total[0] + block_total[1];  // RACE (read): block 0 may not be done
}

int main() {
  const int blocks = 2, n = blocks * kThreads;
  int host_in[n];
  for (int i = 0; i < n; ++i) host_in[i] = (i < kThreads) ? i % 4 : 4 + i % 4;
  int *in, *g;  // g: bins[8], lock, block_total[2], grand_total, turn
  CHECK(cudaMalloc(&in, sizeof host_in));
  CHECK(cudaMalloc(&g, (kBins + 5) * sizeof(int)));
  CHECK(cudaMemset(g, 0, (kBins + 5) * sizeof(int)));
  CHECK(cudaMemcpy(in, host_in, sizeof host_in, cudaMemcpyHostToDevice));
  histogram<<<blocks, kThreads>>>(in, g, g + kBins, g + kBins + 1, g + kBins + 3, g + kBins + 4);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  int host[kBins + 5];
  CHECK(cudaMemcpy(host, g, sizeof host, cudaMemcpyDeviceToHost));
  std::printf("histogram:");
  for (int b = 0; b < kBins; ++b) std::printf(" %d", host[b]);
  std::printf("\ngrand total: %d (expected %d)\n", host[kBins + 3], n);
  CHECK(cudaFree(in));
  CHECK(cudaFree(g));
  return 0;
}
