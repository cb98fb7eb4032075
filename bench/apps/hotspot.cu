// hotspot: transient thermal simulation of a chip on a 2-D grid (after the
// Rodinia application): every step updates each cell's temperature from its
// four neighbours, its power and the ambient temperature. A block loads a
// 16x16 tile into shared memory and advances it ITER steps there (the
// "pyramid": the valid region shrinks by one cell per step), so barriers
// separate loading, reading neighbours and writing back.
// -DRACEY removes the load-bearing barriers: after the tile load and between
// reading the neighbours and overwriting the tile.
#include "common.h"

#define TILE 16
#define ITER 2
#define OUT (TILE - 2 * ITER)

struct Coefficients {
  float cap, rx, ry, rz, amb;
};

__host__ __device__ inline float stepCell(float c, float n, float s, float e, float w, float p, Coefficients k) {
  return c + k.cap * (p + (n + s - 2.0f * c) * k.ry + (e + w - 2.0f * c) * k.rx + (k.amb - c) * k.rz);
}

__global__ void hotspot(const float* power, const float* in, float* out, int rows, int cols, Coefficients k) {
  __shared__ float cur[TILE][TILE], next[TILE][TILE], pw[TILE][TILE];
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * OUT - ITER + ty, col = blockIdx.x * OUT - ITER + tx;
  bool inside = row >= 0 && row < rows && col >= 0 && col < cols;
  if (inside) {
    cur[ty][tx] = in[row * cols + col];
    pw[ty][tx] = power[row * cols + col];
  }
#ifndef RACEY
  __syncthreads();
#endif
  for (int i = 0; i < ITER; ++i) {
    bool active = inside && tx > i && tx < TILE - 1 - i && ty > i && ty < TILE - 1 - i;
    if (active) {
      float c = cur[ty][tx];
      float n = row > 0 ? cur[ty - 1][tx] : c;  // RACE: hot-load-barrier
      float s = row < rows - 1 ? cur[ty + 1][tx] : c;  // RACE: hot-load-barrier
      float w = col > 0 ? cur[ty][tx - 1] : c;  // RACE: hot-load-barrier
      float e = col < cols - 1 ? cur[ty][tx + 1] : c;  // RACE: hot-load-barrier
      next[ty][tx] = stepCell(c, n, s, e, w, pw[ty][tx], k);
    }
#ifndef RACEY
    __syncthreads();
#endif
    if (active) cur[ty][tx] = next[ty][tx];  // RACE: hot-step-barrier
    __syncthreads();
  }
  if (inside && tx >= ITER && tx < TILE - ITER && ty >= ITER && ty < TILE - ITER) out[row * cols + col] = cur[ty][tx];
}

int main(int argc, char** argv) {
  Size size = parseSize(argc, argv);
  int n = pick(size, 24, 96, 512), steps = pick(size, 2, 4, 2);
  Coefficients k{0.5f, 0.1f, 0.1f, 0.05f, 80.0f};
  int cells = n * n;
  float* power = new float[cells];
  float* temp = new float[cells];
  float* next = new float[cells];
  float* got = new float[cells];
  Lcg rng(42);
  for (int i = 0; i < cells; ++i) power[i] = rng.uniform(), temp[i] = 300.0f + 20.0f * rng.uniform();
  float *d_power, *d_a, *d_b;
  CHECK(cudaMalloc(&d_power, cells * sizeof(float)));
  CHECK(cudaMalloc(&d_a, cells * sizeof(float)));
  CHECK(cudaMalloc(&d_b, cells * sizeof(float)));
  CHECK(cudaMemcpy(d_power, power, cells * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_a, temp, cells * sizeof(float), cudaMemcpyHostToDevice));
  dim3 grid((n + OUT - 1) / OUT, (n + OUT - 1) / OUT), block(TILE, TILE);
  for (int s = 0; s < steps; s += ITER) {
    hotspot<<<grid, block>>>(d_power, d_a, d_b, n, n, k);
    CHECK(cudaGetLastError());
    float* swap = d_a;
    d_a = d_b;
    d_b = swap;
  }
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(got, d_a, cells * sizeof(float), cudaMemcpyDeviceToHost));
  for (int s = 0; s < steps; ++s) {
    for (int r = 0; r < n; ++r)
      for (int c = 0; c < n; ++c) {
        float v = temp[r * n + c];
        float nn = r > 0 ? temp[(r - 1) * n + c] : v, ss = r < n - 1 ? temp[(r + 1) * n + c] : v;
        float ww = c > 0 ? temp[r * n + c - 1] : v, ee = c < n - 1 ? temp[r * n + c + 1] : v;
        next[r * n + c] = stepCell(v, nn, ss, ee, ww, power[r * n + c], k);
      }
    std::memcpy(temp, next, cells * sizeof(float));
  }
  bool ok = true;
  for (int i = 0; i < cells; ++i) ok = ok && near(got[i], temp[i], 1e-5);
  char detail[96];
  std::snprintf(detail, sizeof detail, "grid=%dx%d steps=%d t[0]=%.3f reference=%.3f", n, n, steps, got[0], temp[0]);
  CHECK(cudaFree(d_power));
  CHECK(cudaFree(d_a));
  CHECK(cudaFree(d_b));
  delete[] power;
  delete[] temp;
  delete[] next;
  delete[] got;
  return verdict("hotspot", ok, detail);
}
