// What lib/libcuda.so.1 (src/cudart/driver) needs from the runtime beyond
// the runtime API: modules loaded while the program runs (cuModuleLoadData,
// cuLinkComplete's output) and the parameter layout of their kernels. A C
// ABI exported from libcudart.so.13; each returns a cudaError_t, whose
// values the driver's CUresult shares for these errors.
#pragma once

#include <cstddef>
#include <cstdint>

extern "C" {

// Loads `image`: a fat binary container, nvcc's fat binary wrapper, or
// NUL-terminated PTX text, which `name` (the file it came from, or how the
// program gave it; may be null) names in messages. A cubin (machine code
// only) is refused by name.
int predatarDriverLoadModule(const void* image, const char* name, void*** module);
// Releases a loaded module (its kernels and variables can no longer be found).
int predatarDriverUnloadModule(void** module);
// The entry `name` of `module`, as the host handle cudaLaunchKernel takes.
int predatarDriverModuleFunction(void** module, const char* name, const void** function);
// The device address and size of the global or constant variable `name`.
int predatarDriverModuleGlobal(void** module, const char* name, uint64_t* address, uint64_t* bytes);
// The allocation holding `address`: its base and size (cuMemGetAddressRange).
int predatarDriverAddressRange(uint64_t address, uint64_t* base, uint64_t* bytes);
// Where each parameter of `function` lies in a packed argument buffer
// (cuLaunchKernel's CU_LAUNCH_PARAM_BUFFER_POINTER): params[i] = buffer +
// the offset of parameter i, each aligned as its .param says.
// 1 when a runtime call on this thread has made the primary context current
// (ApiCommon.h), as NVIDIA's runtime does; else 0.
int predatarDriverPrimaryContextCurrent();
int predatarDriverUnpackParams(const void* function, void* buffer, size_t bytes, void** params, size_t capacity,
                               size_t* count);
}
