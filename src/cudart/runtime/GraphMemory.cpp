// Graph memory: what memory allocation nodes (cudaGraphAddMemAllocNode,
// cudaMallocAsync during capture) hand out, and the device's graph memory
// attributes. CUDA gives an allocation node a fixed virtual address when the
// node is created and maps it on each launch; here the memory is allocated at
// creation and kept for the rest of the process (so the address stays valid
// for every launch of the graph and its clones), and "freeing" it (a free
// node, cudaFree, cudaFreeAsync) only marks it unused. The accesses to it
// are checked like any other device memory's.
#include <algorithm>
#include <cstring>
#include <map>

#include "cudart/runtime/Graph.h"
#include "cudart/runtime/Unsupported.h"

namespace predatar::cudart {
namespace {

struct GraphMemory {
  std::map<const void*, std::pair<size_t, bool>> blocks;  // pointer -> bytes, used
  uint64_t reserved = 0, reservedHigh = 0, used = 0, usedHigh = 0;
};
GraphMemory& graphMemory() {
  static auto* m = new GraphMemory;
  return *m;
}

}  // namespace

cudaError_t reserveGraphMemory(void** pointer, size_t bytes) {
  if (pointer == nullptr || bytes == 0) return cudaErrorInvalidValue;
  if (cudaError_t e = Runtime::get().allocate(pointer, bytes, AllocationKind::Device); e != cudaSuccess) return e;
  GraphMemory& m = graphMemory();
  m.blocks[*pointer] = {bytes, false};
  m.reserved += bytes;
  m.reservedHigh = std::max(m.reservedHigh, m.reserved);
  return cudaSuccess;
}

bool isGraphMemory(const void* pointer) { return graphMemory().blocks.contains(pointer); }

void markGraphMemory(const void* pointer, bool used) {
  GraphMemory& m = graphMemory();
  auto it = m.blocks.find(pointer);
  if (it == m.blocks.end() || it->second.second == used) return;
  it->second.second = used;
  if (used) {
    m.used += it->second.first;
    m.usedHigh = std::max(m.usedHigh, m.used);
  } else {
    m.used -= it->second.first;
  }
}

}  // namespace predatar::cudart

using namespace predatar::cudart;

extern "C" {

#pragma GCC visibility push(default)

// Memory stays reserved for the process (see above): nothing to trim.
cudaError_t cudaDeviceGraphMemTrim(int device) {
  if (device != 0) return fail(cudaErrorInvalidDevice);
  return cudaSuccess;
}

cudaError_t cudaDeviceGetGraphMemAttribute(int device, int attr, void* value) {
  if (device != 0) return fail(cudaErrorInvalidDevice);
  if (value == nullptr) return fail(cudaErrorInvalidValue);
  std::lock_guard lock(Runtime::get().mutex());
  const GraphMemory& m = graphMemory();
  uint64_t v = 0;
  switch (attr) {
    case cudaGraphMemAttrUsedMemCurrent: v = m.used; break;
    case cudaGraphMemAttrUsedMemHigh: v = m.usedHigh; break;
    case cudaGraphMemAttrReservedMemCurrent: v = m.reserved; break;
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
  if (attr == cudaGraphMemAttrUsedMemHigh) m.usedHigh = m.used;
  else if (attr == cudaGraphMemAttrReservedMemHigh) m.reservedHigh = m.reserved;
  else return fail(cudaErrorInvalidValue);
  return cudaSuccess;
}

#pragma GCC visibility pop

}  // extern "C"
