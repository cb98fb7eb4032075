// Launches that repeat an earlier launch exactly are replayed, not run again.
//
// Programs time their kernels by launching them hundreds of times on the same
// input (matrixMul: 300 times). A launch whose kernel is a function of its
// configuration, arguments and reachable memory (sim::repeatabilityProblem)
// and whose kernel, configuration, arguments and memory all equal those of an
// earlier launch runs, under the emulator's deterministic schedule, the same
// instructions, so the detectors would see the same events again and find
// only races already reported, and the launch leaves the same memory. We
// remember each such launch's effect on memory (the chunks it changed) and
// apply it instead of emulating. Memory states are compared by 64-bit hashes
// of 16 KiB chunks; a launch is hashed only once its key (kernel,
// configuration, arguments) has been seen before, and a key stops being
// hashed after repeated misses, so programs that never repeat pay nothing.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "events/EventSink.h"
#include "sim/Device.h"

namespace predatar::cudart {

class RepeatedLaunches {
 public:
  struct Key {
    const void* kernel = nullptr;  // the runtime's kernel record
    Dim3 grid, block;
    uint64_t sharedBytes = 0;
    uint64_t gridWorkspace = 0;    // a cooperative launch's grid barrier (cleared before each launch)
    std::vector<uint8_t> params;   // the parameter values, concatenated
    bool operator==(const Key&) const = default;
  };
  // What a replay reproduces of the launch it repeats.
  struct Outcome {
    uint64_t launch = 0;  // index of the launch that ran
    bool checked = false;  // it ran under the detectors
    uint64_t warpInstructions = 0, threadInstructions = 0;
  };
  // Memory as chunk hashes, for one launch.
  struct Probe {
    uint64_t keyHash = 0;
    bool hashed = false;
    uint64_t stateHash = 0;
    std::vector<sim::DeviceMemory::Range> ranges;
    std::vector<uint64_t> chunks;  // per range, its chunks in order
  };

  // The state before a launch with `key`; an outcome to replay when this
  // exact launch ran before (apply() it), nullopt otherwise.
  std::optional<Outcome> lookup(const Key& key, const sim::DeviceMemory& memory, Probe& probe);
  // Makes memory what the remembered launch left (after lookup() found it).
  void apply(const Probe& probe);
  // After running the launch `probe` was taken for: remember its effect.
  void learn(const Key& key, const Probe& probe, const sim::DeviceMemory& memory, const Outcome& outcome);

  uint64_t replays() const { return replays_; }

  // Budgets: states larger than this are not hashed (hashing would cost more
  // than it saves), and effects are stored up to this many bytes in all.
  static constexpr uint64_t kMaxStateBytes = uint64_t(1) << 30;
  static constexpr uint64_t kMaxStoredBytes = uint64_t(512) << 20;
  static constexpr uint64_t kChunkBytes = 16 << 10;
  // A key whose launches missed this many times in a row is not hashed again.
  static constexpr uint32_t kMaxMisses = 6;

 private:
  struct Write {
    uint64_t address;
    std::vector<uint8_t> bytes;
  };
  struct Effect {
    Key key;
    std::vector<Write> writes;
    Outcome outcome;
  };
  struct KeyStats {
    uint64_t seen = 0;
    uint32_t misses = 0;
  };
  static uint64_t hashKey(const Key& key);
  static std::vector<sim::DeviceMemory::Range> reachable(const sim::DeviceMemory& memory);
  static void hashState(Probe& probe);

  std::map<uint64_t, KeyStats> keys_;                       // by key hash
  std::map<std::pair<uint64_t, uint64_t>, Effect> effects_;  // by (key hash, state hash)
  const Effect* found_ = nullptr;
  uint64_t storedBytes_ = 0;
  uint64_t replays_ = 0;
};

}  // namespace predatar::cudart
