// The nodes and graphs behind cudaGraph_t / cudaGraphNode_t / cudaGraphExec_t,
// shared by the graph translation units (Graph.cpp: construction, capture,
// execution; GraphConditional.cpp: conditional nodes). Private to the runtime.
#pragma once

#include <map>
#include <memory>
#include <vector>

#include "cudart/runtime/GraphTypes.h"
#include "cudart/runtime/Runtime.h"

struct CUgraph_st;

struct CUgraphNode_st {
  int type = cudaGraphNodeTypeEmpty;
  std::vector<CUgraphNode_st*> deps;
  // kernel
  predatar::cudart::KernelRecord* kernel = nullptr;
  void* func = nullptr;
  dim3 grid{1, 1, 1}, block{1, 1, 1};
  unsigned sharedBytes = 0;
  std::vector<std::vector<uint8_t>> args;
  // copy: `height` rows of `width` bytes; memset: rows of `width` elements
  void* dst = nullptr;
  const void* src = nullptr;
  size_t width = 0, height = 1, dstPitch = 0, srcPitch = 0;
  int kind = 0;
  unsigned value = 0, elementSize = 1;
  // host
  cudaHostFn_t fn = nullptr;
  void* userData = nullptr;
  // child graph (owned copy)
  std::unique_ptr<CUgraph_st> child;
  // conditional: the handle, the kind, the body graphs (owned) and the array
  // cudaConditionalNodeParams::phGraph_out points to
  unsigned long long condHandle = 0;
  int condType = 0;
  std::vector<std::unique_ptr<CUgraph_st>> bodies;
  std::vector<CUgraph_st*> bodyHandles;
};

struct CUgraph_st {
  std::vector<std::unique_ptr<CUgraphNode_st>> nodes;
};

struct CUgraphExec_st {
  const CUgraph_st* source = nullptr;  // the graph instantiated (its handles reset at launch)
  std::unique_ptr<CUgraph_st> graph;
  std::map<const CUgraphNode_st*, CUgraphNode_st*> fromOriginal;  // node of the source graph -> copy
};

namespace predatar::cudart {

// Graph.cpp: runs `graph`'s nodes in order; adds `node` after `deps`.
cudaError_t runGraphNodes(const CUgraph_st& graph, cudaStream_t stream);
cudaError_t addGraphNode(cudaGraphNode_t* out, cudaGraph_t graph, const cudaGraphNode_t* deps, size_t count,
                         std::unique_ptr<CUgraphNode_st> node);

// GraphConditional.cpp: runs the bodies a conditional node's handle selects;
// applies the default value of `graph`'s assign-default handles (at each
// launch); adds a conditional node and creates its bodies (phGraph_out).
cudaError_t runConditional(CUgraphNode_st& node, cudaStream_t stream);
void resetConditionalHandles(const CUgraph_st* graph);
cudaError_t addConditionalNode(cudaGraphNode_t* node, cudaGraph_t graph, const cudaGraphNode_t* deps, size_t count,
                               cudaConditionalNodeParams& params);

}  // namespace predatar::cudart
