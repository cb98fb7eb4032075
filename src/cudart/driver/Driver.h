// lib/libcuda.so.1: the CUDA driver API, on the emulator. The driver calls
// programs make (contexts, modules loaded at run time, cuLaunchKernel, the
// PTX linker, memory, streams and events) become the runtime's, so their
// kernels are launched, ordered and checked like any other; every other
// entry point refuses by name (generated/Stubs.cpp).
//
// What differs from NVIDIA's driver, on purpose:
// * one device and one address space: contexts are bookkeeping (a stack per
//   thread, as cuCtxPush/Pop expect) and own nothing; a call that needs a
//   context fails without one, as NVIDIA's does (requireContext), but a
//   thread where the runtime has worked has its primary context;
// * modules must carry PTX (PTX text, or a fat binary that holds it); a
//   cubin alone is machine code the emulator cannot run, refused by name
//   (NVRTC's "cubins" are PTX: src/libraries/nvrtc; one built for another
//   major architecture than the device's is refused as NVIDIA's driver does);
// * cuLinkComplete's "cubin" is a fat binary of the PTX units added, which
//   only this driver reads back.
#pragma once

#include <cstddef>
#include <cstdint>

#include "cudart/runtime/CudaTypes.h"

namespace predatar::driver {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUfunction = const void*;  // the host handle cudaLaunchKernel takes
using CUmodule = void**;         // the runtime's module handle

inline constexpr CUresult CUDA_SUCCESS = 0;
inline constexpr CUresult CUDA_ERROR_INVALID_VALUE = 1;
inline constexpr CUresult CUDA_ERROR_INVALID_DEVICE = 101;
inline constexpr CUresult CUDA_ERROR_INVALID_CONTEXT = 201;
inline constexpr CUresult CUDA_ERROR_INVALID_PTX = 218;
inline constexpr CUresult CUDA_ERROR_FILE_NOT_FOUND = 301;
inline constexpr CUresult CUDA_ERROR_INVALID_HANDLE = 400;
inline constexpr CUresult CUDA_ERROR_NOT_FOUND = 500;
inline constexpr CUresult CUDA_ERROR_NOT_SUPPORTED = 801;

// CUDA_SUCCESS when a context is current on this thread: one the program
// made current, or the primary context NVIDIA's runtime makes current at a
// thread's first runtime call that works with the device. Else
// CUDA_ERROR_INVALID_CONTEXT, as NVIDIA's driver answers (an H100 did, to a
// program that queried stream priorities before creating a context), with a
// line naming `call` and what to do, once per call name. Checked by the calls
// a program makes first: context queries, allocations, copies, module loads,
// streams and events (PREDATAR_REQUIRE_CONTEXT).
CUresult requireContext(const char* call);
#define PREDATAR_REQUIRE_CONTEXT()                                                        \
  if (::predatar::driver::CUresult e_ = ::predatar::driver::requireContext(__func__); e_) \
  return e_

// The CUresult of a runtime call: the numbers the two APIs share are the
// same errors; the runtime's own few map to the driver's nearest.
CUresult fromRuntime(cudaError_t error);

// A driver entry point (or an argument of one) the emulator does not
// provide: "predatar: WHAT is not supported by the emulator", naming the
// library whose code called it (`caller`: a return address) when that is
// not the program; returns CUDA_ERROR_NOT_SUPPORTED.
CUresult refuse(const char* what, const void* caller = nullptr);

}  // namespace predatar::driver
