// threadfencereduction: single-pass sum of an array (after the CUDA sample's
// algorithm). Every block reduces its part in shared memory (a tree with
// barriers, then a warp tail with shuffles), thread 0 stores the block's
// partial sum, fences and takes a ticket with an atomic; the block that takes
// the last ticket fences, adds every partial sum and resets the counter.
// -DRACEY injects the races the paper counts for thrfenred: the warp tail on
// volatile shared memory with no __syncwarp (intra-warp races), no fences
// around the ticket, a plain read of the ticket counter beside the atomics,
// and no barrier after the "am I last" decision.
#include "common.h"

#define BLOCK 128

__device__ unsigned int retirementCount = 0;

__device__ float blockSum(float* s, float mine) {
  int t = threadIdx.x;
  s[t] = mine;
  __syncthreads();
  for (int stride = BLOCK / 2; stride > 32; stride /= 2) {
    if (t < stride) s[t] += s[t + stride];
    __syncthreads();
  }
  float sum = 0.0f;
  if (t < 32) {
#ifdef RACEY
    volatile float* v = s;
    v[t] += v[t + 32];  // RACE: tfr-volatile-tail
    v[t] += v[t + 16];  // RACE: tfr-volatile-tail
    v[t] += v[t + 8];  // RACE: tfr-volatile-tail
    v[t] += v[t + 4];  // RACE: tfr-volatile-tail
    v[t] += v[t + 2];  // RACE: tfr-volatile-tail
    v[t] += v[t + 1];  // RACE: tfr-volatile-tail
    sum = v[0];
#else
    sum = s[t] + s[t + 32];
    for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset);
#endif
  }
  return sum;  // meaningful in thread 0
}

__global__ void reduceSinglePass(const float* in, float* partials, float* result, int n) {
  __shared__ float s[BLOCK];
  __shared__ bool amLast;
  int t = threadIdx.x;
  float mine = 0.0f;
  for (int i = blockIdx.x * BLOCK + t; i < n; i += gridDim.x * BLOCK) mine += in[i];
  float sum = blockSum(s, mine);
  if (t == 0) {
    partials[blockIdx.x] = sum;
#ifdef RACEY
    atomicAdd(&retirementCount, 1);
    amLast = retirementCount == gridDim.x;  // RACE: tfr-mixed
#else
    __threadfence();
    unsigned ticket = atomicAdd(&retirementCount, 1);
    __threadfence();
    amLast = ticket == gridDim.x - 1;
#endif
  }
#ifndef RACEY
  __syncthreads();
#endif
  if (amLast) {  // RACE: tfr-amlast-barrier
    float total = 0.0f;
    __syncthreads();
    for (int b = t; b < gridDim.x; b += BLOCK) total += partials[b];  // RACE: tfr-fence
    total = blockSum(s, total);
    if (t == 0) {
      *result = total;
      atomicExch(&retirementCount, 0u);  // atomic: other blocks' atomics touched it in this launch
    }
  }
}

int main(int argc, char** argv) {
  Size size = parseSize(argc, argv);
  int n = pick(size, 1 << 12, 1 << 18, 1 << 20), blocks = pick(size, 8, 64, 64);
  float* in = new float[n];
  Lcg rng(17);
  double ref = 0.0;
  for (int i = 0; i < n; ++i) ref += (in[i] = float(int(rng.next() % 7) - 3));
  float *d_in, *d_partials, *d_result;
  CHECK(cudaMalloc(&d_in, n * sizeof(float)));
  CHECK(cudaMalloc(&d_partials, blocks * sizeof(float)));
  CHECK(cudaMalloc(&d_result, sizeof(float)));
  CHECK(cudaMemcpy(d_in, in, n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(d_result, 0, sizeof(float)));
  bool ok = true;
  float result = 0.0f;
  // Twice: the second pass relies on the last block's reset of the counter.
  for (int pass = 0; pass < 2; ++pass) {
    reduceSinglePass<<<blocks, BLOCK>>>(d_in, d_partials, d_result, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(&result, d_result, sizeof(float), cudaMemcpyDeviceToHost));
    ok = ok && result == float(ref);
  }
  char detail[96];
  std::snprintf(detail, sizeof detail, "n=%d blocks=%d sum=%.1f reference=%.1f", n, blocks, result, ref);
  CHECK(cudaFree(d_in));
  CHECK(cudaFree(d_partials));
  CHECK(cudaFree(d_result));
  delete[] in;
  return verdict("threadfencereduction", ok, detail);
}
