// Modules, the PTX linker, kernels and launches of the driver API (Driver.h).
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cudart/FatBinaryWriter.h"
#include "cudart/driver/Driver.h"
#include "cudart/runtime/Api.h"
#include "cudart/runtime/DriverBridge.h"

#define PREDATAR_DRIVER_API extern "C" __attribute__((visibility("default")))

using namespace predatar::driver;

namespace {

// What a file holds; false when it cannot be read.
bool readFile(const char* path, std::string& bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream all;
  all << in.rdbuf();
  bytes = all.str();
  return true;
}

// What the JIT options ask to be written back: its wall time (0 ms, written
// in the option's value itself, as the driver does) and empty info and error
// logs. The other options (optimization level, targets...) change nothing:
// PTX is interpreted as written.
void jitOutputs(unsigned count, const int* options, void** values) {
  constexpr int kWallTime = 2, kInfoLog = 3, kInfoLogSize = 4, kErrorLog = 5, kErrorLogSize = 6;
  if (options == nullptr || values == nullptr) return;
  char* logs[2] = {nullptr, nullptr};
  size_t sizes[2] = {0, 0};
  for (unsigned i = 0; i < count; ++i) {
    switch (options[i]) {
      case kWallTime: {
        float zero = 0.0f;
        std::memcpy(&values[i], &zero, sizeof zero);
        break;
      }
      case kInfoLog: logs[0] = static_cast<char*>(values[i]); break;
      case kErrorLog: logs[1] = static_cast<char*>(values[i]); break;
      case kInfoLogSize: sizes[0] = reinterpret_cast<uintptr_t>(values[i]); break;
      case kErrorLogSize: sizes[1] = reinterpret_cast<uintptr_t>(values[i]); break;
      default: break;
    }
  }
  for (int l = 0; l < 2; ++l)
    if (logs[l] && sizes[l]) logs[l][0] = '\0';
}

// `name`: the file the image came from (null: none).
CUresult loadModule(CUmodule* module, const void* image, const char* name = nullptr) {
  if (module == nullptr || image == nullptr) return CUDA_ERROR_INVALID_VALUE;
  return fromRuntime(predatarDriverLoadModule(image, name, module));
}

CUresult loadModuleFile(CUmodule* module, const char* path) {
  if (module == nullptr || path == nullptr) return CUDA_ERROR_INVALID_VALUE;
  std::string bytes;
  if (!readFile(path, bytes)) return CUDA_ERROR_FILE_NOT_FOUND;
  return loadModule(module, bytes.c_str(), path);  // (PTX needs its NUL: c_str() has it)
}

}  // namespace

// ---------------------------------------------------------------- modules

PREDATAR_DRIVER_API CUresult cuModuleLoadData(CUmodule* module, const void* image) {
  PREDATAR_REQUIRE_CONTEXT();
  return loadModule(module, image);
}

PREDATAR_DRIVER_API CUresult cuModuleLoadDataEx(CUmodule* module, const void* image, unsigned count, int* options,
                                               void** values) {
  PREDATAR_REQUIRE_CONTEXT();
  jitOutputs(count, options, values);
  return loadModule(module, image);
}

PREDATAR_DRIVER_API CUresult cuModuleLoadFatBinary(CUmodule* module, const void* image) {
  PREDATAR_REQUIRE_CONTEXT();
  return loadModule(module, image);
}

PREDATAR_DRIVER_API CUresult cuModuleLoad(CUmodule* module, const char* path) {
  PREDATAR_REQUIRE_CONTEXT();
  return loadModuleFile(module, path);
}

PREDATAR_DRIVER_API CUresult cuModuleUnload(CUmodule module) {
  return fromRuntime(predatarDriverUnloadModule(module));
}

PREDATAR_DRIVER_API CUresult cuModuleGetFunction(CUfunction* function, CUmodule module, const char* name) {
  if (function == nullptr || name == nullptr) return CUDA_ERROR_INVALID_VALUE;
  return fromRuntime(predatarDriverModuleFunction(module, name, function));
}

PREDATAR_DRIVER_API CUresult cuModuleGetGlobal_v2(CUdeviceptr* address, size_t* bytes, CUmodule module,
                                                 const char* name) {
  uint64_t a = 0, b = 0;
  if (CUresult e = fromRuntime(predatarDriverModuleGlobal(module, name, &a, &b)); e != CUDA_SUCCESS) return e;
  if (address) *address = a;
  if (bytes) *bytes = b;
  return CUDA_SUCCESS;
}

PREDATAR_DRIVER_API CUresult cuModuleGetLoadingMode(int* mode) {
  if (mode == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *mode = 1;  // CU_MODULE_EAGER_LOADING: a module's PTX is loaded when the module is
  return CUDA_SUCCESS;
}

// ---------------------------------------------------------------- libraries and kernels (CUDA 12)
// A library is a module that no context owns, and a kernel its function:
// with one device, both are the module's (Driver.h).

PREDATAR_DRIVER_API CUresult cuLibraryLoadData(CUmodule* library, const void* code, int* options, void** values,
                                              unsigned count, int*, void**, unsigned) {
  jitOutputs(count, options, values);
  return loadModule(library, code);
}

PREDATAR_DRIVER_API CUresult cuLibraryLoadFromFile(CUmodule* library, const char* path, int* options, void** values,
                                                  unsigned count, int*, void**, unsigned) {
  jitOutputs(count, options, values);
  return loadModuleFile(library, path);  // a library needs no current context
}

PREDATAR_DRIVER_API CUresult cuLibraryUnload(CUmodule library) { return cuModuleUnload(library); }

PREDATAR_DRIVER_API CUresult cuLibraryGetKernel(CUfunction* kernel, CUmodule library, const char* name) {
  return cuModuleGetFunction(kernel, library, name);
}

PREDATAR_DRIVER_API CUresult cuLibraryGetModule(CUmodule* module, CUmodule library) {
  if (module == nullptr || library == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *module = library;
  return CUDA_SUCCESS;
}

PREDATAR_DRIVER_API CUresult cuKernelGetFunction(CUfunction* function, CUfunction kernel) {
  if (function == nullptr || kernel == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *function = kernel;
  return CUDA_SUCCESS;
}

PREDATAR_DRIVER_API CUresult cuLibraryGetGlobal(CUdeviceptr* address, size_t* bytes, CUmodule library,
                                               const char* name) {
  return cuModuleGetGlobal_v2(address, bytes, library, name);
}

// ---------------------------------------------------------------- the PTX linker

namespace {

// CUjitInputType values.
constexpr int kJitInputPtx = 1, kJitInputFatbinary = 2;

// A pending link: the PTX units added (text, name), then the container they make.
struct LinkState {
  std::vector<std::pair<std::string, std::string>> units;
  std::vector<uint8_t> output;
};

}  // namespace

PREDATAR_DRIVER_API CUresult cuLinkCreate_v2(unsigned count, int* options, void** values, LinkState** state) {
  PREDATAR_REQUIRE_CONTEXT();
  if (state == nullptr || (count > 0 && (options == nullptr || values == nullptr))) return CUDA_ERROR_INVALID_VALUE;
  jitOutputs(count, options, values);
  *state = new LinkState;
  return CUDA_SUCCESS;
}

PREDATAR_DRIVER_API CUresult cuLinkAddData_v2(LinkState* state, int type, void* data, size_t bytes, const char* name,
                                             unsigned, int*, void**) {
  if (state == nullptr || data == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (type == kJitInputPtx) {
    state->units.emplace_back(std::string(static_cast<const char*>(data), strnlen(static_cast<const char*>(data), bytes)),
                              name ? name : "PTX unit " + std::to_string(state->units.size() + 1) + " of cuLinkAddData");
    return CUDA_SUCCESS;
  }
  std::string what = "cuLinkAddData of " + std::string(name ? name : "an input") + " with input type " +
                     std::to_string(type) +
                     (type == kJitInputFatbinary ? " (fat binary: load it with cuModuleLoadData instead)"
                                                 : " (predatar links PTX only: cubins, objects and libraries hold "
                                                   "machine code)");
  return refuse(what.c_str());
}

PREDATAR_DRIVER_API CUresult cuLinkAddFile_v2(LinkState* state, int type, const char* path, unsigned count,
                                             int* options, void** values) {
  if (state == nullptr || path == nullptr) return CUDA_ERROR_INVALID_VALUE;
  std::string bytes;
  if (!readFile(path, bytes)) return CUDA_ERROR_FILE_NOT_FOUND;
  return cuLinkAddData_v2(state, type, bytes.data(), bytes.size(), path, count, options, values);
}

// The output is a fat binary of the units (Driver.h); the runtime links
// several as it links nvcc -rdc=true modules, when the module is loaded.
PREDATAR_DRIVER_API CUresult cuLinkComplete(LinkState* state, void** output, size_t* bytes) {
  if (state == nullptr || output == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (state->units.empty()) return CUDA_ERROR_INVALID_VALUE;
  std::vector<predatar::cudart::PtxUnit> units;
  for (const auto& [ptx, name] : state->units) units.push_back({ptx, name});
  state->output = predatar::cudart::ptxContainer(units);
  *output = state->output.data();
  if (bytes) *bytes = state->output.size();
  return CUDA_SUCCESS;
}

PREDATAR_DRIVER_API CUresult cuLinkDestroy(LinkState* state) {
  delete state;
  return CUDA_SUCCESS;
}

// ---------------------------------------------------------------- kernels

namespace {

// cuLaunchKernel's `extra`: CU_LAUNCH_PARAM_BUFFER_POINTER, then _SIZE, then _END.
CUresult unpackExtra(CUfunction function, void** extra, std::vector<void*>& params) {
  void* buffer = nullptr;
  size_t bytes = 0;
  for (size_t i = 0; extra[i] != nullptr; i += 2) {
    uintptr_t key = reinterpret_cast<uintptr_t>(extra[i]);
    if (key == 1) buffer = extra[i + 1];
    else if (key == 2 && extra[i + 1]) bytes = *static_cast<size_t*>(extra[i + 1]);
    else return CUDA_ERROR_INVALID_VALUE;
  }
  if (buffer == nullptr && bytes > 0) return CUDA_ERROR_INVALID_VALUE;
  params.resize(4096);  // (a kernel's parameters fit in 32 KB)
  size_t count = 0;
  if (CUresult e = fromRuntime(predatarDriverUnpackParams(function, buffer, bytes, params.data(), params.size(), &count));
      e != CUDA_SUCCESS)
    return e;
  params.resize(count);
  return CUDA_SUCCESS;
}

// What a launch returns: a fault while the kernel ran (the emulator runs it
// before returning) is the GPU's asynchronous error, so the launch itself
// succeeded and the context's next call (cuCtxSynchronize...) returns it.
CUresult asLaunched(cudaError_t e) {
  constexpr int kExecutionErrors[] = {700, 702, 710, 714, 715, 716, 717, 718, 719};
  for (int execution : kExecutionErrors)
    if (e == execution) return CUDA_SUCCESS;
  return fromRuntime(e);
}

// A launch's arguments, from kernelParams or `extra` (then unpacked into
// `unpacked`, which `kernelParams` then points into).
CUresult arguments(CUfunction function, void**& kernelParams, void** extra, std::vector<void*>& unpacked) {
  if (function == nullptr) return CUDA_ERROR_INVALID_HANDLE;
  if (kernelParams != nullptr && extra != nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (extra == nullptr) return CUDA_SUCCESS;
  if (CUresult e = unpackExtra(function, extra, unpacked); e != CUDA_SUCCESS) return e;
  kernelParams = unpacked.data();
  return CUDA_SUCCESS;
}

CUresult launch(bool cooperative, CUfunction function, dim3 grid, dim3 block, unsigned sharedBytes,
                cudaStream_t stream, void** kernelParams, void** extra) {
  std::vector<void*> unpacked;
  if (CUresult e = arguments(function, kernelParams, extra, unpacked); e != CUDA_SUCCESS) return e;
  return asLaunched(cooperative
                        ? cudaLaunchCooperativeKernel(function, grid, block, kernelParams, sharedBytes, stream)
                        : cudaLaunchKernel(function, grid, block, kernelParams, sharedBytes, stream));
}

}  // namespace

PREDATAR_DRIVER_API CUresult cuLaunchKernel(CUfunction function, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                                           unsigned by, unsigned bz, unsigned sharedBytes, cudaStream_t stream,
                                           void** kernelParams, void** extra) {
  return launch(false, function, dim3{gx, gy, gz}, dim3{bx, by, bz}, sharedBytes, stream, kernelParams, extra);
}

namespace {

// CUlaunchConfig, as cuda.h lays it out; its attributes are the runtime's
// cudaLaunchAttribute (same ids, same layout).
struct LaunchConfig {
  unsigned gridX, gridY, gridZ, blockX, blockY, blockZ, sharedBytes;
  cudaStream_t stream;
  cudaLaunchAttribute* attributes;
  unsigned attributeCount;
};

}  // namespace

PREDATAR_DRIVER_API CUresult cuLaunchKernelEx(const LaunchConfig* config, CUfunction function, void** kernelParams,
                                             void** extra) {
  if (config == nullptr) return CUDA_ERROR_INVALID_VALUE;
  std::vector<void*> unpacked;
  if (CUresult e = arguments(function, kernelParams, extra, unpacked); e != CUDA_SUCCESS) return e;
  cudaLaunchConfig_t runtime{dim3{config->gridX, config->gridY, config->gridZ},
                             dim3{config->blockX, config->blockY, config->blockZ},
                             config->sharedBytes,
                             config->stream,
                             config->attributes,
                             config->attributeCount};
  return asLaunched(cudaLaunchKernelExC(&runtime, function, kernelParams));
}

PREDATAR_DRIVER_API CUresult cuLaunchCooperativeKernel(CUfunction function, unsigned gx, unsigned gy, unsigned gz,
                                                      unsigned bx, unsigned by, unsigned bz, unsigned sharedBytes,
                                                      cudaStream_t stream, void** kernelParams) {
  return launch(true, function, dim3{gx, gy, gz}, dim3{bx, by, bz}, sharedBytes, stream, kernelParams, nullptr);
}

PREDATAR_DRIVER_API CUresult cuFuncGetName(const char** name, CUfunction function) {
  return fromRuntime(cudaFuncGetName(name, function));
}

// CUfunction_attribute: the first ten are cudaFuncAttributes' fields.
PREDATAR_DRIVER_API CUresult cuFuncGetAttribute(int* value, int attribute, CUfunction function) {
  if (value == nullptr) return CUDA_ERROR_INVALID_VALUE;
  cudaFuncAttributes a{};
  if (cudaError_t e = cudaFuncGetAttributes(&a, function); e != 0) return fromRuntime(e);
  switch (attribute) {
    case 0: *value = a.maxThreadsPerBlock; break;
    case 1: *value = int(a.sharedSizeBytes); break;
    case 2: *value = int(a.constSizeBytes); break;
    case 3: *value = int(a.localSizeBytes); break;
    case 4: *value = a.numRegs; break;
    case 5: *value = a.ptxVersion; break;
    case 6: *value = a.binaryVersion; break;
    case 7: *value = a.cacheModeCA; break;
    case 8: *value = a.maxDynamicSharedSizeBytes; break;
    case 9: *value = a.preferredShmemCarveout; break;
    default:
      return refuse(("cuFuncGetAttribute with attribute " + std::to_string(attribute)).c_str());
  }
  return CUDA_SUCCESS;
}

// CUfunction_attribute and cudaFuncAttribute number the settable ones alike.
PREDATAR_DRIVER_API CUresult cuFuncSetAttribute(CUfunction function, int attribute, int value) {
  return fromRuntime(cudaFuncSetAttribute(function, attribute, value));
}

PREDATAR_DRIVER_API CUresult cuKernelGetAttribute(int* value, int attribute, CUfunction kernel, CUdevice device) {
  if (device != 0) return CUDA_ERROR_INVALID_DEVICE;
  return cuFuncGetAttribute(value, attribute, kernel);
}

PREDATAR_DRIVER_API CUresult cuKernelSetAttribute(int attribute, int value, CUfunction kernel, CUdevice device) {
  if (device != 0) return CUDA_ERROR_INVALID_DEVICE;
  return cuFuncSetAttribute(kernel, attribute, value);
}

PREDATAR_DRIVER_API CUresult cuFuncSetCacheConfig(CUfunction function, int config) {
  return fromRuntime(cudaFuncSetCacheConfig(function, config));
}

PREDATAR_DRIVER_API CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int* blocks, CUfunction function,
                                                                        int blockSize, size_t sharedBytes) {
  return fromRuntime(cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, function, blockSize, sharedBytes));
}

PREDATAR_DRIVER_API CUresult cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int* blocks, CUfunction function,
                                                                                 int blockSize, size_t sharedBytes,
                                                                                 unsigned flags) {
  return fromRuntime(
      cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(blocks, function, blockSize, sharedBytes, flags));
}

// The largest block (up to `limit`) and the grid that fills the device with it.
PREDATAR_DRIVER_API CUresult cuOccupancyMaxPotentialBlockSize(int* minGridSize, int* blockSize, CUfunction function,
                                                             size_t (*sharedForBlock)(int), size_t sharedBytes,
                                                             int limit) {
  if (minGridSize == nullptr || blockSize == nullptr) return CUDA_ERROR_INVALID_VALUE;
  int block = limit > 0 ? std::min(limit, 1024) : 1024;
  int perMultiprocessor = 0, multiprocessors = 0;
  size_t shared = sharedForBlock ? sharedForBlock(block) : sharedBytes;
  if (cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perMultiprocessor, function, block, shared); e)
    return fromRuntime(e);
  if (cudaError_t e = cudaDeviceGetAttribute(&multiprocessors, 16 /* multiprocessor count */, 0); e)
    return fromRuntime(e);
  *blockSize = block;
  *minGridSize = perMultiprocessor * multiprocessors;
  return CUDA_SUCCESS;
}
