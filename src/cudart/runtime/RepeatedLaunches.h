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
//
// A launch that ran under the detectors also leaves its footprint (from its
// events): the 256-byte grains it read and the bytes it wrote. When it read
// no grain it wrote, its reads saw memory as it was before the launch, so any
// later launch with the same key that finds those grains (and the .const variables
// and texels, which are read without events) unchanged runs the same way and
// writes the same bytes, whatever the rest of memory holds: it is replayed
// from the first run on (a timing loop's second launch already).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "events/EventSink.h"
#include "sim/Device.h"

namespace predatar::cudart {

// The global memory a launch read (256-byte grains) and wrote (byte ranges),
// from its memory events.
class FootprintRecorder final : public NullEventSink {
 public:
  void memory(const MemoryEvent& event) override;
  bool consumesEvents() const override { return true; }
  // Sorts `writes` and merges the runs that overlap or touch.
  void compactWrites();
  absl::flat_hash_set<uint64_t> readChunks;  // grain indices
  // [begin, end), consecutive runs merged; compacted whenever it doubles, so
  // it stays near the number of disjoint runs, not of accesses.
  std::vector<std::pair<uint64_t, uint64_t>> writes;

 private:
  static constexpr size_t kMinCompaction = 4096;
  void noteRead(uint64_t begin, uint64_t end);
  void noteWrite(uint64_t begin, uint64_t end);
  size_t compactAt_ = kMinCompaction;

  // Grains inserted lately, by grain index modulo the size: a warp's lanes
  // read across a table's grains, and a set lookup per lane was 4% of a
  // table-heavy launch (curand_init's skip-ahead).
  std::array<uint64_t, 256> recentReadChunks_ = [] {
    std::array<uint64_t, 256> none;
    none.fill(UINT64_MAX);
    return none;
  }();
};

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
  void apply(const Probe& probe, sim::DeviceMemory& memory);
  // After running the launch `probe` was taken for: remember its effect.
  void learn(const Key& key, const Probe& probe, const sim::DeviceMemory& memory, const Outcome& outcome);
  // After running a launch under a footprint recorder: remember its effect
  // by what it read (`constants`: the module's .const variables). Takes the
  // recorder's writes.
  void learnFootprint(const Key& key, FootprintRecorder& footprint, const sim::DeviceMemory& memory,
                      const std::vector<sim::DeviceMemory::Range>& constants, const Outcome& outcome);
  // Whether a launch with this key (Probe::keyHash, after lookup()) should
  // record its footprint: not once its footprints keep missing, nor once
  // its launches keep leaving none that can be kept (they read what they
  // wrote: simpleStreams' `g_data[idx] += *factor`, 500 launches, where the
  // recorder was 4% of the run), but for a try every kFootprintRetryEvery.
  bool wantsFootprint(uint64_t keyHash) const;

  uint64_t replays() const { return replays_; }

  // Launches that ran under the detectors, the first of each key: a later
  // launch with the key whose kernel's events do not depend on data emits
  // that one's events again (Runtime::takesRacesOf).
  void noteCheckedRun(const Key& key, uint64_t launch);
  std::optional<uint64_t> checkedRunOf(const Key& key) const;

  // Budgets: states larger than this are not hashed (hashing would cost more
  // than it saves), and effects are stored up to this many bytes in all.
  static constexpr uint64_t kMaxStateBytes = uint64_t(1) << 30;
  static constexpr uint64_t kMaxStoredBytes = uint64_t(512) << 20;
  // An effect of more bytes is stored only when its launch's state comes a
  // second time (largeEffectStates_): most big launches never repeat exactly.
  static constexpr uint64_t kMaxEagerEffectBytes = uint64_t(16) << 20;
  static constexpr uint64_t kChunkBytes = 16 << 10;
  // Footprints are kept in 256-byte grains (cudaMalloc's alignment), so that
  // neighbouring small buffers, one read and one written, stay apart.
  static constexpr uint64_t kGrainBytes = 256;
  // A footprint keeps the bytes a launch wrote up to this many (else their
  // hash). 16 MB was too few for scan's 27 MB output, which the next kernel
  // rewrites: nine of its launches (4 s each with gwcp) ran again.
  static constexpr uint64_t kMaxFootprintWriteBytes = 64 << 20;
  // A key whose launches missed this many times in a row is not hashed again.
  static constexpr uint32_t kMaxMisses = 6;
  // A key whose launches left no usable footprint this many times in a row
  // is recorded again only every kFootprintRetryEvery-th launch.
  static constexpr uint32_t kMaxFootprintRefusals = 2;
  static constexpr uint32_t kFootprintRetryEvery = 32;

 private:
  struct Write {
    uint64_t address;
    uint64_t length;
    std::vector<uint8_t> bytes;  // empty: not kept (FootprintEffect::bytesKept)
  };
  struct Effect {
    Key key;
    std::vector<Write> writes;
    Outcome outcome;
  };
  // A launch remembered by its footprint: what it read, what it wrote.
  struct FootprintEffect {
    Key key;
    std::vector<sim::DeviceMemory::Range> inputs;  // read grains (clipped to allocations) and .const variables
    uint64_t inputHash = 0;
    // The bytes written, kept when small; else only their hash, and the
    // launch is replayed only where memory already holds them (a timing
    // loop's later launches), applying nothing.
    std::vector<Write> writes;
    bool bytesKept = true;
    uint64_t writtenHash = 0;
    Outcome outcome;
  };
  static constexpr size_t kFootprintsPerKey = 4;
  struct KeyStats {
    uint64_t seen = 0;
    uint32_t misses = 0;           // full-state lookups that found nothing, in a row
    uint32_t footprintMisses = 0;  // footprint lookups likewise (then footprints are dropped)
    uint32_t footprintRefusals = 0;  // recorded footprints that could not be kept, in a row
  };
  static uint64_t hashKey(const Key& key);
  static std::vector<sim::DeviceMemory::Range> reachable(const sim::DeviceMemory& memory);
  static void hashState(Probe& probe);
  // Hash of `inputs` and the texels of every texture object; nullopt when an
  // input is no longer inside an allocation.
  static std::optional<uint64_t> hashInputs(const std::vector<sim::DeviceMemory::Range>& inputs,
                                            const sim::DeviceMemory& memory);
  static uint64_t hashWritten(const std::vector<Write>& writes);
  static uint64_t keptBytes(const FootprintEffect& f);
  void dropFootprints(uint64_t keyHash);
  const FootprintEffect* findFootprint(const Key& key, uint64_t keyHash, const sim::DeviceMemory& memory);

  std::map<uint64_t, KeyStats> keys_;                       // by key hash
  std::map<std::pair<uint64_t, uint64_t>, Effect> effects_;  // by (key hash, state hash)
  // States whose launch left a large effect, not stored (kMaxEagerEffectBytes).
  absl::flat_hash_set<std::pair<uint64_t, uint64_t>> largeEffectStates_;
  std::map<uint64_t, std::vector<FootprintEffect>> footprints_;  // by key hash
  std::multimap<uint64_t, std::pair<Key, uint64_t>> checkedRuns_;  // by key hash: (key, launch)
  const Effect* found_ = nullptr;
  const FootprintEffect* foundFootprint_ = nullptr;
  uint64_t storedBytes_ = 0;
  uint64_t replays_ = 0;
};

}  // namespace predatar::cudart
