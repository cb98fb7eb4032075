// A launch run on a thread of its own, one side at a time with the host, so
// that a kernel can wait for a host write made after its launch (a latch in
// pinned memory that releases a stream once the host has queued its work).
// While the launch waits, the host goes on; the stream work the host issues
// meanwhile is queued behind the launch (Runtime::defer) and runs, in issue
// order, when the host next waits for the device.
#pragma once

#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace predatar::cudart {

class HostHandOff {
 public:
  HostHandOff() = default;
  HostHandOff(const HostHandOff&) = delete;
  HostHandOff& operator=(const HostHandOff&) = delete;
  ~HostHandOff();

  // Host: runs `launch` on a new thread until it finishes (true) or waits
  // for the host (false).
  bool start(std::function<void()> launch);
  // Host: lets a waiting launch go on until it finishes (true) or waits again
  // (false). `hostWaits`: the host now waits for the launch, so a further
  // wait would never end; waitForHost then returns false (a deadlock).
  bool resume(bool hostWaits);
  // The launch's thread: hands control to the host and returns true once it
  // has resumed, or false at once when the host waits for this launch.
  bool waitForHost();

 private:
  bool awaitHostTurn();

  std::mutex mutex_;
  std::condition_variable turnChanged_;
  bool launchTurn_ = false;  // who runs: the launch's thread or the host's
  bool finished_ = false;
  bool hostWaits_ = false;
  std::thread thread_;
};

}  // namespace predatar::cudart
