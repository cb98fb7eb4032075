// Same-value stores: the threads that find work store `true` to one shared
// flag (a data race, however benign it looks: line 12). Its report notes
// that the write stored the value the location already held. Each thread's
// own output element is not raced.
#include <cstdio>

__global__ void anyOdd(const int* in, int* out) {
  __shared__ bool found;
  if (threadIdx.x == 0) found = false;
  __syncthreads();
  if (in[threadIdx.x] % 2 != 0)
    found = true;
  __syncthreads();
  out[threadIdx.x] = found ? 1 : 0;
}

int main() {
  const int n = 64;
  int h[n];
  for (int i = 0; i < n; ++i) h[i] = i;
  int *in, *out;
  cudaMalloc(&in, sizeof h);
  cudaMalloc(&out, sizeof h);
  cudaMemcpy(in, h, sizeof h, cudaMemcpyHostToDevice);
  anyOdd<<<1, n>>>(in, out);
  cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost);
  int seen = 0;
  for (int i = 0; i < n; ++i) seen += h[i];
  printf("threads that saw an odd element: %d of %d\n", seen, n);
  cudaFree(in);
  cudaFree(out);
  return 0;
}
