// A grid far larger than the device holds at once: the emulator keeps at most
// what the device would (multiprocessors x blocks per multiprocessor, as the
// occupancy API says) resident, so memory follows the device's size, not the
// grid's. Each block counts itself in while its threads are alive; the peak
// count must not exceed what the device holds, and every block must run.
#include <cstdio>

__global__ void occupy(int* live, int* peak, int* ran) {
  if (threadIdx.x == 0) atomicMax(peak, atomicAdd(live, 1) + 1);
  __syncthreads();
  if (threadIdx.x == 0) {
    atomicAdd(ran, 1);
    atomicSub(live, 1);
  }
}

int main() {
  const int threads = 1024, blocks = 1000;
  int perSm = 0, sms = 0;
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, occupy, threads, 0);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  int* counters;
  cudaMalloc(&counters, 3 * sizeof(int));
  cudaMemset(counters, 0, 3 * sizeof(int));
  occupy<<<blocks, threads>>>(counters, counters + 1, counters + 2);
  int h[3];
  cudaMemcpy(h, counters, sizeof h, cudaMemcpyDeviceToHost);
  cudaFree(counters);
  printf("blocks run: %d of %d\n", h[2], blocks);
  printf("peak co-resident blocks within what the device holds: %s\n",
         h[1] >= 1 && h[1] <= perSm * sms ? "yes" : "no");
  return h[2] == blocks && h[1] <= perSm * sms ? 0 : 1;
}
