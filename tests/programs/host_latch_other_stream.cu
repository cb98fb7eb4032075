// Work of another stream issued while a kernel waits for a host latch: on a
// GPU it may run at once, predatar runs it after the waiting launch (one
// launch at a time). A query of it answers cudaErrorNotReady until the latch
// is written, and predatar says why once (host_latch_other_stream.stderr).
#include <cstdio>

__global__ void waitForLatch(volatile unsigned* latch) {
  while (*latch < 1) {
  }
}

__global__ void fill(int* out) { out[threadIdx.x] = threadIdx.x; }

int main() {
  unsigned* latch;
  int* out;
  cudaMallocHost(&latch, sizeof *latch);
  cudaMalloc(&out, 32 * sizeof(int));
  cudaStream_t waiting, other;
  cudaStreamCreateWithFlags(&waiting, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking);
  *latch = 0;
  waitForLatch<<<1, 1, 0, waiting>>>(latch);
  fill<<<1, 32, 0, other>>>(out);
  int notReady = 0;
  for (int poll = 0; poll < 5; ++poll) notReady += cudaStreamQuery(other) == cudaErrorNotReady;
  *latch = 1;
  cudaError_t e = cudaDeviceSynchronize();
  int last = 0;
  cudaMemcpy(&last, out + 31, sizeof last, cudaMemcpyDeviceToHost);
  printf("other stream not ready in %d of 5 polls; after the latch: %s, out[31]=%d\n", notReady, cudaGetErrorName(e),
         last);
  return 0;
}
