// Cooperative launches: a grid that fits on the device runs; one larger than
// the device holds at once fails with cudaErrorCooperativeLaunchTooLarge, as
// on a GPU; a grid-wide barrier (this_grid().sync()) works (grid_sync.cu).
#include <cooperative_groups.h>
#include <cstdio>
namespace cg = cooperative_groups;

__global__ void fill(int* a) { a[blockIdx.x * blockDim.x + threadIdx.x] = blockIdx.x; }

__global__ void gridSum(int* a, int* total) {
  cg::grid_group grid = cg::this_grid();
  a[grid.thread_rank()] = 1;
  grid.sync();
  if (grid.thread_rank() == 0) *total = a[0] + a[grid.size() - 1];
}

int main() {
  int *a, *total;
  cudaMalloc(&a, 1 << 22);
  cudaMalloc(&total, sizeof(int));
  void* fillArgs[] = {&a};
  cudaError_t fits = cudaLaunchCooperativeKernel((void*)fill, dim3(4), dim3(128), fillArgs, 0, 0);
  int h = -1;
  cudaMemcpy(&h, a + 3 * 128, sizeof h, cudaMemcpyDeviceToHost);
  printf("fits: %s a[384]=%d\n", cudaGetErrorName(fits), h);
  cudaError_t tooLarge = cudaLaunchCooperativeKernel((void*)fill, dim3(4096), dim3(1024), fillArgs, 0, 0);
  printf("too large: %s\n", cudaGetErrorName(tooLarge));
  void* sumArgs[] = {&a, &total};
  cudaError_t sync = cudaLaunchCooperativeKernel((void*)gridSum, dim3(2), dim3(64), sumArgs, 0, 0);
  printf("grid sync: %s\n", cudaGetErrorName(sync));
  printf("after: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  return 0;
}
