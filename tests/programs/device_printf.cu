// printf from kernels (vprintf with its argument buffer): integer, floating
// point, string, char and pointer conversions with flags, widths and
// precisions, in program order within a thread and before the host's output
// after the synchronization.
#include <cstdio>

__global__ void report(const int* values, int n) {
  if (threadIdx.x != 0 || blockIdx.x != 0) return;
  printf("ints: %d %i %u %x %X %o [%5d] [%-5d] [%05d] %+d\n", -42, 7, 4000000000u, 255, 255, 8, 42, 42, 42, 9);
  printf("longs: %ld %lld %llu %lx\n", -1234567890123L, 1LL << 40, 18446744073709551615ULL, 0xABCDEF0123UL);
  printf("floats: %f %.3f %e %g %10.2f %G\n", 1.5f, 3.14159, 12345.678, 0.0001, -2.25, 1e20);
  printf("text: %s [%8s] [%-8s] %c%c %%\n", "hello", "right", "left", 'o', 'k');
  for (int i = 0; i < n; ++i) printf("value %d = %d\n", i, values[i]);
}

// The lines of one launch all appear before the host's next line.
__global__ void single() { printf("thread %d of block %d\n", threadIdx.x, blockIdx.x); }

int main() {
  int h[3] = {10, 20, 30};
  int* d;
  cudaMalloc(&d, sizeof h);
  cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);
  report<<<2, 32>>>(d, 3);
  cudaDeviceSynchronize();
  printf("host: after report\n");
  single<<<1, 1>>>();
  cudaDeviceSynchronize();
  printf("host: done\n");
  cudaFree(d);
  return 0;
}
