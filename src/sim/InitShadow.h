// Which bytes of cudaMalloc'd memory something wrote (`predatar run
// --initcheck`, as compute-sanitizer's initcheck): a bit per byte of every
// tracked allocation. cudaMalloc does not clear memory on a GPU, so a kernel
// that reads a byte no copy, memset or kernel store wrote reads whatever was
// there; the emulator hands out zeros, and such a program passes here while
// it fails at random on the hardware. Only allocations host code cannot
// write directly are tracked (DeviceArena's: every host write goes through
// the runtime, which notes it); managed, pinned and registered memory, and
// module variables (zero-initialized by the loader), count as written.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

namespace predatar::sim {

class InitShadow {
 public:
  void track(uint64_t base, uint64_t bytes);  // nothing written yet
  void untrack(uint64_t base);
  void markWritten(uint64_t address, uint64_t bytes) {
    if (uint64_t* word = cachedWord(address, bytes)) *word |= maskOf(address, bytes);
    else markWrittenSlow(address, bytes);
  }
  // Whether every byte of [address, address + bytes) was written (or is not
  // tracked): a kernel access's check, inline for an access within one word
  // of the last region found.
  bool allWritten(uint64_t address, uint64_t bytes) {
    if (const uint64_t* word = cachedWord(address, bytes)) {
      uint64_t mask = maskOf(address, bytes);
      return (*word & mask) == mask;
    }
    return !firstUnwritten(address, bytes);
  }
  // The first byte of [address, address + bytes) nothing wrote, as an offset
  // from `address`; none when all were written or the range is not tracked.
  std::optional<uint64_t> firstUnwritten(uint64_t address, uint64_t bytes);
  // A copy of [src, src + bytes) to dst: each destination byte is written
  // where its source byte was (an untracked source counts as written).
  void copy(uint64_t dst, uint64_t src, uint64_t bytes);
  // Bits [first, first + count) of a word (count <= 64 - first).
  static uint64_t rangeMask(uint64_t first, uint64_t count) {
    return (count >= 64 ? ~uint64_t(0) : (uint64_t(1) << count) - 1) << first;
  }

 private:
  struct Region {
    uint64_t bytes;
    std::vector<uint64_t> written;  // bit i: byte i was written
  };
  // The region holding `address` and its base; null when untracked. Kernels
  // alternate between a few arrays: the last one found is tried first.
  Region* regionOf(uint64_t address, uint64_t& base);
  void markWrittenSlow(uint64_t address, uint64_t bytes);
  // The word of the last region found that holds all of [address, address +
  // bytes); null when another region or word is involved.
  uint64_t* cachedWord(uint64_t address, uint64_t bytes) {
    uint64_t offset = address - lastBase_;
    if (!last_ || offset >= last_->bytes || bytes > 64 - offset % 64 || offset + bytes > last_->bytes) return nullptr;
    return &last_->written[offset / 64];
  }
  uint64_t maskOf(uint64_t address, uint64_t bytes) const { return rangeMask((address - lastBase_) % 64, bytes); }

  std::map<uint64_t, Region> regions_;
  uint64_t lastBase_ = 0;
  Region* last_ = nullptr;
};

}  // namespace predatar::sim
