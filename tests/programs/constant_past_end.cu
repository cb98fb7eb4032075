// A load past the end of a __constant__ array: on a GPU it reads whatever the
// constant bank holds there (the next variable, or zero) without a fault, so
// programs that do it by mistake run (HeCBench's lci indexes a 171-entry
// table at 189). predatar lays a module's constants out in one bank as well,
// and must not stop the kernel. What is read there is not defined: the
// program prints only the values it reads in bounds.
#include <cstdio>

__constant__ int table[4] = {1, 2, 3, 4};
__constant__ double more[2] = {0.5, 0.25};

__global__ void lookup(int* out, int past) {
  out[0] = table[3];
  out[1] = table[past];  // past the end when past >= 4
  out[2] = int(more[1] * 8);
}

int main() {
  int* d;
  if (cudaMalloc(&d, 3 * sizeof(int)) != cudaSuccess) return 1;
  lookup<<<1, 1>>>(d, 9);
  int h[3];
  cudaError_t e = cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  if (e != cudaSuccess) {
    printf("error %s\n", cudaGetErrorName(e));
    return 1;
  }
  printf("table[3]=%d more[1]*8=%d\n", h[0], h[2]);
  return 0;
}
