// The device runtime of dynamic parallelism (kernels built with -rdc=true
// -lcudadevrt call these `__cudaCDP2*` functions): a launch from a thread
// takes a parameter buffer (a device allocation the thread fills), then
// launches it; the emulator records the launch and the runtime runs it after
// the parent grid (a schedule CUDA allows: a CDP2 parent cannot wait for its
// children, and the parent grid completes only after them). Device-side
// streams are handles with no further meaning; cudaMemcpyAsync/MemsetAsync
// from the device happen at once. cudaMalloc/cudaFree from the device are
// device allocations.
#include <algorithm>

#include "sim/Exec.h"

namespace predatar::sim {
namespace {

constexpr uint32_t kCudaSuccess = 0;
constexpr uint32_t kCudaErrorInvalidValue = 1;
constexpr uint32_t kCudaErrorMemoryAllocation = 2;

// `bytes` at `offset` of argument `i` of the call (aggregates such as dim3).
uint32_t frameWord(Ctx& x, const ptx::Instr& in, uint32_t lane, size_t i, uint32_t offset) {
  Launch& L = *x.L;
  Warp& w = *x.W;
  const ptx::CallSite& cs = L.M.ir.calls[in.call];
  if (i >= cs.argOffsets.size()) return 0;
  uint64_t off = w.frameBase[lane] + uint64_t(cs.argOffsets[i]) + offset;
  uint32_t v = 0;
  if (off + 4 <= L.stackBytes) std::memcpy(&v, w.local.get() + size_t(lane) * L.stackBytes + off, 4);
  return v;
}

void setReturn(Ctx& x, const ptx::Instr& in, uint32_t lane, uint64_t value, uint32_t bytes) {
  Launch& L = *x.L;
  Warp& w = *x.W;
  const ptx::CallSite& cs = L.M.ir.calls[in.call];
  if (cs.retOffsets.empty()) return;
  uint64_t off = w.frameBase[lane] + uint64_t(cs.retOffsets[0]);
  if (off + bytes <= L.stackBytes) std::memcpy(w.local.get() + size_t(lane) * L.stackBytes + off, &value, bytes);
}

Dim3 frameDim3(Ctx& x, const ptx::Instr& in, uint32_t lane, size_t i) {
  return Dim3{frameWord(x, in, lane, i, 0), frameWord(x, in, lane, i, 4), frameWord(x, in, lane, i, 8)};
}

// The .entry a kernel address names, or null.
const ptx::Function* kernelAt(const Launch& L, uint64_t address) {
  if ((address & ~kWindowMask) != kFunctionWindow) return nullptr;
  uint64_t index = address & kWindowMask;
  if (index >= L.M.ir.functions.size() || !L.M.ir.functions[index].entry) return nullptr;
  return &L.M.ir.functions[index];
}

Dim3 threadIndex(const Launch& L, const Warp& w, uint32_t lane) {
  const Dim3& b = L.cfg.block;
  uint32_t t = w.inBlock * 32 + lane;
  return Dim3{t % b.x, (t / b.x) % b.y, t / (b.x * b.y)};
}

bool getParameterBuffer(Ctx& x, const ptx::Instr& in, uint32_t lane) {
  Launch& L = *x.L;
  const ptx::Function* kernel = kernelAt(L, frameArg(x, in, lane, 0, 8));
  if (kernel == nullptr) {
    L.fault(*x.W, lane, x.pc, "cudaGetParameterBuffer (a device-side launch) of an address that is not a kernel");
    return false;
  }
  DeviceLaunchRequest r;
  r.kernel = kernel->name;
  r.grid = frameDim3(x, in, lane, 1);
  r.block = frameDim3(x, in, lane, 2);
  r.sharedBytes = frameWord(x, in, lane, 3, 0);
  r.parentBlock = L.blocks[x.W->block].idx;
  r.parentThread = threadIndex(L, *x.W, lane);
  r.params = L.memory.allocate(std::max<uint64_t>(kernel->paramBytes, 8), "parameters of a device-side launch of " +
                                                                             demangledName(kernel->name));
  uint64_t buffer = r.params;
  if (buffer != 0) L.parameterBuffers[buffer] = std::move(r);
  setReturn(x, in, lane, buffer, 8);  // null: the launch is skipped, as cudaGetParameterBuffer's failure
  return true;
}

bool launchDevice(Ctx& x, const ptx::Instr& in, uint32_t lane) {
  Launch& L = *x.L;
  auto it = L.parameterBuffers.find(frameArg(x, in, lane, 0, 8));
  if (it == L.parameterBuffers.end()) {
    setReturn(x, in, lane, kCudaErrorInvalidValue, 4);
    return true;
  }
  it->second.stream = frameArg(x, in, lane, 1, 8);
  L.deviceLaunches.push_back(std::move(it->second));
  L.parameterBuffers.erase(it);
  setReturn(x, in, lane, kCudaSuccess, 4);
  return true;
}

// Writes `value` (8 bytes) where a pointer argument points.
bool writeThrough(Ctx& x, uint32_t lane, uint64_t address, uint64_t value, const char* what) {
  uint8_t* p = hostPointer(x, lane, address, 8);
  if (p == nullptr) {
    x.L->fault(*x.W, lane, x.pc, std::string(what) + " with an invalid pointer argument");
    return false;
  }
  std::memcpy(p, &value, 8);
  return true;
}

}  // namespace

bool execDeviceRuntime(Ctx& x, const ptx::Instr& in, uint32_t lane) {
  Launch& L = *x.L;
  switch (in.mode) {
    case ptx::kCdpGetParameterBuffer: return getParameterBuffer(x, in, lane);
    case ptx::kCdpLaunchDevice: return launchDevice(x, in, lane);
    case ptx::kCdpStreamCreate: {
      static uint64_t nextStream = 0x5000;  // device-side stream handles: distinct, never dereferenced
      nextStream += 16;
      if (!writeThrough(x, lane, frameArg(x, in, lane, 0, 8), nextStream, "cudaStreamCreateWithFlags")) return false;
      setReturn(x, in, lane, kCudaSuccess, 4);
      return true;
    }
    case ptx::kCdpStreamDestroy:
    case ptx::kCdpGetLastError: setReturn(x, in, lane, kCudaSuccess, 4); return true;
    case ptx::kCdpGetErrorString: {
      static uint64_t text = 0;  // one device string for every code: the device never fails these calls
      if (text == 0 && (text = L.memory.allocate(16, "device-side cudaGetErrorString text")) != 0)
        std::memcpy(reinterpret_cast<void*>(text), "cudaSuccess", 12);
      setReturn(x, in, lane, text, 8);
      return true;
    }
    case ptx::kCdpMalloc: {
      uint64_t bytes = frameArg(x, in, lane, 1, 8);
      uint64_t base = bytes ? L.memory.allocate(bytes, "device-side cudaMalloc") : 0;
      if (!writeThrough(x, lane, frameArg(x, in, lane, 0, 8), base, "cudaMalloc")) return false;
      setReturn(x, in, lane, base || !bytes ? kCudaSuccess : kCudaErrorMemoryAllocation, 4);
      return true;
    }
    case ptx::kGraphSetConditional: {
      uint64_t handle = frameArg(x, in, lane, 0, 8);
      uint32_t value = uint32_t(frameArg(x, in, lane, 1, 4));
      if (!L.cfg.setGraphConditional || !L.cfg.setGraphConditional(handle, value)) {
        L.fault(*x.W, lane, x.pc, "cudaGraphSetConditional with handle " + hex(handle) +
                                      ", which cudaGraphConditionalHandleCreate did not return");
        return false;
      }
      return true;
    }
    case ptx::kMalloc: {  // device heap: allocations of the device's memory, freed by free()
      uint64_t bytes = frameArg(x, in, lane, 0, 8);
      setReturn(x, in, lane, bytes ? L.memory.allocate(bytes, "device malloc") : 0, 8);
      return true;
    }
    case ptx::kFree: {
      // Freed at the end of the launch, not now: memory the host allocator
      // handed to another thread's malloc would look shared between them
      // (the GPU's allocator orders a reuse; nothing here would).
      uint64_t base = frameArg(x, in, lane, 0, 8);
      if (base == 0) return true;
      auto a = L.memory.find(base);
      if (!a || a->base != base || a->label != "device malloc" ||
          std::find(L.heapFreed.begin(), L.heapFreed.end(), base) != L.heapFreed.end()) {
        L.fault(*x.W, lane, x.pc, "free(" + hex(base) + "): not an address malloc returned, or freed twice");
        return false;
      }
      L.heapFreed.push_back(base);
      return true;
    }
    case ptx::kCdpFree: {
      uint64_t base = frameArg(x, in, lane, 0, 8);
      setReturn(x, in, lane, base == 0 || L.memory.free(base).ok() ? kCudaSuccess : kCudaErrorInvalidValue, 4);
      return true;
    }
    case ptx::kCdpMemcpyAsync: {
      uint64_t dst = frameArg(x, in, lane, 0, 8), src = frameArg(x, in, lane, 1, 8), n = frameArg(x, in, lane, 2, 8);
      uint8_t* d = n ? hostPointer(x, lane, dst, n) : nullptr;
      const uint8_t* s = n ? hostPointer(x, lane, src, n) : nullptr;
      if (n && (d == nullptr || s == nullptr)) {
        L.fault(*x.W, lane, x.pc, "device-side cudaMemcpyAsync out of bounds");
        return false;
      }
      if (n) std::memmove(d, s, n);
      setReturn(x, in, lane, kCudaSuccess, 4);
      return true;
    }
    case ptx::kCdpMemsetAsync: {
      uint64_t dst = frameArg(x, in, lane, 0, 8), n = frameArg(x, in, lane, 2, 8);
      uint8_t* d = n ? hostPointer(x, lane, dst, n) : nullptr;
      if (n && d == nullptr) {
        L.fault(*x.W, lane, x.pc, "device-side cudaMemsetAsync out of bounds");
        return false;
      }
      if (n) std::memset(d, int(frameArg(x, in, lane, 1, 4)), n);
      setReturn(x, in, lane, kCudaSuccess, 4);
      return true;
    }
    default: break;
  }
  L.fault(*x.W, lane, x.pc, "unsupported device runtime call");
  return false;
}

}  // namespace predatar::sim
