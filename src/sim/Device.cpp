#include <sys/mman.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>

#include "sim/Device.h"
#include "sim/DeviceArena.h"
#include "sim/InitShadow.h"

namespace predatar::sim {
namespace {

// Host-visible allocations this large are mapped pages, zero until touched:
// a program that allocates much and touches little costs what it touches
// (aligned_alloc + memset would make every page resident at once).
constexpr uint64_t kMappedFrom = uint64_t(1) << 20;

uint64_t hostAllocate(uint64_t size) {
  if (size >= kMappedFrom) {
    void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    return p == MAP_FAILED ? 0 : reinterpret_cast<uint64_t>(p);
  }
  void* p = std::aligned_alloc(256, size);
  if (!p) return 0;
  std::memset(p, 0, size);
  return reinterpret_cast<uint64_t>(p);
}

void hostFree(uint64_t base, uint64_t bytes) {
  uint64_t size = (std::max<uint64_t>(bytes, 1) + 255) / 256 * 256;
  if (size >= kMappedFrom) munmap(reinterpret_cast<void*>(base), size);
  else std::free(reinterpret_cast<void*>(base));
}

}  // namespace

DeviceMemory::DeviceMemory() = default;

void makeCooperative(LaunchConfig& config, uint64_t workspace) {
  std::memset(reinterpret_cast<void*>(workspace), 0, kGridWorkspaceBytes);
  config.gridWorkspace = workspace;
  config.schedule.maxResidentBlocks = kAllBlocksResident;
}

uint64_t DeviceMemory::allocate(uint64_t bytes, std::string label, Placement placement) {
  uint64_t size = (std::max<uint64_t>(bytes, 1) + 255) / 256 * 256;
  uint64_t base = 0;
  if (placement == Placement::DeviceOnly && arena_) {
    base = arena_->allocate(size);
    if (base && initShadow_) initShadow_->track(base, bytes);
  } else {
    base = hostAllocate(size);
  }
  if (base == 0) return 0;
  allocations_[base] = Allocation{base, bytes, std::move(label), placement};
  return base;
}

absl::Status DeviceMemory::free(uint64_t address) {
  auto it = allocations_.find(address);
  if (it == allocations_.end() || adopted_.count(address))
    return absl::InvalidArgumentError("free of an address that is not the base of a device allocation");
  if (initShadow_) initShadow_->untrack(address);
  if (arena_ && arena_->contains(address)) arena_->free(address);
  else hostFree(address, it->second.bytes);
  allocations_.erase(it);
  return absl::OkStatus();
}

void DeviceMemory::enableInitCheck() {
  if (!initShadow_) initShadow_ = std::make_unique<InitShadow>();
}

void DeviceMemory::noteHostWrite(uint64_t address, uint64_t bytes) {
  if (initShadow_) initShadow_->markWritten(address, bytes);
}

void DeviceMemory::noteHostCopy(uint64_t dst, uint64_t src, uint64_t bytes) {
  if (initShadow_) initShadow_->copy(dst, src, bytes);
}

bool DeviceMemory::protectDeviceOnly() {
  if (!arena_) arena_ = DeviceArena::reserve(uint64_t(1) << 40);  // address space only (MAP_NORESERVE)
  return arena_ != nullptr;
}

const DeviceMemory::Allocation* DeviceMemory::containing(uint64_t address, uint64_t bytes) const {
  auto it = allocations_.upper_bound(address);
  if (it == allocations_.begin()) return nullptr;
  const Allocation& a = std::prev(it)->second;  // a.base <= address
  if (address + bytes < address || address + bytes > a.base + a.bytes) return nullptr;
  return &a;
}

std::optional<DeviceMemory::Allocation> DeviceMemory::find(uint64_t address, uint64_t bytes) const {
  if (const Allocation* a = containing(address, bytes)) return *a;
  return std::nullopt;
}

std::optional<DeviceMemory::Range> DeviceMemory::rangeOf(uint64_t address, uint64_t bytes) const {
  if (const Allocation* a = containing(address, bytes)) return Range{a->base, a->bytes};
  return std::nullopt;
}

std::string DeviceMemory::describeMiss(uint64_t address, uint64_t bytes) const {
  constexpr uint64_t kNear = uint64_t(1) << 20;
  auto nameOf = [](const Allocation& a) {
    return (a.label.empty() ? std::string("an allocation") : a.label) + " (" + std::to_string(a.bytes) + " bytes)";
  };
  auto above = allocations_.upper_bound(address);  // the first allocation starting above `address`
  // (A stencil's row above row 0, index - cols, reads below its array's start: Rodinia's srad.)
  uint64_t gapBelowStart = above == allocations_.end() ? UINT64_MAX : above->second.base - address;
  if (above != allocations_.begin()) {
    const Allocation& a = std::prev(above)->second;  // a.base <= address
    uint64_t end = a.base + a.bytes;
    if (address < end)  // starts inside, runs past the end
      return "its last " + std::to_string(address + bytes - end) + " bytes are past the end of " + nameOf(a);
    uint64_t pastEnd = address - end;
    if (pastEnd < kNear && pastEnd <= gapBelowStart)
      return std::to_string(pastEnd) + " bytes past the end of " + nameOf(a);
  }
  if (gapBelowStart <= kNear)
    return std::to_string(gapBelowStart) + " bytes before the start of " + nameOf(above->second);
  return "no allocation contains it";
}

std::vector<DeviceMemory::Range> DeviceMemory::ranges() const {
  std::vector<Range> out;
  out.reserve(allocations_.size());
  for (const auto& [base, a] : allocations_) out.push_back(Range{base, a.bytes});
  return out;
}

bool DeviceMemory::adopt(uint64_t base, uint64_t bytes, std::string label) {
  if (bytes == 0 || base + bytes < base) return false;
  auto next = allocations_.lower_bound(base);
  if (next != allocations_.end() && next->first < base + bytes) return false;
  if (next != allocations_.begin() && std::prev(next)->second.base + std::prev(next)->second.bytes > base) return false;
  allocations_[base] = Allocation{base, bytes, std::move(label), Placement::HostShared};
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
    if (!adopted_.count(base) && (!arena_ || !arena_->contains(base))) hostFree(base, a.bytes);
}

std::string describe(const LaunchProgress& p) {
  char text[160];
  std::snprintf(text, sizeof text, "still running after %.0f s: %u of %u blocks done, %llu warp instructions", p.seconds,
                p.blocksDone, p.blocks, static_cast<unsigned long long>(p.warpInstructions));
  return text;
}

}  // namespace predatar::sim
