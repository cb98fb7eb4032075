// reduction: sum of an array in one kernel (after the ScoR application). Each
// block reduces its part in shared memory (a tree with barriers, then a warp
// tail ordered by __syncwarp), publishes its partial sum and raises a flag;
// block 0 waits for every flag and adds the partial sums.
// Synchronization between blocks is message passing: partial write, device
// fence, atomic flag write; atomic flag read, device fence, partial read.
// -DRACEY injects the races the paper counts for reduction: the warp tail
// ordered by volatile alone (no __syncwarp), a block-scoped fence where the
// reader is in another block, and no fence at all on the reader's side.
#include "common.h"

#define BLOCK 128

__device__ void warpTail(float* s, int t) {
#ifdef RACEY
  volatile float* v = s;
  v[t] += v[t + 32];  // RACE: red-volatile-tail
  v[t] += v[t + 16];
  v[t] += v[t + 8];
  v[t] += v[t + 4];
  v[t] += v[t + 2];
  v[t] += v[t + 1];
#else
  for (int offset = 32; offset > 0; offset /= 2) {
    float other = s[t + offset];
    __syncwarp();
    s[t] += other;
    __syncwarp();
  }
#endif
}

__global__ void reduce(const float* in, float* partials, int* flags, float* result, int n) {
  __shared__ float s[BLOCK];
  int t = threadIdx.x;
  float sum = 0.0f;
  for (int i = blockIdx.x * BLOCK + t; i < n; i += gridDim.x * BLOCK) sum += in[i];
  s[t] = sum;
  __syncthreads();
  for (int stride = BLOCK / 2; stride > 32; stride /= 2) {
    if (t < stride) s[t] += s[t + stride];
    __syncthreads();
  }
  if (t < 32) warpTail(s, t);
  // Even blocks publish in the first half of `partials`, odd blocks in the
  // second, on their own source lines, so that the two injected fence races
  // are told apart by line (and the compiler cannot merge the two stores).
  if (t == 0 && blockIdx.x % 2 == 0) {
    partials[blockIdx.x] = s[0];  // RACE: red-fence-scope
#ifdef RACEY
    __threadfence_block();  // RACE: red-fence-scope
#else
    __threadfence();
#endif
    atomicExch(&flags[blockIdx.x], 1);
  } else if (t == 0) {
    partials[gridDim.x + blockIdx.x] = s[0];  // RACE: red-no-reader-fence
    __threadfence();
    atomicExch(&flags[blockIdx.x], 1);
  }
  if (blockIdx.x != 0) return;
  // Block 0 adds the partial sums: thread i waits for blocks 2i and 2i + 1.
  float mine = 0.0f;
  for (int b = 2 * t; b < gridDim.x; b += 2 * BLOCK) {  // even blocks
    while (atomicAdd(&flags[b], 0) == 0) {
    }
    __threadfence();
    mine += partials[b];  // RACE: red-fence-scope
  }
  for (int b = 2 * t + 1; b < gridDim.x; b += 2 * BLOCK) {  // odd blocks
    while (atomicAdd(&flags[b], 0) == 0) {
    }
#ifndef RACEY
    __threadfence();
#endif
    mine += partials[gridDim.x + b];  // RACE: red-no-reader-fence
  }
  __syncthreads();
  s[t] = mine;
  __syncthreads();
  for (int stride = BLOCK / 2; stride > 0; stride /= 2) {
    if (t < stride) s[t] += s[t + stride];
    __syncthreads();
  }
  if (t == 0) *result = s[0];
}

int main(int argc, char** argv) {
  Size size = parseSize(argc, argv);
  int n = pick(size, 1 << 12, 1 << 18, 1 << 22);
  int blocks = pick(size, 8, 64, 256);
  float* in = new float[n];
  Lcg rng(3);
  double ref = 0.0;
  for (int i = 0; i < n; ++i) ref += (in[i] = float(int(rng.next() % 9) - 4));
  float *d_in, *d_partials, *d_result;
  int* d_flags;
  CHECK(cudaMalloc(&d_in, n * sizeof(float)));
  CHECK(cudaMalloc(&d_partials, 2 * blocks * sizeof(float)));
  CHECK(cudaMalloc(&d_flags, blocks * sizeof(int)));
  CHECK(cudaMalloc(&d_result, sizeof(float)));
  CHECK(cudaMemcpy(d_in, in, n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(d_flags, 0, blocks * sizeof(int)));
  reduce<<<blocks, BLOCK>>>(d_in, d_partials, d_flags, d_result, n);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  float result = 0.0f;
  CHECK(cudaMemcpy(&result, d_result, sizeof(float), cudaMemcpyDeviceToHost));
  char detail[96];
  std::snprintf(detail, sizeof detail, "n=%d blocks=%d sum=%.1f reference=%.1f", n, blocks, result, ref);
  CHECK(cudaFree(d_in));
  CHECK(cudaFree(d_partials));
  CHECK(cudaFree(d_flags));
  CHECK(cudaFree(d_result));
  delete[] in;
  return verdict("reduction", result == float(ref), detail);
}
