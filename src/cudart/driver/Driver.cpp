// Errors, initialization, devices and contexts of the driver API (Driver.h).
#include "cudart/driver/Driver.h"

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "cudart/runtime/Api.h"
#include "cudart/runtime/DriverBridge.h"

#define PREDATAR_DRIVER_API extern "C" __attribute__((visibility("default")))

// libcudart's refusal by name (Unsupported.cpp): one line per name, PREDATAR_STRICT=1 exits.
extern "C" void predatarUnsupportedReturning(const char* what, const char* returning);

namespace predatar::driver {
namespace {

struct ErrorEntry {
  int value;
  const char* name;
  const char* description;
};
constexpr ErrorEntry kErrors[] = {
#include "cudart/driver/generated/ErrorTable.inc"
};

const ErrorEntry* errorEntry(CUresult error) {
  for (const ErrorEntry& e : kErrors)
    if (e.value == error) return &e;
  return nullptr;
}

// The library whose code is at `caller` (its file name), or "" for the program.
std::string libraryOf(const void* caller) {
  Dl_info info{};
  if (!caller || !dladdr(caller, &info) || !info.dli_fname || !*info.dli_fname) return "";
  char resolved[4096], program[4096];
  ssize_t n = readlink("/proc/self/exe", program, sizeof program - 1);
  if (n > 0 && realpath(info.dli_fname, resolved) && std::string_view(resolved) == std::string_view(program, size_t(n)))
    return "";
  std::string path = info.dli_fname;
  return path.substr(path.find_last_of('/') + 1);
}

}  // namespace

CUresult fromRuntime(cudaError_t error) {
  switch (error) {
    case cudart::cudaErrorInvalidDeviceFunction:
    case cudart::cudaErrorInvalidResourceHandle:
      return CUDA_ERROR_INVALID_HANDLE;
    default:
      return errorEntry(error) ? error : CUDA_ERROR_INVALID_VALUE;
  }
}

CUresult refuse(const char* what, const void* caller) {
  std::string library = libraryOf(caller);
  std::string message = std::string(what) + " (the CUDA driver API";
  if (!library.empty())
    message += ", called by " + library +
               ": NVIDIA's libraries such as cuFFT and cuSPARSE run their own copy of the runtime on the driver, "
               "which the emulator does not provide; predatar has its own cuRAND and cuBLAS";
  message += ")";
  predatarUnsupportedReturning(message.c_str(), "CUDA_ERROR_NOT_SUPPORTED");
  return CUDA_ERROR_NOT_SUPPORTED;
}

// ---------------------------------------------------------------- contexts

// A context is bookkeeping only (Driver.h): what cuCtxCreate returned, its
// device and flags; each thread has its stack of current contexts.
struct Context {
  CUdevice device = 0;
  unsigned flags = 0;
  bool primary = false;
};

namespace {

std::mutex contextsMutex;
std::vector<Context*>& liveContexts() {
  static auto* live = new std::vector<Context*>;
  return *live;
}
Context& primaryContext() {
  static auto* primary = new Context{0, 0, true};
  return *primary;
}
thread_local std::vector<Context*> currentStack;

// The context calls act on: the top of this thread's stack, else the primary
// context where the runtime made it current (requireContext), else none.
Context* currentContext() {
  if (!currentStack.empty()) return currentStack.back();
  return predatarDriverPrimaryContextCurrent() ? &primaryContext() : nullptr;
}

bool live(Context* c) {
  std::lock_guard lock(contextsMutex);
  auto& all = liveContexts();
  return c == &primaryContext() || std::find(all.begin(), all.end(), c) != all.end();
}

}  // namespace

CUresult requireContext(const char* call) {
  if (currentContext() != nullptr) return CUDA_SUCCESS;
  static std::mutex noted;
  static std::vector<std::string> calls;
  std::lock_guard lock(noted);
  if (std::find(calls.begin(), calls.end(), call) == calls.end()) {
    calls.push_back(call);
    std::fprintf(stderr,
                 "predatar: %s: no CUDA context is current on this thread: CUDA_ERROR_INVALID_CONTEXT, as NVIDIA's "
                 "driver answers (make one current first: cuCtxCreate, or cuDevicePrimaryCtxRetain then "
                 "cuCtxSetCurrent, or any CUDA runtime call such as cudaFree(0))\n",
                 call);
  }
  return CUDA_ERROR_INVALID_CONTEXT;
}

}  // namespace predatar::driver

using namespace predatar::driver;
using CUcontext = Context*;

// ---------------------------------------------------------------- errors, init, version

PREDATAR_DRIVER_API CUresult cuGetErrorString(CUresult error, const char** text) {
  if (text == nullptr) return CUDA_ERROR_INVALID_VALUE;
  const ErrorEntry* e = errorEntry(error);
  *text = e ? e->description : nullptr;
  return e ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

PREDATAR_DRIVER_API CUresult cuGetErrorName(CUresult error, const char** name) {
  if (name == nullptr) return CUDA_ERROR_INVALID_VALUE;
  const ErrorEntry* e = errorEntry(error);
  *name = e ? e->name : nullptr;
  return e ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

PREDATAR_DRIVER_API CUresult cuInit(unsigned flags) { return flags == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE; }

PREDATAR_DRIVER_API CUresult cuDriverGetVersion(int* version) {
  if (version == nullptr) return CUDA_ERROR_INVALID_VALUE;
  return fromRuntime(cudaDriverGetVersion(version));
}

// The runtime's entry points to the driver: NVIDIA libraries with their own
// static runtime look everything up through these, which stay refused.
PREDATAR_DRIVER_API CUresult cuGetProcAddress_v2(const char* symbol, void**, int, uint64_t, void*) {
  std::string name = !symbol ? "(null)" : !*symbol ? "\"\" (an empty name)" : symbol;
  return refuse(("cuGetProcAddress of " + name).c_str(), __builtin_return_address(0));
}

// NVIDIA's NVRTC (lib/libnvrtc.so.13 forwards to it) asks for an export
// table when a driver is loaded, and compiles all the same without one, as
// it does on a machine with no driver: only other callers hear a refusal.
PREDATAR_DRIVER_API CUresult cuGetExportTable(const void** table, const void* id) {
  if (table != nullptr) *table = nullptr;
  (void)id;
  const void* caller = __builtin_return_address(0);
  if (libraryOf(caller).rfind("libnvrtc", 0) == 0) return CUDA_ERROR_NOT_SUPPORTED;
  return refuse("cuGetExportTable", caller);
}

// ---------------------------------------------------------------- devices

namespace {
CUresult checkDevice(CUdevice device) { return device == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE; }

// The runtime's description of `device`, which the driver's queries read.
CUresult properties(CUdevice device, cudaDeviceProp& prop) {
  if (CUresult e = checkDevice(device); e != CUDA_SUCCESS) return e;
  prop = cudaDeviceProp{};
  return fromRuntime(cudaGetDeviceProperties(&prop, device));
}
}  // namespace

PREDATAR_DRIVER_API CUresult cuDeviceGetCount(int* count) {
  if (count == nullptr) return CUDA_ERROR_INVALID_VALUE;
  return fromRuntime(cudaGetDeviceCount(count));
}

PREDATAR_DRIVER_API CUresult cuDeviceGet(CUdevice* device, int ordinal) {
  if (device == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (CUresult e = checkDevice(ordinal); e != CUDA_SUCCESS) return e;
  *device = ordinal;
  return CUDA_SUCCESS;
}

PREDATAR_DRIVER_API CUresult cuDeviceGetName(char* name, int length, CUdevice device) {
  if (name == nullptr || length <= 0) return CUDA_ERROR_INVALID_VALUE;
  cudaDeviceProp prop;
  if (CUresult e = properties(device, prop); e != CUDA_SUCCESS) return e;
  std::strncpy(name, prop.name, size_t(length) - 1);
  name[length - 1] = '\0';
  return CUDA_SUCCESS;
}

PREDATAR_DRIVER_API CUresult cuDeviceTotalMem_v2(size_t* bytes, CUdevice device) {
  if (bytes == nullptr) return CUDA_ERROR_INVALID_VALUE;
  cudaDeviceProp prop;
  if (CUresult e = properties(device, prop); e != CUDA_SUCCESS) return e;
  *bytes = prop.totalGlobalMem;
  return CUDA_SUCCESS;
}

// CUdevice_attribute and cudaDeviceAttr number the attributes alike; the
// driver answers for what it provides itself.
PREDATAR_DRIVER_API CUresult cuDeviceGetAttribute(int* value, int attribute, CUdevice device) {
  if (value == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (CUresult e = checkDevice(device); e != CUDA_SUCCESS) return e;
  constexpr int kVirtualMemoryManagement = 102, kGenericCompression = 107;
  if (attribute == kVirtualMemoryManagement || attribute == kGenericCompression) {
    *value = 1;  // (DriverVirtualMemory.cpp; compression changes no value a program reads)
    return CUDA_SUCCESS;
  }
  return fromRuntime(cudaDeviceGetAttribute(value, attribute, device));
}

PREDATAR_DRIVER_API CUresult cuDeviceCanAccessPeer(int* can, CUdevice device, CUdevice peer) {
  if (can == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (CUresult e = checkDevice(device); e != CUDA_SUCCESS) return e;
  if (CUresult e = checkDevice(peer); e != CUDA_SUCCESS) return e;
  *can = 0;  // one device: no peers
  return CUDA_SUCCESS;
}

PREDATAR_DRIVER_API CUresult cuDeviceComputeCapability(int* major, int* minor, CUdevice device) {
  if (major == nullptr || minor == nullptr) return CUDA_ERROR_INVALID_VALUE;
  cudaDeviceProp prop;
  if (CUresult e = properties(device, prop); e != CUDA_SUCCESS) return e;
  *major = prop.major;
  *minor = prop.minor;
  return CUDA_SUCCESS;
}

PREDATAR_DRIVER_API CUresult cuDeviceGetUuid_v2(cudaUUID_t* uuid, CUdevice device) {
  if (uuid == nullptr) return CUDA_ERROR_INVALID_VALUE;
  cudaDeviceProp prop;
  if (CUresult e = properties(device, prop); e != CUDA_SUCCESS) return e;
  *uuid = prop.uuid;
  return CUDA_SUCCESS;
}

PREDATAR_DRIVER_API CUresult cuDeviceGetPCIBusId(char* id, int length, CUdevice device) {
  if (id == nullptr || length <= 0) return CUDA_ERROR_INVALID_VALUE;
  cudaDeviceProp prop;
  if (CUresult e = properties(device, prop); e != CUDA_SUCCESS) return e;
  std::snprintf(id, size_t(length), "%04x:%02x:%02x.0", prop.pciDomainID, prop.pciBusID, prop.pciDeviceID);
  return CUDA_SUCCESS;
}

// ---------------------------------------------------------------- contexts

namespace {

CUresult create(CUcontext* context, unsigned flags, CUdevice device) {
  if (context == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (CUresult e = checkDevice(device); e != CUDA_SUCCESS) return e;
  auto* c = new Context{device, flags, false};
  {
    std::lock_guard lock(contextsMutex);
    liveContexts().push_back(c);
  }
  currentStack.push_back(c);
  *context = c;
  return CUDA_SUCCESS;
}

}  // namespace

PREDATAR_DRIVER_API CUresult cuCtxCreate_v2(CUcontext* context, unsigned flags, CUdevice device) {
  return create(context, flags, device);
}
PREDATAR_DRIVER_API CUresult cuCtxCreate_v3(CUcontext* context, void*, int, unsigned flags, CUdevice device) {
  return create(context, flags, device);
}
// CUDA 13's cuCtxCreate: the parameters (execution affinity, CIG) have no
// meaning on the emulator's one device.
PREDATAR_DRIVER_API CUresult cuCtxCreate_v4(CUcontext* context, void*, unsigned flags, CUdevice device) {
  return create(context, flags, device);
}

PREDATAR_DRIVER_API CUresult cuCtxDestroy_v2(CUcontext context) {
  if (context == nullptr || context->primary) return CUDA_ERROR_INVALID_VALUE;
  {
    std::lock_guard lock(contextsMutex);
    auto& all = liveContexts();
    auto it = std::find(all.begin(), all.end(), context);
    if (it == all.end()) return CUDA_ERROR_INVALID_CONTEXT;
    all.erase(it);
  }
  std::erase(currentStack, context);
  delete context;
  return CUDA_SUCCESS;
}

PREDATAR_DRIVER_API CUresult cuCtxPushCurrent_v2(CUcontext context) {
  if (context == nullptr || !live(context)) return CUDA_ERROR_INVALID_CONTEXT;
  currentStack.push_back(context);
  return CUDA_SUCCESS;
}

PREDATAR_DRIVER_API CUresult cuCtxPopCurrent_v2(CUcontext* context) {
  if (currentStack.empty()) return CUDA_ERROR_INVALID_CONTEXT;
  if (context) *context = currentStack.back();
  currentStack.pop_back();
  return CUDA_SUCCESS;
}

PREDATAR_DRIVER_API CUresult cuCtxGetCurrent(CUcontext* context) {
  if (context == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *context = currentContext();
  return CUDA_SUCCESS;
}

PREDATAR_DRIVER_API CUresult cuCtxSetCurrent(CUcontext context) {
  if (context != nullptr && !live(context)) return CUDA_ERROR_INVALID_CONTEXT;
  if (!currentStack.empty()) currentStack.pop_back();
  if (context != nullptr) currentStack.push_back(context);
  return CUDA_SUCCESS;
}

PREDATAR_DRIVER_API CUresult cuCtxGetDevice(CUdevice* device) {
  PREDATAR_REQUIRE_CONTEXT();
  if (device == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *device = currentContext()->device;
  return CUDA_SUCCESS;
}

PREDATAR_DRIVER_API CUresult cuCtxGetFlags(unsigned* flags) {
  PREDATAR_REQUIRE_CONTEXT();
  if (flags == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *flags = currentContext()->flags;
  return CUDA_SUCCESS;
}

PREDATAR_DRIVER_API CUresult cuCtxGetApiVersion(CUcontext context, unsigned* version) {
  if (version == nullptr || (context != nullptr && !live(context))) return CUDA_ERROR_INVALID_VALUE;
  *version = 3020;  // what every context since CUDA 3.2 reports
  return CUDA_SUCCESS;
}

PREDATAR_DRIVER_API CUresult cuCtxSynchronize() {
  PREDATAR_REQUIRE_CONTEXT();
  return fromRuntime(cudaDeviceSynchronize());
}

// CUlimit and CUfunc_cache are the runtime's cudaLimit and cudaFuncCache numbers.
PREDATAR_DRIVER_API CUresult cuCtxSetLimit(int limit, size_t value) {
  PREDATAR_REQUIRE_CONTEXT();
  return fromRuntime(cudaDeviceSetLimit(limit, value));
}
PREDATAR_DRIVER_API CUresult cuCtxGetLimit(size_t* value, int limit) {
  PREDATAR_REQUIRE_CONTEXT();
  return fromRuntime(cudaDeviceGetLimit(value, limit));
}
PREDATAR_DRIVER_API CUresult cuCtxSetCacheConfig(int config) {
  PREDATAR_REQUIRE_CONTEXT();
  return fromRuntime(cudaDeviceSetCacheConfig(config));
}
PREDATAR_DRIVER_API CUresult cuCtxGetCacheConfig(int* config) {
  PREDATAR_REQUIRE_CONTEXT();
  return fromRuntime(cudaDeviceGetCacheConfig(config));
}

PREDATAR_DRIVER_API CUresult cuDevicePrimaryCtxRetain(CUcontext* context, CUdevice device) {
  if (context == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (CUresult e = checkDevice(device); e != CUDA_SUCCESS) return e;
  *context = &primaryContext();
  return CUDA_SUCCESS;
}
PREDATAR_DRIVER_API CUresult cuDevicePrimaryCtxRelease_v2(CUdevice device) { return checkDevice(device); }
PREDATAR_DRIVER_API CUresult cuDevicePrimaryCtxSetFlags_v2(CUdevice device, unsigned flags) {
  if (CUresult e = checkDevice(device); e != CUDA_SUCCESS) return e;
  primaryContext().flags = flags;
  return CUDA_SUCCESS;
}
PREDATAR_DRIVER_API CUresult cuDevicePrimaryCtxGetState(CUdevice device, unsigned* flags, int* active) {
  if (flags == nullptr || active == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (CUresult e = checkDevice(device); e != CUDA_SUCCESS) return e;
  *flags = primaryContext().flags;
  *active = 1;
  return CUDA_SUCCESS;
}
