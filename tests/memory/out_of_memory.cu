// Runs out of memory inside a kernel launch on purpose: the program caps its
// own address space (RLIMIT_AS) at what it uses plus 48 MiB, then launches a
// kernel whose 8M written words need more shadow memory than that in the
// race detector. predatar must say so and exit with its out-of-memory code,
// never abort with "terminate called after throwing std::bad_alloc".
#include <sys/resource.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

__global__ void fill(int* data, int words) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int k = 0; k < 4; ++k) data[i + k * (words / 4)] = i;
}

size_t virtualBytes() {
  FILE* f = fopen("/proc/self/status", "r");
  char line[256];
  size_t kb = 0;
  while (f && fgets(line, sizeof line, f))
    if (strncmp(line, "VmSize:", 7) == 0) kb = strtoull(line + 7, nullptr, 10);
  if (f) fclose(f);
  return kb * 1024;
}

int main() {
  const int words = 8 << 20;
  int* data = nullptr;
  if (cudaMalloc(&data, words * sizeof(int)) != cudaSuccess) return 2;
  struct rlimit cap;
  cap.rlim_cur = cap.rlim_max = virtualBytes() + (size_t(48) << 20);
  setrlimit(RLIMIT_AS, &cap);
  fill<<<words / 4 / 256, 256>>>(data, words);
  cudaError_t e = cudaDeviceSynchronize();
  printf("not reached: %s\n", cudaGetErrorName(e));
  return 0;
}
