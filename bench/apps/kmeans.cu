// kmeans: Lloyd's k-means clustering (after the Rodinia application). Per
// iteration one kernel assigns every point (one thread each) to its nearest
// centre, counts the points that changed cluster and accumulates every
// cluster's coordinate sums and size with atomics; the host divides and
// launches again until nothing changes or the iteration limit is reached.
// -DRACEY replaces the atomics by plain read-modify-writes of the words
// that all threads share: the change counter and the cluster sums.
#include "common.h"

#define FEATURES 4
#define BLOCK 64

__global__ void assign(const float* points, const float* centres, int* membership, float* sums, int* sizes,
                       int* changed, int n, int k) {
  int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= n) return;
  int best = 0;
  float bestDist = 3.0e38f;
  for (int c = 0; c < k; ++c) {
    float d = 0.0f;
    for (int f = 0; f < FEATURES; ++f) {
      float diff = points[p * FEATURES + f] - centres[c * FEATURES + f];
      d += diff * diff;
    }
    if (d < bestDist) bestDist = d, best = c;
  }
  if (membership[p] != best) {
#ifdef RACEY
    *changed += 1;  // RACE: kmeans-changed
#else
    atomicAdd(changed, 1);
#endif
    membership[p] = best;
  }
  for (int f = 0; f < FEATURES; ++f) {
#ifdef RACEY
    sums[best * FEATURES + f] += points[p * FEATURES + f];  // RACE: kmeans-sums
#else
    atomicAdd(&sums[best * FEATURES + f], points[p * FEATURES + f]);
#endif
  }
  atomicAdd(&sizes[best], 1);
}

// One iteration on the host: assignment, then new centres. Returns the changes.
static int hostIteration(const float* points, float* centres, int* membership, int n, int k) {
  float sums[64 * FEATURES] = {};
  int sizes[64] = {}, changed = 0;
  for (int p = 0; p < n; ++p) {
    int best = 0;
    float bestDist = 3.0e38f;
    for (int c = 0; c < k; ++c) {
      float d = 0.0f;
      for (int f = 0; f < FEATURES; ++f) {
        float diff = points[p * FEATURES + f] - centres[c * FEATURES + f];
        d += diff * diff;
      }
      if (d < bestDist) bestDist = d, best = c;
    }
    changed += membership[p] != best;
    membership[p] = best;
    for (int f = 0; f < FEATURES; ++f) sums[best * FEATURES + f] += points[p * FEATURES + f];
    ++sizes[best];
  }
  for (int c = 0; c < k; ++c)
    for (int f = 0; f < FEATURES && sizes[c] > 0; ++f) centres[c * FEATURES + f] = sums[c * FEATURES + f] / sizes[c];
  return changed;
}

int main(int argc, char** argv) {
  Size size = parseSize(argc, argv);
  int n = pick(size, 512, 8192, 65536), k = pick(size, 4, 8, 5), iterations = pick(size, 3, 5, 10);
  float* points = new float[n * FEATURES];
  float *centres = new float[k * FEATURES], *refCentres = new float[k * FEATURES];
  int *membership = new int[n], *refMembership = new int[n];
  Lcg rng(11);
  // Points on a small integer lattice, so that every sum is exact in float.
  for (int i = 0; i < n * FEATURES; ++i) points[i] = float(rng.next() % 16);
  for (int i = 0; i < k * FEATURES; ++i) refCentres[i] = centres[i] = points[i];
  for (int i = 0; i < n; ++i) refMembership[i] = membership[i] = -1;
  float *d_points, *d_centres, *d_sums;
  int *d_membership, *d_sizes, *d_changed;
  CHECK(cudaMalloc(&d_points, n * FEATURES * sizeof(float)));
  CHECK(cudaMalloc(&d_centres, k * FEATURES * sizeof(float)));
  CHECK(cudaMalloc(&d_sums, k * FEATURES * sizeof(float)));
  CHECK(cudaMalloc(&d_membership, n * sizeof(int)));
  CHECK(cudaMalloc(&d_sizes, k * sizeof(int)));
  CHECK(cudaMalloc(&d_changed, sizeof(int)));
  CHECK(cudaMemcpy(d_points, points, n * FEATURES * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_membership, membership, n * sizeof(int), cudaMemcpyHostToDevice));
  bool ok = true;
  int changed = 0, it = 0;
  for (; it < iterations; ++it) {
    float sums[64 * FEATURES];
    int sizes[64];
    CHECK(cudaMemcpy(d_centres, centres, k * FEATURES * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(d_sums, 0, k * FEATURES * sizeof(float)));
    CHECK(cudaMemset(d_sizes, 0, k * sizeof(int)));
    CHECK(cudaMemset(d_changed, 0, sizeof(int)));
    assign<<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(d_points, d_centres, d_membership, d_sums, d_sizes, d_changed, n, k);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(&changed, d_changed, sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(sums, d_sums, k * FEATURES * sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(sizes, d_sizes, k * sizeof(int), cudaMemcpyDeviceToHost));
    for (int c = 0; c < k; ++c)
      for (int f = 0; f < FEATURES && sizes[c] > 0; ++f) centres[c * FEATURES + f] = sums[c * FEATURES + f] / sizes[c];
    int refChanged = hostIteration(points, refCentres, refMembership, n, k);
    ok = ok && refChanged == changed;
    for (int i = 0; i < k * FEATURES; ++i) ok = ok && near(centres[i], refCentres[i], 1e-5);
    if (changed == 0) break;
  }
  CHECK(cudaMemcpy(membership, d_membership, n * sizeof(int), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) ok = ok && membership[i] == refMembership[i];
  char detail[96];
  std::snprintf(detail, sizeof detail, "points=%d clusters=%d iterations=%d last changes=%d", n, k, it, changed);
  CHECK(cudaFree(d_points));
  CHECK(cudaFree(d_centres));
  CHECK(cudaFree(d_sums));
  CHECK(cudaFree(d_membership));
  CHECK(cudaFree(d_sizes));
  CHECK(cudaFree(d_changed));
  delete[] points;
  delete[] centres;
  delete[] refCentres;
  delete[] membership;
  delete[] refMembership;
  return verdict("kmeans", ok, detail);
}
