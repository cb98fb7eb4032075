// Grid-wide barrier (cooperative_groups::this_grid().sync() in a kernel
// launched with cudaLaunchCooperativeKernel): every block's writes before the
// barrier are visible to every block after it, without a race; reading
// another block's element without the barrier races. A grid.sync() in a
// kernel launched without cudaLaunchCooperativeKernel traps, as on a GPU.
#include <cooperative_groups.h>
#include <cstdio>
namespace cg = cooperative_groups;

// Each thread writes its element, then (after the barrier) sums its own and
// the next block's element, twice, with a barrier between the rounds.
__global__ void neighbourSum(int* a, int* out, int rounds) {
  cg::grid_group grid = cg::this_grid();
  unsigned i = grid.thread_rank(), n = grid.size();
  a[i] = int(i);
  for (int r = 0; r < rounds; ++r) {
    grid.sync();
    int next = a[(i + blockDim.x) % n];
    grid.sync();
    a[i] += next;
  }
  grid.sync();
  out[i] = a[i];
}

__global__ void neighbourNoSync(int* a, int* out) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x, n = gridDim.x * blockDim.x;
  a[i] = int(i);
  out[i] = a[(i + blockDim.x) % n];  // races: written by the next block
}

int main() {
  const int blocks = 4, threads = 64, n = blocks * threads;
  int *a, *out, rounds = 2;
  cudaMalloc(&a, n * sizeof(int));
  cudaMalloc(&out, n * sizeof(int));
  void* args[] = {&a, &out, &rounds};
  cudaError_t e = cudaLaunchCooperativeKernel((void*)neighbourSum, dim3(blocks), dim3(threads), args, 0, 0);
  static int h[n];
  cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost);
  // After r rounds, a[i] = sum over k of C(r,k) * (i + k*threads mod n).
  bool ok = true;
  for (int i = 0; i < n; ++i) {
    int e1 = (i + threads) % n, e2 = (i + 2 * threads) % n;
    ok &= h[i] == i + 2 * e1 + e2;
  }
  printf("cooperative: %s, sums %s\n", cudaGetErrorName(e), ok ? "correct" : "WRONG");
  neighbourNoSync<<<blocks, threads>>>(a, out);
  printf("without barrier: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  return 0;
}
