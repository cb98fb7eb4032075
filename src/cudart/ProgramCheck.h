// Before `predatar run` starts a program: is it an ELF executable that loads
// the CUDA runtime as a shared library (what the replacement library can
// intercept), or was it built with the static runtime (nvcc's default
// `-cudart static`), which PreDataR cannot see?
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace predatar::cudart {

struct ProgramInfo {
  std::string path;                 // resolved (PATH lookup when no '/')
  bool elf = false;                 // false: a script or other file; not checked
  std::vector<std::string> needed;  // DT_NEEDED entries
  std::string cudartSoname;         // "libcudart.so.13" when needed, else empty
  bool hasFatbin = false;           // has a .nv_fatbin / .nvFatBinSegment section
  bool staticCudart = false;        // embeds the runtime: defines cudaMalloc or __cudaRegisterFatBinary,
                                    // or registers fat binaries without importing the runtime
};

// Reads the program's ELF headers. Errors: file missing / unreadable.
absl::StatusOr<ProgramInfo> inspectProgram(const std::string& program);

// OK when the program can run under the replacement runtime. Otherwise
// FailedPrecondition with a message for the user:
//  * static runtime: rebuild with `nvcc -cudart shared`;
//  * another CUDA major version's runtime (libcudart.so.12): rebuild with CUDA 13.
// Programs that are not ELF, or use no CUDA at all, pass (with `warning`
// set for the latter, when given).
absl::Status checkProgram(const std::string& program, std::string* warning = nullptr);

// The folder holding PreDataR's libcudart.so.13 for LD_LIBRARY_PATH: the
// PREDATAR_CUDART_DIR environment variable if set, else `lib/` next to the
// `predatar` executable (the build tree layout: build/predatar, build/lib/),
// else `../lib/` (an install prefix). NotFound names the places searched.
absl::StatusOr<std::string> findRuntimeLibraryDir(const std::string& predatarExecutable = "/proc/self/exe");

}  // namespace predatar::cudart
