// A PTX module of predatar's own library kernels (cuRAND, cuBLAS), registered
// with the runtime the way nvcc's host code registers a program's: a fat
// binary holding the PTX, then __cudaRegisterFunction per kernel. Its
// launches then go through cudaLaunchKernel on the caller's stream, so the
// detectors see a library's reads and writes like any kernel's, ordered by
// the same streams and events.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "cudart/runtime/CudaTypes.h"

namespace predatar::libraries {

class EmbeddedModule {
 public:
  // `ptx`: the module's text (static storage); `kernels`: its entry names.
  EmbeddedModule(std::string_view ptx, std::vector<std::string> kernels);
  EmbeddedModule(const EmbeddedModule&) = delete;
  EmbeddedModule& operator=(const EmbeddedModule&) = delete;

  // Launches `kernel` over `threads` threads (a grid of 256-thread blocks,
  // capped: kernels loop grid-stride), or exactly `grid` x `block`.
  cudaError_t launch(std::string_view kernel, uint64_t threads, cudaStream_t stream, std::vector<void*> args);
  cudaError_t launch(std::string_view kernel, dim3 grid, dim3 block, cudaStream_t stream, std::vector<void*> args);

 private:
  void registerOnce();
  std::string_view ptx_;
  std::vector<std::string> kernels_;
  std::vector<char> handles_;      // one byte per kernel: its address is the kernel's host handle
  std::vector<uint8_t> fatbin_;    // the container the runtime reads
  struct Wrapper {
    uint32_t magic, version;
    const void* data;
    void* unused;
  } wrapper_{};
  std::once_flag registered_;
};

}  // namespace predatar::libraries
