// 1dconv: 1-D convolution with a shared-memory tile and halo (after the ScoR
// application). Each block loads its tile plus RADIUS cells either side into
// shared memory, convolves, writes its outputs and adds its outputs' sum to
// one global checksum shared by every block.
// -DRACEY injects the kinds of races the paper counts for 1dconv: a
// block-scoped atomic on a word that other blocks share, a tile read before
// the barrier that publishes it, and the halo written by two threads.
#include "common.h"

#define RADIUS 3
#define BLOCK 64

__constant__ float c_mask[2 * RADIUS + 1];

__global__ void conv1d(const float* in, float* out, float* checksum, int n) {
  __shared__ float tile[BLOCK + 2 * RADIUS];
  __shared__ float partial[BLOCK];
  int gid = blockIdx.x * blockDim.x + threadIdx.x;
  int t = threadIdx.x;
  tile[t + RADIUS] = gid < n ? in[gid] : 0.0f;
  if (t < RADIUS) {
    int left = gid - RADIUS;
    tile[t] = left >= 0 ? in[left] : 0.0f;
#ifdef RACEY
    tile[t + 1] = left + 1 >= 0 ? in[left + 1] : 0.0f;  // RACE: conv-halo-overlap
#endif
    int right = gid + BLOCK;
    tile[t + BLOCK + RADIUS] = right < n ? in[right] : 0.0f;
  }
#ifndef RACEY
  __syncthreads();
#endif
  float sum = 0.0f;
  for (int k = -RADIUS; k <= RADIUS; ++k) sum += c_mask[k + RADIUS] * tile[t + RADIUS + k];  // RACE: conv-tile-sync
  if (gid < n) out[gid] = sum;
  partial[t] = gid < n ? sum : 0.0f;
  __syncthreads();
  for (int stride = BLOCK / 2; stride > 0; stride /= 2) {
    if (t < stride) partial[t] += partial[t + stride];
    __syncthreads();
  }
#ifdef RACEY
  if (t == 0) atomicAdd_block(checksum, partial[0]);  // RACE: conv-block-atomic
#else
  if (t == 0) atomicAdd(checksum, partial[0]);
#endif
}

int main(int argc, char** argv) {
  Size size = parseSize(argc, argv);
  int n = pick(size, 1024, 1 << 16, 1 << 20);
  float mask[2 * RADIUS + 1];
  for (int k = 0; k < 2 * RADIUS + 1; ++k) mask[k] = 1.0f / float(1 + (k > RADIUS ? k - RADIUS : RADIUS - k));
  float* in = new float[n];
  float* out = new float[n];
  Lcg rng(7);
  for (int i = 0; i < n; ++i) in[i] = float(int(rng.next() % 17) - 8);
  float *d_in, *d_out, *d_sum;
  CHECK(cudaMalloc(&d_in, n * sizeof(float)));
  CHECK(cudaMalloc(&d_out, n * sizeof(float)));
  CHECK(cudaMalloc(&d_sum, sizeof(float)));
  CHECK(cudaMemcpy(d_in, in, n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(d_sum, 0, sizeof(float)));
  CHECK(cudaMemcpyToSymbol(c_mask, mask, sizeof mask));
  conv1d<<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(d_in, d_out, d_sum, n);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  float sum = 0.0f;
  CHECK(cudaMemcpy(out, d_out, n * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&sum, d_sum, sizeof(float), cudaMemcpyDeviceToHost));
  bool ok = true;
  double total = 0.0;
  for (int i = 0; i < n; ++i) {
    double ref = 0.0;
    for (int k = -RADIUS; k <= RADIUS; ++k)
      if (i + k >= 0 && i + k < n) ref += mask[k + RADIUS] * in[i + k];
    total += ref;
    ok = ok && near(out[i], ref, 1e-4);
  }
  ok = ok && near(sum, total, 1e-3);
  char detail[96];
  std::snprintf(detail, sizeof detail, "n=%d checksum=%.3f reference=%.3f", n, sum, total);
  CHECK(cudaFree(d_in));
  CHECK(cudaFree(d_out));
  CHECK(cudaFree(d_sum));
  delete[] in;
  delete[] out;
  return verdict("1dconv", ok, detail);
}
