// Dynamic parallelism, the runtime's half: the kernels a grid launched from
// the device (sim/DeviceLaunch.cpp records them) run after it, each as a
// launch of its own, checked like any other, in the parent's stream (so a
// child is ordered after everything its parent did, and children run in the
// order they were launched, each one's own children first).
#include <cstdio>

#include "absl/strings/str_cat.h"
#include "cudart/runtime/Runtime.h"

namespace predatar::cudart {

KernelRecord* Runtime::kernelByMangledName(const std::string& mangled) {
  for (auto& k : kernels_)
    if (k->mangled == mangled) return k.get();
  return nullptr;
}

void Runtime::launchDeviceChildren(std::vector<sim::DeviceLaunchRequest>& children, cudaStream_t stream) {
  for (sim::DeviceLaunchRequest& child : children) {
    KernelRecord* kernel = kernelByMangledName(child.kernel);
    const sim::KernelSignature* sig = kernel ? signature(*kernel) : nullptr;
    if (sig == nullptr) {
      std::fprintf(stderr, "predatar: device-side launch of %s: no such kernel registered by the program\n",
                   sim::demangledName(child.kernel).c_str());
      if (sticky_ == cudaSuccess) sticky_ = cudaErrorInvalidDeviceFunction;
    } else if (sticky_ == cudaSuccess) {
      // The parameter buffer is laid out as the kernel's .param space.
      std::vector<void*> args;
      uint64_t offset = 0;
      for (const sim::KernelParam& p : sig->params) {
        uint64_t align = std::max<uint32_t>(p.alignment, 1);
        offset = (offset + align - 1) / align * align;
        args.push_back(reinterpret_cast<void*>(child.params + offset));
        offset += p.bytes;
      }
      dim3 grid(child.grid.x, child.grid.y, child.grid.z), block(child.block.x, child.block.y, child.block.z);
      cudaError_t e = launch(*kernel, grid, block, args.data(), child.sharedBytes, stream);
      // A child that cannot launch fails its parent's grid, as the device runtime reports it.
      if (e != cudaSuccess && sticky_ == cudaSuccess) sticky_ = e;
    }
    settleDetectors();  // (their races name the allocations they are in)
    (void)memory_->free(child.params);
  }
}

}  // namespace predatar::cudart
