// The failure of a CUDA runtime function the emulator does not implement.
#pragma once

#include <string>

namespace predatar::cudart {

// Prints "predatar: <name> is not supported by the emulator" (once per name),
// records cudaErrorNotSupported as the last error and returns it. With
// PREDATAR_STRICT=1 the process exits instead (status 125).
int unsupported(const char* name);

// A call that fails where a GPU's would succeed, for want of something on
// the machine predatar runs on (memory under a limit): printed, and listed
// among the run's refusals, so the run does not look clean.
void refusedByTheHost(const std::string& what);

}  // namespace predatar::cudart
