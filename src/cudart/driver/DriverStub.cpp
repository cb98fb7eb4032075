// lib/libcuda.so.1: the CUDA driver API, refused by name. Programs built
// against the runtime API never call it, but NVIDIA's libraries (cuBLAS,
// cuRAND, cuFFT...) carry their own static copy of the runtime, which
// dlopen()s the driver; without this library they fail with their own
// status codes and no word of why. Each entry point here reports itself
// through libcudart's predatarUnsupported (so the run ends as refused, exit 3)
// and returns CUDA_ERROR_NOT_SUPPORTED. (cuRAND and cuBLAS are predatar's own,
// src/libraries, and never come here.)
#include <dlfcn.h>

#include <cstdio>
#include <string>

namespace {

constexpr int kCudaErrorNotSupported = 801;  // CUresult CUDA_ERROR_NOT_SUPPORTED

// The library whose code called `caller` (its file name), or "the program".
std::string libraryOf(const void* caller) {
  Dl_info info{};
  if (!dladdr(caller, &info) || !info.dli_fname || !*info.dli_fname) return "the program";
  std::string path = info.dli_fname;
  return path.substr(path.find_last_of('/') + 1);
}

int refuse(const char* function, const void* caller) {
  std::string what = std::string(function) + " (the CUDA driver API, called by " + libraryOf(caller) +
                     ": NVIDIA's libraries such as cuFFT and cuSPARSE run their own copy of the runtime on the "
                     "driver, which the emulator does not provide; predatar has its own cuRAND and cuBLAS only)";
  using Report = int (*)(const char*);
  if (auto report = reinterpret_cast<Report>(dlsym(RTLD_DEFAULT, "predatarUnsupported"))) {
    report(what.c_str());
  } else {
    std::fprintf(stderr, "predatar: %s is not supported by the emulator\n", what.c_str());
  }
  return kCudaErrorNotSupported;
}

}  // namespace

#define PREDATAR_DRIVER_STUB(name) \
  extern "C" __attribute__((visibility("default"), noinline)) int name() { \
    return refuse(#name, __builtin_return_address(0)); \
  }

// What a runtime looks up first: every other entry point comes through
// cuGetProcAddress, which fails here.
PREDATAR_DRIVER_STUB(cuInit)
PREDATAR_DRIVER_STUB(cuDriverGetVersion)
PREDATAR_DRIVER_STUB(cuGetProcAddress)
PREDATAR_DRIVER_STUB(cuGetProcAddress_v2)
PREDATAR_DRIVER_STUB(cuGetExportTable)
PREDATAR_DRIVER_STUB(cuDeviceGet)
PREDATAR_DRIVER_STUB(cuDeviceGetCount)
