// L2 persistence hints (simpleAttributes' pattern): the device reports a
// persisting-L2 capacity, the limit and a stream's access-policy window are
// accepted and read back, the kernel's results do not depend on them.
#include <cstdio>

__global__ void scale(int* data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] *= 2;
}

int main() {
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
  printf("persisting L2 capacity reported: %s\n", prop.persistingL2CacheMaxSize > 0 ? "yes" : "no");
  printf("set limit: %d\n", cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, prop.persistingL2CacheMaxSize));
  size_t limit = 0;
  cudaDeviceGetLimit(&limit, cudaLimitPersistingL2CacheSize);
  printf("limit read back: %s\n", limit == size_t(prop.persistingL2CacheMaxSize) ? "yes" : "no");

  const int n = 1024;
  int* data;
  cudaMalloc(&data, n * sizeof(int));
  int host[n];
  for (int i = 0; i < n; ++i) host[i] = i;
  cudaStream_t stream;
  cudaStreamCreate(&stream);
  cudaStreamAttrValue value = {};
  value.accessPolicyWindow.base_ptr = data;
  value.accessPolicyWindow.num_bytes = n * sizeof(int);
  value.accessPolicyWindow.hitRatio = 0.6f;
  value.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
  value.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
  printf("set window: %d\n", cudaStreamSetAttribute(stream, cudaStreamAttributeAccessPolicyWindow, &value));
  cudaStreamAttrValue back = {};
  cudaStreamGetAttribute(stream, cudaStreamAttributeAccessPolicyWindow, &back);
  printf("window read back: %s\n",
         back.accessPolicyWindow.base_ptr == data && back.accessPolicyWindow.num_bytes == n * sizeof(int) ? "yes"
                                                                                                         : "no");
  cudaMemcpyAsync(data, host, sizeof host, cudaMemcpyHostToDevice, stream);
  scale<<<n / 256, 256, 0, stream>>>(data, n);
  cudaMemcpyAsync(host, data, sizeof host, cudaMemcpyDeviceToHost, stream);
  cudaStreamSynchronize(stream);
  printf("reset persisting lines: %d\n", cudaCtxResetPersistingL2Cache());
  bool ok = true;
  for (int i = 0; i < n; ++i) ok = ok && host[i] == 2 * i;
  printf("results: %s\n", ok ? "correct" : "wrong");
  cudaStreamDestroy(stream);
  cudaFree(data);
  return ok ? 0 : 1;
}
