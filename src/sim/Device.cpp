#include <cstdlib>
#include <cstring>
#include <iterator>

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
  if (it == allocations_.end() || adopted_.count(address))
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

bool DeviceMemory::adopt(uint64_t base, uint64_t bytes, std::string label) {
  if (bytes == 0 || base + bytes < base) return false;
  auto next = allocations_.lower_bound(base);
  if (next != allocations_.end() && next->first < base + bytes) return false;
  if (next != allocations_.begin() && std::prev(next)->second.base + std::prev(next)->second.bytes > base) return false;
  allocations_[base] = Allocation{base, bytes, std::move(label)};
  adopted_.insert(base);
  return true;
}

absl::Status DeviceMemory::disown(uint64_t base) {
  if (!adopted_.erase(base)) return absl::InvalidArgumentError("not the base of adopted memory");
  allocations_.erase(base);
  return absl::OkStatus();
}

DeviceMemory::~DeviceMemory() {
  for (auto& [base, a] : allocations_)
    if (!adopted_.count(base)) std::free(reinterpret_cast<void*>(base));
}

}  // namespace predatar::sim
