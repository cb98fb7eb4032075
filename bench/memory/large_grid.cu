// A launch of a large grid that does almost nothing: one thread of the last
// block writes. What it costs is predatar's per-block and per-thread state
// for the whole grid, not the work (issue 13 item 3: memory proportional to
// what runs). bench/memory/large_grid.sh runs it at several grid sizes.
#include <cstdio>
#include <cstdlib>

__global__ void touchLast(int* out, long long threads) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i == threads - 1) out[0] = 1;
}

int main(int argc, char** argv) {
  long long blocks = argc > 1 ? atoll(argv[1]) : 1 << 20;
  int* out;
  cudaMalloc(&out, sizeof(int));
  touchLast<<<blocks, 256>>>(out, blocks * 256);
  int host = 0;
  cudaMemcpy(&host, out, sizeof host, cudaMemcpyDeviceToHost);
  printf("%s, out = %d\n", cudaGetErrorString(cudaGetLastError()), host);
  return host == 1 ? 0 : 1;
}
