// A cudaMalloc the device has room for but this process does not (its data
// limit, ulimit -d, set here to 2 GiB, below the 3 GiB asked): the program
// gets cudaErrorMemoryAllocation, and nothing crashes later. Before, the
// allocation succeeded and the first copy into it died of SIGSEGV.
#include <sys/resource.h>

#include <cstdio>

int main() {
  rlimit limit{rlim_t(2) << 30, rlim_t(2) << 30};
  if (setrlimit(RLIMIT_DATA, &limit) != 0) return 2;
  char* small = nullptr;
  char* big = nullptr;
  cudaError_t first = cudaMalloc(&small, 1 << 20);
  cudaError_t second = cudaMalloc(&big, size_t(3) << 30);
  printf("1 MiB: %s, 3 GiB: %s\n", cudaGetErrorName(first), cudaGetErrorName(second));
  char byte = 7;
  cudaError_t copy = cudaMemcpy(small, &byte, 1, cudaMemcpyHostToDevice);
  printf("copy into the 1 MiB block: %s\n", cudaGetErrorName(copy));
  return 0;
}
