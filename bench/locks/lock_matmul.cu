// A lock-heavy matrix multiplication, the shape issue 13 measured gwcp on:
// C = A x B with C of ROWS x 32, one row of C per block of 128 threads.
// The block's 4 warps split the inner dimension K (warp w takes every 4th
// k); lane c of each warp adds its partial sum for column c into the
// block's shared row under the block-scoped lock of column c every CHUNK
// steps, so the 4 warps contend for each of the 32 locks. At the end
// thread 0 adds the block's row sum into a global total under one
// device-scoped lock that every block takes.
//
// Race-free: every shared update is under its lock (acquire: atomicCAS and
// a fence; release: a fence and atomicExch), the row is read after a
// __syncthreads, and the total only under the global lock. Built with
// -DRACEY, the last warp's final update of its column skips the lock: it
// races with the other warps' locked updates of that column.
#include <cstdio>
#include <vector>

#include "../apps/common.h"

namespace {

constexpr int kColumns = 32;
constexpr int kWarps = 4;
constexpr int kChunk = 2;  // k steps between two updates of a column

__device__ void addUnderBlockLock(int* lock, float* slot, float value) {
  for (bool done = false; !done;) {
    if (atomicCAS_block(lock, 0, 1) == 0) {
      __threadfence_block();
      *slot += value;
      __threadfence_block();
      atomicExch_block(lock, 0);
      done = true;
    }
  }
}

__device__ void addUnderDeviceLock(int* lock, float* total, float value) {
  for (bool done = false; !done;) {
    if (atomicCAS(lock, 0, 1) == 0) {
      __threadfence();
      *total += value;
      __threadfence();
      atomicExch(lock, 0);
      done = true;
    }
  }
}

__global__ void lockedMatmul(const float* a, const float* b, float* c, int k, int* globalLock, float* total) {
  __shared__ int locks[kColumns];
  __shared__ float row[kColumns];
  int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (threadIdx.x < kColumns) {
    locks[threadIdx.x] = 0;
    row[threadIdx.x] = 0.0f;
  }
  __syncthreads();
  const float* aRow = a + size_t(blockIdx.x) * k;
  float partial = 0.0f;
  int steps = 0;
  for (int i = warp; i < k; i += kWarps) {
    partial += aRow[i] * b[size_t(i) * kColumns + lane];
    if (++steps == kChunk && i + kWarps < k) {  // (the last chunk is added below)
      addUnderBlockLock(&locks[lane], &row[lane], partial);
      partial = 0.0f;
      steps = 0;
    }
  }
#ifdef RACEY
  if (warp == kWarps - 1) row[lane] += partial;  // RACE: unlocked
  else
#endif
    addUnderBlockLock(&locks[lane], &row[lane], partial);
  __syncthreads();
  if (threadIdx.x < kColumns) c[size_t(blockIdx.x) * kColumns + threadIdx.x] = row[threadIdx.x];
  if (threadIdx.x == 0) {
    float sum = 0.0f;
    for (int j = 0; j < kColumns; ++j) sum += row[j];
    addUnderDeviceLock(globalLock, total, sum);
  }
}

}  // namespace

int main(int argc, char** argv) {
  Size size = parseSize(argc, argv);
  // small: ctest; large: the issue's 16 blocks; paper: its authors' 120 blocks.
  int rows = pick(size, 4, 16, 120), k = pick(size, 64, 1024, 2048);
  std::vector<float> a(size_t(rows) * k), b(size_t(k) * kColumns);
  Lcg lcg(13);
  for (float& x : a) x = lcg.uniform() - 0.5f;
  for (float& x : b) x = lcg.uniform() - 0.5f;

  float *da, *db, *dc, *dtotal;
  int* dlock;
  CHECK(cudaMalloc(&da, a.size() * sizeof(float)));
  CHECK(cudaMalloc(&db, b.size() * sizeof(float)));
  CHECK(cudaMalloc(&dc, size_t(rows) * kColumns * sizeof(float)));
  CHECK(cudaMalloc(&dtotal, sizeof(float)));
  CHECK(cudaMalloc(&dlock, sizeof(int)));
  CHECK(cudaMemcpy(da, a.data(), a.size() * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(db, b.data(), b.size() * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(dtotal, 0, sizeof(float)));
  CHECK(cudaMemset(dlock, 0, sizeof(int)));
  lockedMatmul<<<rows, kWarps * 32>>>(da, db, dc, k, dlock, dtotal);
  CHECK(cudaGetLastError());
  std::vector<float> c(size_t(rows) * kColumns);
  float total = 0.0f;
  CHECK(cudaMemcpy(c.data(), dc, c.size() * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&total, dtotal, sizeof(float), cudaMemcpyDeviceToHost));

  bool ok = true;
  double expectedTotal = 0.0;
  for (int r = 0; r < rows; ++r)
    for (int col = 0; col < kColumns; ++col) {
      double want = 0.0;
      for (int i = 0; i < k; ++i) want += double(a[size_t(r) * k + i]) * b[size_t(i) * kColumns + col];
      ok &= near(c[size_t(r) * kColumns + col], want, 1e-3);
      expectedTotal += want;
    }
  ok &= near(total, expectedTotal, 1e-3);
  char detail[128];
  std::snprintf(detail, sizeof detail, "rows=%d k=%d total=%.3f reference=%.3f", rows, k, total, expectedTotal);
  cudaFree(da), cudaFree(db), cudaFree(dc), cudaFree(dtotal), cudaFree(dlock);
  return verdict("lock_matmul", ok, detail);
}
