// cudaLaunchKernelEx (the C++ template over cudaLaunchKernelExC): launches
// with attributes are launches like any other, checked for races; the
// cooperative attribute makes a cooperative launch (grid sync works); a
// programmatic dependent launch after a kernel that never triggers
// (griddepcontrol.launch_dependents) starts when that kernel completes, as
// any launch of the stream (programmatic_launch.cu has the other cases).
#include <cooperative_groups.h>
#include <cstdio>
namespace cg = cooperative_groups;

__global__ void scale(int* a, int factor) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  a[i] *= factor;
}

__global__ void shiftLeft(int* a, int n) {
  cg::grid_group grid = cg::this_grid();
  int i = int(grid.thread_rank());
  int next = a[(i + 1) % n];
  grid.sync();
  a[i] = next;
}

__global__ void racyShift(int* a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  a[i] = a[(i + 1) % n];  // races: the next thread writes what this one reads
}

int main() {
  constexpr int kBlocks = 4, kThreads = 64, kN = kBlocks * kThreads;
  int host[kN];
  for (int i = 0; i < kN; ++i) host[i] = i;
  int* a;
  cudaMalloc(&a, sizeof host);
  cudaMemcpy(a, host, sizeof host, cudaMemcpyHostToDevice);

  cudaLaunchAttribute attrs[2] = {};
  attrs[0].id = cudaLaunchAttributePriority;
  attrs[0].val.priority = 0;
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(kBlocks);
  config.blockDim = dim3(kThreads);
  config.attrs = attrs;
  config.numAttrs = 1;
  cudaError_t plain = cudaLaunchKernelEx(&config, scale, a, 3);

  attrs[1].id = cudaLaunchAttributeCooperative;
  attrs[1].val.cooperative = 1;
  config.numAttrs = 2;
  cudaError_t cooperative = cudaLaunchKernelEx(&config, shiftLeft, a, kN);
  cudaMemcpy(host, a, sizeof host, cudaMemcpyDeviceToHost);
  bool shifted = true;
  for (int i = 0; i < kN; ++i) shifted = shifted && host[i] == 3 * ((i + 1) % kN);

  attrs[1].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attrs[1].val.programmaticStreamSerializationAllowed = 1;
  cudaError_t programmatic = cudaLaunchKernelEx(&config, scale, a, 5);

  config.numAttrs = 0;
  cudaError_t racy = cudaLaunchKernelEx(&config, racyShift, a, kN);
  cudaDeviceSynchronize();
  printf("with priority: %s\n", cudaGetErrorString(plain));
  printf("cooperative: %s, shifted %s\n", cudaGetErrorString(cooperative), shifted ? "correct" : "WRONG");
  printf("programmatic dependent launch: %s\n", cudaGetErrorName(programmatic));
  printf("racy: %s\n", cudaGetErrorString(racy));
  return 0;
}
