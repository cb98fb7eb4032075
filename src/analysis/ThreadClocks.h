// Per-thread and per-lock clock state shared by the vector-clock detectors.
#pragma once

#include <algorithm>
#include <array>
#include <cassert>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "clock/VectorClock.h"
#include "events/Event.h"

namespace predatar {

// One thread's clocks. `now` is the thread's local time N_t (its epoch); `hb`
// is its happens-before clock H_t without its own entry (which is `now`, kept
// apart so that a barrier leaves every participant's clock compressed);
// `wcp` is gwcp's P_t (events strictly GWCP-before the thread's current
// point; its own entry counts only where a GWCP edge put it there).
//
// Layout: what an access or a __syncwarp reads of a thread (now,
// quietSinceFence, the two clocks, exited, locksHeld, the steady marks,
// lastReleaseHb, then gwcp's lastBelowJoined) is its first 120 bytes, two
// cache lines at 64-byte alignment. Unaligned, a warp's 32 threads at 344
// bytes apiece spread them over 2-3 lines each, and gwcp's lastReleaseHb at
// the end was one more: warp-lock at 10^5 threads read 12% fewer lines from
// memory this way.
struct alignas(64) ThreadClocks {
  uint32_t block = 0;
  uint32_t thread = 0;
  Clock now = 1;
  // N_t right after the thread's last fence; 0 once the thread accessed
  // memory or acquired a lock since (gwcp: a critical section that published
  // nothing before its release but the fence of its release pattern needs
  // no rule (ii) entry, GwcpDetector::publishedInside). Beside `now`, in the
  // cache line every access reads: at the end of the struct it was a line
  // more per lane of each access.
  Clock quietSinceFence = 0;
  VectorClock hb;
  VectorClock wcp;
  bool exited = false;
  // Locks the thread holds (gwcp): an access reads its lock stack for rule
  // (i) only when there is one (the stacks of a warp's lanes are 12 cache
  // lines of vector headers, read at every access).
  uint16_t locksHeld = 0;
  // Since when `hb` and `wcp` have not changed: each detector notes its own
  // clock (noteHbClock, noteWcpClock) for orderedByHb, orderedByWcp.
  struct SteadySince {
    uint64_t seq = 0;             // a position since which the clock has not changed: the thread's
                                  // first access after it changed, or the barrier that changed it
    uint64_t stamp = UINT64_MAX;  // the clock's stamp then
    void note(const VectorClock& clock, uint64_t at) {
      if (clock.stamp() == stamp) return;
      stamp = clock.stamp();
      seq = at;
    }
  };
  SteadySince hbSteady, wcpSteady;
  // The stamp of the H snapshot (hbSnapshot) the thread published at its
  // last release, <= every later one (gwcp's rule (i) clocks: ConflictClock::Below).
  uint64_t lastReleaseHb = 0;
  // (joinWcpAbove's, here in the second line's last bytes: gwcp writes it at
  // every rule (i) join, and at the end of the struct it was a line of its
  // own, a last-level write miss per join on per-slot locks.)
  uint64_t lastBelowJoined = 0;  // (a stamp: 0, the empty clock's, claims nothing)
  // Stamps of clocks known to be <= `hb` and <= `wcp`, which only grow while
  // t lives (VectorClock::stamp: equal stamps, equal clocks). A critical
  // section's release H reaches P_t through rule (i) once per conflicting
  // access class, then through rule (ii); a lock's clock joined at an
  // acquire is covered at the release when no other release changed it, and
  // is replaced rather than joined. Each costs a stamp comparison, not a walk.
  struct CoveredStamps {
    std::array<uint64_t, 4> stamps{};
    uint32_t next = 0;
    bool has(const VectorClock& c) const {
      uint64_t s = c.stamp();
      return s == 0 || std::find(stamps.begin(), stamps.end(), s) != stamps.end();
    }
    void note(const VectorClock& c) { noteStamp(c.stamp()); }
    void noteStamp(uint64_t s) { stamps[next++ % stamps.size()] = s; }
    void clear() { *this = {}; }
  };
  CoveredStamps hbCovers, wcpCovers;
  // The other way round: (lineage, stamp) pairs, each saying that the clock
  // value of that stamp is <= the current value of that lineage, a lock's
  // clock that only grows (LockClocks::Lineage). A thread's H and P at an
  // acquire are most often such a value: what it published at its last
  // release of the lock, or the lock's own clock taken whole at its last
  // acquire, unchanged since. The join is then the lock's clock, shared,
  // where it cost a walk of both clocks (gwcp on per-block locks: a fifth
  // of its instructions, in the walk that decides whether to share).
  struct BelowLineages {
    std::array<std::pair<uint64_t, uint64_t>, 4> entries{};
    uint32_t next = 0;
    bool has(uint64_t lineage, uint64_t stamp) const {
      return std::find(entries.begin(), entries.end(), std::pair{lineage, stamp}) != entries.end();
    }
    void note(uint64_t lineage, uint64_t stamp) {
      if (!has(lineage, stamp)) entries[next++ % entries.size()] = {lineage, stamp};
    }
    void clear() { *this = {}; }
  };
  BelowLineages hbBelow, wcpBelow;

  // H_t := H_t join c.
  void joinHb(const VectorClock& c) {
    if (hbCovers.has(c)) return;
    hb.join(c);
    hbCovers.note(c);
  }
  // P_t := P_t join c.
  void joinWcp(const VectorClock& c) {
    if (wcpCovers.has(c)) return;
    wcp.join(c);
    wcpCovers.note(c);
  }
  // P_t := P_t join c, where the clock of stamp `below` is known to be <= c:
  // when P_t is that clock, the join is c, shared rather than walked. Either
  // way that clock is <= P_t after (lastBelowJoined: a join of it waiting for
  // this point, GwcpDetector's deferred acquire join, costs a comparison).
  // (`alsoBelow`: another such stamp, or 0.)
  void joinWcpAbove(const VectorClock& c, uint64_t below, uint64_t alsoBelow = 0) {
    lastBelowJoined = below;
    uint64_t mine = wcp.stamp();
    if ((mine != below && (mine != alsoBelow || alsoBelow == 0)) || wcpCovers.has(c)) return joinWcp(c);
    assert(wcp.leq(c));
    wcp = c;
    wcpCovers.note(c);
  }
  // P_t := P_t join c, for a c that may be the clock of stamp
  // lastBelowJoined; whether that took a walk of both clocks.
  bool joinWcpLater(const VectorClock& c) {
    if (c.stamp() == lastBelowJoined) {
      wcpCovers.note(c);
      return false;
    }
    if (wcpCovers.has(c)) return false;
    joinWcp(c);
    return true;
  }
  // joinWcp(c, lineage) where it needs no walk of both clocks (c covered,
  // or taken whole): whether it did.
  bool joinWcpWithoutWalk(const VectorClock& c, uint64_t lineage) {
    if (wcpCovers.has(c)) return true;
    if (!wcpBelow.has(lineage, wcp.stamp())) return false;
    wcp = c;  // (as joinFromLineage)
    wcpCovers.note(c);
    wcpBelow.note(lineage, wcp.stamp());
    return true;
  }
  // The same for c, the current value of lineage `lineage`.
  void joinHb(const VectorClock& c, uint64_t lineage) { joinFromLineage(hb, hbCovers, hbBelow, c, lineage); }
  void joinWcp(const VectorClock& c, uint64_t lineage) { joinFromLineage(wcp, wcpCovers, wcpBelow, c, lineage); }
  // Joins c into P_t; whether P_t changed.
  bool absorbWcp(const VectorClock& c) {
    if (wcpCovers.has(c)) return false;
    bool changes = !c.leq(wcp);
    if (changes) wcp.join(c);
    wcpCovers.note(c);
    return changes;
  }

  // C_t: the gwcp clock including the thread's own time.
  Clock wcpTime(uint32_t otherBlock, uint32_t otherThread) const {
    return otherBlock == block && otherThread == thread ? now : wcp.get(otherBlock, otherThread);
  }
  Clock hbTime(uint32_t otherBlock, uint32_t otherThread) const {
    return otherBlock == block && otherThread == thread ? now : hb.get(otherBlock, otherThread);
  }
  // Call before each access of the thread, at trace position `seq`, for the
  // clock the detector orders by.
  void noteHbClock(uint64_t seq) { hbSteady.note(hb, seq); }
  void noteWcpClock(uint64_t seq) { wcpSteady.note(wcp, seq); }
  // Whether another thread's access, of epoch `clock` at trace position
  // `seq` of this launch, is ordered before the thread's current point.
  // An access after the clock last changed is not, and needs no lookup (a
  // word's atomics by a warp's 32 threads were 32 lookups per atomic): its
  // thread's entry here comes from releases before that change, each of
  // which ended that thread's epoch (fences, barriers, unlocks tick), so
  // the access's epoch is later than any of them.
  bool orderedByHb(uint32_t otherBlock, uint32_t otherThread, Clock clock, uint64_t seq) const {
    return seq <= hbSteady.seq && clock <= hbTime(otherBlock, otherThread);
  }
  bool orderedByWcp(uint32_t otherBlock, uint32_t otherThread, Clock clock, uint64_t seq) const {
    return seq <= wcpSteady.seq && clock <= wcpTime(otherBlock, otherThread);
  }
  // H_t with its own entry, to publish at a release.
  VectorClock hbSnapshot() const {
    VectorClock c = hb;
    c.set(block, thread, now);
    return c;
  }
  // Ends the current epoch after the thread's clocks were published.
  void tick() { ++now; }

 private:
  static void joinFromLineage(VectorClock& mine, CoveredStamps& covers, BelowLineages& below, const VectorClock& c,
                              uint64_t lineage) {
    if (covers.has(c)) return;
    if (below.has(lineage, mine.stamp())) {
      mine = c;  // mine <= c: the join is c
    } else {
      mine.join(c);
    }
    covers.note(c);
    if (mine.stamp() == c.stamp()) below.note(lineage, mine.stamp());
  }
};

// Storage aligned to cache lines, from plain operator new: aligned new
// (glibc's memalign) did not reuse the freed storage of one block's threads
// for the next block's, so a launch's RSS grew with its grid (warp-lock at
// 10^5 threads, blocks in turn: 39 MiB against 4).
template <class T>
struct LineAlignedAllocator {
  using value_type = T;
  static constexpr uintptr_t kLine = 64;
  LineAlignedAllocator() = default;
  template <class U>
  LineAlignedAllocator(const LineAlignedAllocator<U>&) {}
  T* allocate(size_t n) {
    auto* raw = static_cast<char*>(::operator new(n * sizeof(T) + kLine + sizeof(void*)));
    uintptr_t aligned = (reinterpret_cast<uintptr_t>(raw) + sizeof(void*) + kLine - 1) & ~(kLine - 1);
    reinterpret_cast<void**>(aligned)[-1] = raw;  // (what deallocate frees)
    return reinterpret_cast<T*>(aligned);
  }
  void deallocate(T* p, size_t) { ::operator delete(reinterpret_cast<void**>(p)[-1]); }
  template <class U>
  bool operator==(const LineAlignedAllocator<U>&) const { return true; }
};

// Threads of the running kernel, created when they first act. A block's
// threads are freed when all of them have exited: nothing reads an exited
// thread's clocks, only that it exited (find() then returns a shared exited
// thread), so memory follows the blocks resident at once, not the grid.
class ThreadTable {
 public:
  void reset(const KernelInfo& kernel, const ClockGeometry* geometry);
  ThreadClocks& at(uint32_t block, uint32_t thread) {
    if (!finished_[block]) [[likely]]
      if (const auto& b = blocks_[block]) [[likely]]
        if (b->acted(thread)) [[likely]]
          return b->threads[thread];
    return create(block, thread);
  }
  // The threads of warp `warp` of `block` side by side (lane i at [i]) when
  // every lane of `lanes` has acted and the block has not finished, else
  // null (then at(), lane by lane): a warp event's one lookup, where a
  // lookup per lane was 5% of a shared-memory sort's analysis.
  ThreadClocks* warpThreads(uint32_t block, uint32_t warp, uint32_t lanes) {
    if (finished_[block]) return nullptr;
    const auto& b = blocks_[block];
    if (!b || (b->actedLanes[warp] & lanes) != lanes) return nullptr;
    return &b->threads[warp * 32];
  }
  // Null for a thread that has not acted yet.
  ThreadClocks* find(uint32_t block, uint32_t thread) const;
  // Frees an exited thread's clocks (the paper's thread-exit cleanup).
  void exit(uint32_t block, uint32_t thread);
  uint64_t clockBytes() const;
  // Block entries the last clockBytes() visited: what a memory sample costs.
  uint64_t lastScanEntries() const { return lastScanEntries_; }
  // No thread of `block` has acted yet; every thread of it has exited.
  bool untouched(uint32_t block) const { return !finished_[block] && !blocks_[block]; }
  bool finished(uint32_t block) const { return finished_[block]; }
  uint32_t blocks() const { return uint32_t(blocks_.size()); }
  uint32_t threadsPerBlock() const { return threadsPerBlock_; }

 private:
  // A block's threads side by side: the lanes of a warp event are
  // neighbours in memory, not a heap block each (a cache miss per lane).
  struct BlockThreads {
    std::vector<ThreadClocks, LineAlignedAllocator<ThreadClocks>> threads;
    std::vector<uint32_t> actedLanes;  // per warp, the lanes whose threads have acted
    bool acted(uint32_t thread) const { return (actedLanes[thread / 32] >> (thread % 32)) & 1; }
    uint32_t exited = 0;
  };
  ThreadClocks& create(uint32_t block, uint32_t thread);  // at() when the thread is new or finished
  const ClockGeometry* geometry_ = nullptr;
  uint32_t threadsPerBlock_ = 1;
  std::vector<std::unique_ptr<BlockThreads>> blocks_;
  std::vector<uint8_t> finished_;         // every thread of the block exited; its threads are freed
  mutable ThreadClocks exitedThread_;     // what find() returns for a finished block's threads
  mutable uint64_t lastScanEntries_ = 0;
};

// When the vector-clock detectors sample their metadata sizes for --stats:
// every 2^16 events, or more rarely when a sample visits more clock entries
// than that (270k threads' clocks each 2^16 events cost a fifth of a run), so
// sampling stays a small part of the work.
class MemorySampleSchedule {
 public:
  bool due(uint64_t events) const { return events >= next_; }
  // After a sample at `events` that visited `visited` clock entries.
  void sampled(uint64_t events, uint64_t visited) { next_ = events + std::max(kEvery, 2 * visited); }

 private:
  static constexpr uint64_t kEvery = 1 << 16;
  uint64_t next_ = kEvery;
};

// Barrier synchronization (__syncthreads over `threads` of `block`, or
// __syncwarp over a warp's lanes): every participant's view becomes the join
// of all participants. With compression the participants' own entries are
// renumbered to one time M (their next epochs start at M+1), so the view of a
// fully participating warp or block is a single compressed entry.
// `arrivals`: what bar.arrive's threads brought to this barrier, joined too.
struct BarrierArrivals;
void synchronize(ThreadTable& table, const ClockGeometry& geometry, uint32_t block,
                 const std::vector<uint32_t>& threads, bool withWcp, const BarrierArrivals* arrivals = nullptr);

// bar.arrive is a release: the arriving threads' views, with their own
// times as lane entries, wait in a barrier's BarrierArrivals for its waiters;
// the arrivers tick, so nothing they do next is in them.
struct BarrierArrivals {
  explicit BarrierArrivals(const ClockGeometry* geometry) : hb(geometry), wcp(geometry) {}
  VectorClock hb, wcp;
};

// The arrivals of barriers not complete yet, by block and barrier id.
class PendingArrivals {
 public:
  void reset(const ClockGeometry* geometry) {
    geometry_ = geometry;
    pending_.clear();
  }
  // A BarrierEvent on the threads' clocks: an arrival waits here; a
  // completion synchronizes its waiters with the barrier's arrivals, which
  // it consumes. True when the barrier completed.
  bool apply(ThreadTable& table, const BarrierEvent& event, bool withWcp);

 private:
  static uint64_t key(uint32_t block, uint32_t id) { return uint64_t(block) << 4 | (id & 15); }
  const ClockGeometry* geometry_ = nullptr;
  absl::flat_hash_map<uint64_t, BarrierArrivals> pending_;
};

// Lock clocks: joins of the clocks at every release of a lock, kept per
// releasing block and for device-scoped releases, so an acquire joins exactly
// the releases it overlaps with (same block, or both device/system scoped).
struct LockClocks {
  // A lock clock's lineage: an id, never reused, for the values one clock
  // takes; they only grow (release() joins, or takes a clock that covers the
  // lock's), so a value <= one of them is <= every later one
  // (ThreadClocks::BelowLineages). A move hands the id over with the clocks
  // and gives the moved-from side, emptied, a new one; copies would fork it.
  struct Lineage {
    uint64_t id = newLineage();
    Lineage() = default;
    Lineage(const Lineage&) = delete;
    Lineage(Lineage&& other) noexcept : id(std::exchange(other.id, newLineage())) {}
    Lineage& operator=(const Lineage&) = delete;
    Lineage& operator=(Lineage&& other) noexcept {
      id = std::exchange(other.id, newLineage());
      return *this;
    }
  };
  static uint64_t newLineage();
  struct BlockClocks {
    VectorClock hb, wcp;
    Lineage lineage;  // of hb, and of wcp (their BelowLineages are apart)
    // Stamps of values of hb and wcp known to be <= the device clocks: a
    // device-scoped release publishes one clock to both, so a device-scoped
    // acquire that took the block's clock whole joins the device one without
    // a walk (each walk visits every block the clocks know: on a grid-wide
    // lock, both are the grid's).
    uint64_t hbBelowDevice = 0, wcpBelowDevice = 0;
  };
  absl::flat_hash_map<uint32_t, BlockClocks> byBlock;  // releases by each block (wcp: gwcp's only)
  VectorClock hbDevice, wcpDevice;
  Lineage deviceLineage;

  // An acquire by `t` joins the releases it overlaps: those of its block, and
  // the device-scoped ones when it is device scoped (into P too, for gwcp).
  void acquire(ThreadClocks& t, Scope scope, bool withWcp) const;
  // gwcp's block-scoped acquire: as acquire(), but where joining the block's
  // P would walk both clocks, that is left to the caller, and the block's
  // clocks are returned (else null).
  const BlockClocks* acquireDeferringWcp(ThreadClocks& t) const;
  // A release by `t`, whose H with its own entry is `hb` (t notes that its
  // H and P are below the lock's clocks now).
  void release(ThreadClocks& t, const VectorClock& hb, Scope scope, const ClockGeometry* geometry, bool withWcp);
  uint64_t bytes() const;
};

// Locks in a block's shared memory (LockEvent::blockLocal), by block: once
// the block has finished no thread can take them again, so a detector drops
// their state then (blocks run in waves: memory follows resident blocks).
class BlockLocalLocks {
 public:
  void clear() { byBlock_.clear(); }
  // A detector's state of the lock of lane `lane` of `event` in `locks` (by
  // lock id), created at its first event and then noted if block-local.
  template <class Locks>
  typename Locks::mapped_type& stateOf(Locks& locks, const LockEvent& event, uint32_t lane) {
    auto [it, inserted] = locks.try_emplace(event.lock[lane]);
    if (inserted && ((event.blockLocal >> lane) & 1)) byBlock_[event.lanes.block].push_back(event.lock[lane]);
    return it->second;
  }
  // The finished block's locks, forgotten here.
  std::vector<uint64_t> take(uint32_t block) {
    auto it = byBlock_.find(block);
    if (it == byBlock_.end()) return {};
    std::vector<uint64_t> locks = std::move(it->second);
    byBlock_.erase(it);
    return locks;
  }

 private:
  absl::flat_hash_map<uint32_t, std::vector<uint64_t>> byBlock_;
};

}  // namespace predatar
