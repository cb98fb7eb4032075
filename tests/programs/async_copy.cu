// build: -arch=sm_80
// Asynchronous copies and memory barriers: cp.async through the pipeline
// primitives (commit_group / wait_group, zero fill), cuda::barrier (mbarrier
// init / arrive / test_wait) ordering shared-memory exchanges, and
// cuda::memcpy_async completing on a barrier (cp.async.mbarrier.arrive).
// The last kernel has a marked race: a thread reads its neighbour's
// cp.async destination before the copy was waited for.
#include <cstdio>
#include <cuda/barrier>
#include <cuda_pipeline.h>

constexpr int kThreads = 64;
constexpr int kStages = 4;

// Each thread streams kStages chunks through two shared buffers.
__global__ void pipelined(const int4* in, int* out) {
  __shared__ int4 buf[2][kThreads];
  int t = threadIdx.x;
  __pipeline_memcpy_async(&buf[0][t], &in[t], sizeof(int4));
  __pipeline_commit();
  int sum = 0;
  for (int s = 0; s < kStages; ++s) {
    if (s + 1 < kStages) __pipeline_memcpy_async(&buf[(s + 1) % 2][t], &in[(s + 1) * kThreads + t], sizeof(int4));
    __pipeline_commit();
    __pipeline_wait_prior(1);
    int4 v = buf[s % 2][t];
    sum += v.x + v.y + v.z + v.w;
  }
  out[t] = sum;
}

// A 16-byte copy of 8 source bytes: the rest is zero filled.
__global__ void zeroFill(const int4* in, int4* out) {
  __shared__ int4 s[kThreads];
  int t = threadIdx.x;
  s[t] = make_int4(-1, -1, -1, -1);
  __pipeline_memcpy_async(&s[t], &in[t], sizeof(int4), sizeof(int4) - 8);
  __pipeline_commit();
  __pipeline_wait_prior(0);
  out[t] = s[t];
}

// Neighbours exchange values through shared memory, ordered by a barrier.
__global__ void barrierExchange(int* out) {
  __shared__ int s[kThreads];
#pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  int t = threadIdx.x;
  if (t == 0) init(&bar, blockDim.x);
  __syncthreads();
  for (int round = 0; round < 2; ++round) {
    s[t] = t * 3 + round;
    bar.arrive_and_wait();
    out[round * kThreads + t] = s[(t + 1) % kThreads];
    bar.arrive_and_wait();
  }
}

// cuda::memcpy_async into shared memory, completed through the barrier.
__global__ void barrierCopy(const int* in, int* out) {
  __shared__ int s[kThreads];
#pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  int t = threadIdx.x;
  if (t == 0) init(&bar, blockDim.x);
  __syncthreads();
  cuda::memcpy_async(&s[t], &in[t], cuda::aligned_size_t<4>(sizeof(int)), bar);
  bar.arrive_and_wait();
  out[t] = s[kThreads - 1 - t];
}

__global__ void racyEarlyRead(const int* in, int* out) {
  __shared__ int s[kThreads];
  int t = threadIdx.x;
  __pipeline_memcpy_async(&s[t], &in[t], sizeof(int));
  __pipeline_commit();
  __syncthreads();
  int v = s[(t + 1) % kThreads];
  __pipeline_wait_prior(0);
  out[t] = v;
}

int main() {
  int4 host[kStages * kThreads];
  for (int i = 0; i < kStages * kThreads; ++i) host[i] = make_int4(i, 2 * i, 3 * i, 4 * i);
  int4 *dIn, *dOut4;
  int* dOut;
  cudaMalloc(&dIn, sizeof host);
  cudaMalloc(&dOut4, kThreads * sizeof(int4));
  cudaMalloc(&dOut, 2 * kThreads * sizeof(int));
  cudaMemcpy(dIn, host, sizeof host, cudaMemcpyHostToDevice);
  int bad = 0;

  pipelined<<<1, kThreads>>>(dIn, dOut);
  int out[2 * kThreads];
  cudaMemcpy(out, dOut, kThreads * sizeof(int), cudaMemcpyDeviceToHost);
  for (int t = 0; t < kThreads; ++t) {
    int want = 0;
    for (int s = 0; s < kStages; ++s) want += 10 * (s * kThreads + t);
    bad += out[t] != want;
  }
  printf("pipelined cp.async: %s\n", bad ? "MISMATCH" : "ok");

  zeroFill<<<1, kThreads>>>(dIn, dOut4);
  int4 z[kThreads];
  cudaMemcpy(z, dOut4, sizeof z, cudaMemcpyDeviceToHost);
  int zbad = 0;
  for (int t = 0; t < kThreads; ++t) zbad += z[t].x != t || z[t].y != 2 * t || z[t].z != 0 || z[t].w != 0;
  printf("zero fill: %s\n", zbad ? "MISMATCH" : "ok");
  bad += zbad;

  barrierExchange<<<1, kThreads>>>(dOut);
  cudaMemcpy(out, dOut, sizeof out, cudaMemcpyDeviceToHost);
  int xbad = 0;
  for (int r = 0; r < 2; ++r)
    for (int t = 0; t < kThreads; ++t) xbad += out[r * kThreads + t] != ((t + 1) % kThreads) * 3 + r;
  printf("barrier exchange: %s\n", xbad ? "MISMATCH" : "ok");
  bad += xbad;

  int seq[kThreads];
  for (int t = 0; t < kThreads; ++t) seq[t] = 1000 + t;
  int* dSeq;
  cudaMalloc(&dSeq, sizeof seq);
  cudaMemcpy(dSeq, seq, sizeof seq, cudaMemcpyHostToDevice);
  barrierCopy<<<1, kThreads>>>(dSeq, dOut);
  cudaMemcpy(out, dOut, kThreads * sizeof(int), cudaMemcpyDeviceToHost);
  int cbad = 0;
  for (int t = 0; t < kThreads; ++t) cbad += out[t] != 1000 + kThreads - 1 - t;
  printf("memcpy_async on a barrier: %s\n", cbad ? "MISMATCH" : "ok");
  bad += cbad;

  racyEarlyRead<<<1, kThreads>>>(dSeq, dOut);
  cudaDeviceSynchronize();
  printf("%s\n", bad ? "FAIL" : "PASS");
  return bad ? 1 : 0;
}
