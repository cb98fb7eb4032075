// Detection of launches that can never finish although warps keep running:
// a barrier-plus-spin deadlock (some threads wait at __syncthreads while
// others spin on a word only the waiting ones would write), or any spin loop
// on memory that nothing changes.
//
// Why it is sound: while no instruction changes memory, each warp's next
// state depends only on its own state (registers, PCs, wait states, call
// stack) and that unchanged memory. If the whole launch's state at the end of
// a scheduling round equals its state at an earlier round with no memory
// change in between, every warp is in a cycle that writes nothing, so none can
// ever leave it. This needs a deterministic schedule (round-robin, the
// default): under the random schedule the detector is off and the step and
// time limits stop such launches. States are compared by two independent
// 64-bit hashes. Loops
// that read %clock or count in registers never repeat a state, so they are
// left to the step and time limits.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "sim/Exec.h"

namespace predatar::sim {

class LivelockDetector {
 public:
  // After each scheduling round over `order` (the live warps). True when the
  // launch is provably stuck.
  bool afterRound(const Launch& L, const std::vector<uint32_t>& order);

 private:
  std::pair<uint64_t, uint64_t> fingerprint(const Launch& L, const std::vector<uint32_t>& order) const;

  uint64_t lastChanges_ = UINT64_MAX;
  uint64_t nextCheckAt_ = 0;      // L.steps at which the next fingerprint is taken
  absl::flat_hash_set<std::pair<uint64_t, uint64_t>> seen_;
};

// For a launch found stuck: "" or a sentence naming the host memory its
// arguments point into (DeviceMemory::Placement::HostShared). A kernel that
// waits for the host to write such memory after the launch cannot finish
// here: a launch runs to completion when it is issued.
std::string hostHandOffNote(const Launch& L);

// A stuck launch that may wait for the host (ScheduleOptions::waitForHost,
// arguments into host memory): hands control to the host and returns how long
// it waited, or nullopt when it must not wait (the host waits for it).
std::optional<std::chrono::steady_clock::duration> waitForHost(const Launch& L);

}  // namespace predatar::sim
