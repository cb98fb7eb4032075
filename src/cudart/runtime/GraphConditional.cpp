// Conditional graph nodes (CUDA 12.3+): handles whose value kernels set with
// cudaGraphSetConditional, and nodes that run their body graphs by it: if
// (body 0 when non-zero, body 1 if any when zero), while (body 0 as long as
// non-zero), switch (body n when the value is n).
#include <cstdio>
#include <mutex>

#include "cudart/runtime/Graph.h"
#include "cudart/runtime/GraphNodes.h"

namespace predatar::cudart {
namespace {

// Conditional handles: the value kernels set, and what a graph launch resets.
struct ConditionalHandle {
  const CUgraph_st* graph = nullptr;
  unsigned value = 0, defaultValue = 0;
  bool assignDefault = false;
};
std::vector<ConditionalHandle>& conditionalHandles() {  // handle h is element h - 1
  static auto* handles = new std::vector<ConditionalHandle>;
  return *handles;
}
ConditionalHandle* conditionalHandle(unsigned long long h) {
  auto& all = conditionalHandles();
  return h >= 1 && h <= all.size() ? &all[h - 1] : nullptr;
}

}  // namespace

// A while node's body runs at most this many times per launch: a condition
// nothing clears would otherwise hang the program without a word.
constexpr uint64_t kMaxWhileIterations = uint64_t(1) << 24;

// Runs the bodies a conditional node's handle value selects, as CUDA does.
cudaError_t runConditional(CUgraphNode_st& n, cudaStream_t stream) {
  ConditionalHandle* h = conditionalHandle(n.condHandle);
  if (h == nullptr) return cudaErrorInvalidValue;
  switch (n.condType) {
    case cudaGraphCondTypeIf:
      if (h->value) return runGraphNodes(*n.bodies[0], stream);
      return n.bodies.size() > 1 ? runGraphNodes(*n.bodies[1], stream) : cudaSuccess;
    case cudaGraphCondTypeSwitch:
      return h->value < n.bodies.size() ? runGraphNodes(*n.bodies[h->value], stream) : cudaSuccess;
    default:
      for (uint64_t i = 0; h->value; ++i) {
        if (i == kMaxWhileIterations) {
          std::fprintf(stderr, "predatar: a while conditional node ran its body %llu times and its handle is still "
                               "non-zero: stopped (does a kernel of the body call cudaGraphSetConditional(h, 0)?)\n",
                       static_cast<unsigned long long>(i));
          return cudaErrorLaunchFailure;
        }
        if (cudaError_t e = runGraphNodes(*n.bodies[0], stream); e != cudaSuccess) return e;
      }
      return cudaSuccess;
  }
}

void resetConditionalHandles(const CUgraph_st* graph) {
  for (ConditionalHandle& h : conditionalHandles())
    if (h.graph == graph && h.assignDefault) h.value = h.defaultValue;
}

bool setGraphConditional(uint64_t handle, uint32_t value) {
  ConditionalHandle* h = conditionalHandle(handle);
  if (h == nullptr) return false;
  h->value = value;
  return true;
}

// A conditional node owns its body graphs, created with it, empty; the
// caller fills them through phGraph_out.
cudaError_t addConditionalNode(cudaGraphNode_t* node, cudaGraph_t graph, const cudaGraphNode_t* deps,
                                      size_t count, cudaConditionalNodeParams& params) {
  std::lock_guard lock(Runtime::get().mutex());
  if (conditionalHandle(params.handle) == nullptr) return cudaErrorInvalidValue;
  bool sizeOk = params.type == cudaGraphCondTypeIf       ? params.size == 1 || params.size == 2
                : params.type == cudaGraphCondTypeWhile  ? params.size == 1
                : params.type == cudaGraphCondTypeSwitch ? params.size >= 1
                                                         : false;
  if (!sizeOk) return cudaErrorInvalidValue;
  auto n = std::make_unique<CUgraphNode_st>();
  n->type = cudaGraphNodeTypeConditional;
  n->condHandle = params.handle;
  n->condType = params.type;
  for (unsigned i = 0; i < params.size; ++i) {
    n->bodies.push_back(std::make_unique<CUgraph_st>());
    n->bodyHandles.push_back(n->bodies.back().get());
  }
  params.phGraph_out = n->bodyHandles.data();
  return addGraphNode(node, graph, deps, count, std::move(n));
}

}  // namespace predatar::cudart

using namespace predatar::cudart;

extern "C" {

// Exported (the library builds with hidden visibility by default).
#pragma GCC visibility push(default)

cudaError_t cudaGraphConditionalHandleCreate(cudaGraphConditionalHandle* handle, cudaGraph_t graph,
                                             unsigned int defaultValue, unsigned int flags) {
  std::lock_guard lock(Runtime::get().mutex());
  if (handle == nullptr || graph == nullptr || (flags & ~kGraphCondAssignDefault)) return fail(cudaErrorInvalidValue);
  conditionalHandles().push_back(
      ConditionalHandle{graph, defaultValue, defaultValue, (flags & kGraphCondAssignDefault) != 0});
  *handle = conditionalHandles().size();
  return cudaSuccess;
}

#pragma GCC visibility pop

}  // extern "C"
