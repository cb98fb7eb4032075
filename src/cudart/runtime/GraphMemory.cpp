// Graph memory: what memory allocation nodes (cudaGraphAddMemAllocNode,
// cudaMallocAsync during capture) hand out, and the device's graph memory
// attributes. CUDA gives an allocation node a fixed virtual address when the
// node is created and maps physical memory on each launch; here the memory is
// allocated at creation and kept for the rest of the process (so the address
// stays valid for every launch of the graph and its clones), and "freeing" it
// (a free node, cudaFree, cudaFreeAsync) only marks it unused. The accesses
// to it are checked like any other device memory's.
//
// What the attributes report follows an H200 (bench/native/RESULTS.md,
// NVIDIA's graphMemoryFootprint sample): physical memory comes in 32 MiB
// granules, a launch maps what its graph's blocks need, the executable graph
// keeps it after the launch (used = reserved), a later launch ordered after
// it takes it over, allocations a launch leaves unfreed pin it, and
// cudaDeviceGraphMemTrim releases what nothing pins.
#include <algorithm>
#include <cstring>
#include <map>
#include <set>
#include <unordered_set>

#include "cudart/runtime/Graph.h"
#include "cudart/runtime/GraphNodes.h"
#include "cudart/runtime/Unsupported.h"

namespace predatar::cudart {
namespace {

constexpr uint64_t kGranule = 32ull << 20;  // an H200 reported 32 MiB for a 1 KiB graph allocation

struct Block {
  size_t bytes = 0;
  bool used = false;
  const CUgraph_st* graph = nullptr;         // the graph whose node allocated it first
  const CUgraphNode_st* freedBy = nullptr;   // its latest free node in that graph, until reused
};

// Physical memory mapped for graphs: held by the executable graph that
// launched on it last, pinned by allocations a launch left unfreed.
struct Chunk {
  uint64_t bytes = 0;
  const CUgraphExec_st* exec = nullptr;
  cudaStream_t stream = nullptr;
  uint64_t launchedAt = 0;  // GraphMemory::epoch
  std::set<const void*> unfreed;
};

struct GraphMemory {
  std::map<const void*, Block> blocks;
  std::vector<Chunk> chunks;
  uint64_t usedHigh = 0, reservedHigh = 0;
  uint64_t epoch = 0, deviceSyncedAt = 0;
  std::map<cudaStream_t, uint64_t> streamSyncedAt;

  uint64_t used() const {
    uint64_t n = 0;
    for (const Chunk& c : chunks) n += (c.exec || !c.unfreed.empty()) ? c.bytes : 0;
    return n;
  }
  uint64_t reserved() const {
    uint64_t n = 0;
    for (const Chunk& c : chunks) n += c.bytes;
    return n;
  }
  void noteHighs() {
    usedHigh = std::max(usedHigh, used());
    reservedHigh = std::max(reservedHigh, reserved());
  }
  // Whether a launch on `stream` now is ordered after the chunk's last launch.
  bool finishedFor(const Chunk& c, cudaStream_t stream) const {
    if (c.exec == nullptr || c.stream == stream || deviceSyncedAt > c.launchedAt) return true;
    auto it = streamSyncedAt.find(c.stream);
    return it != streamSyncedAt.end() && it->second > c.launchedAt;
  }
};
GraphMemory& graphMemory() {
  static auto* m = new GraphMemory;
  return *m;
}

// Every node `deps` reach through their dependencies, themselves included.
std::unordered_set<const CUgraphNode_st*> ancestors(const std::vector<CUgraphNode_st*>& deps) {
  std::unordered_set<const CUgraphNode_st*> seen;
  std::vector<const CUgraphNode_st*> todo(deps.begin(), deps.end());
  while (!todo.empty()) {
    const CUgraphNode_st* n = todo.back();
    todo.pop_back();
    if (n == nullptr || !seen.insert(n).second) continue;
    todo.insert(todo.end(), n->deps.begin(), n->deps.end());
  }
  return seen;
}

void addAllocations(const CUgraph_st& graph, std::set<const void*>& out) {
  for (const auto& n : graph.nodes) {
    if (n->type == cudaGraphNodeTypeMemAlloc) out.insert(n->dst);
    if (n->type == cudaGraphNodeTypeGraph && n->child) addAllocations(*n->child, out);
  }
}

}  // namespace

std::set<const void*> graphAllocations(const CUgraph_st& graph) {
  std::set<const void*> out;
  addAllocations(graph, out);
  return out;
}

cudaError_t reserveGraphMemory(void** pointer, size_t bytes, const CUgraph_st* graph,
                               const std::vector<CUgraphNode_st*>& deps) {
  if (pointer == nullptr || bytes == 0) return cudaErrorInvalidValue;
  GraphMemory& m = graphMemory();
  // An earlier allocation of this graph, freed before this node runs: its address.
  auto before = ancestors(deps);
  for (auto& [address, block] : m.blocks)
    if (block.graph == graph && block.freedBy && block.bytes >= bytes && before.contains(block.freedBy)) {
      block.freedBy = nullptr;
      *pointer = const_cast<void*>(address);
      return cudaSuccess;
    }
  if (cudaError_t e = Runtime::get().allocate(pointer, bytes, AllocationKind::Device); e != cudaSuccess) return e;
  m.blocks[*pointer] = Block{bytes, false, graph, nullptr};
  return cudaSuccess;
}

bool isGraphMemory(const void* pointer) { return graphMemory().blocks.contains(pointer); }

void noteGraphFree(const void* pointer, const CUgraph_st* graph, const CUgraphNode_st* freeNode) {
  auto it = graphMemory().blocks.find(pointer);
  if (it != graphMemory().blocks.end() && it->second.graph == graph) it->second.freedBy = freeNode;
}

void markGraphMemory(const void* pointer, bool used) {
  GraphMemory& m = graphMemory();
  auto it = m.blocks.find(pointer);
  if (it == m.blocks.end()) return;
  it->second.used = used;
  if (!used)
    for (Chunk& c : m.chunks) c.unfreed.erase(pointer);
}

void graphLaunchBegins(const CUgraphExec_st* exec, const std::set<const void*>& allocations, cudaStream_t stream) {
  GraphMemory& m = graphMemory();
  uint64_t need = 0;
  for (const void* b : allocations)
    if (auto it = m.blocks.find(b); it != m.blocks.end()) need += it->second.bytes;
  if (need == 0) return;
  need = (need + kGranule - 1) / kGranule * kGranule;
  auto fits = [&](const Chunk& c) { return c.unfreed.empty() && c.bytes >= need; };
  auto it = std::find_if(m.chunks.begin(), m.chunks.end(), [&](const Chunk& c) { return c.exec == exec && fits(c); });
  if (it == m.chunks.end())
    it = std::find_if(m.chunks.begin(), m.chunks.end(),
                      [&](const Chunk& c) { return fits(c) && m.finishedFor(c, stream); });
  for (Chunk& c : m.chunks)
    if (c.exec == exec && (it == m.chunks.end() || &c != &*it)) c.exec = nullptr;  // it moves to a larger one
  if (it == m.chunks.end()) {
    m.chunks.emplace_back();
    it = m.chunks.end() - 1;
    it->bytes = need;
  }
  it->exec = exec;
  it->stream = stream;
  it->launchedAt = ++m.epoch;
  m.noteHighs();
}

void graphLaunchEnds(const CUgraphExec_st* exec, const std::set<const void*>& allocations) {
  GraphMemory& m = graphMemory();
  for (Chunk& c : m.chunks)
    if (c.exec == exec)
      for (const void* b : allocations)
        if (auto it = m.blocks.find(b); it != m.blocks.end() && it->second.used) c.unfreed.insert(b);
}

void forgetGraphExec(const CUgraphExec_st* exec) {
  for (Chunk& c : graphMemory().chunks)
    if (c.exec == exec) c.exec = nullptr;
}

void graphMemoryStreamSynchronized(cudaStream_t stream) {
  GraphMemory& m = graphMemory();
  m.streamSyncedAt[stream] = ++m.epoch;
}

void graphMemoryDeviceSynchronized() {
  GraphMemory& m = graphMemory();
  m.deviceSyncedAt = ++m.epoch;
}

}  // namespace predatar::cudart

using namespace predatar::cudart;

extern "C" {

#pragma GCC visibility push(default)

// Releases the physical memory no unfreed allocation pins (the addresses stay:
// see above).
cudaError_t cudaDeviceGraphMemTrim(int device) {
  if (device != 0) return fail(cudaErrorInvalidDevice);
  std::lock_guard lock(Runtime::get().mutex());
  auto& chunks = graphMemory().chunks;
  std::erase_if(chunks, [](const Chunk& c) { return c.unfreed.empty(); });
  return cudaSuccess;
}

cudaError_t cudaDeviceGetGraphMemAttribute(int device, int attr, void* value) {
  if (device != 0) return fail(cudaErrorInvalidDevice);
  if (value == nullptr) return fail(cudaErrorInvalidValue);
  std::lock_guard lock(Runtime::get().mutex());
  const GraphMemory& m = graphMemory();
  uint64_t v = 0;
  switch (attr) {
    case cudaGraphMemAttrUsedMemCurrent: v = m.used(); break;
    case cudaGraphMemAttrUsedMemHigh: v = m.usedHigh; break;
    case cudaGraphMemAttrReservedMemCurrent: v = m.reserved(); break;
    case cudaGraphMemAttrReservedMemHigh: v = m.reservedHigh; break;
    default: return fail(cudaErrorInvalidValue);
  }
  std::memcpy(value, &v, sizeof v);
  return cudaSuccess;
}

// Only the high-water marks may be set, and only to zero (a reset), as in CUDA.
cudaError_t cudaDeviceSetGraphMemAttribute(int device, int attr, void* value) {
  if (device != 0) return fail(cudaErrorInvalidDevice);
  if (value == nullptr) return fail(cudaErrorInvalidValue);
  uint64_t v;
  std::memcpy(&v, value, sizeof v);
  if (v != 0) return fail(cudaErrorInvalidValue);
  std::lock_guard lock(Runtime::get().mutex());
  GraphMemory& m = graphMemory();
  if (attr == cudaGraphMemAttrUsedMemHigh) m.usedHigh = m.used();
  else if (attr == cudaGraphMemAttrReservedMemHigh) m.reservedHigh = m.reserved();
  else return fail(cudaErrorInvalidValue);
  return cudaSuccess;
}

#pragma GCC visibility pop

}  // extern "C"
