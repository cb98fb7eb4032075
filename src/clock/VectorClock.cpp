#include "clock/VectorClock.h"

#include <algorithm>
#include <cstring>

namespace predatar {

namespace {

std::shared_ptr<Clock[]> newArray(size_t n) { return std::make_shared_for_overwrite<Clock[]>(n); }

std::shared_ptr<Clock[]> copyOf(const std::shared_ptr<Clock[]>& from, size_t n) {
  auto copy = newArray(n);
  std::memcpy(copy.get(), from.get(), n * sizeof(Clock));
  return copy;
}

}  // namespace

void VectorClock::own(Block& block) const {
  if (block.warps && block.warps.use_count() > 1) block.warps = copyOf(block.warps, 2 * geometry_->warpsPerBlock + 1);
  if (block.lanes && block.lanes.use_count() > 1) block.lanes = copyOf(block.lanes, 32 * slotCount(block));
}

VectorClock& VectorClock::operator=(const VectorClock& other) {
  if (this == &other) return *this;
  geometry_ = other.geometry_;
  blocks_ = other.blocks_;  // shares the list, and so every block's arrays
  return *this;
}

const std::vector<VectorClock::Block>& VectorClock::list() const {
  static const std::vector<Block> kNoBlocks;
  return blocks_ ? *blocks_ : kNoBlocks;
}

std::vector<VectorClock::Block>& VectorClock::ownList() {
  if (!blocks_) blocks_ = std::make_shared<std::vector<Block>>();
  else if (blocks_.use_count() > 1) blocks_ = std::make_shared<std::vector<Block>>(*blocks_);
  return *blocks_;
}

namespace {
// Where `block`'s entry is, or goes, in a list sorted by id.
template <class Blocks>
auto positionOf(Blocks& blocks, uint32_t block) {
  return std::lower_bound(blocks.begin(), blocks.end(), block, [](const auto& b, uint32_t id) { return b.id < id; });
}
}  // namespace

const VectorClock::Block* VectorClock::find(uint32_t block) const {
  const auto& blocks = list();
  auto it = positionOf(blocks, block);
  return it != blocks.end() && it->id == block ? &*it : nullptr;
}

VectorClock::Block& VectorClock::findOrInsert(uint32_t block) {
  auto& blocks = ownList();
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
  std::shared_ptr<Clock[]> packed;
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

Clock VectorClock::get(uint32_t block, uint32_t thread) const {
  const Block* b = find(block);
  if (!b) return 0;
  return timeOf(*b, thread / 32, thread % 32);
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

// Pointwise <= of one block's entries.
bool VectorClock::blockLeq(const Block& mine, const Block& other) const {
  if (!mine.warps && !other.warps) return mine.base <= other.base;
  for (uint32_t w = 0; w < geometry_->warpsPerBlock; ++w) {
    if (!warpExpanded(mine, w) && !warpExpanded(other, w)) {
      if (timeOf(mine, w, 0) > timeOf(other, w, 0)) return false;
      continue;
    }
    for (uint32_t lane = 0; lane < geometry_->lanesInWarp(w); ++lane)
      if (timeOf(mine, w, lane) > timeOf(other, w, lane)) return false;
  }
  return true;
}

void VectorClock::joinInto(Block& mine, const Block& other) const {
  if (!mine.warps && !other.warps) {
    mine.base = std::max(mine.base, other.base);
    return;
  }
  if (mine.warps == other.warps && mine.lanes == other.lanes) return;  // the same shared arrays
  if (!other.warps && !geometry_->compression) {
    // fall through: a compressed block only exists with compression on
  }
  // A shared block that already covers `other` stays shared.
  if (mine.warps && mine.warps.use_count() > 1 && blockLeq(other, mine)) return;
  // An expanded block that covers ours is shared rather than copied: after a
  // barrier built from atomics (cuda::barrier, grid sync) every thread of a
  // block acquires the same lock clock, and 1024 private copies of its lane
  // times cost 1024 times the memory. (A private expanded block is joined in
  // place: no copy to save, and the check would double the work.)
  if (other.warps && (!mine.warps || mine.warps.use_count() > 1) && blockLeq(mine, other)) {
    mine.base = other.base;
    mine.warps = other.warps;
    mine.lanes = other.lanes;
    return;
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
      const Clock* theirs = lanesOf(other, w);
      for (uint32_t lane = 0; lane < 32; ++lane) lanes[lane] = std::max(lanes[lane], theirs[lane]);
    } else {
      Clock theirs = other.warps ? other.warps[w] : other.base;
      for (uint32_t lane = 0; lane < 32; ++lane) lanes[lane] = std::max(lanes[lane], theirs);
    }
  }
  compress(mine);
}

void VectorClock::join(const VectorClock& other, uint32_t skipBlock) {
  const auto& theirList = other.list();
  if (theirList.empty() || blocks_ == other.blocks_) return;
  if (empty()) {
    *this = other;
    return;
  }
  // Common case: every block of `other` is already here; join in place.
  const auto& mineList = list();
  size_t i = 0;
  bool subset = true;
  for (const Block& theirs : theirList) {
    if (theirs.id == skipBlock) continue;
    while (i < mineList.size() && mineList[i].id < theirs.id) ++i;
    if (i == mineList.size() || mineList[i].id != theirs.id) {
      subset = false;
      break;
    }
  }
  // A shared list that covers `other` stays shared.
  if (subset && blocks_.use_count() > 1 && other.leqImpl(*this, UINT32_MAX, 0, 0, skipBlock)) return;
  auto& blocks = ownList();
  if (subset) {
    i = 0;
    for (const Block& theirs : theirList) {
      if (theirs.id == skipBlock) continue;
      while (blocks[i].id < theirs.id) ++i;
      joinInto(blocks[i], theirs);
    }
    return;
  }
  std::vector<Block> merged;
  merged.reserve(blocks.size() + theirList.size());
  i = 0;
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

bool VectorClock::leq(const VectorClock& other) const { return leqImpl(other, UINT32_MAX, 0, 0, UINT32_MAX); }

bool VectorClock::leq(const VectorClock& other, uint32_t exceptBlock, uint32_t exceptThread, Clock time) const {
  return leqImpl(other, exceptBlock, exceptThread, time, UINT32_MAX);
}

bool VectorClock::leqImpl(const VectorClock& other, uint32_t exceptBlock, uint32_t exceptThread, Clock time,
                          uint32_t skipBlock) const {
  static const Block kEmpty{};
  if (blocks_ == other.blocks_ && exceptBlock == UINT32_MAX) return true;
  // Both lists are sorted by block: one walk, no search per block.
  const auto& theirList = other.list();
  size_t j = 0;
  for (const Block& mine : list()) {
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
      bool theirsUniform = !warpExpanded(theirs, w) && !(special && exceptThread / 32 == w);
      if (mineUniform && theirsUniform) {
        if (timeOf(mine, w, 0) > theirsAt(w, 0)) return false;
        continue;
      }
      for (uint32_t lane = 0; lane < geometry_->lanesInWarp(w); ++lane)
        if (timeOf(mine, w, lane) > theirsAt(w, lane)) return false;
    }
  }
  return true;
}

uint64_t VectorClock::bytes() const {
  // A shared array counts for its share (so shared arrays are counted once in all).
  // (and a shared list for its share of the list and of what it holds).
  if (!blocks_) return 0;
  uint64_t total = blocks_->capacity() * sizeof(Block);
  for (const Block& block : *blocks_) {
    if (block.warps) total += (2 * geometry_->warpsPerBlock + 1) * sizeof(Clock) / block.warps.use_count();
    if (block.lanes) total += 32 * slotCount(block) * sizeof(Clock) / block.lanes.use_count();
  }
  return total / blocks_.use_count();
}

}  // namespace predatar
