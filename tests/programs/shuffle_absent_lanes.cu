// Shuffles that read a lane taking no part: a block of 4 threads (lanes 4-31
// do not exist) and a warp whose upper half has exited. CUDA leaves such a
// value undefined; an H200 gives 0 (bench/native/RESULTS.md), and NVIDIA's
// reduction sample relies on it (its last pass reduces a block of 4 threads
// with a full-warp shuffle). A lane out of range keeps its own value.
// This file's expected output is what the H200 printed.
#include <cstdio>

__global__ void missingLanes(int* out) {
  int v = threadIdx.x + 1;
  out[threadIdx.x * 4 + 0] = __shfl_down_sync(0xffffffff, v, 16);
  out[threadIdx.x * 4 + 1] = __shfl_down_sync(0xffffffff, v, 2);
  out[threadIdx.x * 4 + 2] = __shfl_sync(0xffffffff, v, 20);
  out[threadIdx.x * 4 + 3] = __shfl_xor_sync(0xffffffff, v, 8);
}

__global__ void exitedLanes(int* out) {
  int v = threadIdx.x + 100;
  if (threadIdx.x >= 16) return;
  out[threadIdx.x * 2 + 0] = __shfl_down_sync(0x0000ffff, v, 8);
  out[threadIdx.x * 2 + 1] = __shfl_sync(0x0000ffff, v, 20);
}

int main() {
  int* out;
  cudaMallocManaged(&out, 1024 * sizeof(int));
  for (int i = 0; i < 1024; ++i) out[i] = -7;
  missingLanes<<<1, 4>>>(out);
  printf("missing: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  for (int i = 0; i < 4; ++i)
    printf("lane %d: down16 %d down2 %d idx20 %d xor8 %d\n", i, out[4 * i], out[4 * i + 1], out[4 * i + 2], out[4 * i + 3]);
  for (int i = 0; i < 1024; ++i) out[i] = -7;
  exitedLanes<<<1, 32>>>(out);
  printf("exited: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  for (int i = 0; i < 16; ++i) printf("lane %d: down8 %d idx20 %d\n", i, out[2 * i], out[2 * i + 1]);
  cudaFree(out);
  return 0;
}
