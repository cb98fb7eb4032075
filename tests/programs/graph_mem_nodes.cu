// Graph memory nodes: an explicit allocation node and free node, and
// cudaMallocAsync/cudaFreeAsync captured from a stream; graph memory
// attributes and trim; graph memory freed by cudaFree outside the graph; an
// allocation that reuses the address of one the graph freed before it.
// Every access is ordered (no races). The attribute values are an H200's
// (bench/native/RESULTS.md): physical memory in 32 MiB granules, kept by the
// executable graph after its launch, taken over by a later launch on the same
// stream, released by a trim.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void fill(int* p, int n, int v) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = v + i;
}

__global__ void overwrite(int* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = -1;
}

int main() {
  const int n = 256;
  int host[n];
  // Explicit: alloc -> fill -> copy out -> free.
  cudaGraph_t g;
  cudaGraphCreate(&g, 0);
  cudaMemAllocNodeParams ap = {};
  ap.poolProps.allocType = cudaMemAllocationTypePinned;
  ap.poolProps.location.type = cudaMemLocationTypeDevice;
  ap.poolProps.location.id = 0;
  ap.bytesize = n * sizeof(int);
  cudaGraphNode_t alloc, kernel, copy, freeNode;
  printf("alloc node: %s\n", cudaGetErrorName(cudaGraphAddMemAllocNode(&alloc, g, nullptr, 0, &ap)));
  int* d = static_cast<int*>(ap.dptr);
  int value = 7, count = n;
  void* args[] = {&d, &count, &value};
  cudaKernelNodeParams kp = {};
  kp.func = (void*)fill;
  kp.gridDim = dim3(2);
  kp.blockDim = dim3(128);
  kp.kernelParams = args;
  cudaGraphAddKernelNode(&kernel, g, &alloc, 1, &kp);
  cudaGraphAddMemcpyNode1D(&copy, g, &kernel, 1, host, d, sizeof host, cudaMemcpyDeviceToHost);
  printf("free node: %s\n", cudaGetErrorName(cudaGraphAddMemFreeNode(&freeNode, g, &copy, 1, d)));
  int type = -1;
  cudaGraphNodeGetType(alloc, reinterpret_cast<cudaGraphNodeType*>(&type));
  printf("alloc node type: %d\n", type);
  cudaGraphExec_t exec;
  cudaGraphInstantiate(&exec, g, 0);
  for (int launch = 0; launch < 3; ++launch) {
    cudaGraphLaunch(exec, 0);
    cudaStreamSynchronize(0);
    printf("explicit launch %d: host[0]=%d host[255]=%d\n", launch, host[0], host[255]);
  }
  unsigned long long used = 1, reserved = 0;
  cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrUsedMemCurrent, &used);
  cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrReservedMemCurrent, &reserved);
  printf("used after free: %llu, reserved: %llu\n", used, reserved);
  printf("trim: %s\n", cudaGetErrorName(cudaDeviceGraphMemTrim(0)));

  // Captured: cudaMallocAsync / cudaFreeAsync become alloc / free nodes.
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  cudaGraph_t captured;
  int* c = nullptr;
  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
  printf("captured malloc: %s\n", cudaGetErrorName(cudaMallocAsync(reinterpret_cast<void**>(&c), n * sizeof(int), s)));
  value = 100;
  fill<<<2, 128, 0, s>>>(c, n, value);
  cudaMemcpyAsync(host, c, sizeof host, cudaMemcpyDeviceToHost, s);
  printf("captured free: %s\n", cudaGetErrorName(cudaFreeAsync(c, s)));
  cudaStreamEndCapture(s, &captured);
  cudaGraphExec_t capturedExec;
  printf("instantiate auto-free: %s\n",
         cudaGetErrorName(cudaGraphInstantiateWithFlags(&capturedExec, captured,
                                                        cudaGraphInstantiateFlagAutoFreeOnLaunch)));
  cudaGraphLaunch(capturedExec, s);
  cudaStreamSynchronize(s);
  printf("captured: host[0]=%d host[255]=%d\n", host[0], host[255]);

  // Two kernel nodes in a chain after the allocation, the memory freed outside the graph.
  cudaGraph_t racy;
  cudaGraphCreate(&racy, 0);
  cudaGraphNode_t ra, rk1, rk2;
  cudaGraphAddMemAllocNode(&ra, racy, nullptr, 0, &ap);
  int* r = static_cast<int*>(ap.dptr);
  void* rargs[] = {&r, &count, &value};
  kp.kernelParams = rargs;
  cudaGraphAddKernelNode(&rk1, racy, &ra, 1, &kp);
  void* oargs[] = {&r, &count};
  kp.func = (void*)overwrite;
  kp.kernelParams = oargs;
  cudaGraphAddKernelNode(&rk2, racy, &rk1, 1, &kp);
  cudaGraphExec_t racyExec;
  cudaGraphInstantiate(&racyExec, racy, 0);
  cudaGraphLaunch(racyExec, s);
  cudaStreamSynchronize(s);
  cudaMemcpy(host, r, sizeof host, cudaMemcpyDeviceToHost);
  printf("chain: host[0]=%d\n", host[0]);
  cudaFree(r);  // graph memory freed outside the graph

  // alloc a -> fill a -> free a -> alloc b -> overwrite b -> copy b out -> free b:
  // b gets a's address, as CUDA gives it (the free orders every use of a before b).
  cudaGraph_t reuse;
  cudaGraphCreate(&reuse, 0);
  cudaGraphNode_t allocA, fillA, freeA, allocB, overwriteB, copyB, freeB;
  cudaGraphAddMemAllocNode(&allocA, reuse, nullptr, 0, &ap);
  int* a = static_cast<int*>(ap.dptr);
  void* aargs[] = {&a, &count, &value};
  kp.func = (void*)fill;
  kp.kernelParams = aargs;
  cudaGraphAddKernelNode(&fillA, reuse, &allocA, 1, &kp);
  cudaGraphAddMemFreeNode(&freeA, reuse, &fillA, 1, a);
  cudaGraphAddMemAllocNode(&allocB, reuse, &freeA, 1, &ap);
  int* b = static_cast<int*>(ap.dptr);
  printf("b reuses a's address: %s\n", a == b ? "yes" : "no");
  void* bargs[] = {&b, &count};
  kp.func = (void*)overwrite;
  kp.kernelParams = bargs;
  cudaGraphAddKernelNode(&overwriteB, reuse, &allocB, 1, &kp);
  cudaGraphAddMemcpyNode1D(&copyB, reuse, &overwriteB, 1, host, b, sizeof host, cudaMemcpyDeviceToHost);
  cudaGraphAddMemFreeNode(&freeB, reuse, &copyB, 1, b);
  cudaGraphExec_t reuseExec;
  cudaGraphInstantiate(&reuseExec, reuse, 0);
  cudaGraphLaunch(reuseExec, s);
  cudaStreamSynchronize(s);
  cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrUsedMemCurrent, &used);
  printf("reuse: host[0]=%d, used: %llu\n", host[0], used);
  cudaDeviceGraphMemTrim(0);
  cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrUsedMemCurrent, &used);
  cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrReservedMemCurrent, &reserved);
  printf("after trim: used %llu, reserved %llu\n", used, reserved);
  printf("last error: %s\n", cudaGetErrorName(cudaGetLastError()));
  return 0;
}
