// Device memory that host code cannot touch, as on a GPU: cudaMalloc'd
// memory is not mapped into the host's address space there, so a host
// dereference of a device pointer faults. The arena reserves one range of
// address space and keeps it PROT_NONE while host code runs; the runtime
// opens it (read/write) for the time it works on device memory itself
// (copies, memsets, kernel launches) and closes it again before it returns
// to the program. Device addresses therefore stay plain host addresses for
// the emulator (no translation on its hot path), and a host access outside
// the runtime raises SIGSEGV at the faulting instruction. The arena starts on
// a 2 MiB boundary, asks for transparent huge pages and changes protection in
// whole 2 MiB granules, so a toggle costs one page-table entry per 2 MiB.
//
// Allocations are first-fit, 256-byte aligned, in address order, each
// followed by a red zone of kRedZoneBytes that belongs to no block: packed
// tight, an index one past the end of an array whose size is a multiple of
// 256 bytes would read the next array, which the detectors would then report
// as a race on it (HeCBench's tqs) instead of the out-of-bounds access it is.
// (A GPU reads the next array there; compute-sanitizer's memcheck faults only
// with --padding, which is what this is.) Not thread safe (the runtime
// serializes all calls under its lock).
#pragma once

#include <cstdint>
#include <map>
#include <memory>

namespace predatar::sim {

class DeviceArena {
 public:
  static constexpr uint64_t kRedZoneBytes = 256;

  // Reserves `reserveBytes` of address space; null when the system refuses.
  static std::unique_ptr<DeviceArena> reserve(uint64_t reserveBytes);
  ~DeviceArena();
  DeviceArena(const DeviceArena&) = delete;
  DeviceArena& operator=(const DeviceArena&) = delete;

  // Zero-filled, 256-byte aligned; 0 when the arena is full (or the process
  // could not make it accessible: a data limit).
  uint64_t allocate(uint64_t bytes);
  void free(uint64_t base);  // base must come from allocate()

  // Host access: open() makes the used part read/write, close() PROT_NONE
  // again; they nest (only the outermost pair changes the protection).
  void open();
  void close();
  bool isOpen() const { return depth_ > 0; }

  bool contains(uint64_t address) const { return address >= base_ && address < base_ + size_; }
  // The allocated block holding `address` (size rounded up to 256 bytes);
  // false when it was freed or never allocated. Allocates nothing (signal handlers).
  bool blockOf(uint64_t address, uint64_t& base, uint64_t& bytes) const;

  // The arena of this process that host code must not touch (null: none), for
  // the SIGSEGV handler.
  static const DeviceArena* current();

 private:
  DeviceArena(uint64_t base, uint64_t size) : base_(base), size_(size) {}
  bool setProtection(bool readWrite);
  void zero(uint64_t offset, uint64_t size);

  uint64_t base_, size_;
  uint64_t top_ = 0;                    // offset: everything above was never handed out
  std::map<uint64_t, uint64_t> free_;   // offset -> bytes, below top_, coalesced
  std::map<uint64_t, uint64_t> used_;   // offset -> bytes (rounded)
  uint32_t depth_ = 0;
};

}  // namespace predatar::sim
