// CUDA graphs: explicit construction (memcpy, memset, kernel, host, empty and
// child graph nodes, added dependencies), stream capture across two streams
// forked and joined with events, instantiation, repeated launches, kernel
// node updates, and a refused feature. Kernel nodes are checked like any
// launch: `racyCount` races (line 19) in every launch of its graph.
#include <cstdio>

#define CHECK(call)                                                               \
  do {                                                                            \
    cudaError_t e_ = (call);                                                      \
    if (e_ != cudaSuccess) { printf("%s: %s\n", #call, cudaGetErrorName(e_)); return 1; } \
  } while (0)

__global__ void scale(float* a, float f, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] *= f;
}
__global__ void addIndex(float* a, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) a[i] += i; }
__global__ void racyCount(int* c) { *c = *c + 1; }

void hostStep(void* data) { ++*static_cast<int*>(data); }

int main() {
  const int n = 256;
  float h[n], out[n];
  for (int i = 0; i < n; ++i) h[i] = 1.0f;
  float *a, *b;
  int* counter;
  CHECK(cudaMalloc(&a, n * sizeof(float)));
  CHECK(cudaMalloc(&b, n * sizeof(float)));
  CHECK(cudaMalloc(&counter, sizeof(int)));
  int hostCalls = 0;

  // Explicit: copy in -> scale(3) -> child{addIndex} -> copy out, memset of the counter -> racyCount, host node last.
  cudaGraph_t graph, child;
  CHECK(cudaGraphCreate(&graph, 0));
  CHECK(cudaGraphCreate(&child, 0));
  cudaGraphNode_t copyIn, scaleNode, childNode, copyOut, memsetNode, racyNode, hostNode, join;
  CHECK(cudaGraphAddMemcpyNode1D(&copyIn, graph, nullptr, 0, a, h, sizeof h, cudaMemcpyHostToDevice));
  float factor = 3.0f;
  int count = n;
  void* scaleArgs[] = {&a, &factor, &count};
  cudaKernelNodeParams kp = {};
  kp.func = (void*)scale;
  kp.gridDim = dim3(n / 64);
  kp.blockDim = dim3(64);
  kp.kernelParams = scaleArgs;
  CHECK(cudaGraphAddKernelNode(&scaleNode, graph, &copyIn, 1, &kp));
  factor = 100.0f;  // the node keeps the value it was given
  cudaGraphNode_t childKernel;
  void* addArgs[] = {&a, &count};
  cudaKernelNodeParams ap = {};
  ap.func = (void*)addIndex;
  ap.gridDim = dim3(n / 64);
  ap.blockDim = dim3(64);
  ap.kernelParams = addArgs;
  CHECK(cudaGraphAddKernelNode(&childKernel, child, nullptr, 0, &ap));
  CHECK(cudaGraphAddChildGraphNode(&childNode, graph, &scaleNode, 1, child));
  CHECK(cudaGraphAddMemcpyNode1D(&copyOut, graph, &childNode, 1, out, a, sizeof out, cudaMemcpyDeviceToHost));
  cudaMemsetParams mp = {};
  mp.dst = counter;
  mp.value = 0;
  mp.elementSize = 4;
  mp.width = 1;
  mp.height = 1;
  CHECK(cudaGraphAddMemsetNode(&memsetNode, graph, nullptr, 0, &mp));
  void* racyArgs[] = {&counter};
  cudaKernelNodeParams rp = {};
  rp.func = (void*)racyCount;
  rp.gridDim = dim3(1);
  rp.blockDim = dim3(1);
  rp.kernelParams = racyArgs;
  CHECK(cudaGraphAddKernelNode(&racyNode, graph, &memsetNode, 1, &rp));
  CHECK(cudaGraphAddEmptyNode(&join, graph, nullptr, 0));
  cudaGraphNode_t from[] = {copyOut, racyNode}, to[] = {join, join};
  CHECK(cudaGraphAddDependencies(graph, from, to, nullptr, 2));
  cudaHostNodeParams hp = {hostStep, &hostCalls};
  CHECK(cudaGraphAddHostNode(&hostNode, graph, &join, 1, &hp));
  size_t nodes = 0;
  CHECK(cudaGraphGetNodes(graph, nullptr, &nodes));
  printf("explicit graph: %zu nodes\n", nodes);

  cudaGraphExec_t exec;
  CHECK(cudaGraphInstantiate(&exec, graph, 0));
  cudaStream_t s1, s2;
  CHECK(cudaStreamCreate(&s1));
  CHECK(cudaStreamCreate(&s2));
  for (int launch = 0; launch < 2; ++launch) {
    CHECK(cudaGraphLaunch(exec, s1));
    CHECK(cudaStreamSynchronize(s1));
    int bad = 0;
    for (int i = 0; i < n; ++i) bad += out[i] != 3.0f + i;
    printf("launch %d: out[0]=%g out[255]=%g mismatches=%d host calls=%d\n", launch, out[0], out[255], bad, hostCalls);
  }
  // A one-block racyCount grid is not racy: grow it through the executable graph.
  rp.blockDim = dim3(32);
  CHECK(cudaGraphExecKernelNodeSetParams(exec, racyNode, &rp));
  factor = 2.0f;
  kp.kernelParams = scaleArgs;
  CHECK(cudaGraphExecKernelNodeSetParams(exec, scaleNode, &kp));
  CHECK(cudaGraphLaunch(exec, s1));
  CHECK(cudaStreamSynchronize(s1));
  printf("updated: out[0]=%g out[10]=%g host calls=%d\n", out[0], out[10], hostCalls);

  // Stream capture: s1 forks s2 through an event, both scale their arrays, s1 joins s2.
  cudaEvent_t forkEvent, joinEvent;
  CHECK(cudaEventCreate(&forkEvent));
  CHECK(cudaEventCreate(&joinEvent));
  CHECK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
  cudaStreamCaptureStatus status;
  CHECK(cudaStreamIsCapturing(s1, &status));
  printf("capturing: %d\n", int(status));
  CHECK(cudaMemcpyAsync(a, h, sizeof h, cudaMemcpyHostToDevice, s1));
  CHECK(cudaMemsetAsync(b, 0, sizeof h, s1));
  CHECK(cudaEventRecord(forkEvent, s1));
  CHECK(cudaStreamWaitEvent(s2, forkEvent, 0));
  scale<<<n / 64, 64, 0, s1>>>(a, 5.0f, n);
  addIndex<<<n / 64, 64, 0, s2>>>(b, n);
  CHECK(cudaEventRecord(joinEvent, s2));
  CHECK(cudaStreamWaitEvent(s1, joinEvent, 0));
  CHECK(cudaLaunchHostFunc(s1, hostStep, &hostCalls));
  CHECK(cudaMemcpyAsync(out, b, sizeof out, cudaMemcpyDeviceToHost, s1));
  cudaGraph_t captured;
  CHECK(cudaStreamEndCapture(s1, &captured));
  CHECK(cudaStreamIsCapturing(s1, &status));
  CHECK(cudaGraphGetNodes(captured, nullptr, &nodes));
  printf("captured graph: %zu nodes, capturing after end: %d, host calls during capture: %d\n", nodes, int(status),
         hostCalls);
  cudaGraphExec_t capturedExec;
  CHECK(cudaGraphInstantiate(&capturedExec, captured, 0));
  CHECK(cudaGraphLaunch(capturedExec, s1));
  CHECK(cudaStreamSynchronize(s1));
  float first;
  CHECK(cudaMemcpy(&first, a, sizeof first, cudaMemcpyDeviceToHost));
  printf("captured launch: a[0]=%g b[7]=%g host calls=%d\n", first, out[7], hostCalls);

  // Supported since graph memory nodes (it was refused by name before).
  cudaGraphExec_t flagged;
  printf("instantiate with auto-free flag: %s\n",
         cudaGetErrorName(cudaGraphInstantiate(&flagged, graph, cudaGraphInstantiateFlagAutoFreeOnLaunch)));
  cudaGetLastError();

  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphExecDestroy(capturedExec));
  CHECK(cudaGraphDestroy(graph));
  CHECK(cudaGraphDestroy(child));
  CHECK(cudaGraphDestroy(captured));
  CHECK(cudaStreamDestroy(s1));
  CHECK(cudaStreamDestroy(s2));
  cudaFree(a);
  cudaFree(b);
  cudaFree(counter);
  return 0;
}
