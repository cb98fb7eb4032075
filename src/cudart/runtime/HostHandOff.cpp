#include "cudart/runtime/HostHandOff.h"

namespace predatar::cudart {

HostHandOff::~HostHandOff() {
  if (thread_.joinable()) thread_.join();
}

bool HostHandOff::start(std::function<void()> launch) {
  {
    std::lock_guard lock(mutex_);
    launchTurn_ = true;
  }
  thread_ = std::thread([this, launch = std::move(launch)] {
    launch();
    std::lock_guard lock(mutex_);
    finished_ = true;
    launchTurn_ = false;
    turnChanged_.notify_all();
  });
  return awaitHostTurn();
}

bool HostHandOff::resume(bool hostWaits) {
  {
    std::lock_guard lock(mutex_);
    if (finished_) return true;
    hostWaits_ = hostWaits;
    launchTurn_ = true;
  }
  turnChanged_.notify_all();
  return awaitHostTurn();
}

bool HostHandOff::waitForHost() {
  std::unique_lock lock(mutex_);
  if (hostWaits_) return false;
  launchTurn_ = false;
  turnChanged_.notify_all();
  turnChanged_.wait(lock, [this] { return launchTurn_; });
  return true;
}

bool HostHandOff::awaitHostTurn() {
  std::unique_lock lock(mutex_);
  turnChanged_.wait(lock, [this] { return !launchTurn_; });
  if (!finished_) return false;
  lock.unlock();
  thread_.join();
  return true;
}

}  // namespace predatar::cudart
