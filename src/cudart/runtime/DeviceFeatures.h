// Device-side features of a kernel's PTX that the emulator refuses by name
// before running it (a refused launch fails with cudaErrorNotSupported and
// the report names the feature), and cooperative launch limits.
#pragma once

#include <cstdint>
#include <string>

#include "sim/Device.h"

namespace predatar::cudart {

// Empty when the kernel `mangled` of `ptx` uses nothing refused; else what it
// uses ("dynamic parallelism (a device-side kernel launch, ...) is not supported").
std::string unsupportedKernelFeature(const std::string& ptx, const std::string& mangled);

// Blocks of `threadsPerBlock` threads using `sharedBytes` of shared memory
// that one SM holds at once (what cudaOccupancyMaxActiveBlocksPerMultiprocessor returns).
int residentBlocksPerSm(int threadsPerBlock, uint64_t sharedBytes);

// Set by cudaLaunchCooperativeKernel around its launch (this thread): the
// launch gets a grid barrier workspace and keeps its whole grid resident.
bool& cooperativeLaunchPending();

// Set by cudaLaunchKernelEx around a launch with the programmatic stream
// serialization attribute (programmatic dependent launch). The emulator runs
// the stream's previous kernel to completion first, which is what CUDA does
// unless that kernel executed griddepcontrol.launch_dependents
// (cudaTriggerProgrammaticLaunchCompletion); then the launch runs with
// sim::LaunchConfig::programmaticOverlap and KernelInfo::overlappedLaunch:
// a thread's global accesses before its griddepcontrol.wait are checked as
// unordered with that kernel.
bool& programmaticLaunchPending();

// Prepares a cooperative launch's configuration: every block resident and a
// zeroed grid barrier workspace (cooperative_groups' grid.sync() counts
// arrivals there with release/acquire atomics, as on a GPU).
void prepareCooperativeLaunch(sim::LaunchConfig& config, sim::DeviceMemory& memory);

}  // namespace predatar::cudart
