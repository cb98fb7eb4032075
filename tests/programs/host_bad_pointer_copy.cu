// A CUDA call given a bad host pointer crashes inside the runtime (memcpy),
// as NVIDIA's does: predatar says the fault is in code its runtime called,
// so it is not taken for the program's own host code (host_null_crash.cu).
#include <cstdio>

int main() {
  int* device;
  cudaMalloc(&device, 1 << 20);
  printf("copying from a bad host pointer\n");
  fflush(stdout);
  cudaMemcpy(device, reinterpret_cast<const void*>(0x10), 1 << 20, cudaMemcpyHostToDevice);
  printf("not reached\n");
  return 0;
}
