// The program's own host code asks for more memory than there is and catches
// std::bad_alloc, as programs that size their work to the machine do. Under
// predatar it must get the same std::bad_alloc and go on, not be stopped as
// if the emulator or the detectors had run out.
#include <cstdio>
#include <new>

__global__ void touch(int* data) { data[threadIdx.x] = threadIdx.x; }

int main() {
  int* data = nullptr;
  if (cudaMalloc(&data, 32 * sizeof(int)) != cudaSuccess) return 2;
  touch<<<1, 32>>>(data);
  if (cudaDeviceSynchronize() != cudaSuccess) return 3;
  try {
    volatile size_t huge = size_t(1) << 46;  // 64 TiB (volatile: the compiler may not drop the allocation)
    char* p = new char[huge];
    p[0] = 1;
    printf("allocated 64 TiB\n");
    delete[] p;
  } catch (const std::bad_alloc&) {
    printf("caught std::bad_alloc\n");
  }
  cudaFree(data);
  return 0;
}
