// Device-side features of a kernel's PTX that the emulator refuses by name
// before running it (a refused launch fails with cudaErrorNotSupported and
// the report names the feature), and cooperative launch limits.
#pragma once

#include <cstdint>
#include <string>

namespace predatar::cudart {

// Empty when the kernel `mangled` of `ptx` uses nothing refused; else what it
// uses ("dynamic parallelism (a device-side kernel launch, ...) is not supported").
std::string unsupportedKernelFeature(const std::string& ptx, const std::string& mangled);

// Blocks of `threadsPerBlock` threads using `sharedBytes` of shared memory
// that one SM holds at once (what cudaOccupancyMaxActiveBlocksPerMultiprocessor returns).
int residentBlocksPerSm(int threadsPerBlock, uint64_t sharedBytes);

}  // namespace predatar::cudart
