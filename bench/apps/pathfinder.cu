// pathfinder: the cheapest path from the top row to the bottom row of a grid
// of weights, moving down, down-left or down-right (after the Rodinia
// application). Dynamic programming row by row; a block advances a strip of
// columns PYRAMID rows per launch in shared memory (the valid region shrinks
// by one column either side per row), so barriers separate reading the
// previous row from writing the next.
// -DRACEY removes the load-bearing barriers: after loading the strip, and
// between computing a row and copying it over the previous one.
#include "common.h"

#define BLOCK 64
#define PYRAMID 4
#define OUT (BLOCK - 2 * PYRAMID)

__device__ __host__ inline int min3(int a, int b, int c) { return a < b ? (a < c ? a : c) : (b < c ? b : c); }

__global__ void dynproc(const int* wall, const int* src, int* dst, int cols, int startRow, int rowsLeft) {
  __shared__ int prev[BLOCK], result[BLOCK];
  int t = threadIdx.x;
  int col = blockIdx.x * OUT - PYRAMID + t;
  bool inside = col >= 0 && col < cols;
  if (inside) prev[t] = src[col];
#ifndef RACEY
  __syncthreads();
#endif
  int steps = rowsLeft < PYRAMID ? rowsLeft : PYRAMID;
  for (int i = 0; i < steps; ++i) {
    bool active = inside && t > i && t < BLOCK - 1 - i;
    if (active) {
      int left = col > 0 ? prev[t - 1] : prev[t];  // RACE: pf-barriers
      int right = col < cols - 1 ? prev[t + 1] : prev[t];  // RACE: pf-barriers
      result[t] = min3(left, prev[t], right) + wall[(startRow + i) * cols + col];
    }
#ifndef RACEY
    __syncthreads();
#endif
    if (active) prev[t] = result[t];  // RACE: pf-barriers
    __syncthreads();
  }
  if (inside && t >= PYRAMID && t < BLOCK - PYRAMID) dst[col] = prev[t];
}

int main(int argc, char** argv) {
  Size size = parseSize(argc, argv);
  int cols = pick(size, 256, 4096, 100000), rows = pick(size, 9, 33, 100);
  int* wall = new int[rows * cols];
  int* ref = new int[cols];
  int* next = new int[cols];
  int* got = new int[cols];
  Lcg rng(8);
  for (int i = 0; i < rows * cols; ++i) wall[i] = int(rng.next() % 10);
  for (int c = 0; c < cols; ++c) ref[c] = wall[c];
  for (int r = 1; r < rows; ++r) {
    for (int c = 0; c < cols; ++c) {
      int left = c > 0 ? ref[c - 1] : ref[c], right = c < cols - 1 ? ref[c + 1] : ref[c];
      next[c] = min3(left, ref[c], right) + wall[r * cols + c];
    }
    std::memcpy(ref, next, cols * sizeof(int));
  }
  int *d_wall, *d_a, *d_b;
  CHECK(cudaMalloc(&d_wall, rows * cols * sizeof(int)));
  CHECK(cudaMalloc(&d_a, cols * sizeof(int)));
  CHECK(cudaMalloc(&d_b, cols * sizeof(int)));
  CHECK(cudaMemcpy(d_wall, wall, rows * cols * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_a, wall, cols * sizeof(int), cudaMemcpyHostToDevice));
  int blocks = (cols + OUT - 1) / OUT;
  for (int r = 1; r < rows; r += PYRAMID) {
    dynproc<<<blocks, BLOCK>>>(d_wall, d_a, d_b, cols, r, rows - r);
    CHECK(cudaGetLastError());
    int* swap = d_a;
    d_a = d_b;
    d_b = swap;
  }
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(got, d_a, cols * sizeof(int), cudaMemcpyDeviceToHost));
  bool ok = std::memcmp(got, ref, cols * sizeof(int)) == 0;
  char detail[96];
  std::snprintf(detail, sizeof detail, "grid=%dx%d cost[0]=%d reference=%d", rows, cols, got[0], ref[0]);
  CHECK(cudaFree(d_wall));
  CHECK(cudaFree(d_a));
  CHECK(cudaFree(d_b));
  delete[] wall;
  delete[] ref;
  delete[] next;
  delete[] got;
  return verdict("pathfinder", ok, detail);
}
