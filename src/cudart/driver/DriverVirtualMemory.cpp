// Virtual memory management of the driver API (cuMemAddressReserve,
// cuMemCreate, cuMemMap...; Driver.h). The emulator has one address space of
// device allocations, so:
// * a reservation is a device allocation of its size (aligned as asked),
//   whose bytes are what its mappings show;
// * a physical allocation is a size and properties; while mapped, its bytes
//   live at its mapping, and an unmap keeps them for the next map;
// * mapping one physical allocation at two places at once (aliasing) is
//   refused by name; reading a reserved range that nothing maps is not
//   caught (the GPU would fault).
#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "cudart/driver/Driver.h"
#include "cudart/runtime/Api.h"

#define PREDATAR_DRIVER_API extern "C" __attribute__((visibility("default")))

using namespace predatar::driver;

namespace {

// CUmemAllocationProp, as cuda.h lays it out.
struct AllocationProp {
  int type;  // CU_MEM_ALLOCATION_TYPE_PINNED = 1
  int requestedHandleTypes;
  int locationType;  // CU_MEM_LOCATION_TYPE_DEVICE = 1
  int locationId;
  void* win32HandleMetaData;
  unsigned char compressionType, gpuDirectRDMACapable;
  unsigned short usage;
  unsigned char reserved[4];
};
static_assert(sizeof(AllocationProp) == 32);
struct AccessDesc {
  int locationType, locationId;
  int flags;  // CUmemAccess_flags
};
static_assert(sizeof(AccessDesc) == 12);

constexpr size_t kGranularity = size_t(2) << 20;  // what an sm_90 GPU reports, minimum and recommended

struct Physical {
  size_t bytes = 0;
  AllocationProp prop{};
  int references = 1;          // cuMemCreate's and cuMemRetainAllocationHandle's, less cuMemRelease's
  bool released() const { return references == 0; }
  CUdeviceptr mappedAt = 0;    // 0: not mapped
  std::vector<uint8_t> saved;  // its bytes while not mapped (empty: never mapped yet, zeros)
};

struct Reservation {
  void* allocation = nullptr;  // the device allocation behind it
  CUdeviceptr base = 0;        // (aligned within it)
  size_t bytes = 0;
  std::map<CUdeviceptr, Physical*> mappings;  // by address
};

std::mutex vmMutex;
std::map<CUdeviceptr, Reservation>& reservations() {  // by base
  static auto* all = new std::map<CUdeviceptr, Reservation>;
  return *all;
}

// The reservation holding [address, address + bytes), or nullptr.
Reservation* reservationOf(CUdeviceptr address, size_t bytes) {
  auto& all = reservations();
  auto it = all.upper_bound(address);
  if (it == all.begin()) return nullptr;
  Reservation& r = std::prev(it)->second;
  return address + bytes <= r.base + r.bytes ? &r : nullptr;
}

Physical* physicalOf(unsigned long long handle) { return reinterpret_cast<Physical*>(uintptr_t(handle)); }

void* at(CUdeviceptr address) { return reinterpret_cast<void*>(uintptr_t(address)); }

}  // namespace

PREDATAR_DRIVER_API CUresult cuMemGetAllocationGranularity(size_t* granularity, const AllocationProp* prop, int) {
  if (granularity == nullptr || prop == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *granularity = kGranularity;
  return CUDA_SUCCESS;
}

PREDATAR_DRIVER_API CUresult cuMemAddressReserve(CUdeviceptr* address, size_t bytes, size_t alignment,
                                                CUdeviceptr wanted, unsigned long long) {
  if (address == nullptr || bytes == 0 || bytes % kGranularity) return CUDA_ERROR_INVALID_VALUE;
  (void)wanted;  // a hint the driver may ignore too
  size_t align = std::max(alignment, kGranularity);
  void* allocation = nullptr;
  if (cudaError_t e = cudaMalloc(&allocation, bytes + align)) return fromRuntime(e);
  CUdeviceptr base = (reinterpret_cast<uintptr_t>(allocation) + align - 1) / align * align;
  std::lock_guard lock(vmMutex);
  reservations()[base] = Reservation{allocation, base, bytes, {}};
  *address = base;
  return CUDA_SUCCESS;
}

PREDATAR_DRIVER_API CUresult cuMemAddressFree(CUdeviceptr address, size_t bytes) {
  void* allocation = nullptr;
  {
    std::lock_guard lock(vmMutex);
    auto it = reservations().find(address);
    if (it == reservations().end() || it->second.bytes != bytes) return CUDA_ERROR_INVALID_VALUE;
    if (!it->second.mappings.empty()) return CUDA_ERROR_INVALID_VALUE;  // unmap first, as the driver asks
    allocation = it->second.allocation;
    reservations().erase(it);
  }
  return fromRuntime(cudaFree(allocation));
}

PREDATAR_DRIVER_API CUresult cuMemCreate(unsigned long long* handle, size_t bytes, const AllocationProp* prop,
                                        unsigned long long flags) {
  if (handle == nullptr || prop == nullptr || bytes == 0 || bytes % kGranularity || flags != 0)
    return CUDA_ERROR_INVALID_VALUE;
  if (prop->type != 1 || prop->locationType != 1)
    return refuse(("cuMemCreate of allocation type " + std::to_string(prop->type) + " at location type " +
                   std::to_string(prop->locationType) + " (the emulator has pinned device memory only)")
                      .c_str());
  if (prop->locationId != 0) return CUDA_ERROR_INVALID_DEVICE;
  auto* p = new Physical;
  p->bytes = bytes;
  p->prop = *prop;
  *handle = reinterpret_cast<uintptr_t>(p);
  return CUDA_SUCCESS;
}

PREDATAR_DRIVER_API CUresult cuMemRelease(unsigned long long handle) {
  std::lock_guard lock(vmMutex);
  Physical* p = physicalOf(handle);
  if (p == nullptr || p->released()) return CUDA_ERROR_INVALID_VALUE;
  --p->references;
  if (p->released() && p->mappedAt == 0) delete p;  // (else the unmap frees it)
  return CUDA_SUCCESS;
}

PREDATAR_DRIVER_API CUresult cuMemMap(CUdeviceptr address, size_t bytes, size_t offset, unsigned long long handle,
                                     unsigned long long flags) {
  std::unique_lock lock(vmMutex);
  Physical* p = physicalOf(handle);
  if (p == nullptr || p->released() || offset != 0 || flags != 0 || bytes != p->bytes) return CUDA_ERROR_INVALID_VALUE;
  if (p->mappedAt != 0) return refuse("cuMemMap of a physical allocation mapped at another address (aliasing)");
  Reservation* r = reservationOf(address, bytes);
  if (r == nullptr) return CUDA_ERROR_INVALID_VALUE;
  auto next = r->mappings.lower_bound(address);
  if (next != r->mappings.end() && next->first < address + bytes) return CUDA_ERROR_INVALID_VALUE;
  if (next != r->mappings.begin() && std::prev(next)->first + std::prev(next)->second->bytes > address)
    return CUDA_ERROR_INVALID_VALUE;
  r->mappings[address] = p;
  p->mappedAt = address;
  std::vector<uint8_t> saved = std::move(p->saved);
  lock.unlock();
  cudaError_t e = saved.empty() ? cudaMemset(at(address), 0, bytes)
                                : cudaMemcpy(at(address), saved.data(), bytes, 1 /* host to device */);
  return fromRuntime(e);
}

PREDATAR_DRIVER_API CUresult cuMemUnmap(CUdeviceptr address, size_t bytes) {
  std::lock_guard lock(vmMutex);
  Reservation* r = reservationOf(address, bytes);
  if (r == nullptr) return CUDA_ERROR_INVALID_VALUE;
  // Every mapping in the range, each wholly inside it.
  auto first = r->mappings.lower_bound(address), last = r->mappings.lower_bound(address + bytes);
  for (auto it = first; it != last; ++it)
    if (it->first + it->second->bytes > address + bytes) return CUDA_ERROR_INVALID_VALUE;
  for (auto it = first; it != last; ++it) {
    Physical* p = it->second;
    p->mappedAt = 0;
    if (p->released()) {
      delete p;
      continue;
    }
    p->saved.resize(p->bytes);
    if (cudaError_t e = cudaMemcpy(p->saved.data(), at(it->first), p->bytes, 2 /* device to host */))
      return fromRuntime(e);
  }
  r->mappings.erase(first, last);
  return CUDA_SUCCESS;
}

// Access is always read-write on the one device: the call checks its arguments.
PREDATAR_DRIVER_API CUresult cuMemSetAccess(CUdeviceptr address, size_t bytes, const AccessDesc* descriptors,
                                           size_t count) {
  if (descriptors == nullptr || count == 0) return CUDA_ERROR_INVALID_VALUE;
  for (size_t i = 0; i < count; ++i)
    if (descriptors[i].locationType == 1 && descriptors[i].locationId != 0) return CUDA_ERROR_INVALID_DEVICE;
  std::lock_guard lock(vmMutex);
  return reservationOf(address, bytes) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

PREDATAR_DRIVER_API CUresult cuMemGetAccess(unsigned long long* flags, const void*, CUdeviceptr address) {
  if (flags == nullptr) return CUDA_ERROR_INVALID_VALUE;
  std::lock_guard lock(vmMutex);
  *flags = reservationOf(address, 1) ? 3 : 0;  // CU_MEM_ACCESS_FLAGS_PROT_READWRITE
  return CUDA_SUCCESS;
}

PREDATAR_DRIVER_API CUresult cuMemGetAllocationPropertiesFromHandle(AllocationProp* prop, unsigned long long handle) {
  if (prop == nullptr || physicalOf(handle) == nullptr) return CUDA_ERROR_INVALID_VALUE;
  std::lock_guard lock(vmMutex);
  *prop = physicalOf(handle)->prop;
  return CUDA_SUCCESS;
}

PREDATAR_DRIVER_API CUresult cuMemRetainAllocationHandle(unsigned long long* handle, void* address) {
  if (handle == nullptr) return CUDA_ERROR_INVALID_VALUE;
  std::lock_guard lock(vmMutex);
  CUdeviceptr a = reinterpret_cast<uintptr_t>(address);
  Reservation* r = reservationOf(a, 1);
  if (r == nullptr) return CUDA_ERROR_INVALID_VALUE;
  auto it = r->mappings.upper_bound(a);
  if (it == r->mappings.begin() || std::prev(it)->first + std::prev(it)->second->bytes <= a)
    return CUDA_ERROR_INVALID_VALUE;
  Physical* p = std::prev(it)->second;
  ++p->references;
  *handle = reinterpret_cast<uintptr_t>(p);
  return CUDA_SUCCESS;
}
