// lib/libnvrtc.so.13: NVRTC (CUDA C++ compiled while the program runs) for
// the emulator. Compiling is NVIDIA's own library's work, and it runs on the
// CPU, so every call goes to NVIDIA's libnvrtc.so.13 (found beside CUDA, not
// through the library path, where this one comes first). One thing changes:
// a program that asks for machine code (--gpu-architecture=sm_NN, then
// nvrtcGetCUBIN) gets PTX for compute_NN instead, in a fat binary that
// predatar's cuModuleLoadData loads (src/cudart/driver): the emulator runs
// PTX, never machine code. The fat binary remembers sm_NN, so loading it
// fails where NVIDIA's driver would refuse the cubin (FatBinary.h).
#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "cudart/FatBinaryWriter.h"
#include "libraries/Refusal.h"

#define PREDATAR_NVRTC_API extern "C" __attribute__((visibility("default")))

namespace {

using nvrtcResult = int;
using nvrtcProgram = struct _nvrtcProgram*;
constexpr nvrtcResult kSuccess = 0, kInvalidProgram = 4, kInternalError = 11;

// NVIDIA's library: CUDA_HOME, CUDA_PATH, the usual installations, then the
// library path; never this library itself.
void* realLibrary() {
  static void* handle = [] {
    Dl_info self{};
    dladdr(reinterpret_cast<const void*>(&realLibrary), &self);
    char selfPath[4096] = "";
    if (!self.dli_fname || !realpath(self.dli_fname, selfPath)) selfPath[0] = '\0';
    std::vector<std::string> dirs;
    for (const char* var : {"CUDA_HOME", "CUDA_PATH"})
      if (const char* v = std::getenv(var); v && *v) dirs.push_back(std::string(v) + "/lib64");
    dirs.push_back("/usr/local/cuda/lib64");
    dirs.push_back("/usr/lib/x86_64-linux-gnu");
    if (const char* path = std::getenv("LD_LIBRARY_PATH"))
      for (std::string rest = path; !rest.empty();) {
        size_t colon = rest.find(':');
        dirs.push_back(rest.substr(0, colon));
        rest = colon == std::string::npos ? "" : rest.substr(colon + 1);
      }
    for (const std::string& dir : dirs) {
      std::string candidate = dir + "/libnvrtc.so.13";
      char resolved[4096];
      if (access(candidate.c_str(), R_OK) != 0 || !realpath(candidate.c_str(), resolved)) continue;
      if (std::strcmp(resolved, selfPath) == 0) continue;
      if (void* h = dlopen(resolved, RTLD_NOW | RTLD_LOCAL)) return h;
    }
    return static_cast<void*>(nullptr);
  }();
  return handle;
}

// NVIDIA's `name`, or nullptr (after saying why) when its library is not installed.
template <class F>
F real(const char* name) {
  void* library = realLibrary();
  void* f = library ? dlsym(library, name) : nullptr;
  if (f == nullptr)
    predatarUnsupportedReturning(
        (std::string(name) + " without NVIDIA's libnvrtc.so.13 (predatar compiles with it: install the CUDA "
                             "toolkit's NVRTC, or set CUDA_HOME)")
            .c_str(),
        "NVRTC_ERROR_INTERNAL_ERROR");
  return reinterpret_cast<F>(f);
}

#define FORWARD(name, params, args)                                   \
  PREDATAR_NVRTC_API nvrtcResult name params {                         \
    static auto f = real<nvrtcResult(*) params>(#name);                \
    return f ? f args : kInternalError;                                \
  }

// Each program's name (its source file's, for messages), whether it was
// compiled for machine code (NN of sm_NN; 0: not), and the fat binary of PTX
// it then gets instead.
struct Program {
  std::string name;
  uint32_t machineCode = 0;
  std::vector<uint8_t> image;
};
std::mutex programsMutex;
std::map<nvrtcProgram, Program>& programs() {
  static auto* all = new std::map<nvrtcProgram, Program>;
  return *all;
}

// "sm_90a" -> "compute_90a": the same architecture, as PTX; returns 90 (0
// when `arch` is not machine code).
uint32_t toVirtual(std::string& arch) {
  if (arch.rfind("sm_", 0) != 0) return 0;
  uint32_t number = uint32_t(std::strtoul(arch.c_str() + 3, nullptr, 10));
  arch = "compute_" + arch.substr(3);
  return number ? number : 1;
}

}  // namespace

PREDATAR_NVRTC_API const char* nvrtcGetErrorString(nvrtcResult result) {
  static auto f = real<const char* (*)(nvrtcResult)>("nvrtcGetErrorString");
  return f ? f(result) : "NVRTC_ERROR_INTERNAL_ERROR";
}

FORWARD(nvrtcVersion, (int* major, int* minor), (major, minor))
FORWARD(nvrtcGetNumSupportedArchs, (int* count), (count))
FORWARD(nvrtcGetSupportedArchs, (int* archs), (archs))
FORWARD(nvrtcGetPTXSize, (nvrtcProgram prog, size_t* bytes), (prog, bytes))
FORWARD(nvrtcGetPTX, (nvrtcProgram prog, char* ptx), (prog, ptx))
FORWARD(nvrtcGetLTOIRSize, (nvrtcProgram prog, size_t* bytes), (prog, bytes))
FORWARD(nvrtcGetLTOIR, (nvrtcProgram prog, char* ir), (prog, ir))
FORWARD(nvrtcGetOptiXIRSize, (nvrtcProgram prog, size_t* bytes), (prog, bytes))
FORWARD(nvrtcGetOptiXIR, (nvrtcProgram prog, char* ir), (prog, ir))
FORWARD(nvrtcGetProgramLogSize, (nvrtcProgram prog, size_t* bytes), (prog, bytes))
FORWARD(nvrtcGetProgramLog, (nvrtcProgram prog, char* log), (prog, log))
FORWARD(nvrtcAddNameExpression, (nvrtcProgram prog, const char* const expression), (prog, expression))
FORWARD(nvrtcGetLoweredName, (nvrtcProgram prog, const char* const expression, const char** lowered),
        (prog, expression, lowered))
FORWARD(nvrtcGetPCHHeapSize, (size_t * bytes), (bytes))
FORWARD(nvrtcSetPCHHeapSize, (size_t bytes), (bytes))
FORWARD(nvrtcGetPCHCreateStatus, (nvrtcProgram prog), (prog))
FORWARD(nvrtcGetPCHHeapSizeRequired, (nvrtcProgram prog, size_t* bytes), (prog, bytes))
FORWARD(nvrtcSetFlowCallback, (nvrtcProgram prog, int (*callback)(void*, void*), void* payload),
        (prog, callback, payload))

PREDATAR_NVRTC_API nvrtcResult nvrtcCreateProgram(nvrtcProgram* prog, const char* src, const char* name, int headers,
                                                  const char* const* sources, const char* const* names) {
  static auto f = real<nvrtcResult (*)(nvrtcProgram*, const char*, const char*, int, const char* const*,
                                       const char* const*)>("nvrtcCreateProgram");
  if (!f) return kInternalError;
  nvrtcResult result = f(prog, src, name, headers, sources, names);
  if (result == kSuccess && prog != nullptr) {
    std::lock_guard lock(programsMutex);
    programs()[*prog].name = name ? name : "";
  }
  return result;
}

PREDATAR_NVRTC_API nvrtcResult nvrtcDestroyProgram(nvrtcProgram* prog) {
  static auto f = real<nvrtcResult (*)(nvrtcProgram*)>("nvrtcDestroyProgram");
  if (prog != nullptr) {
    std::lock_guard lock(programsMutex);
    programs().erase(*prog);
  }
  return f ? f(prog) : kInternalError;
}

// Machine-code architectures become their PTX ones (the file comment).
PREDATAR_NVRTC_API nvrtcResult nvrtcCompileProgram(nvrtcProgram prog, int count, const char* const* options) {
  static auto f = real<nvrtcResult (*)(nvrtcProgram, int, const char* const*)>("nvrtcCompileProgram");
  if (!f) return kInternalError;
  std::vector<std::string> rewritten;
  uint32_t machineCode = 0;
  for (int i = 0; i < count; ++i) {
    std::string option = options[i] ? options[i] : "";
    for (const char* prefix : {"--gpu-architecture=", "-arch="})
      if (option.rfind(prefix, 0) == 0) {
        std::string arch = option.substr(std::strlen(prefix));
        if (uint32_t number = toVirtual(arch)) {
          option = prefix + arch;
          machineCode = number;
        }
      }
    bool separateValue = (option == "--gpu-architecture" || option == "-arch") && i + 1 < count;
    rewritten.push_back(option);
    if (separateValue) {
      std::string arch = options[++i] ? options[i] : "";
      if (uint32_t number = toVirtual(arch)) machineCode = number;
      rewritten.push_back(arch);
    }
  }
  std::vector<const char*> pointers;
  for (const std::string& o : rewritten) pointers.push_back(o.c_str());
  {
    std::lock_guard lock(programsMutex);
    Program& p = programs()[prog];
    p.machineCode = machineCode;
    p.image.clear();
  }
  return f(prog, int(pointers.size()), pointers.data());
}

namespace {

// The fat binary standing for `prog`'s machine code, built once; nullptr
// when the program was not compiled for machine code (then NVIDIA's answer stands).
const std::vector<uint8_t>* imageOf(nvrtcProgram prog, nvrtcResult& error) {
  std::lock_guard lock(programsMutex);
  auto it = programs().find(prog);
  if (it == programs().end() || !it->second.machineCode) return nullptr;
  Program& p = it->second;
  if (p.image.empty()) {
    size_t bytes = 0;
    if ((error = nvrtcGetPTXSize(prog, &bytes)) != kSuccess) return nullptr;
    std::string ptx(bytes, '\0');
    if ((error = nvrtcGetPTX(prog, ptx.data())) != kSuccess) return nullptr;
    ptx.resize(strnlen(ptx.data(), ptx.size()));
    p.image = predatar::cudart::ptxContainer({predatar::cudart::PtxUnit{ptx, p.name, p.machineCode}});
  }
  return &p.image;
}

}  // namespace

PREDATAR_NVRTC_API nvrtcResult nvrtcGetCUBINSize(nvrtcProgram prog, size_t* bytes) {
  static auto f = real<nvrtcResult (*)(nvrtcProgram, size_t*)>("nvrtcGetCUBINSize");
  nvrtcResult error = kSuccess;
  if (const std::vector<uint8_t>* image = imageOf(prog, error)) {
    if (bytes == nullptr) return 3;  // NVRTC_ERROR_INVALID_INPUT
    *bytes = image->size();
    return kSuccess;
  }
  if (error != kSuccess) return error;
  return f ? f(prog, bytes) : kInternalError;
}

PREDATAR_NVRTC_API nvrtcResult nvrtcGetCUBIN(nvrtcProgram prog, char* cubin) {
  static auto f = real<nvrtcResult (*)(nvrtcProgram, char*)>("nvrtcGetCUBIN");
  nvrtcResult error = kSuccess;
  if (const std::vector<uint8_t>* image = imageOf(prog, error)) {
    if (cubin == nullptr) return 3;
    std::memcpy(cubin, image->data(), image->size());
    return kSuccess;
  }
  if (error != kSuccess) return error;
  if (prog == nullptr) return kInvalidProgram;
  return f ? f(prog, cubin) : kInternalError;
}
