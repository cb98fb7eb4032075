// Stream-ordered allocation: cudaMallocAsync/cudaFreeAsync on a stream, the
// default memory pool and its attributes, a created pool with
// cudaMallocFromPoolAsync, and memory used by kernels between the two.
#include <cstdio>

#define CHECK(call)                                                               \
  do {                                                                            \
    cudaError_t e_ = (call);                                                      \
    if (e_ != cudaSuccess) { printf("%s: %s\n", #call, cudaGetErrorName(e_)); return 1; } \
  } while (0)

__global__ void fill(int* a, int n, int base) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = base + i;
}
__global__ void sum(const int* a, int n, int* total) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(total, a[i]);
}

int main() {
  const int n = 1000;
  cudaStream_t stream;
  CHECK(cudaStreamCreate(&stream));
  cudaMemPool_t pool;
  CHECK(cudaDeviceGetDefaultMemPool(&pool, 0));
  unsigned long long threshold = ~0ull;
  CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold));
  unsigned long long got = 0;
  CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &got));
  printf("release threshold kept: %d\n", got == threshold);

  int *a, *total;
  CHECK(cudaMallocAsync(&a, n * sizeof(int), stream));
  CHECK(cudaMallocAsync(&total, sizeof(int), stream));
  unsigned long long used = 0;
  CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used));
  printf("used after two allocations: %llu\n", used);
  CHECK(cudaMemsetAsync(total, 0, sizeof(int), stream));
  fill<<<(n + 127) / 128, 128, 0, stream>>>(a, n, 1);
  sum<<<(n + 127) / 128, 128, 0, stream>>>(a, n, total);
  int h = 0;
  CHECK(cudaMemcpyAsync(&h, total, sizeof h, cudaMemcpyDeviceToHost, stream));
  CHECK(cudaFreeAsync(a, stream));
  CHECK(cudaFreeAsync(total, stream));
  CHECK(cudaStreamSynchronize(stream));
  printf("sum: %d (expected %d)\n", h, n * (n + 1) / 2);
  CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used));
  unsigned long long high = 0;
  CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &high));
  printf("used after free: %llu, high: %llu\n", used, high);

  cudaMemPoolProps props = {};
  props.allocType = cudaMemAllocationTypePinned;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = 0;
  cudaMemPool_t own;
  CHECK(cudaMemPoolCreate(&own, &props));
  int* b;
  CHECK(cudaMallocFromPoolAsync((void**)&b, 64 * sizeof(int), own, stream));
  fill<<<1, 64, 0, stream>>>(b, 64, 100);
  int last = 0;
  CHECK(cudaMemcpyAsync(&last, b + 63, sizeof last, cudaMemcpyDeviceToHost, stream));
  CHECK(cudaStreamSynchronize(stream));
  CHECK(cudaMemPoolGetAttribute(own, cudaMemPoolAttrUsedMemCurrent, &used));
  printf("own pool: b[63]=%d used=%llu\n", last, used);
  CHECK(cudaFreeAsync(b, stream));
  CHECK(cudaMemPoolTrimTo(own, 0));
  CHECK(cudaMemPoolDestroy(own));
  cudaMemPool_t current;
  CHECK(cudaDeviceGetMemPool(&current, 0));
  printf("current pool is the default: %d\n", current == pool);
  CHECK(cudaStreamDestroy(stream));
  return 0;
}
