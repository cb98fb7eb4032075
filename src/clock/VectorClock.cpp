#include "clock/VectorClock.h"

#include <algorithm>
#include <atomic>
#include <cstring>

namespace predatar {

namespace {

LocalSharedArray<Clock> newArray(size_t n) { return LocalSharedArray<Clock>::make(n); }

LocalSharedArray<Clock> copyOf(const LocalSharedArray<Clock>& from, size_t n) {
  auto copy = newArray(n);
  std::memcpy(copy.get(), from.get(), n * sizeof(Clock));
  return copy;
}

}  // namespace

void VectorClock::own(Block& block) const {
  if (block.warps && block.warps.use_count() > 1) block.warps = copyOf(block.warps, 2 * geometry_->warpsPerBlock + 1);
  if (block.lanes && block.lanes.use_count() > 1) block.lanes = copyOf(block.lanes, 32 * slotCount(block));
}

const VectorClock::Chunks& VectorClock::chunks() const {
  static const Chunks kNoChunks;
  return chunks_ ? *chunks_ : kNoChunks;
}

VectorClock::Chunks& VectorClock::ownChunks() {
  // (Relaxed: detectors in parallel threads only need distinct values.)
  static std::atomic<uint64_t> stamps{0};
  stamp_ = stamps.fetch_add(1, std::memory_order_relaxed) + 1;
  if (!chunks_) chunks_ = LocalShared<Chunks>::make();
  else if (chunks_.use_count() > 1) chunks_ = LocalShared<Chunks>::make(*chunks_);
  return *chunks_;
}

VectorClock::Blocks& VectorClock::ownBlocks(Chunk& chunk) const {
  if (chunk.blocks.use_count() > 1) chunk.blocks = LocalShared<Blocks>::make(*chunk.blocks);
  chunk.blocks->heldBytes = Blocks::kUnmeasured;  // about to change
  return *chunk.blocks;
}

size_t VectorClock::blockEntries() const {
  size_t n = 0;
  for (const Chunk& chunk : chunks()) n += chunk.blocks->size();
  return n;
}

namespace {
// Where `block`'s entry is, or goes, in a list sorted by id.
template <class Blocks>
auto positionOf(Blocks& blocks, uint32_t block) {
  return std::lower_bound(blocks.begin(), blocks.end(), block, [](const auto& b, uint32_t id) { return b.id < id; });
}
// Whether sorted `mine` has an entry for each key of sorted `theirs` (but
// `skip`), keys by `key`: a join then updates `mine` in place.
template <class Mine, class Theirs, class Key>
bool holdsEvery(const Mine& mine, const Theirs& theirs, Key key, uint32_t skip = UINT32_MAX) {
  size_t i = 0;
  for (const auto& t : theirs) {
    if (key(t) == skip) continue;
    while (i < mine.size() && key(mine[i]) < key(t)) ++i;
    if (i == mine.size() || key(mine[i]) != key(t)) return false;
  }
  return true;
}

// Whether some lane of x is above, and some below, y's: integer ORs over a
// loop the vectorizer takes (not bool ANDs), with the usual 32 lanes a
// constant trip count (no scalar epilogue). Every comparison and join of
// two clocks that hold a block's lanes comes here.
struct LaneOrder {
  uint32_t above = 0, below = 0;
};
template <uint32_t kLanes>
LaneOrder compareLanes(const Clock* x, const Clock* y, uint32_t lanes) {
  if (kLanes) lanes = kLanes;
  LaneOrder o;
  for (uint32_t lane = 0; lane < lanes; ++lane) {
    o.above |= uint32_t(x[lane] > y[lane]);
    o.below |= uint32_t(x[lane] < y[lane]);
  }
  return o;
}
// A full warp's 32 lanes, with AVX2 where the CPU has it (GCC's function
// multiversioning picks a clone when the library loads): eight lanes an
// instruction where SSE2 takes four, and unsigned max in one (SSE2 has none).
// On per-slot locks the walks of both clocks were a fifth of gwcp.
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define PREDATAR_WARP_LOOP __attribute__((target_clones("avx2", "default")))
#else
#define PREDATAR_WARP_LOOP
#endif
PREDATAR_WARP_LOOP LaneOrder compareFullWarp(const Clock* x, const Clock* y) { return compareLanes<32>(x, y, 32); }
PREDATAR_WARP_LOOP void joinFullWarp(Clock* lanes, const Clock* theirs) {
  for (uint32_t lane = 0; lane < 32; ++lane) lanes[lane] = std::max(lanes[lane], theirs[lane]);
}
PREDATAR_WARP_LOOP void joinFullWarp(Clock* lanes, Clock theirs) {
  for (uint32_t lane = 0; lane < 32; ++lane) lanes[lane] = std::max(lanes[lane], theirs);
}
LaneOrder compareLanes(const Clock* x, const Clock* y, uint32_t lanes) {
  return lanes == 32 ? compareFullWarp(x, y) : compareLanes<0>(x, y, lanes);
}
// The least and the most of x's lanes (plain loops, vectorized as above).
void laneRange(const Clock* x, uint32_t lanes, Clock& least, Clock& most) {
  least = UINT32_MAX, most = 0;
  for (uint32_t lane = 0; lane < lanes; ++lane) {
    least = std::min(least, x[lane]);
    most = std::max(most, x[lane]);
  }
}
}  // namespace

VectorClock::Block& VectorClock::findOrInsert(uint32_t block) {
  Chunks& all = ownChunks();
  uint32_t index = geometry_->chunkOf(block);
  auto chunk = chunkPosition(all, index);
  if (chunk == all.end() || chunk->index != index) chunk = all.insert(chunk, Chunk{index, LocalShared<Blocks>::make()});
  Blocks& blocks = ownBlocks(*chunk);
  auto it = positionOf(blocks, block);
  if (it != blocks.end() && it->id == block) return *it;
  it = blocks.insert(it, Block{block, 0, nullptr, nullptr});
  if (!geometry_->compression) expand(*it);
  return *it;
}

void VectorClock::expand(Block& block) const {
  if (block.warps) return;
  uint32_t warps = geometry_->warpsPerBlock;
  block.warps = newArray(2 * warps + 1);
  std::fill_n(block.warps.get(), warps, block.base);
  std::fill_n(block.warps.get() + warps, warps + 1, Clock(0));
  if (!geometry_->compression)
    for (uint32_t w = 0; w < warps; ++w) expandWarp(block, w);
}

void VectorClock::expandWarp(Block& block, uint32_t warp) const {
  if (warpExpanded(block, warp)) return;
  uint32_t& slots = slotCount(block);
  auto grown = newArray(32 * (slots + 1));
  if (slots) std::memcpy(grown.get(), block.lanes.get(), 32 * slots * sizeof(Clock));
  std::fill_n(grown.get() + 32 * slots, 32, block.warps[warp]);
  block.lanes = std::move(grown);
  block.warps[geometry_->warpsPerBlock + warp] = ++slots;
}

// Drops the slots of warps compressed since they were expanded.
void VectorClock::repackLanes(Block& block) const {
  uint32_t used = 0, warps = geometry_->warpsPerBlock;
  for (uint32_t w = 0; w < warps; ++w) used += warpExpanded(block, w);
  if (used == slotCount(block)) return;
  LocalSharedArray<Clock> packed;
  if (used) packed = newArray(32 * used);
  uint32_t next = 0;
  for (uint32_t w = 0; w < warps; ++w) {
    if (!warpExpanded(block, w)) continue;
    std::memcpy(packed.get() + 32 * next, lanesOf(block, w), 32 * sizeof(Clock));
    block.warps[warps + w] = ++next;
  }
  block.lanes = std::move(packed);
  slotCount(block) = used;
}

bool VectorClock::compressWarp(Block& block, uint32_t warp) const {
  if (!warpExpanded(block, warp)) return true;
  if (!geometry_->compression) return false;
  const Clock* lanes = lanesOf(block, warp);
  for (uint32_t lane = 1; lane < geometry_->lanesInWarp(warp); ++lane)
    if (lanes[lane] != lanes[0]) return false;
  block.warps[warp] = lanes[0];
  block.warps[geometry_->warpsPerBlock + warp] = 0;
  return true;
}

// Re-compression after a join: lanes of equal time fold into their warp,
// warps of equal time into their block.
void VectorClock::compress(Block& block) const {
  if (!block.warps || !geometry_->compression) return;
  own(block);
  bool uniform = true;
  for (uint32_t w = 0; w < geometry_->warpsPerBlock; ++w) {
    if (!compressWarp(block, w)) uniform = false;
    else if (block.warps[w] != block.warps[0]) uniform = false;
  }
  if (!uniform) return repackLanes(block);
  block.base = block.warps[0];
  block.warps.reset();
  block.lanes.reset();
}

void VectorClock::set(uint32_t block, uint32_t thread, Clock time) {
  if (get(block, thread) == time) return;  // (a shared list stays shared)
  Block& b = findOrInsert(block);
  expand(b);
  own(b);
  uint32_t warp = thread / 32;
  if (!warpExpanded(b, warp)) expandWarp(b, warp);
  lanesOf(b, warp)[thread % 32] = time;
}

void VectorClock::setBlock(uint32_t block, Clock time) {
  Block& b = findOrInsert(block);
  if (geometry_->compression) {
    b.warps.reset();
    b.lanes.reset();
    b.base = time;
    return;
  }
  own(b);
  std::fill_n(b.lanes.get(), 32 * slotCount(b), time);
}

void VectorClock::setWarp(uint32_t block, uint32_t warp, Clock time) {
  Block& b = findOrInsert(block);
  expand(b);
  own(b);
  if (geometry_->compression) {
    b.warps[warp] = time;
    b.warps[geometry_->warpsPerBlock + warp] = 0;
    compress(b);
    return;
  }
  std::fill_n(lanesOf(b, warp), 32, time);
}

void VectorClock::joinInto(Block& mine, const Block& other, KnownOrder known) const {
  if (!mine.warps && !other.warps) {
    mine.base = std::max(mine.base, other.base);
    return;
  }
  if (mine.warps == other.warps && mine.lanes == other.lanes) return;  // the same shared arrays
  if (!other.warps && !geometry_->compression) {
    // fall through: a compressed block only exists with compression on
  }
  // A shared block that already covers `other` stays shared. An expanded
  // block that covers ours is shared rather than copied: after a barrier
  // built from atomics (cuda::barrier, grid sync) every thread of a block
  // acquires the same lock clock, and 1024 private copies of its lane times
  // cost 1024 times the memory. (A private expanded block is joined in
  // place: no copy to save, and the check would double the work.) Both
  // questions in one walk; one not asked starts answered "no".
  bool askTheirs = mine.warps && mine.warps.use_count() > 1 && !known.theirsNotCovered;
  bool askMine = other.warps && (!mine.warps || mine.warps.use_count() > 1) && !known.mineNotCovered;
  if (askTheirs || askMine) {
    BothOrders o{askMine, askTheirs};
    blockOrders(mine, other, o);
    if (o.theirsLeq) return;
    if (o.mineLeq) {
      mine.base = other.base;
      mine.warps = other.warps;
      mine.lanes = other.lanes;
      return;
    }
  }
  expand(mine);
  own(mine);
  for (uint32_t w = 0; w < geometry_->warpsPerBlock; ++w) {
    bool otherExpanded = warpExpanded(other, w);
    if (!warpExpanded(mine, w) && !otherExpanded) {
      mine.warps[w] = std::max(mine.warps[w], other.warps ? other.warps[w] : other.base);
      continue;
    }
    expandWarp(mine, w);
    Clock* lanes = lanesOf(mine, w);
    if (otherExpanded) {
      joinFullWarp(lanes, lanesOf(other, w));
    } else {
      joinFullWarp(lanes, other.warps ? other.warps[w] : other.base);
    }
  }
  compress(mine);
}

LocalShared<VectorClock::Blocks> VectorClock::without(const LocalShared<Blocks>& chunk, uint32_t skipBlock) {
  auto it = positionOf(*chunk, skipBlock);
  if (it == chunk->end() || it->id != skipBlock) return chunk;
  if (chunk->size() == 1) return nullptr;
  auto copy = LocalShared<Blocks>::make(*chunk);
  copy->erase(copy->begin() + (it - chunk->begin()));
  return copy;
}

void VectorClock::join(const VectorClock& other, uint32_t skipBlock) {
  const Chunks& theirChunks = other.chunks();
  if (theirChunks.empty() || chunks_ == other.chunks_) return;
  // A shared list that covers `other` stays shared (chunks both hold are
  // compared by pointer: a lock's clock and its holder's differ in a chunk).
  bool shared = chunks_.use_count() > 1;
  KnownOrder known;
  if (shared && skipBlock == UINT32_MAX) {
    BothOrders o = orders(other);
    if (o.theirsLeq) return;
    if (o.mineLeq) {  // the join is `other`: shared, not built
      *this = other;
      return;
    }
    // (so a chunk of each is not covered by the other's, and when each has
    // one, the same, those two)
    bool oneChunkEach = theirChunks.size() == 1 && chunks_->size() == 1 && (*chunks_)[0].index == theirChunks[0].index;
    known = {theirChunks.size() == 1, oneChunkEach};
  } else if (shared) {
    if (other.leqImpl(*this, UINT32_MAX, 0, 0, skipBlock)) return;
    known = {theirChunks.size() == 1, false};  // (as above, for `other` only)
  }
  if (empty() && (skipBlock == UINT32_MAX || !other.find(skipBlock))) {
    *this = other;
    return;
  }
  Chunks& mine = ownChunks();
  size_t i = 0;
  if (holdsEvery(mine, theirChunks, [](const Chunk& c) { return c.index; })) {
    for (const Chunk& theirs : theirChunks) {
      while (mine[i].index < theirs.index) ++i;
      joinChunk(mine[i], theirs, skipBlock, known);
    }
    return;
  }
  Chunks merged;
  merged.reserve(mine.size() + theirChunks.size());
  for (const Chunk& theirs : theirChunks) {
    while (i < mine.size() && mine[i].index < theirs.index) merged.push_back(std::move(mine[i++]));
    if (i < mine.size() && mine[i].index == theirs.index) {
      joinChunk(mine[i], theirs, skipBlock);
      merged.push_back(std::move(mine[i++]));
    } else if (auto kept = without(theirs.blocks, skipBlock)) {
      merged.push_back(Chunk{theirs.index, std::move(kept)});
    }
  }
  while (i < mine.size()) merged.push_back(std::move(mine[i++]));
  mine = std::move(merged);
}

void VectorClock::joinChunk(Chunk& mine, const Chunk& theirs, uint32_t skipBlock, KnownOrder known) const {
  if (mine.blocks == theirs.blocks) return;
  // A shared chunk that covers `theirs` stays shared; one that `theirs`
  // covers is shared rather than copied (the lock holder's clock joined into
  // the lock's, when nothing else released it since). A private chunk is
  // joined in place: no copy to save, and the checks would double the work.
  if (mine.blocks.use_count() > 1) {
    if (!known.theirsNotCovered && blocksLeq(*theirs.blocks, *mine.blocks, UINT32_MAX, 0, 0, skipBlock)) return;
    known.theirsNotCovered = true;
    bool skipHere = skipBlock != UINT32_MAX && geometry_->chunkOf(skipBlock) == mine.index;
    // (a chunk with blocks `theirs` lacks is rarely covered: not worth a walk)
    if (!skipHere && !known.mineNotCovered && theirs.blocks->size() >= mine.blocks->size()) {
      if (blocksLeq(*mine.blocks, *theirs.blocks, UINT32_MAX, 0, 0, UINT32_MAX)) {
        mine.blocks = theirs.blocks;
        return;
      }
      known.mineNotCovered = true;
    }
  }
  // One block each, the same: what held for the chunks holds for the blocks.
  bool sameBlock = mine.blocks->size() == 1 && theirs.blocks->size() == 1 &&
                   (*mine.blocks)[0].id == (*theirs.blocks)[0].id;
  joinBlocks(ownBlocks(mine), *theirs.blocks, skipBlock, sameBlock ? known : KnownOrder{});
}

void VectorClock::joinBlocks(Blocks& blocks, const Blocks& theirList, uint32_t skipBlock, KnownOrder known) const {
  size_t i = 0;
  if (holdsEvery(blocks, theirList, [](const Block& b) { return b.id; }, skipBlock)) {
    for (const Block& theirs : theirList) {
      if (theirs.id == skipBlock) continue;
      while (blocks[i].id < theirs.id) ++i;
      joinInto(blocks[i], theirs, known);
    }
    return;
  }
  Blocks merged;
  merged.reserve(blocks.size() + theirList.size());
  size_t j = 0;
  while (i < blocks.size() || j < theirList.size()) {
    if (j == theirList.size() || (i < blocks.size() && blocks[i].id < theirList[j].id)) {
      merged.push_back(std::move(blocks[i++]));
    } else if (i == blocks.size() || theirList[j].id < blocks[i].id) {
      if (theirList[j].id != skipBlock) merged.push_back(theirList[j]);
      ++j;
    } else {
      if (theirList[j].id != skipBlock) joinInto(blocks[i], theirList[j]);
      ++j;
      merged.push_back(std::move(blocks[i++]));
    }
  }
  blocks = std::move(merged);
}

void VectorClock::prefetch(int level) const {
  const Chunks* chunks = chunks_.get();
  if (!chunks) return;
  if (level == 0) return __builtin_prefetch(chunks, 1);  // (a clock replaced whole writes its count)
  const Blocks* blocks = chunks->empty() ? nullptr : chunks->front().blocks.get();
  if (!blocks) return;
  if (level == 1) return __builtin_prefetch(blocks);  // (reads nothing of it: level 2 does)
  if (blocks->empty()) return;
  const Block& first = blocks->front();
  if (first.warps) __builtin_prefetch(first.warps.get());
  // (up to four warps' lanes: a block of 128 threads whose warps all expanded)
  const char* lanes = reinterpret_cast<const char*>(first.lanes.get());
  for (int line = 0; lanes && line < 8; ++line) __builtin_prefetch(lanes + 64 * line);
}

bool VectorClock::leq(const VectorClock& other) const { return leqImpl(other, UINT32_MAX, 0, 0, UINT32_MAX); }

bool VectorClock::leq(const VectorClock& other, uint32_t exceptBlock, uint32_t exceptThread, Clock time) const {
  return leqImpl(other, exceptBlock, exceptThread, time, UINT32_MAX);
}

VectorClock::BothOrders VectorClock::orders(const VectorClock& other) const {
  static const Blocks kNoBlocks;
  BothOrders o;
  if (chunks_ == other.chunks_) return o;
  const Chunks& mine = chunks();
  const Chunks& theirs = other.chunks();
  size_t i = 0, j = 0;
  while ((i < mine.size() || j < theirs.size()) && o.any()) {
    bool mineFirst = j == theirs.size() || (i < mine.size() && mine[i].index < theirs[j].index);
    bool theirsFirst = i == mine.size() || (j < theirs.size() && theirs[j].index < mine[i].index);
    if (o.skips(mineFirst, theirsFirst)) {
      mineFirst ? ++i : ++j;
      continue;
    }
    const Blocks& a = theirsFirst ? kNoBlocks : *mine[i++].blocks;
    const Blocks& b = mineFirst ? kNoBlocks : *theirs[j++].blocks;
    if (&a != &b) blocksOrders(a, b, o);
  }
  return o;
}

void VectorClock::blocksOrders(const Blocks& mine, const Blocks& theirs, BothOrders& o) const {
  static const Block kEmpty{};
  size_t i = 0, j = 0;
  while ((i < mine.size() || j < theirs.size()) && o.any()) {
    bool mineFirst = j == theirs.size() || (i < mine.size() && mine[i].id < theirs[j].id);
    bool theirsFirst = i == mine.size() || (j < theirs.size() && theirs[j].id < mine[i].id);
    if (o.skips(mineFirst, theirsFirst)) {
      mineFirst ? ++i : ++j;
      continue;
    }
    const Block& a = theirsFirst ? kEmpty : mine[i++];
    const Block& b = mineFirst ? kEmpty : theirs[j++];
    blockOrders(a, b, o);
  }
}

void VectorClock::blockOrders(const Block& a, const Block& b, BothOrders& o) const {
  if (a.base == b.base && a.warps == b.warps && a.lanes == b.lanes) return;  // the same entry (shared arrays)
  if (!a.warps && !b.warps) {
    o.mineLeq &= a.base <= b.base;
    o.theirsLeq &= b.base <= a.base;
    return;
  }
  // (raw arrays: this walk is a tenth of gwcp on per-lane locks)
  const uint32_t warps = geometry_->warpsPerBlock;
  const Clock *aw = a.warps.get(), *bw = b.warps.get(), *al = a.lanes.get(), *bl = b.lanes.get();
  for (uint32_t w = 0; w < warps && o.any(); ++w) {
    uint32_t aSlot = aw ? aw[warps + w] : 0, bSlot = bw ? bw[warps + w] : 0;  // slot + 1, 0: uniform
    uint32_t lanes = geometry_->lanesInWarp(w);
    if (aSlot && bSlot) {
      LaneOrder lo = compareLanes(al + (aSlot - 1) * 32, bl + (bSlot - 1) * 32, lanes);
      o.mineLeq &= !lo.above;
      o.theirsLeq &= !lo.below;
      continue;
    }
    // (one side uniform, or both: its time against the other's least and most)
    Clock aLeast = aw ? aw[w] : a.base, aMost = aLeast, bLeast = bw ? bw[w] : b.base, bMost = bLeast;
    if (aSlot) laneRange(al + (aSlot - 1) * 32, lanes, aLeast, aMost);
    if (bSlot) laneRange(bl + (bSlot - 1) * 32, lanes, bLeast, bMost);
    o.mineLeq &= aMost <= bLeast;
    o.theirsLeq &= bMost <= aLeast;
  }
}

bool VectorClock::leqImpl(const VectorClock& other, uint32_t exceptBlock, uint32_t exceptThread, Clock time,
                          uint32_t skipBlock) const {
  static const Blocks kNoBlocks;
  if (chunks_ == other.chunks_ && exceptBlock == UINT32_MAX) return true;
  // Both lists are sorted: one walk, no search per chunk or block.
  const Chunks& theirChunks = other.chunks();
  size_t j = 0;
  for (const Chunk& mine : chunks()) {
    while (j < theirChunks.size() && theirChunks[j].index < mine.index) ++j;
    bool found = j < theirChunks.size() && theirChunks[j].index == mine.index;
    const Blocks& theirs = found ? *theirChunks[j].blocks : kNoBlocks;
    bool special = exceptBlock != UINT32_MAX && geometry_->chunkOf(exceptBlock) == mine.index;
    if (&theirs == mine.blocks.get() && !special) continue;  // the same chunk
    if (!blocksLeq(*mine.blocks, theirs, exceptBlock, exceptThread, time, skipBlock)) return false;
  }
  return true;
}

bool VectorClock::lanesLeq(const Block& mine, const Block& theirs, uint32_t w, uint32_t lanes) const {
  const Clock* a = warpExpanded(mine, w) ? lanesOf(mine, w) : nullptr;
  const Clock* b = warpExpanded(theirs, w) ? lanesOf(theirs, w) : nullptr;
  if (a && b) return !compareLanes(a, b, lanes).above;
  Clock least, most;
  if (a) {
    laneRange(a, lanes, least, most);
    return most <= timeOf(theirs, w, 0);
  }
  laneRange(b, lanes, least, most);
  return timeOf(mine, w, 0) <= least;
}

bool VectorClock::blocksLeq(const Blocks& mineList, const Blocks& theirList, uint32_t exceptBlock,
                            uint32_t exceptThread, Clock time, uint32_t skipBlock) const {
  static const Block kEmpty{};
  size_t j = 0;
  for (const Block& mine : mineList) {
    if (mine.id == skipBlock) continue;
    while (j < theirList.size() && theirList[j].id < mine.id) ++j;
    bool found = j < theirList.size() && theirList[j].id == mine.id;
    const Block& theirs = found ? theirList[j] : kEmpty;
    bool special = mine.id == exceptBlock;
    if (found && !special && mine.base == theirs.base && mine.warps == theirs.warps && mine.lanes == theirs.lanes)
      continue;  // the same entry (shared arrays)
    auto theirsAt = [&](uint32_t w, uint32_t lane) {
      if (special && w * 32 + lane == exceptThread) return time;
      return timeOf(theirs, w, lane);
    };
    if (!mine.warps && !theirs.warps && !special) {
      if (mine.base > theirs.base) return false;
      continue;
    }
    for (uint32_t w = 0; w < geometry_->warpsPerBlock; ++w) {
      bool mineUniform = !warpExpanded(mine, w);
      bool specialWarp = special && exceptThread / 32 == w;
      bool theirsUniform = !warpExpanded(theirs, w) && !specialWarp;
      if (mineUniform && theirsUniform) {
        if (timeOf(mine, w, 0) > theirsAt(w, 0)) return false;
        continue;
      }
      uint32_t lanes = geometry_->lanesInWarp(w);
      if (specialWarp) {
        for (uint32_t lane = 0; lane < lanes; ++lane)
          if (timeOf(mine, w, lane) > theirsAt(w, lane)) return false;
        continue;
      }
      // The hot case (lock clocks against holders' clocks): plain loops over
      // the lane arrays, no per-lane branch on how each side is stored.
      if (!lanesLeq(mine, theirs, w, lanes)) return false;
    }
  }
  return true;
}

uint64_t VectorClock::bytes() const {
  // A shared array, chunk or index counts for its share (so each is counted
  // once in all).
  if (!chunks_) return 0;
  uint64_t total = chunks_->capacity() * sizeof(Chunk);
  for (const Chunk& chunk : *chunks_) {
    uint64_t& held = chunk.blocks->heldBytes;
    if (held == Blocks::kUnmeasured) {
      held = chunk.blocks->capacity() * sizeof(Block);
      for (const Block& block : *chunk.blocks) {
        if (block.warps) held += (2 * geometry_->warpsPerBlock + 1) * sizeof(Clock) / block.warps.use_count();
        if (block.lanes) held += 32 * slotCount(block) * sizeof(Clock) / block.lanes.use_count();
      }
    }
    total += held / chunk.blocks.use_count();
  }
  return total / chunks_.use_count();
}

}  // namespace predatar
