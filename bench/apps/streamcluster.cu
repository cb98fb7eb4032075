// streamcluster: the gain of opening a new facility at a candidate point, the
// kernel of online clustering's local search (after the Rodinia application's
// pgain). One thread per point: a point closer to the candidate than to its
// current centre would switch (its saving adds to the block's total, reduced
// in shared memory); otherwise the candidate would make its centre cheaper to
// close (the difference adds to that centre's entry, with atomics).
// -DRACEY replaces the per-centre atomics by plain read-modify-writes and
// removes a barrier of the block's shared-memory reduction.
#include "common.h"

#define DIM 4
#define BLOCK 64

__global__ void pgain(const float* coords, const float* weight, const float* cost, const int* assign,
                      int candidate, float* lower, float* blockGain, int* switches, int n) {
  __shared__ float gain[BLOCK];
  int p = blockIdx.x * blockDim.x + threadIdx.x, t = threadIdx.x;
  float saving = 0.0f;
  if (p < n) {
    float d = 0.0f;
    for (int i = 0; i < DIM; ++i) {
      float diff = coords[p * DIM + i] - coords[candidate * DIM + i];
      d += diff * diff;
    }
    float x = d * weight[p];
    if (x < cost[p]) {
      saving = cost[p] - x;
      switches[p] = 1;
    } else {
      switches[p] = 0;
#ifdef RACEY
      lower[assign[p]] += x - cost[p];  // RACE: sc-lower-plain
#else
      atomicAdd(&lower[assign[p]], x - cost[p]);
#endif
    }
  }
  gain[t] = saving;
  __syncthreads();
  for (int stride = BLOCK / 2; stride > 0; stride /= 2) {
    if (t < stride) gain[t] += gain[t + stride];  // RACE: sc-reduce-barrier
#ifdef RACEY
    if (stride > 8) __syncthreads();
#else
    __syncthreads();
#endif
  }
  if (t == 0) blockGain[blockIdx.x] = gain[0];
}

int main(int argc, char** argv) {
  Size size = parseSize(argc, argv);
  int n = pick(size, 256, 4096, 65536), centres = pick(size, 4, 16, 32), rounds = pick(size, 2, 8, 16);
  float *coords = new float[n * DIM], *weight = new float[n], *cost = new float[n];
  int *assign = new int[n], *switches = new int[n];
  Lcg rng(9);
  for (int i = 0; i < n * DIM; ++i) coords[i] = float(rng.next() % 8);
  for (int i = 0; i < n; ++i) weight[i] = float(1 + rng.next() % 2);
  // Centres are the first points; each point is assigned to its nearest one.
  for (int p = 0; p < n; ++p) {
    float best = 3.0e38f;
    for (int c = 0; c < centres; ++c) {
      float d = 0.0f;
      for (int i = 0; i < DIM; ++i) d += (coords[p * DIM + i] - coords[c * DIM + i]) * (coords[p * DIM + i] - coords[c * DIM + i]);
      if (d * weight[p] < best) best = d * weight[p], assign[p] = c;
    }
    cost[p] = best;
  }
  int blocks = (n + BLOCK - 1) / BLOCK;
  float *d_coords, *d_weight, *d_cost, *d_lower, *d_gain;
  int *d_assign, *d_switches;
  CHECK(cudaMalloc(&d_coords, n * DIM * sizeof(float)));
  CHECK(cudaMalloc(&d_weight, n * sizeof(float)));
  CHECK(cudaMalloc(&d_cost, n * sizeof(float)));
  CHECK(cudaMalloc(&d_assign, n * sizeof(int)));
  CHECK(cudaMalloc(&d_switches, n * sizeof(int)));
  CHECK(cudaMalloc(&d_lower, centres * sizeof(float)));
  CHECK(cudaMalloc(&d_gain, blocks * sizeof(float)));
  CHECK(cudaMemcpy(d_coords, coords, n * DIM * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_weight, weight, n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_cost, cost, n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_assign, assign, n * sizeof(int), cudaMemcpyHostToDevice));
  bool ok = true;
  double lastGain = 0.0;
  for (int r = 0; r < rounds; ++r) {
    int candidate = int(rng.next() % unsigned(n));
    CHECK(cudaMemset(d_lower, 0, centres * sizeof(float)));
    pgain<<<blocks, BLOCK>>>(d_coords, d_weight, d_cost, d_assign, candidate, d_lower, d_gain, d_switches, n);
    CHECK(cudaGetLastError());
    float lower[64], gains[1024];
    CHECK(cudaMemcpy(lower, d_lower, centres * sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(gains, d_gain, blocks * sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(switches, d_switches, n * sizeof(int), cudaMemcpyDeviceToHost));
    double refLower[64] = {}, refGain = 0.0, gain = 0.0;
    for (int p = 0; p < n; ++p) {
      float d = 0.0f;
      for (int i = 0; i < DIM; ++i) {
        float diff = coords[p * DIM + i] - coords[candidate * DIM + i];
        d += diff * diff;
      }
      float x = d * weight[p];
      ok = ok && switches[p] == (x < cost[p]);
      if (x < cost[p]) refGain += cost[p] - x;
      else refLower[assign[p]] += x - cost[p];
    }
    for (int b = 0; b < blocks; ++b) gain += gains[b];
    for (int c = 0; c < centres; ++c) ok = ok && near(lower[c], refLower[c], 1e-5);
    ok = ok && near(gain, refGain, 1e-5);
    lastGain = gain;
  }
  char detail[96];
  std::snprintf(detail, sizeof detail, "points=%d centres=%d rounds=%d last gain=%.1f", n, centres, rounds, lastGain);
  CHECK(cudaFree(d_coords));
  CHECK(cudaFree(d_weight));
  CHECK(cudaFree(d_cost));
  CHECK(cudaFree(d_assign));
  CHECK(cudaFree(d_switches));
  CHECK(cudaFree(d_lower));
  CHECK(cudaFree(d_gain));
  delete[] coords;
  delete[] weight;
  delete[] cost;
  delete[] assign;
  delete[] switches;
  return verdict("streamcluster", ok, detail);
}
