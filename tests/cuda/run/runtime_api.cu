// Exercises the runtime API around kernels: streams, events, async copies,
// managed and pinned memory, device queries, symbols, launch errors.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(call)                                                              \
  do {                                                                           \
    cudaError_t err_ = (call);                                                   \
    if (err_ != cudaSuccess) {                                                   \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,         \
                   cudaGetErrorString(err_));                                    \
      std::exit(1);                                                              \
    }                                                                            \
  } while (0)

__device__ float bias = 0.5f;
__device__ __managed__ int managedFlag = 1;

__global__ void saxpy(float a, const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i] + bias;
}

__global__ void bump(int* counter) {
  atomicAdd(counter, managedFlag);
}

int main() {
  int devices = 0;
  CHECK(cudaGetDeviceCount(&devices));
  CHECK(cudaSetDevice(0));
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  int warp = 0;
  CHECK(cudaDeviceGetAttribute(&warp, cudaDevAttrWarpSize, 0));
  std::printf("devices: %d, warp size %d/%d, sm_%d%d or newer: %s\n", devices, prop.warpSize, warp,
              prop.major, prop.minor, prop.major * 10 + prop.minor >= 75 ? "yes" : "no");

  const int n = 256;
  float *x, *y, *hy;
  CHECK(cudaMalloc(&x, n * sizeof(float)));
  CHECK(cudaMallocManaged(&y, n * sizeof(float)));
  CHECK(cudaMallocHost(&hy, n * sizeof(float)));
  for (int i = 0; i < n; ++i) {
    hy[i] = float(i);
    y[i] = 1.0f;
  }
  cudaStream_t stream;
  cudaEvent_t start, stop;
  CHECK(cudaStreamCreate(&stream));
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  CHECK(cudaEventRecord(start, stream));
  CHECK(cudaMemcpyAsync(x, hy, n * sizeof(float), cudaMemcpyHostToDevice, stream));
  saxpy<<<n / 128, 128, 0, stream>>>(2.0f, x, y, n);
  CHECK(cudaGetLastError());
  CHECK(cudaEventRecord(stop, stream));
  CHECK(cudaStreamSynchronize(stream));
  float ms = -1;
  CHECK(cudaEventElapsedTime(&ms, start, stop));
  std::printf("saxpy: y[10] = %.1f, y[255] = %.1f, elapsed >= 0: %s\n", y[10], y[255], ms >= 0 ? "yes" : "no");

  int* counter;
  CHECK(cudaMalloc(&counter, sizeof(int)));
  CHECK(cudaMemsetAsync(counter, 0, sizeof(int), stream));
  managedFlag = 2;
  bump<<<2, 32, 0, stream>>>(counter);
  CHECK(cudaDeviceSynchronize());
  int total = 0;
  CHECK(cudaMemcpy(&total, counter, sizeof total, cudaMemcpyDefault));
  std::printf("bump: counter = %d\n", total);

  float b = 0;
  CHECK(cudaMemcpyFromSymbol(&b, bias, sizeof b));
  std::printf("bias = %.2f\n", b);

  // An invalid launch configuration is reported, not fatal.
  bump<<<1, 4096>>>(counter);
  cudaError_t err = cudaGetLastError();
  std::printf("oversized block: %s (%s)\n", cudaGetErrorName(err), cudaGetErrorString(err));
  std::printf("after: %s\n", cudaGetErrorName(cudaGetLastError()));

  CHECK(cudaEventDestroy(start));
  CHECK(cudaEventDestroy(stop));
  CHECK(cudaStreamDestroy(stream));
  CHECK(cudaFree(x));
  CHECK(cudaFree(y));
  CHECK(cudaFree(counter));
  CHECK(cudaFreeHost(hy));
  return 0;
}
