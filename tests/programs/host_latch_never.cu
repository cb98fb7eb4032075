// A kernel that waits for a host latch the host never writes: the host waits
// for the stream, and neither can go on. A GPU hangs here; predatar stops the
// launch with a deadlock that names the host memory (exit status 3).
#include <cstdio>

__global__ void waitForLatch(volatile unsigned* latch) {
  while (*latch < 1) {
  }
}

int main() {
  unsigned* latch;
  cudaMallocHost(&latch, sizeof *latch);
  *latch = 0;
  waitForLatch<<<1, 1>>>(latch);
  cudaError_t e = cudaDeviceSynchronize();
  printf("cudaDeviceSynchronize: %s\n", cudaGetErrorName(e));
  return 0;
}
