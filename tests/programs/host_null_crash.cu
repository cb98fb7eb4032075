// The program's own host code crashes (an unchecked malloc that failed):
// predatar says it is the program's host code, where, and that the address
// is a null pointer, and the run does not look clean (exit status in .status).
#include <cstdio>
#include <cstdlib>

__global__ void fill(int* data) { data[threadIdx.x] = threadIdx.x; }

int main() {
  int* device;
  cudaMalloc(&device, 32 * sizeof(int));
  fill<<<1, 32>>>(device);
  cudaDeviceSynchronize();
  printf("kernel done\n");
  fflush(stdout);
  // More than any machine has: malloc returns NULL, which the program does not check.
  volatile size_t huge = ~size_t(0) / 2;
  int* host = static_cast<int*>(malloc(huge));
  cudaMemcpy(host, device, 32 * sizeof(int), cudaMemcpyDeviceToHost);  // fails: null destination
  host[0] += 1;  // SIGSEGV at address 0
  printf("not reached: %d\n", host[0]);
  return 0;
}
