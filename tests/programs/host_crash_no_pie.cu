// The program's own host code crashes, in a program linked at a fixed address
// (-no-pie, NAME.flags): the address predatar names for addr2line is the
// instruction's own (0x40...), not its distance from where the program is
// loaded, which addr2line would place elsewhere (.stderr).
#include <cstdio>
#include <cstdlib>

__global__ void fill(int* data) { data[threadIdx.x] = threadIdx.x; }

int main(int argc, char**) {
  int* device;
  cudaMalloc(&device, 32 * sizeof(int));
  fill<<<1, 32>>>(device);
  cudaDeviceSynchronize();
  printf("kernel done\n");
  fflush(stdout);
  int* volatile host = argc > 99 ? device : nullptr;
  host[0] = 1;  // SIGSEGV at address 0
  printf("not reached\n");
  return 0;
}
