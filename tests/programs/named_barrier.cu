// Warp specialization with named barriers: in each block a producer warp
// fills a shared tile and a consumer warp sums it, handing the tile back and
// forth through two named barriers (bar.arrive: go on without waiting;
// bar.sync: wait for the phase). The first kernel is race free; the second
// also writes a progress word right after its bar.arrive, which the consumer
// reads after its bar.sync: nothing orders that write before the read (an
// arrive only releases what came before it), a race at lines 50 and 55.
#include <cstdio>

constexpr int kTile = 32;
constexpr int kRounds = 4;
constexpr unsigned kFull = 1, kEmpty = 2, kPair = 64;  // barrier ids, threads of both warps

__device__ void arrive(unsigned id) { asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(kPair) : "memory"); }
__device__ void wait(unsigned id) { asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(kPair) : "memory"); }

__global__ void pipeline(const int* in, int* out) {
  __shared__ int tile[kTile];
  int lane = threadIdx.x % 32;
  bool producer = threadIdx.x < 32;
  int sum = 0;
  for (int r = 0; r < kRounds; ++r) {
    if (producer) {
      if (r > 0) wait(kEmpty);  // the consumer is done with the last tile
      tile[lane] = in[(blockIdx.x * kRounds + r) * kTile + lane];
      arrive(kFull);
    } else {
      wait(kFull);
      sum += tile[(lane + r) % kTile];
      if (r + 1 < kRounds) arrive(kEmpty);
    }
  }
  if (!producer) out[blockIdx.x * 32 + lane] = sum;
}

__global__ void pipelineWithProgress(const int* in, int* out, int* seen) {
  __shared__ int tile[kTile];
  __shared__ int progress[32];
  int lane = threadIdx.x % 32;
  bool producer = threadIdx.x < 32;
  int sum = 0;
  if (producer) progress[lane] = -1;
  __syncthreads();
  for (int r = 0; r < kRounds; ++r) {
    if (producer) {
      if (r > 0) wait(kEmpty);
      tile[lane] = in[(blockIdx.x * kRounds + r) * kTile + lane];
      arrive(kFull);
      // After the arrive: the consumer may read it before or after this.
      progress[lane] = r;
    } else {
      wait(kFull);
      sum += tile[(lane + r) % kTile];
      // Too early: the producer's write of this round is not ordered before.
      seen[blockIdx.x * 32 + lane] = progress[lane];
      if (r + 1 < kRounds) arrive(kEmpty);
    }
  }
  if (!producer) out[blockIdx.x * 32 + lane] = sum;
}

int check(const char* name, const int* in, const int* out, int blocks) {
  for (int b = 0; b < blocks; ++b)
    for (int lane = 0; lane < 32; ++lane) {
      int expect = 0;
      for (int r = 0; r < kRounds; ++r) expect += in[(b * kRounds + r) * kTile + (lane + r) % kTile];
      if (out[b * 32 + lane] != expect) {
        printf("%s: block %d lane %d: %d, expected %d\n", name, b, lane, out[b * 32 + lane], expect);
        return 1;
      }
    }
  printf("%s: ok\n", name);
  return 0;
}

int main() {
  const int blocks = 3, n = blocks * kRounds * kTile;
  int *in, *out, *seen;
  cudaMallocManaged(&in, n * sizeof(int));
  cudaMallocManaged(&out, blocks * 32 * sizeof(int));
  cudaMallocManaged(&seen, blocks * 32 * sizeof(int));
  for (int i = 0; i < n; ++i) in[i] = (i * 7) % 13;
  int failed = 0;
  pipeline<<<blocks, 64>>>(in, out);
  cudaDeviceSynchronize();
  failed |= check("pipeline", in, out, blocks);
  pipelineWithProgress<<<blocks, 64>>>(in, out, seen);
  cudaError_t err = cudaDeviceSynchronize();
  failed |= check("pipeline with progress", in, out, blocks);
  if (err != cudaSuccess) printf("error: %s\n", cudaGetErrorString(err));
  printf(failed || err != cudaSuccess ? "FAIL\n" : "PASS\n");
  return failed;
}
