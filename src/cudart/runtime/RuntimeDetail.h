// Helpers the runtime's own files share (Runtime.cpp defines them).
#pragma once

#include <string>

#include "absl/status/status.h"
#include "cudart/runtime/CudaTypes.h"

namespace predatar::cudart::detail {

// An environment variable's value, or nullptr when unset or empty.
const char* env(const char* name);
bool envFlag(const char* name);
// The CUDA error a failed launch returns.
cudaError_t errorForLaunch(const absl::Status& status);
// "predatar: MESSAGE" on stderr.
void warn(const std::string& message);
// A status for the user; marks what the emulator does not implement (yet).
std::string describe(const absl::Status& status);

}  // namespace predatar::cudart::detail
