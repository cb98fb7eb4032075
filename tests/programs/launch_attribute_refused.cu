// A launch attribute the emulator lacks (thread block clusters) is refused by
// name: cudaLaunchKernelEx returns cudaErrorNotSupported, the program goes on
// with a plain launch, and the run lists the refusal (.stderr) and does not
// look clean (.status), where before it only printed a line.
#include <cstdio>

__global__ void fill(int* data) { data[threadIdx.x] = int(threadIdx.x); }

int main() {
  int* data;
  cudaMalloc(&data, 64 * sizeof(int));
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(2);
  config.blockDim = dim3(32);
  cudaLaunchAttribute attribute[1];
  attribute[0].id = cudaLaunchAttributeClusterDimension;
  attribute[0].val.clusterDim.x = 2;
  attribute[0].val.clusterDim.y = 1;
  attribute[0].val.clusterDim.z = 1;
  config.attrs = attribute;
  config.numAttrs = 1;
  cudaError_t e = cudaLaunchKernelEx(&config, fill, data);
  printf("cluster launch: %s\n", cudaGetErrorName(e));
  cudaGetLastError();
  fill<<<1, 64>>>(data);
  int host[64];
  cudaMemcpy(host, data, sizeof host, cudaMemcpyDeviceToHost);
  printf("host[63] = %d\n", host[63]);
  return 0;
}
