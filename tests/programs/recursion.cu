// Recursive device functions: each lane recurses to its own depth, mutual
// recursion, and frames with local arrays (every activation keeps its own
// registers and locals), under the stack limit the program sets.
#include <cstdio>

__device__ int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

__device__ bool isOdd(int n);
__device__ bool isEven(int n) { return n == 0 ? true : isOdd(n - 1); }
__device__ bool isOdd(int n) { return n == 0 ? false : isEven(n - 1); }

// Sums 1..n with a local array per activation, indexed at run time so that
// it stays in local memory.
__device__ int localSum(int n, int pick) {
  int values[8];
  for (int i = 0; i < 8; ++i) values[i] = n * (i + 1);
  if (n == 0) return 0;
  return values[pick & 7] / (pick % 8 + 1) + localSum(n - 1, pick + 1);
}

__global__ void recurse(int* fibs, int* parity, int* sums) {
  int t = threadIdx.x;
  fibs[t] = fib(t % 16);
  parity[t] = isEven(t) ? 1 : 0;
  sums[t] = localSum(t, t);
}

int main() {
  cudaDeviceSetLimit(cudaLimitStackSize, 4096);
  const int n = 64;
  int *fibs, *parity, *sums;
  cudaMalloc(&fibs, n * sizeof(int));
  cudaMalloc(&parity, n * sizeof(int));
  cudaMalloc(&sums, n * sizeof(int));
  recurse<<<1, n>>>(fibs, parity, sums);
  cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) {
    printf("error: %s\n", cudaGetErrorString(e));
    return 1;
  }
  int f[n], p[n], s[n];
  cudaMemcpy(f, fibs, sizeof f, cudaMemcpyDeviceToHost);
  cudaMemcpy(p, parity, sizeof p, cudaMemcpyDeviceToHost);
  cudaMemcpy(s, sums, sizeof s, cudaMemcpyDeviceToHost);
  int bad = 0;
  for (int t = 0; t < n; ++t) {
    int a = 0, b = 1;
    for (int i = 0; i < t % 16; ++i) {
      int c = a + b;
      a = b;
      b = c;
    }
    bad += f[t] != a;
    bad += p[t] != (t % 2 == 0);
    bad += s[t] != t * (t + 1) / 2;
  }
  printf("fib(15)=%d isEven(63)=%d sum(63)=%d mismatches=%d\n", f[15], p[63], s[63], bad);
  return 0;
}
