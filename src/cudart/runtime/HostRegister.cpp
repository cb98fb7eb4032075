// cudaHostRegister / cudaHostUnregister: memory the program allocated itself
// (malloc, a stack array...) becomes page-locked and mapped on a GPU. Here it
// becomes reachable from kernels at its own address (unified addressing, so
// cudaHostGetDevicePointer returns the same pointer) until it is unregistered;
// the program keeps owning it, so cudaFreeHost refuses it, as CUDA does.
#include <mutex>

#include "absl/strings/str_cat.h"
#include "cudart/runtime/Api.h"
#include "cudart/runtime/Runtime.h"
#include "sim/Device.h"

namespace predatar::cudart {

cudaError_t Runtime::registerHost(void* pointer, uint64_t bytes) {
  if (pointer == nullptr || bytes == 0) return cudaErrorInvalidValue;
  auto base = reinterpret_cast<uint64_t>(pointer);
  if (!memory_->adopt(base, bytes, absl::StrCat("cudaHostRegister #", ++allocationCount_)))
    return cudaErrorHostMemoryAlreadyRegistered;  // overlaps a registration or one of ours
  allocations_[base] = {bytes, AllocationKind::Host};
  return cudaSuccess;
}

cudaError_t Runtime::unregisterHost(void* pointer) {
  auto base = reinterpret_cast<uint64_t>(pointer);
  if (pointer == nullptr || !memory_->disown(base).ok()) return cudaErrorHostMemoryNotRegistered;
  allocations_.erase(base);
  return cudaSuccess;
}

}  // namespace predatar::cudart

using namespace predatar::cudart;

extern "C" {

// Flags (portable, mapped, I/O memory, read-only) change nothing on the
// emulator: every registered range is mapped at its own address.
PREDATAR_CUDART_API cudaError_t cudaHostRegister(void* ptr, size_t size, unsigned int) {
  Runtime& rt = Runtime::get();
  std::lock_guard lock(rt.mutex());
  if (rt.sticky() != cudaSuccess) return fail(rt.sticky());
  return fail(rt.registerHost(ptr, size));
}

PREDATAR_CUDART_API cudaError_t cudaHostUnregister(void* ptr) {
  Runtime& rt = Runtime::get();
  std::lock_guard lock(rt.mutex());
  if (rt.sticky() != cudaSuccess) return fail(rt.sticky());
  return fail(rt.unregisterHost(ptr));
}

}  // extern "C"
