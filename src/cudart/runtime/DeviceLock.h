// The runtime's lock, which also opens device memory to this process while
// the runtime holds it: cudaMalloc'd memory is PROT_NONE for host code (as a
// GPU's memory is not host-mapped, see sim/DeviceArena.h) and read/write for
// the runtime's own copies, memsets and kernel launches. Recursive, like the
// std::recursive_mutex it wraps; only the outermost lock/unlock pair changes
// the protection.
#pragma once

#include <mutex>

#include "sim/DeviceArena.h"

namespace predatar::cudart {

class DeviceLock {
 public:
  void lock() {
    mutex_.lock();
    if (depth_++ == 0 && arena_) arena_->open();
  }
  bool try_lock() {
    if (!mutex_.try_lock()) return false;
    if (depth_++ == 0 && arena_) arena_->open();
    return true;
  }
  void unlock() {
    if (--depth_ == 0 && arena_) arena_->close();
    mutex_.unlock();
  }
  // How many times the calling thread holds it (valid while it does).
  unsigned depth() const { return depth_; }
  // Called once, under the lock, when the arena exists.
  void guard(sim::DeviceArena* arena) { arena_ = arena; }

 private:
  std::recursive_mutex mutex_;
  unsigned depth_ = 0;  // changed only by the thread holding mutex_
  sim::DeviceArena* arena_ = nullptr;
};

}  // namespace predatar::cudart
