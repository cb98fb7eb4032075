// Conditional graph nodes: if/else, while (a kernel of the body counts down
// and clears the handle) and switch, built with cudaGraphAddNode and filled
// by stream capture into the body graphs (cudaStreamBeginCaptureToGraph).
#include <cstdio>

__global__ void decide(cudaGraphConditionalHandle handle, const int* value) {
  cudaGraphSetConditional(handle, unsigned(*value));
}
__global__ void record(int* log, int tag) { log[atomicAdd(&log[0], 1) + 1] = tag; }
__global__ void countDown(cudaGraphConditionalHandle handle, int* counter, int* log) {
  log[atomicAdd(&log[0], 1) + 1] = 100 + *counter;
  if (--*counter == 0) cudaGraphSetConditional(handle, 0);
}

void addKernel(cudaGraph_t graph, cudaGraphNode_t* node, const cudaGraphNode_t* deps, size_t count, void* func,
               void** args) {
  cudaGraphNodeParams params = {cudaGraphNodeTypeKernel};
  params.kernel.func = func;
  params.kernel.gridDim = dim3(1);
  params.kernel.blockDim = dim3(1);
  params.kernel.kernelParams = args;
  cudaGraphAddNode(node, graph, deps, nullptr, count, &params);
}

// A graph: decide, then a conditional node of `type` with `bodies` bodies;
// body i records tag 10 + i (a while body counts `counter` down instead).
cudaGraphExec_t build(cudaGraphConditionalNodeType type, unsigned bodies, int* value, int* counter, int* log) {
  cudaGraph_t graph;
  cudaGraphCreate(&graph, 0);
  cudaGraphConditionalHandle handle;
  cudaGraphConditionalHandleCreate(&handle, graph, 0, cudaGraphCondAssignDefault);
  cudaGraphNode_t first, conditional;
  void* decideArgs[] = {&handle, &value};
  addKernel(graph, &first, nullptr, 0, (void*)decide, decideArgs);
  cudaGraphNodeParams params = {cudaGraphNodeTypeConditional};
  params.conditional.handle = handle;
  params.conditional.type = type;
  params.conditional.size = bodies;
  cudaGraphAddNode(&conditional, graph, &first, nullptr, 1, &params);
  cudaStream_t stream;
  cudaStreamCreate(&stream);
  for (unsigned i = 0; i < bodies; ++i) {
    cudaStreamBeginCaptureToGraph(stream, params.conditional.phGraph_out[i], nullptr, nullptr, 0,
                                  cudaStreamCaptureModeGlobal);
    if (type == cudaGraphCondTypeWhile) countDown<<<1, 1, 0, stream>>>(handle, counter, log);
    else record<<<1, 1, 0, stream>>>(log, 10 + int(i));
    cudaStreamEndCapture(stream, nullptr);
  }
  cudaStreamDestroy(stream);
  cudaGraphExec_t exec;
  cudaGraphInstantiate(&exec, graph, 0);
  cudaGraphDestroy(graph);
  return exec;
}

void run(const char* name, cudaGraphExec_t exec, int* value, int setting, int* counter, int* log) {
  int zero[16] = {}, three = 3;
  cudaMemcpy(value, &setting, sizeof setting, cudaMemcpyHostToDevice);
  cudaMemcpy(counter, &three, sizeof three, cudaMemcpyHostToDevice);
  cudaMemcpy(log, zero, sizeof zero, cudaMemcpyHostToDevice);
  cudaGraphLaunch(exec, 0);
  cudaError_t e = cudaDeviceSynchronize();
  int out[16];
  cudaMemcpy(out, log, sizeof out, cudaMemcpyDeviceToHost);
  printf("%s(%d):", name, setting);
  for (int i = 1; i <= out[0]; ++i) printf(" %d", out[i]);
  printf("%s\n", e == cudaSuccess ? "" : " error");
}

int main() {
  int *value, *counter, *log;
  cudaMalloc(&value, sizeof(int));
  cudaMalloc(&counter, sizeof(int));
  cudaMalloc(&log, 16 * sizeof(int));
  cudaGraphExec_t ifElse = build(cudaGraphCondTypeIf, 2, value, counter, log);
  cudaGraphExec_t loop = build(cudaGraphCondTypeWhile, 1, value, counter, log);
  cudaGraphExec_t choose = build(cudaGraphCondTypeSwitch, 3, value, counter, log);
  run("if", ifElse, value, 1, counter, log);
  run("if", ifElse, value, 0, counter, log);
  run("while", loop, value, 1, counter, log);
  run("while", loop, value, 0, counter, log);
  for (int v = 0; v < 4; ++v) run("switch", choose, value, v, counter, log);
  return 0;
}
