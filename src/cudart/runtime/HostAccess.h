// Host code that dereferences a device pointer faults, as on a GPU (device
// memory is not mapped into the host's address space there): cudaMalloc'd
// memory lives in a sim::DeviceArena that is PROT_NONE outside the runtime.
// The SIGSEGV handler says what happened before the program dies of it: a
// host dereference of device memory, or, for any other fault, whose code
// crashed (the program's host code or predatar's runtime, and where).
#pragma once

namespace predatar::cudart {

class Runtime;

// Once, when the runtime is created: makes cudaMalloc'd memory PROT_NONE for
// host code and installs the SIGSEGV handler (which chains to any earlier one
// for faults elsewhere). PREDATAR_HOST_MAPPED_DEVICE_MEMORY=1 turns it off.
void protectDeviceMemoryFromHost(Runtime& runtime);

}  // namespace predatar::cudart
