#include "sim/DeviceArena.h"

#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "sim/ImmediateExit.h"

namespace predatar::sim {
namespace {

std::atomic<const DeviceArena*> currentArena{nullptr};

uint64_t pageSize() {
  static const uint64_t size = uint64_t(sysconf(_SC_PAGESIZE));
  return size;
}

uint64_t roundUp(uint64_t v, uint64_t to) { return (v + to - 1) / to * to; }

// Freed ranges at least this large give their pages back to the system.
constexpr uint64_t kReturnPagesFrom = 1 << 20;

// The arena asks for transparent huge pages, and changes its protection in
// whole huge pages: open() and close() run around every runtime call (scan:
// 6600 times), and mprotect walks one entry per page, 512 times fewer with
// 2 MiB pages (8% of scan's CPU time was spent there).
constexpr uint64_t kProtectionGranule = uint64_t(2) << 20;

// Whether the process has a data limit (ulimit -d), which writable private
// memory counts against: only then can opening the arena fail.
bool dataLimited() {
  rlimit limit{};
  return getrlimit(RLIMIT_DATA, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY;
}

}  // namespace

std::unique_ptr<DeviceArena> DeviceArena::reserve(uint64_t reserveBytes) {
  reserveBytes = roundUp(reserveBytes, kProtectionGranule);
  // One granule more, so that the arena can start on a granule boundary.
  uint64_t mapped = reserveBytes + kProtectionGranule;
  void* p = mmap(nullptr, mapped, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) return nullptr;
  uint64_t start = reinterpret_cast<uint64_t>(p), base = roundUp(start, kProtectionGranule);
  if (base > start) munmap(p, base - start);
  if (start + mapped > base + reserveBytes)
    munmap(reinterpret_cast<void*>(base + reserveBytes), start + mapped - (base + reserveBytes));
  madvise(reinterpret_cast<void*>(base), reserveBytes, MADV_HUGEPAGE);  // a hint: small pages work too
  std::unique_ptr<DeviceArena> arena(new DeviceArena(base, reserveBytes));
  currentArena = arena.get();
  return arena;
}

DeviceArena::~DeviceArena() {
  if (currentArena == this) currentArena = nullptr;
  munmap(reinterpret_cast<void*>(base_), size_);
}

const DeviceArena* DeviceArena::current() { return currentArena.load(); }

uint64_t DeviceArena::allocate(uint64_t bytes) {
  uint64_t size = roundUp(bytes ? bytes : 1, 256) + kRedZoneBytes;
  uint64_t offset = UINT64_MAX;
  for (auto it = free_.begin(); it != free_.end(); ++it) {
    if (it->second < size) continue;
    offset = it->first;
    if (it->second > size) free_[offset + size] = it->second - size;
    free_.erase(it);
    break;
  }
  if (offset == UINT64_MAX) {
    if (size > size_ - top_) return 0;
    offset = top_;
    uint64_t oldEnd = roundUp(top_, kProtectionGranule);
    uint64_t newEnd = roundUp(top_ + size, kProtectionGranule);
    // Fresh pages are zero; open them now if the arena is open. Closed, the
    // arena must still be able to open with them: under a data limit
    // (ulimit -d) making them writable can fail, and then every later copy
    // into the block would fault. So that is tried now, and such an
    // allocation fails as one the device has no room for.
    if (newEnd > oldEnd) {
      void* fresh = reinterpret_cast<void*>(base_ + oldEnd);
      if (depth_ > 0) {
        if (mprotect(fresh, newEnd - oldEnd, PROT_READ | PROT_WRITE) != 0) return 0;
      } else if (dataLimited()) {  // (two mprotects over the used part: only where they can fail)
        if (mprotect(reinterpret_cast<void*>(base_), newEnd, PROT_READ | PROT_WRITE) != 0) return 0;
        mprotect(reinterpret_cast<void*>(base_), newEnd, PROT_NONE);
      }
    }
    top_ += size;
  } else {
    zero(offset, size);
  }
  used_[offset] = size - kRedZoneBytes;
  return base_ + offset;
}

void DeviceArena::free(uint64_t address) {
  auto it = used_.find(address - base_);
  if (it == used_.end()) return;
  uint64_t offset = it->first, size = it->second + kRedZoneBytes;
  used_.erase(it);
  if (size >= kReturnPagesFrom) {  // whole pages inside the range go back to the system
    uint64_t from = roundUp(base_ + offset, pageSize()), to = (base_ + offset + size) / pageSize() * pageSize();
    if (to > from) madvise(reinterpret_cast<void*>(from), to - from, MADV_DONTNEED);
  }
  auto next = free_.lower_bound(offset);
  if (next != free_.end() && offset + size == next->first) {
    size += next->second;
    next = free_.erase(next);
  }
  if (next != free_.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second == offset) {
      prev->second += size;
      return;
    }
  }
  free_[offset] = size;
}

bool DeviceArena::blockOf(uint64_t address, uint64_t& base, uint64_t& bytes) const {
  if (!contains(address)) return false;
  auto it = used_.upper_bound(address - base_);
  if (it == used_.begin()) return false;
  --it;
  if (address - base_ >= it->first + it->second) return false;
  base = base_ + it->first;
  bytes = it->second;
  return true;
}

// Reused memory must read as zero: whole pages are given back to the system
// (zero again, and not resident, until touched), the partial pages at the ends
// are cleared.
void DeviceArena::zero(uint64_t offset, uint64_t size) {
  uint64_t begin = base_ + offset, end = begin + size;
  uint64_t from = roundUp(begin, pageSize()), to = end / pageSize() * pageSize();
  open();
  if (to > from) {
    madvise(reinterpret_cast<void*>(from), to - from, MADV_DONTNEED);
    std::memset(reinterpret_cast<void*>(begin), 0, from - begin);
    std::memset(reinterpret_cast<void*>(to), 0, end - to);
  } else {
    std::memset(reinterpret_cast<void*>(begin), 0, size);
  }
  close();
}

bool DeviceArena::setProtection(bool readWrite) {
  uint64_t used = roundUp(top_, kProtectionGranule);
  return !used || mprotect(reinterpret_cast<void*>(base_), used, readWrite ? PROT_READ | PROT_WRITE : PROT_NONE) == 0;
}

void DeviceArena::open() {
  if (depth_++ != 0 || setProtection(true)) return;
  // Allocation made sure the arena could open (allocate()); the process's
  // other memory has grown past its data limit since. Going on would fault
  // at the first access, so stop here and say why.
  char text[320];
  std::snprintf(text, sizeof text,
                "predatar: error: out of memory: device memory (%llu MiB allocated) cannot be made accessible "
                "(mprotect: %s); the process's data limit (ulimit -d) is too small for it\n",
                static_cast<unsigned long long>(top_ >> 20), std::strerror(errno));
  if (write(STDERR_FILENO, text, std::strlen(text)) < 0) {}
  exitImmediately(5);  // (cudart's kOutOfMemoryExit)
}

void DeviceArena::close() {
  if (depth_ > 0 && --depth_ == 0) setProtection(false);
}

}  // namespace predatar::sim
