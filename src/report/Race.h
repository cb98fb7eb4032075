// A data race as detectors report it, and the log that deduplicates them
// into "unique races" (by the two accesses' positions and the kind).
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "events/Event.h"

namespace predatar {

enum class RaceKind : uint8_t {
  WriteWrite,
  WriteRead,    // earlier write, later read
  ReadWrite,    // earlier read, later write
  AtomicScope,  // two strong accesses whose scopes do not cover each other
};
const char* toString(RaceKind kind);

// One side of a race: who accessed, how, and where in the program and trace.
struct Access {
  uint32_t block = 0;
  uint32_t thread = 0;  // thread index in the block
  AccessType type = AccessType::Read;
  bool strong = false;
  bool isVolatile = false;  // ld/st.volatile (plain unless --volatile strong)
  Scope scope = Scope::Device;
  Origin origin;
  uint32_t launch = 0;  // KernelInfo::launch of the access's launch (another one for a race between launches)
  bool unchanged = false;  // a write that stored what the location held (MemoryEvent::unchangedWrites)

  uint32_t warp() const { return thread / kWarpSize; }
  uint32_t lane() const { return thread % kWarpSize; }
  bool writes() const { return type != AccessType::Read; }
};

RaceKind classify(const Access& first, const Access& second);

// A message-passing pattern (race-semantics.md, hb rule 4) that lacked one
// fence to order a racing pair: the flag read with no fence after it, or the
// flag write with no fence before it.
struct MissingFence {
  enum class Side : uint8_t { None, AfterRead, BeforeWrite };
  Side side = Side::None;
  Origin at;  // the flag read or write
  explicit operator bool() const { return side != Side::None; }
};

struct Race {
  std::string detector;
  std::string kernel;        // kernel (or litmus file) the race was found in
  RaceKind kind = RaceKind::WriteWrite;
  MemorySpace space = MemorySpace::Global;
  uint32_t sharedBlock = 0;  // block whose shared memory, when space is Shared
  uint64_t address = 0;      // word address (shared: offset in the block's shared memory)
  Access first;              // earlier in the trace
  Access second;
  uint64_t count = 1;        // occurrences folded into this unique race
  MissingFence missingFence;  // the one fence that would have excused the pair, if any
};

// What a race is across kernel launches (races are unique per launch): the
// kernel, detector, kind and both instructions. Repeated launches of a kernel
// report the same pair once each.
using InstructionPair = std::tuple<std::string, std::string, int, uint64_t, uint64_t>;
inline InstructionPair instructionPair(const Race& r) {
  return {r.kernel, r.detector, int(r.kind), r.first.origin.pc, r.second.origin.pc};
}

// A racy location, independent of the pair that exposed it.
struct LocationKey {
  MemorySpace space;
  uint32_t sharedBlock;
  uint64_t address;
  auto operator<=>(const LocationKey&) const = default;
  template <typename H>
  friend H AbslHashValue(H h, const LocationKey& k) {
    return H::combine(std::move(h), k.space, k.sharedBlock, k.address);
  }
};

// Collects races of one detector. Unique races are keyed by the two
// accesses' instructions and the kind, like the paper's count; with
// `perLocation` the location is part of the key, so every racy location
// keeps a report (litmus files, whose expectations name locations), up to
// kLocationsPerPair per instruction pair: further locations of that pair only
// add to the count of its first report (and to locations()). Storage is thus
// bounded by the unique instruction pairs, however many occurrences (each
// occurrence only counts), and counts and occurrences stay exact.
class RaceLog {
 public:
  explicit RaceLog(std::string detector = {}, bool perLocation = false)
      : detector_(std::move(detector)), perLocation_(perLocation) {}

  static constexpr uint32_t kLocationsPerPair = 64;

  void setPerLocation(bool perLocation) { perLocation_ = perLocation; }
  // Races added from now on belong to this kernel launch.
  void beginKernel(std::string kernel) { kernel_ = std::move(kernel); ++launch_; }
  void add(MemorySpace space, uint32_t sharedBlock, uint64_t address, const Access& first,
           const Access& second, MissingFence missingFence = {});
  const std::vector<Race>& races() const { return races_; }
  // The racy locations, sorted (built on demand: a racy instruction in a
  // loop reaches add() once per occurrence).
  const std::set<LocationKey>& locations() const;
  uint64_t occurrences() const { return occurrences_; }
  const std::string& detector() const { return detector_; }
  void clear();

 private:
  // (launch, pc, pc, kind, space, shared block, address): integers only, as
  // a racy instruction in a loop comes here once per occurrence.
  using Key = std::tuple<uint64_t, uint64_t, uint64_t, uint8_t, uint8_t, uint32_t, uint64_t>;
  std::string detector_;
  std::string kernel_;
  uint64_t launch_ = 0;
  bool perLocation_;
  std::vector<Race> races_;
  absl::flat_hash_map<Key, size_t> index_;
  // perLocation: per instruction pair (location fields zero), its first
  // report and how many location reports it has.
  absl::flat_hash_map<Key, std::pair<size_t, uint32_t>> pairs_;
  absl::flat_hash_set<LocationKey> racyLocations_;
  mutable std::set<LocationKey> sortedLocations_;
  mutable bool sortedStale_ = false;
  uint64_t occurrences_ = 0;
};

}  // namespace predatar
