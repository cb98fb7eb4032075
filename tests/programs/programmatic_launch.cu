// build: -arch=sm_90
// Programmatic dependent launch (cudaLaunchKernelEx with
// cudaLaunchAttributeProgrammaticStreamSerialization): the dependent kernel
// may start once every block of the previous kernel triggered
// (cudaTriggerProgrammaticLaunchCompletion) or exited, and
// cudaGridDependencySynchronize waits for that kernel to complete.
//  * after a kernel that never triggers, the launch is ordered as usual;
//  * after one that triggers, a dependent kernel that waits before touching
//    global memory runs and is checked as ordered after it; one that reads
//    global memory before its wait overlaps the other kernel: its read races
//    with the other kernel's write after the trigger (the emulator runs the
//    other kernel to completion first, one schedule of the overlap, and the
//    detectors check the accesses before the wait as unordered with it).
#include <cstdio>

__global__ void produce(int* a) {
  a[blockIdx.x * blockDim.x + threadIdx.x] = int(blockIdx.x * blockDim.x + threadIdx.x);
}

__global__ void produceAndTrigger(int* a) {
  cudaTriggerProgrammaticLaunchCompletion();
  a[blockIdx.x * blockDim.x + threadIdx.x] += 1000;
}

__global__ void consumeAfterWait(const int* a, int* b) {
  __shared__ int staged[64];
  staged[threadIdx.x] = int(threadIdx.x);  // shared memory: no overlap with the other kernel
  cudaGridDependencySynchronize();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  b[i] = 2 * a[i] + staged[threadIdx.x] - int(threadIdx.x);
}

__global__ void consumeWithoutWait(const int* a, int* b) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  b[i] = a[i] + 1;
}

static cudaError_t launchDependent(void (*kernel)(const int*, int*), const int* a, int* b, int blocks, int threads) {
  cudaLaunchAttribute attr = {};
  attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(blocks);
  config.blockDim = dim3(threads);
  config.attrs = &attr;
  config.numAttrs = 1;
  return cudaLaunchKernelEx(&config, kernel, a, b);
}

static bool check(const int* dev, int n, int add, int mul) {
  int host[256];
  cudaMemcpy(host, dev, n * sizeof(int), cudaMemcpyDeviceToHost);
  for (int i = 0; i < n; ++i)
    if (host[i] != mul * i + add) return false;
  return true;
}

int main() {
  constexpr int kBlocks = 4, kThreads = 64, kN = kBlocks * kThreads;
  int *a, *b;
  cudaMalloc(&a, kN * sizeof(int));
  cudaMalloc(&b, kN * sizeof(int));

  produce<<<kBlocks, kThreads>>>(a);
  cudaError_t ordered = launchDependent(consumeWithoutWait, a, b, kBlocks, kThreads);
  printf("after a kernel that does not trigger: %s, %s\n", cudaGetErrorName(ordered),
         check(b, kN, 1, 1) ? "correct" : "WRONG");

  produceAndTrigger<<<kBlocks, kThreads>>>(a);
  cudaError_t waited = launchDependent(consumeAfterWait, a, b, kBlocks, kThreads);
  printf("waiting before global memory: %s, %s\n", cudaGetErrorName(waited),
         check(b, kN, 2000, 2) ? "correct" : "WRONG");

  produceAndTrigger<<<kBlocks, kThreads>>>(a);
  consumeWithoutWait<<<kBlocks, kThreads>>>(a, b);  // no attribute: ordered after the trigger-happy kernel
  printf("an ordinary launch after it: %s\n", check(b, kN, 2001, 1) ? "correct" : "WRONG");

  produceAndTrigger<<<kBlocks, kThreads>>>(a);
  cudaError_t early = launchDependent(consumeWithoutWait, a, b, kBlocks, kThreads);  // races
  cudaError_t sync = cudaDeviceSynchronize();
  // (b holds a before or after the other kernel's += 1000: a race, not printed)
  printf("global memory before the wait: %s, then %s\n", cudaGetErrorName(early), cudaGetErrorName(sync));
  cudaFree(a);
  cudaFree(b);
  return 0;
}
