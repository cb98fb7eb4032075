// The failure of a CUDA runtime function the emulator does not implement.
#pragma once

namespace predatar::cudart {

// Prints "predatar: <name> is not supported by the emulator" (once per name),
// records cudaErrorNotSupported as the last error and returns it. With
// PREDATAR_STRICT=1 the process exits instead (status 125).
int unsupported(const char* name);

}  // namespace predatar::cudart
