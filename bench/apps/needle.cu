// needle: Needleman-Wunsch global sequence alignment (after the Rodinia
// application). The (n+1)x(n+1) score matrix is computed in 16x16 tiles, one
// kernel launch per anti-diagonal of tiles; inside a tile the 16 threads
// sweep the tile's own anti-diagonals, with a barrier between diagonals.
// -DRACEY removes the load-bearing barriers: after loading the tile's top
// row, left column and similarity scores, and between two diagonals.
#include "common.h"

#define TILE 16
#define PENALTY 10

__device__ __host__ inline int max3(int a, int b, int c) { return a > b ? (a > c ? a : c) : (b > c ? b : c); }

__global__ void needle(int* score, const int* similarity, int n, int diagonal, int tiles) {
  __shared__ int s[TILE + 1][TILE + 1];
  __shared__ int ref[TILE][TILE];
  int t = threadIdx.x;
  int first = diagonal < tiles ? 0 : diagonal - tiles + 1;
  int bx = first + blockIdx.x, by = diagonal - bx;
  int row0 = by * TILE, col0 = bx * TILE, width = n + 1;
  if (t == 0) s[0][0] = score[row0 * width + col0];
  s[0][t + 1] = score[row0 * width + col0 + t + 1];
  s[t + 1][0] = score[(row0 + t + 1) * width + col0];
  for (int r = 0; r < TILE; ++r) ref[r][t] = similarity[(row0 + r) * n + col0 + t];
#ifndef RACEY
  __syncthreads();
#endif
  for (int m = 0; m < 2 * TILE - 1; ++m) {
    int r = m - t;
    if (r >= 0 && r < TILE)
      s[r + 1][t + 1] = max3(s[r][t] + ref[r][t], s[r][t + 1] - PENALTY, s[r + 1][t] - PENALTY);  // RACE: needle-barriers
#ifndef RACEY
    __syncthreads();
#endif
  }
  __syncthreads();
  for (int r = 0; r < TILE; ++r) score[(row0 + r + 1) * width + col0 + t + 1] = s[r + 1][t + 1];
}

int main(int argc, char** argv) {
  Size size = parseSize(argc, argv);
  int n = pick(size, 48, 256, 2048);
  int width = n + 1, tiles = n / TILE;
  int* a = new int[n];
  int* b = new int[n];
  int* similarity = new int[n * n];
  int* ref = new int[width * width];
  int* got = new int[width * width];
  Lcg rng(5);
  for (int i = 0; i < n; ++i) a[i] = rng.next() % 4, b[i] = rng.next() % 4;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) similarity[i * n + j] = a[i] == b[j] ? 5 : -3;
  for (int i = 0; i < width; ++i) ref[i * width] = ref[i] = -i * PENALTY;
  for (int i = 1; i < width; ++i)
    for (int j = 1; j < width; ++j)
      ref[i * width + j] = max3(ref[(i - 1) * width + j - 1] + similarity[(i - 1) * n + j - 1],
                                ref[(i - 1) * width + j] - PENALTY, ref[i * width + j - 1] - PENALTY);
  std::memset(got, 0, width * width * sizeof(int));
  for (int i = 0; i < width; ++i) got[i * width] = got[i] = -i * PENALTY;
  int *d_score, *d_similarity;
  CHECK(cudaMalloc(&d_score, width * width * sizeof(int)));
  CHECK(cudaMalloc(&d_similarity, n * n * sizeof(int)));
  CHECK(cudaMemcpy(d_score, got, width * width * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_similarity, similarity, n * n * sizeof(int), cudaMemcpyHostToDevice));
  for (int d = 0; d < 2 * tiles - 1; ++d) {
    int count = d < tiles ? d + 1 : 2 * tiles - 1 - d;
    needle<<<count, TILE>>>(d_score, d_similarity, n, d, tiles);
    CHECK(cudaGetLastError());
  }
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(got, d_score, width * width * sizeof(int), cudaMemcpyDeviceToHost));
  bool ok = std::memcmp(got, ref, width * width * sizeof(int)) == 0;
  char detail[96];
  std::snprintf(detail, sizeof detail, "n=%d score=%d reference=%d", n, got[width * width - 1], ref[width * width - 1]);
  CHECK(cudaFree(d_score));
  CHECK(cudaFree(d_similarity));
  delete[] a;
  delete[] b;
  delete[] similarity;
  delete[] ref;
  delete[] got;
  return verdict("needle", ok, detail);
}
