// CUDA graphs. A graph is a list of nodes with their dependencies; an
// executable graph is a copy of it in a topological order (ties broken by
// creation order), and launching it runs the nodes one after another through
// the same paths as the stream calls, so every kernel node is a launch checked
// like any other. Stream capture turns the work issued to the capturing
// streams into nodes, with dependencies following the streams and the events
// that join them. Unsupported node kinds and parameters are refused by name.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cudart/runtime/Graph.h"
#include "cudart/runtime/GraphNodes.h"
#include "cudart/runtime/Unsupported.h"

using namespace predatar::cudart;

namespace predatar::cudart {
namespace {

Runtime& rt() { return Runtime::get(); }

using Node = CUgraphNode_st;
using Graph = CUgraph_st;

// ---------------------------------------------------------------- graphs

std::unique_ptr<Graph> cloneGraph(const Graph& g, std::map<const Node*, Node*>* mapping = nullptr) {
  auto copy = std::make_unique<Graph>();
  std::map<const Node*, Node*> local;
  auto& map = mapping ? *mapping : local;
  for (const auto& n : g.nodes) {
    auto c = std::make_unique<Node>();
    c->type = n->type;
    c->kernel = n->kernel;
    c->func = n->func;
    c->grid = n->grid;
    c->block = n->block;
    c->sharedBytes = n->sharedBytes;
    c->args = n->args;
    c->dst = n->dst;
    c->src = n->src;
    c->width = n->width;
    c->height = n->height;
    c->dstPitch = n->dstPitch;
    c->srcPitch = n->srcPitch;
    c->kind = n->kind;
    c->value = n->value;
    c->elementSize = n->elementSize;
    c->fn = n->fn;
    c->userData = n->userData;
    if (n->child) c->child = cloneGraph(*n->child);
    c->condHandle = n->condHandle;
    c->condType = n->condType;
    for (const auto& body : n->bodies) {
      c->bodies.push_back(cloneGraph(*body));
      c->bodyHandles.push_back(c->bodies.back().get());
    }
    map[n.get()] = c.get();
    copy->nodes.push_back(std::move(c));
  }
  for (size_t i = 0; i < g.nodes.size(); ++i)
    for (Node* d : g.nodes[i]->deps) copy->nodes[i]->deps.push_back(map.at(d));
  return copy;
}

bool owns(const Graph& g, const Node* n) {
  for (const auto& m : g.nodes)
    if (m.get() == n) return true;
  return false;
}

// Nodes in a dependency order, earliest created first among the ready ones;
// false on a cycle.
bool topologicalOrder(const Graph& g, std::vector<Node*>& order) {
  std::map<const Node*, size_t> index;
  for (size_t i = 0; i < g.nodes.size(); ++i) index[g.nodes[i].get()] = i;
  std::vector<bool> done(g.nodes.size(), false);
  order.clear();
  while (order.size() < g.nodes.size()) {
    bool progress = false;
    for (size_t i = 0; i < g.nodes.size(); ++i) {
      if (done[i]) continue;
      bool ready = std::all_of(g.nodes[i]->deps.begin(), g.nodes[i]->deps.end(),
                               [&](const Node* d) { return done[index.at(d)]; });
      if (!ready) continue;
      done[i] = true;
      order.push_back(g.nodes[i].get());
      progress = true;
      break;
    }
    if (!progress) return false;
  }
  return true;
}

cudaError_t runNode(Node& n, cudaStream_t stream);
cudaError_t runGraph(const Graph& g, cudaStream_t stream);

cudaError_t runGraph(const Graph& g, cudaStream_t stream) {
  std::vector<Node*> order;
  if (!topologicalOrder(g, order)) return cudaErrorInvalidValue;
  for (Node* n : order)
    if (cudaError_t e = runNode(*n, stream); e != cudaSuccess) return e;
  return cudaSuccess;
}

cudaError_t fillRows(Node& n) {
  for (size_t row = 0; row < n.height; ++row) {
    auto* p = static_cast<uint8_t*>(n.dst) + row * n.dstPitch;
    if (!rt().isDeviceRange(p, n.width * n.elementSize)) return cudaErrorInvalidValue;
    for (size_t i = 0; i < n.width; ++i) std::memcpy(p + i * n.elementSize, &n.value, n.elementSize);
    rt().memory().noteHostWrite(reinterpret_cast<uint64_t>(p), n.width * n.elementSize);
  }
  return cudaSuccess;
}

cudaError_t runNode(Node& n, cudaStream_t stream) {
  if (cudaError_t e = rt().sticky(); e != cudaSuccess) return e;
  switch (n.type) {
    case cudaGraphNodeTypeKernel: {
      std::vector<void*> argv = argumentPointers(n.args);
      return rt().launch(*n.kernel, n.grid, n.block, argv.data(), n.sharedBytes, stream);
    }
    case cudaGraphNodeTypeMemcpy:
      for (size_t row = 0; row < n.height; ++row) {
        cudaError_t e = rt().copy(static_cast<uint8_t*>(n.dst) + row * n.dstPitch,
                                  static_cast<const uint8_t*>(n.src) + row * n.srcPitch, n.width, n.kind);
        if (e != cudaSuccess) return e;
      }
      return cudaSuccess;
    case cudaGraphNodeTypeMemset: return fillRows(n);
    case cudaGraphNodeTypeHost: n.fn(n.userData); return cudaSuccess;
    case cudaGraphNodeTypeGraph: return runGraph(*n.child, stream);
    case cudaGraphNodeTypeMemAlloc: markGraphMemory(n.dst, true); return cudaSuccess;
    case cudaGraphNodeTypeMemFree: markGraphMemory(n.dst, false); return cudaSuccess;
    case cudaGraphNodeTypeConditional: return runConditional(n, stream);
    default: return cudaSuccess;
  }
}

// Copies each kernel argument (Runtime::copyArguments).
cudaError_t kernelNode(Node& n, KernelRecord* kernel, dim3 grid, dim3 block, unsigned sharedBytes, void** args,
                       void** extra) {
  if (kernel == nullptr) return cudaErrorInvalidDeviceFunction;
  if (extra != nullptr) return unsupported("cudaGraphAddKernelNode with arguments in 'extra'");
  if (cudaError_t e = rt().copyArguments(*kernel, args, n.args); e != cudaSuccess) return e;
  n.type = cudaGraphNodeTypeKernel;
  n.kernel = kernel;
  n.grid = grid;
  n.block = block;
  n.sharedBytes = sharedBytes;
  return cudaSuccess;
}

KernelRecord* kernelOf(const void* func) {
  if (KernelRecord* k = rt().kernelByHost(func)) return k;
  return rt().kernelByHandle(func);
}

cudaError_t addNode(cudaGraphNode_t* out, cudaGraph_t graph, const cudaGraphNode_t* deps, size_t count,
                    std::unique_ptr<Node> node) {
  if (out == nullptr || graph == nullptr || (count && deps == nullptr)) return cudaErrorInvalidValue;
  for (size_t i = 0; i < count; ++i) {
    if (!owns(*graph, deps[i])) return cudaErrorInvalidValue;
    node->deps.push_back(deps[i]);
  }
  *out = node.get();
  graph->nodes.push_back(std::move(node));
  return cudaSuccess;
}

// ---------------------------------------------------------------- capture

struct Capture {
  Graph* graph = nullptr;
  bool intoExisting = false;  // cudaStreamBeginCaptureToGraph: the graph is the caller's
  cudaStream_t origin = nullptr;
  unsigned long long id = 0;
  std::map<cudaStream_t, std::vector<Node*>> tails;  // per stream: what its next node depends on
};

struct CaptureState {
  std::map<cudaStream_t, Capture*> byStream;
  std::map<cudaEvent_t, std::pair<Capture*, std::vector<Node*>>> events;
  std::vector<std::unique_ptr<Capture>> captures;
  unsigned long long nextId = 1;
};
CaptureState& captures() {
  static auto* s = new CaptureState;
  return *s;
}

Capture* captureOf(cudaStream_t stream) {
  auto it = captures().byStream.find(stream);
  return it == captures().byStream.end() ? nullptr : it->second;
}

cudaError_t appendCaptured(cudaStream_t stream, std::unique_ptr<Node> node) {
  Capture* c = captureOf(stream);
  std::vector<Node*>& tail = c->tails[stream];
  node->deps = tail;
  tail = {node.get()};
  c->graph->nodes.push_back(std::move(node));
  return cudaSuccess;
}

}  // namespace

cudaError_t runGraphNodes(const CUgraph_st& graph, cudaStream_t stream) { return runGraph(graph, stream); }
cudaError_t addGraphNode(cudaGraphNode_t* out, cudaGraph_t graph, const cudaGraphNode_t* deps, size_t count,
                         std::unique_ptr<CUgraphNode_st> node) {
  return addNode(out, graph, deps, count, std::move(node));
}

bool isCapturing(cudaStream_t stream) { return captureOf(stream) != nullptr; }


cudaError_t captureKernel(KernelRecord& kernel, dim3 grid, dim3 block, void** args, uint64_t sharedBytes,
                          cudaStream_t stream) {
  auto n = std::make_unique<Node>();
  if (cudaError_t e = kernelNode(*n, &kernel, grid, block, unsigned(sharedBytes), args, nullptr); e != cudaSuccess)
    return e;
  return appendCaptured(stream, std::move(n));
}

cudaError_t captureCopy(void* dst, const void* src, uint64_t bytes, int kind, cudaStream_t stream) {
  auto n = std::make_unique<Node>();
  n->type = cudaGraphNodeTypeMemcpy;
  n->dst = dst;
  n->src = src;
  n->width = bytes;
  n->kind = kind;
  return appendCaptured(stream, std::move(n));
}

cudaError_t captureFill(void* dst, int value, uint64_t bytes, cudaStream_t stream) {
  auto n = std::make_unique<Node>();
  n->type = cudaGraphNodeTypeMemset;
  n->dst = dst;
  n->value = unsigned(value) & 0xFF;
  n->width = bytes;
  return appendCaptured(stream, std::move(n));
}

cudaError_t captureHost(cudaHostFn_t fn, void* userData, cudaStream_t stream) {
  auto n = std::make_unique<Node>();
  n->type = cudaGraphNodeTypeHost;
  n->fn = fn;
  n->userData = userData;
  return appendCaptured(stream, std::move(n));
}

cudaError_t captureEventRecord(cudaEvent_t event, cudaStream_t stream) {
  Capture* c = captureOf(stream);
  captures().events[event] = {c, c->tails[stream]};
  return cudaSuccess;
}

bool captureEventWait(cudaStream_t stream, cudaEvent_t event) {
  auto it = captures().events.find(event);
  Capture* mine = captureOf(stream);
  if (it == captures().events.end()) return mine != nullptr;  // an event outside the capture: no dependency
  auto& [capture, nodes] = it->second;
  if (mine == nullptr) {  // the stream joins the capture (fork)
    captures().byStream[stream] = capture;
    capture->tails[stream] = nodes;
    return true;
  }
  std::vector<Node*>& tail = mine->tails[stream];
  for (Node* n : nodes)
    if (std::find(tail.begin(), tail.end(), n) == tail.end()) tail.push_back(n);
  return true;
}

cudaError_t captureAlloc(void** pointer, size_t bytes, cudaStream_t stream) {
  auto n = std::make_unique<Node>();
  n->type = cudaGraphNodeTypeMemAlloc;
  Capture* c = captureOf(stream);
  if (cudaError_t e = reserveGraphMemory(pointer, bytes, c->graph, c->tails[stream]); e != cudaSuccess) return e;
  n->dst = *pointer;
  n->width = bytes;
  return appendCaptured(stream, std::move(n));
}

// Only graph memory may be freed by a free node (as in CUDA).
cudaError_t captureFree(void* pointer, cudaStream_t stream) {
  if (!isGraphMemory(pointer)) return cudaErrorInvalidValue;
  auto n = std::make_unique<Node>();
  n->type = cudaGraphNodeTypeMemFree;
  n->dst = pointer;
  noteGraphFree(pointer, captureOf(stream)->graph, n.get());
  return appendCaptured(stream, std::move(n));
}

}  // namespace predatar::cudart

using namespace predatar::cudart;

namespace {

#define PREDATAR_GRAPH_LOCK()                             \
  std::lock_guard lock(rt().mutex());                     \
  if (rt().sticky() != cudaSuccess) return fail(rt().sticky())

cudaError_t endCapture(cudaStream_t stream, cudaGraph_t* graph) {
  PREDATAR_GRAPH_LOCK();
  CaptureState& s = captures();
  auto it = s.byStream.find(stream);
  if (it == s.byStream.end()) return fail(kErrorIllegalState);
  Capture* c = it->second;
  if (c->origin != stream) return fail(kErrorStreamCaptureUnmatched);
  if (graph == nullptr && !c->intoExisting) return fail(cudaErrorInvalidValue);
  if (graph) *graph = c->graph;
  for (auto i = s.byStream.begin(); i != s.byStream.end();) i = i->second == c ? s.byStream.erase(i) : std::next(i);
  for (auto i = s.events.begin(); i != s.events.end();) i = i->second.first == c ? s.events.erase(i) : std::next(i);
  for (auto i = s.captures.begin(); i != s.captures.end(); ++i)
    if (i->get() == c) { s.captures.erase(i); break; }
  return cudaSuccess;
}

}  // namespace

extern "C" {

// Exported (the library builds with hidden visibility by default).
#pragma GCC visibility push(default)

// ---------------------------------------------------------------- capture

// Starts a capture into `graph` (a new one when null) after `deps`.
static cudaError_t beginCapture(cudaStream_t stream, cudaGraph_t graph, const cudaGraphNode_t* deps, size_t count) {
  PREDATAR_GRAPH_LOCK();
  if (stream == nullptr) return fail(kErrorStreamCaptureUnsupported);  // the legacy stream cannot capture
  if (!rt().validStream(stream)) return fail(cudaErrorInvalidResourceHandle);
  if (isCapturing(stream)) return fail(kErrorIllegalState);
  if (count && deps == nullptr) return fail(cudaErrorInvalidValue);
  for (size_t i = 0; i < count; ++i)
    if (!owns(*graph, deps[i])) return fail(cudaErrorInvalidValue);
  CaptureState& s = captures();
  auto c = std::make_unique<Capture>();
  c->graph = graph ? graph : new CUgraph_st;
  c->intoExisting = graph != nullptr;
  c->origin = stream;
  c->id = s.nextId++;
  c->tails[stream] = std::vector<Node*>(deps, deps + count);
  s.byStream[stream] = c.get();
  s.captures.push_back(std::move(c));
  return cudaSuccess;
}

cudaError_t cudaStreamBeginCapture(cudaStream_t stream, int) { return beginCapture(stream, nullptr, nullptr, 0); }

cudaError_t cudaStreamBeginCaptureToGraph(cudaStream_t stream, cudaGraph_t graph, const cudaGraphNode_t* deps,
                                          const void* edgeData, size_t count, int) {
  if (graph == nullptr) return fail(cudaErrorInvalidValue);
  if (edgeData != nullptr) return unsupported("cudaStreamBeginCaptureToGraph with edge data");
  return beginCapture(stream, graph, deps, count);
}
cudaError_t cudaStreamBeginCaptureToGraph_ptsz(cudaStream_t stream, cudaGraph_t graph, const cudaGraphNode_t* deps,
                                               const void* edgeData, size_t count, int mode)
    __attribute__((alias("cudaStreamBeginCaptureToGraph"), visibility("default")));

// What the next node captured on `stream` depends on: replaced or extended.
cudaError_t cudaStreamUpdateCaptureDependencies(cudaStream_t stream, cudaGraphNode_t* deps, const void* edgeData,
                                                size_t count, unsigned int flags) {
  PREDATAR_GRAPH_LOCK();
  if (edgeData != nullptr) return unsupported("cudaStreamUpdateCaptureDependencies with edge data");
  Capture* c = captureOf(stream);
  if (c == nullptr) return fail(kErrorIllegalState);
  if ((count && deps == nullptr) || flags > cudaStreamSetCaptureDependencies) return fail(cudaErrorInvalidValue);
  for (size_t i = 0; i < count; ++i)
    if (!owns(*c->graph, deps[i])) return fail(cudaErrorInvalidValue);
  std::vector<Node*>& tail = c->tails[stream];
  if (flags == cudaStreamSetCaptureDependencies) tail.clear();
  for (size_t i = 0; i < count; ++i)
    if (std::find(tail.begin(), tail.end(), deps[i]) == tail.end()) tail.push_back(deps[i]);
  return cudaSuccess;
}
cudaError_t cudaStreamUpdateCaptureDependencies_ptsz(cudaStream_t stream, cudaGraphNode_t* deps,
                                                     const void* edgeData, size_t count, unsigned int flags)
    __attribute__((alias("cudaStreamUpdateCaptureDependencies"), visibility("default")));
cudaError_t cudaStreamBeginCapture_ptsz(cudaStream_t stream, int mode)
    __attribute__((alias("cudaStreamBeginCapture"), visibility("default")));

cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t* graph) { return endCapture(stream, graph); }
cudaError_t cudaStreamEndCapture_ptsz(cudaStream_t stream, cudaGraph_t* graph)
    __attribute__((alias("cudaStreamEndCapture"), visibility("default")));

cudaError_t cudaStreamIsCapturing(cudaStream_t stream, int* status) {
  PREDATAR_GRAPH_LOCK();
  if (status == nullptr) return fail(cudaErrorInvalidValue);
  *status = isCapturing(stream) ? cudaStreamCaptureStatusActive : cudaStreamCaptureStatusNone;
  return cudaSuccess;
}
cudaError_t cudaStreamIsCapturing_ptsz(cudaStream_t stream, int* status)
    __attribute__((alias("cudaStreamIsCapturing"), visibility("default")));

cudaError_t cudaStreamGetCaptureInfo(cudaStream_t stream, int* status, unsigned long long* id, cudaGraph_t* graph,
                                     const cudaGraphNode_t** deps, const void** edgeData, size_t* numDeps) {
  PREDATAR_GRAPH_LOCK();
  if (status == nullptr) return fail(cudaErrorInvalidValue);
  Capture* c = captures().byStream.count(stream) ? captures().byStream[stream] : nullptr;
  *status = c ? cudaStreamCaptureStatusActive : cudaStreamCaptureStatusNone;
  if (c == nullptr) return cudaSuccess;
  if (id) *id = c->id;
  if (graph) *graph = c->graph;
  const std::vector<CUgraphNode_st*>& tail = c->tails[stream];
  if (deps) *deps = tail.empty() ? nullptr : tail.data();
  if (edgeData) *edgeData = nullptr;
  if (numDeps) *numDeps = tail.size();
  return cudaSuccess;
}
cudaError_t cudaStreamGetCaptureInfo_ptsz(cudaStream_t stream, int* status, unsigned long long* id,
                                          cudaGraph_t* graph, const cudaGraphNode_t** deps, const void** edgeData,
                                          size_t* numDeps)
    __attribute__((alias("cudaStreamGetCaptureInfo"), visibility("default")));

cudaError_t cudaThreadExchangeStreamCaptureMode(int* mode) {
  static thread_local int current = 0;
  if (mode == nullptr) return fail(cudaErrorInvalidValue);
  std::swap(*mode, current);
  return cudaSuccess;
}

// ---------------------------------------------------------------- construction

cudaError_t cudaGraphCreate(cudaGraph_t* graph, unsigned int flags) {
  if (graph == nullptr || flags != 0) return fail(cudaErrorInvalidValue);
  *graph = new CUgraph_st;
  return cudaSuccess;
}

cudaError_t cudaGraphDestroy(cudaGraph_t graph) {
  if (graph == nullptr) return fail(cudaErrorInvalidValue);
  delete graph;
  return cudaSuccess;
}

cudaError_t cudaGraphClone(cudaGraph_t* clone, cudaGraph_t graph) {
  if (clone == nullptr || graph == nullptr) return fail(cudaErrorInvalidValue);
  *clone = cloneGraph(*graph).release();
  return cudaSuccess;
}

cudaError_t cudaGraphAddKernelNode(cudaGraphNode_t* node, cudaGraph_t graph, const cudaGraphNode_t* deps,
                                   size_t count, const cudaKernelNodeParams* params) {
  PREDATAR_GRAPH_LOCK();
  if (params == nullptr) return fail(cudaErrorInvalidValue);
  auto n = std::make_unique<CUgraphNode_st>();
  cudaError_t e = kernelNode(*n, kernelOf(params->func), params->gridDim, params->blockDim, params->sharedMemBytes,
                             params->kernelParams, params->extra);
  if (e != cudaSuccess) return fail(e);
  n->func = params->func;
  return fail(addNode(node, graph, deps, count, std::move(n)));
}

cudaError_t cudaGraphKernelNodeGetParams(cudaGraphNode_t node, cudaKernelNodeParams* params) {
  PREDATAR_GRAPH_LOCK();
  if (node == nullptr || params == nullptr || node->type != cudaGraphNodeTypeKernel)
    return fail(cudaErrorInvalidValue);
  // The argument pointers stay valid while the node lives.
  static thread_local std::vector<void*> argv;
  argv = argumentPointers(node->args);
  *params = cudaKernelNodeParams{node->func, node->grid, node->block, node->sharedBytes, argv.data(), nullptr};
  return cudaSuccess;
}

cudaError_t cudaGraphKernelNodeSetParams(cudaGraphNode_t node, const cudaKernelNodeParams* params) {
  PREDATAR_GRAPH_LOCK();
  if (node == nullptr || params == nullptr || node->type != cudaGraphNodeTypeKernel)
    return fail(cudaErrorInvalidValue);
  cudaError_t e = kernelNode(*node, kernelOf(params->func), params->gridDim, params->blockDim,
                             params->sharedMemBytes, params->kernelParams, params->extra);
  if (e == cudaSuccess) node->func = params->func;
  return fail(e);
}

cudaError_t cudaGraphAddMemcpyNode(cudaGraphNode_t* node, cudaGraph_t graph, const cudaGraphNode_t* deps,
                                   size_t count, const cudaMemcpy3DParms* p) {
  PREDATAR_GRAPH_LOCK();
  if (p == nullptr) return fail(cudaErrorInvalidValue);
  if (p->srcArray || p->dstArray) return unsupported("cudaGraphAddMemcpyNode with CUDA arrays");
  if (p->extent.depth > 1) return unsupported("cudaGraphAddMemcpyNode with a 3D extent");
  auto n = std::make_unique<CUgraphNode_st>();
  n->type = cudaGraphNodeTypeMemcpy;
  n->srcPitch = p->srcPtr.pitch;
  n->dstPitch = p->dstPtr.pitch;
  n->src = static_cast<const uint8_t*>(p->srcPtr.ptr) + p->srcPos.y * n->srcPitch + p->srcPos.x;
  n->dst = static_cast<uint8_t*>(p->dstPtr.ptr) + p->dstPos.y * n->dstPitch + p->dstPos.x;
  n->width = p->extent.width;
  n->height = std::max<size_t>(p->extent.height, 1);
  n->kind = p->kind;
  return fail(addNode(node, graph, deps, count, std::move(n)));
}

cudaError_t cudaGraphAddMemcpyNode1D(cudaGraphNode_t* node, cudaGraph_t graph, const cudaGraphNode_t* deps,
                                     size_t count, void* dst, const void* src, size_t bytes, int kind) {
  PREDATAR_GRAPH_LOCK();
  auto n = std::make_unique<CUgraphNode_st>();
  n->type = cudaGraphNodeTypeMemcpy;
  n->dst = dst;
  n->src = src;
  n->width = bytes;
  n->kind = kind;
  return fail(addNode(node, graph, deps, count, std::move(n)));
}

cudaError_t cudaGraphAddMemsetNode(cudaGraphNode_t* node, cudaGraph_t graph, const cudaGraphNode_t* deps,
                                   size_t count, const cudaMemsetParams* p) {
  PREDATAR_GRAPH_LOCK();
  if (p == nullptr || (p->elementSize != 1 && p->elementSize != 2 && p->elementSize != 4))
    return fail(cudaErrorInvalidValue);
  auto n = std::make_unique<CUgraphNode_st>();
  n->type = cudaGraphNodeTypeMemset;
  n->dst = p->dst;
  n->dstPitch = p->pitch;
  n->value = p->value;
  n->elementSize = p->elementSize;
  n->width = p->width;
  n->height = std::max<size_t>(p->height, 1);
  return fail(addNode(node, graph, deps, count, std::move(n)));
}

cudaError_t cudaGraphAddHostNode(cudaGraphNode_t* node, cudaGraph_t graph, const cudaGraphNode_t* deps,
                                 size_t count, const cudaHostNodeParams* p) {
  PREDATAR_GRAPH_LOCK();
  if (p == nullptr || p->fn == nullptr) return fail(cudaErrorInvalidValue);
  auto n = std::make_unique<CUgraphNode_st>();
  n->type = cudaGraphNodeTypeHost;
  n->fn = p->fn;
  n->userData = p->userData;
  return fail(addNode(node, graph, deps, count, std::move(n)));
}

cudaError_t cudaGraphAddMemAllocNode(cudaGraphNode_t* node, cudaGraph_t graph, const cudaGraphNode_t* deps,
                                     size_t count, cudaMemAllocNodeParams* p) {
  PREDATAR_GRAPH_LOCK();
  if (p == nullptr || p->bytesize == 0) return fail(cudaErrorInvalidValue);
  if (p->poolProps.location.id != 0) return fail(cudaErrorInvalidDevice);
  auto n = std::make_unique<CUgraphNode_st>();
  n->type = cudaGraphNodeTypeMemAlloc;
  n->width = p->bytesize;
  if (node == nullptr || graph == nullptr || (count && deps == nullptr)) return fail(cudaErrorInvalidValue);
  for (size_t i = 0; i < count; ++i)
    if (!owns(*graph, deps[i])) return fail(cudaErrorInvalidValue);
  std::vector<CUgraphNode_st*> after(deps, deps + count);
  if (cudaError_t e = reserveGraphMemory(&p->dptr, p->bytesize, graph, after); e != cudaSuccess) return fail(e);
  n->dst = p->dptr;
  return fail(addNode(node, graph, deps, count, std::move(n)));
}

cudaError_t cudaGraphAddMemFreeNode(cudaGraphNode_t* node, cudaGraph_t graph, const cudaGraphNode_t* deps,
                                    size_t count, void* dptr) {
  PREDATAR_GRAPH_LOCK();
  if (!isGraphMemory(dptr)) return fail(cudaErrorInvalidValue);
  auto n = std::make_unique<CUgraphNode_st>();
  n->type = cudaGraphNodeTypeMemFree;
  n->dst = dptr;
  const CUgraphNode_st* added = n.get();
  cudaError_t e = addNode(node, graph, deps, count, std::move(n));
  if (e == cudaSuccess) noteGraphFree(dptr, graph, added);
  return fail(e);
}

cudaError_t cudaGraphAddEmptyNode(cudaGraphNode_t* node, cudaGraph_t graph, const cudaGraphNode_t* deps,
                                  size_t count) {
  PREDATAR_GRAPH_LOCK();
  return fail(addNode(node, graph, deps, count, std::make_unique<CUgraphNode_st>()));
}

cudaError_t cudaGraphAddNode(cudaGraphNode_t* node, cudaGraph_t graph, const cudaGraphNode_t* deps,
                             const void* edgeData, size_t count, cudaGraphNodeParams* params) {
  if (params == nullptr) return fail(cudaErrorInvalidValue);
  if (edgeData != nullptr) return unsupported("cudaGraphAddNode with edge data");
  switch (params->type) {
    case cudaGraphNodeTypeKernel: return cudaGraphAddKernelNode(node, graph, deps, count, &params->kernel);
    case cudaGraphNodeTypeEmpty: return cudaGraphAddEmptyNode(node, graph, deps, count);
    case cudaGraphNodeTypeConditional: return fail(addConditionalNode(node, graph, deps, count, params->conditional));
    default:
      return cudaError_t(unsupported(
          "cudaGraphAddNode of a node other than kernel, empty or conditional (cudaGraphAdd*Node adds the others)"));
  }
}

cudaError_t cudaGraphAddChildGraphNode(cudaGraphNode_t* node, cudaGraph_t graph, const cudaGraphNode_t* deps,
                                       size_t count, cudaGraph_t child) {
  PREDATAR_GRAPH_LOCK();
  if (child == nullptr) return fail(cudaErrorInvalidValue);
  auto n = std::make_unique<CUgraphNode_st>();
  n->type = cudaGraphNodeTypeGraph;
  n->child = cloneGraph(*child);
  return fail(addNode(node, graph, deps, count, std::move(n)));
}

cudaError_t cudaGraphAddDependencies(cudaGraph_t graph, const cudaGraphNode_t* from, const cudaGraphNode_t* to,
                                     const void* edgeData, size_t count) {
  PREDATAR_GRAPH_LOCK();
  if (graph == nullptr || (count && (from == nullptr || to == nullptr))) return fail(cudaErrorInvalidValue);
  if (edgeData != nullptr) return unsupported("cudaGraphAddDependencies with edge data");
  for (size_t i = 0; i < count; ++i) {
    if (!owns(*graph, from[i]) || !owns(*graph, to[i])) return fail(cudaErrorInvalidValue);
    to[i]->deps.push_back(from[i]);
  }
  return cudaSuccess;
}

cudaError_t cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t* nodes, size_t* count) {
  PREDATAR_GRAPH_LOCK();
  if (graph == nullptr || count == nullptr) return fail(cudaErrorInvalidValue);
  if (nodes)
    for (size_t i = 0; i < std::min(*count, graph->nodes.size()); ++i) nodes[i] = graph->nodes[i].get();
  *count = graph->nodes.size();
  return cudaSuccess;
}

cudaError_t cudaGraphGetRootNodes(cudaGraph_t graph, cudaGraphNode_t* nodes, size_t* count) {
  PREDATAR_GRAPH_LOCK();
  if (graph == nullptr || count == nullptr) return fail(cudaErrorInvalidValue);
  std::vector<cudaGraphNode_t> roots;
  for (auto& n : graph->nodes)
    if (n->deps.empty()) roots.push_back(n.get());
  if (nodes)
    for (size_t i = 0; i < std::min(*count, roots.size()); ++i) nodes[i] = roots[i];
  *count = roots.size();
  return cudaSuccess;
}

cudaError_t cudaGraphNodeGetType(cudaGraphNode_t node, int* type) {
  if (node == nullptr || type == nullptr) return fail(cudaErrorInvalidValue);
  *type = node->type;
  return cudaSuccess;
}

// ---------------------------------------------------------------- execution

cudaError_t cudaGraphInstantiate(cudaGraphExec_t* exec, cudaGraph_t graph, unsigned long long flags) {
  PREDATAR_GRAPH_LOCK();
  if (exec == nullptr || graph == nullptr) return fail(cudaErrorInvalidValue);
  // Auto-free on launch needs nothing: graph memory stays reserved (GraphMemory.cpp).
  if ((flags & ~kGraphInstantiateFlagAutoFreeOnLaunch) != 0) return unsupported("cudaGraphInstantiate with flags (auto-free, upload, device launch, priority)");
  auto e = std::make_unique<CUgraphExec_st>();
  e->source = graph;
  e->graph = cloneGraph(*graph, &e->fromOriginal);
  std::vector<CUgraphNode_st*> order;
  if (!topologicalOrder(*e->graph, order)) return fail(cudaErrorInvalidValue);  // a cycle
  *exec = e.release();
  return cudaSuccess;
}

cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t* exec, cudaGraph_t graph, unsigned long long flags) {
  return cudaGraphInstantiate(exec, graph, flags);
}

cudaError_t cudaGraphExecDestroy(cudaGraphExec_t exec) {
  if (exec == nullptr) return fail(cudaErrorInvalidValue);
  std::lock_guard lock(rt().mutex());
  forgetGraphExec(exec);
  delete exec;
  return cudaSuccess;
}

cudaError_t cudaGraphUpload(cudaGraphExec_t exec, cudaStream_t stream) {
  PREDATAR_GRAPH_LOCK();
  if (exec == nullptr) return fail(cudaErrorInvalidValue);
  return rt().validStream(stream) ? cudaSuccess : fail(cudaErrorInvalidResourceHandle);
}
cudaError_t cudaGraphUpload_ptsz(cudaGraphExec_t exec, cudaStream_t stream)
    __attribute__((alias("cudaGraphUpload"), visibility("default")));

// Runs the nodes in order; a launch into a capturing stream becomes a child graph node.
cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t stream) {
  PREDATAR_GRAPH_LOCK();
  if (exec == nullptr) return fail(cudaErrorInvalidValue);
  if (!rt().validStream(stream)) return fail(cudaErrorInvalidResourceHandle);
  if (isCapturing(stream)) {
    auto n = std::make_unique<CUgraphNode_st>();
    n->type = cudaGraphNodeTypeGraph;
    n->child = cloneGraph(*exec->graph);
    return fail(appendCaptured(stream, std::move(n)));
  }
  resetConditionalHandles(exec->source);
  std::set<const void*> allocations = graphAllocations(*exec->graph);
  graphLaunchBegins(exec, allocations, stream);
  cudaError_t e = runGraph(*exec->graph, stream);
  graphLaunchEnds(exec, allocations);
  return fail(e);
}
cudaError_t cudaGraphLaunch_ptsz(cudaGraphExec_t exec, cudaStream_t stream)
    __attribute__((alias("cudaGraphLaunch"), visibility("default")));

cudaError_t cudaGraphExecKernelNodeSetParams(cudaGraphExec_t exec, cudaGraphNode_t node,
                                             const cudaKernelNodeParams* params) {
  PREDATAR_GRAPH_LOCK();
  if (exec == nullptr || params == nullptr) return fail(cudaErrorInvalidValue);
  auto it = exec->fromOriginal.find(node);
  if (it == exec->fromOriginal.end() || it->second->type != cudaGraphNodeTypeKernel)
    return fail(cudaErrorInvalidValue);
  CUgraphNode_st& n = *it->second;
  cudaError_t e = kernelNode(n, kernelOf(params->func), params->gridDim, params->blockDim, params->sharedMemBytes,
                             params->kernelParams, params->extra);
  if (e == cudaSuccess) n.func = params->func;
  return fail(e);
}

// Same topology (node count and kinds, in creation order): the new parameters
// replace the old; otherwise cudaErrorGraphExecUpdateFailure.
struct UpdateResultInfo {
  int result;
  cudaGraphNode_t errorNode;
  cudaGraphNode_t errorFromNode;
};
cudaError_t cudaGraphExecUpdate(cudaGraphExec_t exec, cudaGraph_t graph, UpdateResultInfo* info) {
  PREDATAR_GRAPH_LOCK();
  if (exec == nullptr || graph == nullptr) return fail(cudaErrorInvalidValue);
  bool same = exec->graph->nodes.size() == graph->nodes.size();
  for (size_t i = 0; same && i < graph->nodes.size(); ++i)
    same = exec->graph->nodes[i]->type == graph->nodes[i]->type &&
           exec->graph->nodes[i]->deps.size() == graph->nodes[i]->deps.size();
  if (info) *info = UpdateResultInfo{same ? 0 : 2, nullptr, nullptr};  // Success / ErrorTopologyChanged
  if (!same) return fail(910);
  std::map<const CUgraphNode_st*, CUgraphNode_st*> mapping;
  auto copy = cloneGraph(*graph, &mapping);
  // Nodes of the graph first instantiated keep naming their copies.
  std::map<const CUgraphNode_st*, CUgraphNode_st*> byOriginal;
  for (auto& [original, old] : exec->fromOriginal)
    for (size_t i = 0; i < exec->graph->nodes.size(); ++i)
      if (exec->graph->nodes[i].get() == old) byOriginal[original] = copy->nodes[i].get();
  for (auto& [original, fresh] : mapping) byOriginal[original] = fresh;
  exec->graph = std::move(copy);
  exec->fromOriginal = std::move(byOriginal);
  return cudaSuccess;
}

#pragma GCC visibility pop

}  // extern "C"
