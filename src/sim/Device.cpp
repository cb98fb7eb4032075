#include <cstdlib>
#include <cstring>

#include "sim/Device.h"

namespace predatar::sim {

uint64_t DeviceMemory::allocate(uint64_t bytes, std::string label) {
  uint64_t size = (std::max<uint64_t>(bytes, 1) + 255) / 256 * 256;
  void* p = std::aligned_alloc(256, size);
  if (!p) return 0;
  std::memset(p, 0, size);
  uint64_t base = reinterpret_cast<uint64_t>(p);
  allocations_[base] = Allocation{base, bytes, std::move(label)};
  return base;
}

absl::Status DeviceMemory::free(uint64_t address) {
  auto it = allocations_.find(address);
  if (it == allocations_.end())
    return absl::InvalidArgumentError("free of an address that is not the base of a device allocation");
  std::free(reinterpret_cast<void*>(address));
  allocations_.erase(it);
  return absl::OkStatus();
}

std::optional<DeviceMemory::Allocation> DeviceMemory::find(uint64_t address, uint64_t bytes) const {
  auto it = allocations_.upper_bound(address);
  if (it == allocations_.begin()) return std::nullopt;
  --it;
  const Allocation& a = it->second;
  if (address >= a.base && address + bytes <= a.base + std::max<uint64_t>(a.bytes, 0) && address + bytes >= address)
    return a;
  return std::nullopt;
}

DeviceMemory::~DeviceMemory() {
  for (auto& [base, a] : allocations_) std::free(reinterpret_cast<void*>(base));
}

}  // namespace predatar::sim
