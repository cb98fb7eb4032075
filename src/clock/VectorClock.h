// Vector clocks over the threads of a kernel, stored hierarchically as the
// paper's "vector clock compression" describes: a sparse list of block
// entries, each either compressed (one time for every thread of the block) or
// expanded into warp entries, each either compressed (one time for the warp)
// or expanded into 32 lane times. Threads of an absent block have time 0.
//
// With compression off, every touched block is kept fully expanded (the
// classic one-entry-per-thread clock, sparse by block), which is the baseline
// the compression is measured against.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "clock/LocalShared.h"

namespace predatar {

using Clock = uint32_t;

// The shape every clock of one kernel shares.
struct ClockGeometry {
  uint32_t threadsPerBlock = 1;
  uint32_t warpsPerBlock = 1;
  bool compression = true;
  // A clock's block list is kept in chunks of 2^chunkShift blocks (see
  // VectorClock::Chunk): a clock that differs from another in one block
  // costs a chunk (40 bytes a block) and the chunk index (24 bytes a chunk),
  // least near sqrt(0.6 * blocks) blocks a chunk.
  uint32_t chunkShift = 6;

  static ClockGeometry make(uint32_t threadsPerBlock, bool compression, uint64_t gridBlocks = 0) {
    ClockGeometry g{threadsPerBlock, (threadsPerBlock + 31) / 32, compression};
    if (gridBlocks) g.chunkShift = chunkShiftFor(gridBlocks);
    return g;
  }
  static uint32_t chunkShiftFor(uint64_t gridBlocks) {
    uint32_t shift = 2;
    while (shift < 8 && (uint64_t(1) << (2 * shift)) * 10 < gridBlocks * 6) ++shift;  // 4^s < 0.6 B
    return shift;
  }
  uint32_t chunkOf(uint32_t block) const { return block >> chunkShift; }
  uint32_t slotInChunk(uint32_t block) const { return block & ((1u << chunkShift) - 1); }
  uint32_t lanesInWarp(uint32_t warp) const {
    uint32_t first = warp * 32;
    return threadsPerBlock - first < 32 ? threadsPerBlock - first : 32;
  }
};

namespace clock_detail {
// What a join already knows of a chunk or block pair from a walk above it
// (a one-chunk clock's whole-clock check is its chunk's, a one-block
// chunk's its block's): the sharing checks need not walk it again.
struct KnownOrder {
  bool theirsNotCovered = false;  // theirs <= mine failed
  bool mineNotCovered = false;    // mine <= theirs failed
};
}  // namespace clock_detail

class VectorClock {
 public:
  VectorClock() = default;
  explicit VectorClock(const ClockGeometry* geometry) : geometry_(geometry) {}
  VectorClock(const VectorClock& other) { *this = other; }
  // (Inline: a __syncwarp assigns the joined clocks to each of 32 lanes, gwcp two a lane.)
  VectorClock& operator=(const VectorClock& other) {
    if (this == &other) return *this;
    geometry_ = other.geometry_;
    chunks_ = other.chunks_;  // shares the list, and so every block's arrays
    stamp_ = other.stamp_;
    return *this;
  }
  VectorClock(VectorClock&& other) noexcept { *this = std::move(other); }
  VectorClock& operator=(VectorClock&& other) noexcept {
    if (this == &other) return *this;
    geometry_ = other.geometry_;
    chunks_ = std::move(other.chunks_);
    stamp_ = std::exchange(other.stamp_, 0);  // (the moved-from clock is empty)
    return *this;
  }

  void setGeometry(const ClockGeometry* geometry) { geometry_ = geometry; }
  Clock get(uint32_t block, uint32_t thread) const;  // (inline: every access asks)
  void set(uint32_t block, uint32_t thread, Clock time);
  // Every thread of `block` gets `time` (forced compression at barriers).
  void setBlock(uint32_t block, Clock time);
  // Every lane of the warp gets `time` (forced compression at __syncwarp).
  void setWarp(uint32_t block, uint32_t warp, Clock time);

  // Pointwise max; `skipBlock`'s entries are left as they are (a barrier of
  // the whole block overwrites them next: joining them is wasted).
  void join(const VectorClock& other, uint32_t skipBlock = UINT32_MAX);
  bool leq(const VectorClock& other) const;  // pointwise <=
  // Pointwise <= where `other`'s entry for (block, thread) reads as `time`
  // (C_t = P_t[t := N_t] without copying P_t).
  bool leq(const VectorClock& other, uint32_t block, uint32_t thread, Clock time) const;
  bool empty() const { return !chunks_ || chunks_->empty(); }
  void clear() {
    chunks_.reset();
    stamp_ = 0;
  }
  // Changes whenever the clock's value may have changed, to a value no other
  // value ever had (copies share it with their source): equal stamps, equal
  // clocks. 0 is the empty clock's. Lets a thread tell cheaply that its clock
  // has not changed since some point (ThreadClocks::SteadySince).
  uint64_t stamp() const { return stamp_; }

  size_t blockEntries() const;
  // Holds the very same block list as `other` (so equal to it).
  bool sharesListWith(const VectorClock& other) const { return chunks_ && chunks_ == other.chunks_; }
  // Starts loading level `level` of the clock's storage without waiting for
  // it (0: the chunk index, 1: the first chunk's blocks, 2: the first
  // block's arrays), each level's address read from the level before. Called
  // level by level over many clocks (a warp's acquires), their cache misses
  // overlap, where a walk of one clock waits for each level in turn.
  void prefetch(int level) const;
  // Heap bytes held (for --stats and the memory benchmark).
  uint64_t bytes() const;

 private:
  // A block's entry. Compressed: `warps` is null and `base` is every thread's
  // time. Expanded: `warps` holds warpsPerBlock warp times, then per warp its
  // slot in `lanes` plus one (0: the warp is compressed), then the number of
  // slots in `lanes`; `lanes` holds 32 lane times per slot. Two allocations
  // per block at most, so copying a clock (every critical section snapshots
  // two) costs two allocations per block instead of one per warp, and only
  // the expanded warps' lanes. Both arrays are shared copy-on-write: copying
  // a clock shares them (a critical section's snapshots and the lock's
  // chain of them share every block that did not change), and a write
  // first takes a private copy of a block's arrays if others hold them.
  struct Block {
    uint32_t id = 0;
    Clock base = 0;
    LocalSharedArray<Clock> warps;
    LocalSharedArray<Clock> lanes;
  };

  const Block* find(uint32_t block) const;
  Block& findOrInsert(uint32_t block);
  void expand(Block& block) const;
  void expandWarp(Block& block, uint32_t warp) const;
  void compress(Block& block) const;
  bool compressWarp(Block& block, uint32_t warp) const;
  using KnownOrder = clock_detail::KnownOrder;
  void joinInto(Block& mine, const Block& other, KnownOrder known = {}) const;
  bool leqImpl(const VectorClock& other, uint32_t exceptBlock, uint32_t exceptThread, Clock time,
               uint32_t skipBlock) const;
  // Both orders in one walk, {this <= other, other <= this}: a join of a
  // shared clock asks both (other <= this: nothing to do; this <= other:
  // share other's list), and the second usually holds when the first fails.
  struct BothOrders {
    bool mineLeq = true, theirsLeq = true;
    bool any() const { return mineLeq || theirsLeq; }
    // Whether a chunk or block that only mine (only theirs) holds can be
    // skipped: it can refute only that side's order, refuted already (a
    // fresh thread's clock against a lock's that knows the whole grid
    // walked the grid per acquire).
    bool skips(bool mineOnly, bool theirsOnly) const { return (mineOnly && !mineLeq) || (theirsOnly && !theirsLeq); }
  };
  BothOrders orders(const VectorClock& other) const;
  void blockOrders(const Block& mine, const Block& theirs, BothOrders& o) const;
  uint32_t slotOf(const Block& block, uint32_t warp) const {  // slot + 1, 0 when compressed
    return block.warps ? block.warps[geometry_->warpsPerBlock + warp] : 0;
  }
  bool warpExpanded(const Block& block, uint32_t warp) const { return slotOf(block, warp) != 0; }
  uint32_t& slotCount(const Block& block) const { return block.warps[2 * geometry_->warpsPerBlock]; }
  Clock* lanesOf(const Block& block, uint32_t warp) const {
    return block.lanes.get() + (slotOf(block, warp) - 1) * 32;
  }
  Clock timeOf(const Block& block, uint32_t warp, uint32_t lane) const {
    if (!block.warps) return block.base;
    return warpExpanded(block, warp) ? lanesOf(block, warp)[lane] : block.warps[warp];
  }
  void repackLanes(Block& block) const;
  void own(Block& block) const;  // private copies of shared arrays, before a write

  // The block list, in chunks of consecutive block ids (ClockGeometry::
  // chunkShift), both levels shared copy-on-write like the arrays. After a
  // barrier every participant holds the same clock, and a grid synchronized
  // through atomics (cooperative groups' grid sync) gives each of its threads
  // an entry per block: one list for all of them instead of one per thread
  // (264 blocks of 1024 threads held 5.4 GiB of lists). Chunks make a clock that differs
  // from another in one block (a lock holder's clock and the lock's, one
  // release later) cost one chunk and the chunk index, not a copy of every
  // block: 10^6 threads taking one lock in turn held 8.9 GiB of list copies.
  //
  // A chunk's blocks, sorted by id. `heldBytes` caches what bytes() counts
  // for them (a chunk shared by a thousand clocks is measured once, not per
  // holder: --stats' samples walked every block of every critical section's
  // clocks); it is reset whenever the chunk is copied or written (ownBlocks),
  // and does not follow later changes of its arrays' sharing (a statistic).
  // Inline room for one block: a clock of one block (a thread that synchronized
  // only within its block) costs one allocation per chunk copy, not two.
  using BlockList = absl::InlinedVector<Block, 1, ClockAllocator<Block>>;
  struct Blocks : BlockList {
    static constexpr uint64_t kUnmeasured = UINT64_MAX;
    Blocks() = default;
    Blocks(const Blocks& other) : BlockList(other) {}  // (not the cache)
    Blocks& operator=(Blocks&& other) noexcept {
      BlockList::operator=(std::move(other));
      heldBytes = kUnmeasured;
      return *this;
    }
    mutable uint64_t heldBytes = kUnmeasured;
  };
  struct Chunk {
    uint32_t index = 0;              // holds the blocks b with geometry.chunkOf(b) == index
    LocalShared<Blocks> blocks;  // never empty
  };
  using Chunks = absl::InlinedVector<Chunk, 1, ClockAllocator<Chunk>>;  // sorted by index (one chunk: one allocation a copy)
  const Chunks& chunks() const;
  Chunks& ownChunks();                         // a private chunk index, before a write
  Blocks& ownBlocks(Chunk& chunk) const;       // a private chunk, before a write
  const Chunk* findChunk(uint32_t index) const;
  // Where chunk `index` is, or goes, in `chunks`: chunks are often every index
  // from 0 (a grid's blocks in order), so its own place is tried first.
  template <class AnyChunks>
  static auto chunkPosition(AnyChunks& chunks, uint32_t index) {
    if (index < chunks.size() && chunks[index].index == index) return chunks.begin() + index;
    return std::lower_bound(chunks.begin(), chunks.end(), index, [](const Chunk& c, uint32_t i) { return c.index < i; });
  }
  void joinChunk(Chunk& mine, const Chunk& theirs, uint32_t skipBlock, KnownOrder known = {}) const;
  void joinBlocks(Blocks& mine, const Blocks& theirs, uint32_t skipBlock, KnownOrder known = {}) const;
  // `chunk` without `skipBlock` (shared when it lacks it); null when nothing is left.
  static LocalShared<Blocks> without(const LocalShared<Blocks>& chunk, uint32_t skipBlock);
  bool blocksLeq(const Blocks& mine, const Blocks& theirs, uint32_t exceptBlock, uint32_t exceptThread, Clock time,
                 uint32_t skipBlock) const;
  void blocksOrders(const Blocks& mine, const Blocks& theirs, BothOrders& o) const;
  // Warp `w`'s lanes of `mine` <= those of `theirs`, at least one side expanded.
  bool lanesLeq(const Block& mine, const Block& theirs, uint32_t w, uint32_t lanes) const;

  const ClockGeometry* geometry_ = nullptr;
  LocalShared<Chunks> chunks_;  // null when empty
  uint64_t stamp_ = 0;  // stamp(); every write goes through ownChunks(), which renews it
};

// The lookups every ordered check makes: a grid's blocks come in order, so a
// dense chunk index and a dense chunk hold block b at b's own place.
inline const VectorClock::Chunk* VectorClock::findChunk(uint32_t index) const {
  if (!chunks_) return nullptr;
  auto it = chunkPosition(*chunks_, index);
  return it != chunks_->end() && it->index == index ? &*it : nullptr;
}

inline const VectorClock::Block* VectorClock::find(uint32_t block) const {
  if (!chunks_) return nullptr;
  const Chunk* chunk = findChunk(geometry_->chunkOf(block));
  if (!chunk) return nullptr;
  const Blocks& blocks = *chunk->blocks;
  uint32_t slot = geometry_->slotInChunk(block);
  if (slot < blocks.size() && blocks[slot].id == block) return &blocks[slot];
  auto it = std::lower_bound(blocks.begin(), blocks.end(), block, [](const Block& b, uint32_t id) { return b.id < id; });
  return it != blocks.end() && it->id == block ? &*it : nullptr;
}

inline Clock VectorClock::get(uint32_t block, uint32_t thread) const {
  const Block* b = find(block);
  return b ? timeOf(*b, thread / 32, thread % 32) : 0;
}

}  // namespace predatar
