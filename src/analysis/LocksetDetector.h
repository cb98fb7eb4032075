// ScoRD: lockset analysis with barrier and fence checks, at warp granularity
// (accesses by different lanes of one warp in different instructions are not
// compared), plus same-instruction intra-warp races.
//
// Per location it keeps the last write (every lane of the last writing
// instruction) and the reads since. An access e by t
// is compared with each kept access e' by t' that conflicts with it:
//  1. a barrier after e' that both t and t' took part in: no race;
//  2. else if either held a lock: a race unless both held a common lock at
//     overlapping scopes;
//  3. else a race unless t' executed, after e', a fence whose scope covers t.
#pragma once

#include <bit>
#include <map>
#include <optional>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "analysis/Detector.h"
#include "analysis/FinishedBlocks.h"
#include "analysis/HeldLaunches.h"
#include "analysis/LocksetShadow.h"
#include "analysis/ThreadClocks.h"
#include "analysis/WordPages.h"
#include "clock/ClockMemory.h"

namespace predatar {

class LocksetDetector final : public Detector {
 public:
  explicit LocksetDetector(const DetectorOptions& options)
      : Detector("lockset", options),
        shadow_(options.compression ? options.locksetLeavesBeforeCompact : 0),
        tablesFromBytes_(options.locksetTablesFromBytes) {
    shadow_.makeTables(tablesFromBytes_ == 0);
  }
  std::string_view name() const override { return "lockset"; }
  DetectorStats stats() const override { return stats_; }

  void kernelBegin(const KernelInfo& kernel) override;
  void memory(const MemoryEvent& event) override;
  void barrier(const BarrierEvent& event) override;
  void syncWarp(const SyncWarpEvent&) override { ++stats_.events; }  // same-warp accesses are never compared
  void fence(const FenceEvent& event) override;
  void acquire(const LockEvent& event) override;
  void release(const LockEvent& event) override;
  void exit(const ExitEvent& event) override;
  void kernelEnd() override;
  void retainLaunches(const std::vector<uint32_t>& live) override;

  struct HeldLock {
    uint64_t lock;
    Scope scope;
    auto operator<=>(const HeldLock&) const = default;
  };
  struct ThreadState {
    std::vector<HeldLock> locks;
    uint32_t lockset = 0;          // interned id of `locks` (sorted)
    uint64_t lastBarrier = 0;      // id of the last barrier taken part in
    uint64_t lastWholeBarrier = 0; // ... of every non-exited thread of the block
    uint64_t lastFenceDevice = 0;  // trace position + 1 of the last device/system fence
    uint64_t lastFenceBlock = 0;   // ... of the last fence of any scope
  };
  struct Record {
    uint32_t block, thread;  // (a read of several lanes: its first lane's thread)
    AccessType type;
    bool strong;
    Scope scope;
    uint32_t lockset;
    uint64_t barrier;  // the thread's lastBarrier at the access
    Origin origin;
    uint8_t bytes = 0xf;  // bytes of the word accessed
    bool isVolatile = false;
    uint32_t launch = 0;  // KernelInfo::launch
    bool beforeDependencyWait = false;  // MemoryEvent::beforeDependencyWait (of a later access)
    bool unchanged = false;  // MemoryEvent::unchangedWrites (for the access's reports)
    // A read stands for the lanes of one warp event that read the word alike
    // (everything above but the thread): a warp's broadcast read keeps one
    // record, not 32. Each lane is still compared as its own thread.
    LaneMask lanes = 0;
    bool writes() const { return type != AccessType::Read; }
    uint32_t threadOf(uint32_t lane) const { return thread / kWarpSize * kWarpSize + lane; }
    // Whether `r` (one lane of the same warp event) can join this record.
    bool joins(const Record& r) const;
    bool operator==(const Record&) const = default;
  };
  struct History {
    // The lanes of the last instruction that wrote the word (unordered with
    // each other, so each stands as a last write), and the reads since.
    using Records = absl::InlinedVector<Record, 1, ClockAllocator<Record>>;
    Records lastWrites;
    Records reads;
    bool empty() const { return lastWrites.empty() && reads.empty(); }
    // Records held on the heap, for the metadata count.
    uint64_t heapRecords() const { return heapOf(lastWrites) + heapOf(reads); }
    static uint64_t heapOf(const Records& v) { return v.capacity() > 1 ? v.capacity() : 0; }  // (1: inline)
  };

 private:
  ThreadState& state(uint32_t block, uint32_t thread);
  const ThreadState& peek(uint32_t block, uint32_t thread) const;
  uint32_t intern(std::vector<HeldLock> locks);
  bool conflicting(const Record& a, const Record& b) const;
  bool races(const Record& earlier, const Record& later);
  bool barrierBetween(const Record& earlier, const ThreadState& t1, const ThreadState& t2, uint32_t thread2) const;
  // Most pairs a word's history yields are two reads, or accesses of one
  // warp in different instructions, which are never compared (per-warp
  // metadata; the thread's own earlier access among them: a stencil's cell
  // read after its own write). They are turned away here, inline, before
  // the lanes are walked (hotspot's 8.6M pairs took 17% of lockset's
  // instructions, 7.4M of them turned away; now 9% fewer instructions).
  // Another launch's accesses go on.
  void compare(uint64_t key, const Record& earlier, const Record& later) {
    if (!earlier.writes() && !later.writes()) return;
    if (earlier.launch == later.launch && earlier.block == later.block &&
        earlier.thread / kWarpSize == later.thread / kWarpSize && earlier.origin.seq != later.origin.seq)
      return;
    compareLanes(key, earlier, later);
  }
  void compareLanes(uint64_t key, const Record& earlier, const Record& later);
  void report(uint64_t key, const Record& earlier, const Record& later);  // a racing pair
  void compareLane(uint64_t key, const Record& earlier, const Record& later);
  void keep(History& h, const Record& r);
  void keepRead(History& h, const Record& r);

  // Accesses of earlier launches (KernelInfo::liveLaunches) that this launch
  // is not ordered after race when they conflict: no barrier, lock or fence
  // of one grid orders another's.
  void compareAcrossLaunches(uint64_t key, const Record& earlier, const Record& later);
  void keepLiveLaunches(const KernelInfo& kernel);

  uint32_t launch_ = 0;
  HeldLaunches heldLaunches_;  // launches whose records the shadow may hold
  std::vector<uint32_t> unordered_;
  uint32_t overlapped_ = UINT32_MAX;  // KernelInfo::overlappedLaunch
  uint32_t threadsPerBlock_ = 1;
  uint32_t warpsPerBlock_ = 1;
  // By block and thread, a page a warp: a warp's access finds its lanes'
  // states in one lookup (a lookup a lane was a tenth of lockset's time).
  WordPages<ThreadState, 5> threads_;
  static_assert(decltype(threads_)::kWordsPerPage == kWarpSize);  // (memory() and barrier() take a warp's page)
  uint64_t threadKey(uint32_t block, uint32_t thread) const { return uint64_t(block) * warpsPerBlock_ * kWarpSize + thread; }
  std::vector<std::vector<HeldLock>> locksets_{{}};
  std::map<std::vector<HeldLock>, uint32_t> locksetIds_{{{}, 0}};
  LocksetShadow<History> shadow_;
  uint64_t tablesFromBytes_;  // DetectorOptions::locksetTablesFromBytes
  // Shadow records on the heap, counted as they change: sampling the metadata
  // walked the whole shadow at every 64th finished block.
  uint64_t heapRecords_ = 0;
  bool anyLocks_ = false;  // a thread held a lock: its held-lock lists count too
  std::vector<std::pair<uint64_t, Record>> accesses_;  // memory()'s lanes (kept: no allocation per event)
  FinishedBlocks finished_;
  uint64_t finishedBlocks_ = 0;
  void sampleMetadata();
  // Samples during long launches too (an out-of-memory report names the
  // metadata it saw last; blocks may not finish before memory runs out).
  MemorySampleSchedule sampling_;
  uint64_t barriers_ = 0;
  // Per block, barriers of some of its live threads (named barriers with a
  // thread count, bar.arrive), id ascending, with their sorted threads.
  struct NamedBarrier {
    uint64_t id;
    std::vector<uint32_t> threads;
  };
  absl::flat_hash_map<uint32_t, std::vector<NamedBarrier>> namedBarriers_;
  DetectorStats stats_;
};

}  // namespace predatar
