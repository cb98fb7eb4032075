// The runtime side of lib/libcuda.so.1's modules (DriverBridge.h).
#include "cudart/runtime/DriverBridge.h"

#include <cstring>
#include <string>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "cudart/FatBinaryWriter.h"
#include "cudart/runtime/Api.h"
#include "cudart/runtime/ApiCommon.h"
#include "cudart/runtime/RuntimeDetail.h"

using namespace predatar::cudart;
using namespace predatar::cudart::api;
using predatar::cudart::detail::describe;
using predatar::cudart::detail::warn;

extern "C" void predatarUnsupportedReturning(const char* what, const char* returning);  // Unsupported.cpp

namespace {

struct FatbinWrapper {
  uint32_t magic, version;
  const void* data;
  void* unused;
};

bool isElf(const void* image) { return std::memcmp(image, "\x7f" "ELF", 4) == 0; }

// An ELF header a cubin can have: 64-bit, little-endian, version 1, machine
// EM_CUDA (190). Anything else that starts like an ELF file is an invalid
// image (NVIDIA's driver answers CUDA_ERROR_INVALID_IMAGE), not machine code.
bool plausibleCubin(const void* image) {
  auto bytes = static_cast<const uint8_t*>(image);
  uint16_t machine = 0;
  std::memcpy(&machine, bytes + 18, sizeof machine);
  return bytes[4] == 2 && bytes[5] == 1 && bytes[6] == 1 && machine == 190;
}

// PTX text: what a module of PTX always has (a cuModuleLoadData of anything
// else, such as a file read wrongly, is an invalid image, not a parse error).
bool looksLikePtx(const char* text) {
  std::string_view head(text, strnlen(text, 1 << 16));
  return head.find(".version") != std::string_view::npos && head.find(".target") != std::string_view::npos;
}

// Registers the container or wrapper at `image`; the runtime parses it at once.
void** registerImage(const void* image) {
  uint32_t magic = 0;
  std::memcpy(&magic, image, sizeof magic);
  if (magic == kFatbinWrapperMagic) return __cudaRegisterFatBinary(const_cast<void*>(image));
  FatbinWrapper wrapper{kFatbinWrapperMagic, 1, image, nullptr};
  return __cudaRegisterFatBinary(&wrapper);
}

cudaError_t load(const void* image, const char* name, void*** module) {
  uint32_t magic = 0;
  std::memcpy(&magic, image, sizeof magic);
  void** handle = nullptr;
  if (magic == kFatbinMagic || magic == kFatbinWrapperMagic) {
    handle = registerImage(image);
  } else if (isElf(image) && !plausibleCubin(image)) {
    warn("cuModuleLoadData: the image starts like an ELF file but is not a cubin (no 64-bit CUDA ELF header)");
    return cudaErrorInvalidKernelImage;
  } else if (isElf(image)) {
    predatarUnsupportedReturning("cuModuleLoadData of a cubin (machine code only: predatar emulates PTX; load the "
                                 "PTX, or a fat binary that holds it, e.g. nvcc -fatbin -arch=sm_75)",
                                 "CUDA_ERROR_NO_BINARY_FOR_GPU");
    return cudaErrorNoKernelImageForDevice;
  } else if (looksLikePtx(static_cast<const char*>(image))) {
    std::vector<uint8_t> container =
        ptxContainer({PtxUnit{static_cast<const char*>(image), name ? name : "PTX text given to cuModuleLoadData"}});
    handle = registerImage(container.data());
  } else {
    warn("cuModuleLoadData: the image is neither PTX text nor a fat binary nor a cubin");
    return cudaErrorInvalidKernelImage;
  }
  __cudaRegisterFatBinaryEnd(handle);
  std::lock_guard lock(rt().mutex());
  RegisteredModule* m = rt().moduleOf(handle);
  if (m == nullptr) return cudaErrorInvalidKernelImage;
  if (!m->fatbinStatus.ok()) {
    warn(absl::StrCat("cuModuleLoadData: ", describe(m->fatbinStatus)));
    return cudaErrorNoKernelImageForDevice;
  }
  if (cudaError_t e = rt().ensureLoaded(*m); e != cudaSuccess) return e;  // (the runtime said why)
  *module = handle;
  return cudaSuccess;
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int predatarDriverLoadModule(const void* image, const char* name,
                                                                               void*** module) {
  if (image == nullptr || module == nullptr) return cudaErrorInvalidValue;
  return load(image, name, module);
}

extern "C" __attribute__((visibility("default"))) int predatarDriverUnloadModule(void** module) {
  {
    std::lock_guard lock(rt().mutex());
    RegisteredModule* m = rt().moduleOf(module);
    if (m == nullptr || m->unregistered) return cudaErrorInvalidResourceHandle;
  }
  __cudaUnregisterFatBinary(module);
  return cudaSuccess;
}

extern "C" __attribute__((visibility("default"))) int predatarDriverModuleFunction(void** module, const char* name,
                                                                                   const void** function) {
  if (name == nullptr || function == nullptr) return cudaErrorInvalidValue;
  std::unique_lock lock(rt().mutex());
  RegisteredModule* m = rt().moduleOf(module);
  if (m == nullptr || m->unregistered || !m->module) return cudaErrorInvalidResourceHandle;
  for (KernelRecord* k : m->kernels)
    if (k->mangled == name) {
      *function = k->hostFunction;
      return cudaSuccess;
    }
  bool present = false;
  for (const auto& s : m->module->kernels()) present |= s.name == name;
  if (!present) return cudaErrorSymbolNotFound;
  // A host handle of its own: one byte that lives as long as the process,
  // as the address of a kernel's host stub does.
  const void* handle = new char(0);
  lock.unlock();
  rt().registerFunction(module, handle, name);
  *function = handle;
  return cudaSuccess;
}

extern "C" __attribute__((visibility("default"))) int predatarDriverModuleGlobal(void** module, const char* name,
                                                                                 uint64_t* address, uint64_t* bytes) {
  if (name == nullptr) return cudaErrorInvalidValue;
  std::lock_guard lock(rt().mutex());
  RegisteredModule* m = rt().moduleOf(module);
  if (m == nullptr || m->unregistered || !m->module) return cudaErrorInvalidResourceHandle;
  for (const auto& g : m->module->globals())
    if (g.name == name) {
      if (address) *address = g.address;
      if (bytes) *bytes = g.bytes;
      return cudaSuccess;
    }
  return cudaErrorSymbolNotFound;
}

extern "C" __attribute__((visibility("default"))) int predatarDriverUnpackParams(const void* function, void* buffer,
                                                                                 size_t bytes, void** params,
                                                                                 size_t capacity, size_t* count) {
  std::lock_guard lock(rt().mutex());
  KernelRecord* k = rt().kernelByHost(function);
  if (k == nullptr) return cudaErrorInvalidResourceHandle;
  const predatar::sim::KernelSignature* signature = rt().signature(*k);
  if (signature == nullptr) return cudaErrorInvalidResourceHandle;
  if (signature->params.size() > capacity) return cudaErrorInvalidValue;
  size_t offset = 0;
  for (size_t i = 0; i < signature->params.size(); ++i) {
    const auto& p = signature->params[i];
    size_t align = std::max<size_t>(p.alignment, 1);
    offset = (offset + align - 1) / align * align;
    if (offset + p.bytes > bytes) {
      warn(absl::StrCat("cuLaunchKernel of ", k->demangled, ": the argument buffer holds ", bytes,
                        " bytes, parameter ", i, " (", p.bytes, " bytes) would end at ", offset + p.bytes));
      return cudaErrorInvalidValue;
    }
    params[i] = static_cast<char*>(buffer) + offset;
    offset += p.bytes;
  }
  *count = signature->params.size();
  return cudaSuccess;
}

extern "C" __attribute__((visibility("default"))) int predatarDriverAddressRange(uint64_t address, uint64_t* base,
                                                                                 uint64_t* bytes) {
  std::lock_guard lock(rt().mutex());
  auto allocation = rt().memory().find(address);
  if (!allocation) return cudaErrorInvalidValue;  // (the driver's CUDA_ERROR_NOT_FOUND)
  if (base) *base = allocation->base;
  if (bytes) *bytes = allocation->bytes;
  return cudaSuccess;
}

extern "C" __attribute__((visibility("default"))) int predatarDriverPrimaryContextCurrent() {
  return primaryContextCurrent ? 1 : 0;
}
