// A CUDA program whose kernel never finishes, for `predatar run`:
//   spin_app barrier   thread 0 spins on a flag set only after a barrier
//   spin_app clock     spins on clock64() (only a step or time limit stops it)
// Built with: nvcc -cudart shared -lineinfo -o bin/spin_app spin_app.cu
#include <cstdio>
#include <cstring>

__global__ void barrierSpin(volatile int* flag) {
  if (threadIdx.x == 0) {
    while (*flag == 0) {
    }
  }
  __syncthreads();
  if (threadIdx.x == 1) *flag = 1;
}

__global__ void clockSpin(int* out) {
  long long start = clock64();
  while (clock64() - start < (1ll << 62)) {
  }
  *out = 1;
}

int main(int argc, char** argv) {
  int* flag = nullptr;
  cudaMalloc(&flag, sizeof(int));
  cudaMemset(flag, 0, sizeof(int));
  if (argc > 1 && std::strcmp(argv[1], "clock") == 0) clockSpin<<<1, 32>>>(flag);
  else barrierSpin<<<1, 64>>>(flag);
  cudaError_t err = cudaDeviceSynchronize();
  std::printf("spin_app: %s\n", cudaGetErrorString(err));
  cudaFree(flag);
  return err == cudaSuccess ? 0 : 3;
}
