#include "clock/VectorClock.h"

#include <algorithm>
#include <cstring>

namespace predatar {

VectorClock::Block VectorClock::copy(const Block& block) const {
  Block result{block.id, block.base, nullptr};
  if (block.warps) {
    result.warps = std::make_unique<Warp[]>(geometry_->warpsPerBlock);
    for (uint32_t w = 0; w < geometry_->warpsPerBlock; ++w) {
      result.warps[w].base = block.warps[w].base;
      if (block.warps[w].lanes) {
        result.warps[w].lanes = std::make_unique<Clock[]>(32);
        std::memcpy(result.warps[w].lanes.get(), block.warps[w].lanes.get(), 32 * sizeof(Clock));
      }
    }
  }
  return result;
}

VectorClock& VectorClock::operator=(const VectorClock& other) {
  if (this == &other) return *this;
  geometry_ = other.geometry_;
  blocks_.clear();
  blocks_.reserve(other.blocks_.size());
  for (const Block& block : other.blocks_) blocks_.push_back(copy(block));
  return *this;
}

VectorClock::Block* VectorClock::find(uint32_t block) {
  auto it = std::lower_bound(blocks_.begin(), blocks_.end(), block,
                             [](const Block& b, uint32_t id) { return b.id < id; });
  return it != blocks_.end() && it->id == block ? &*it : nullptr;
}

const VectorClock::Block* VectorClock::find(uint32_t block) const {
  return const_cast<VectorClock*>(this)->find(block);
}

VectorClock::Block& VectorClock::findOrInsert(uint32_t block) {
  auto it = std::lower_bound(blocks_.begin(), blocks_.end(), block,
                             [](const Block& b, uint32_t id) { return b.id < id; });
  if (it != blocks_.end() && it->id == block) return *it;
  it = blocks_.insert(it, Block{block, 0, nullptr});
  if (!geometry_->compression) expand(*it);
  return *it;
}

void VectorClock::expand(Block& block) const {
  if (block.warps) return;
  block.warps = std::make_unique<Warp[]>(geometry_->warpsPerBlock);
  for (uint32_t w = 0; w < geometry_->warpsPerBlock; ++w) {
    block.warps[w].base = block.base;
    if (!geometry_->compression) expand(block.warps[w]);
  }
}

void VectorClock::expand(Warp& warp) const {
  if (warp.lanes) return;
  warp.lanes = std::make_unique<Clock[]>(32);
  std::fill_n(warp.lanes.get(), 32, warp.base);
}

bool VectorClock::compress(Warp& warp, uint32_t lanes) const {
  if (!warp.lanes) return true;
  if (!geometry_->compression) return false;
  Clock first = warp.lanes[0];
  for (uint32_t lane = 1; lane < lanes; ++lane)
    if (warp.lanes[lane] != first) return false;
  warp.base = first;
  warp.lanes.reset();
  return true;
}

// Re-compression after a join: lanes of equal time fold into their warp,
// warps of equal time into their block.
void VectorClock::compress(Block& block) const {
  if (!block.warps || !geometry_->compression) return;
  bool uniform = true;
  for (uint32_t w = 0; w < geometry_->warpsPerBlock; ++w) {
    if (!compress(block.warps[w], geometry_->lanesInWarp(w))) uniform = false;
    else if (block.warps[w].base != block.warps[0].base) uniform = false;
  }
  if (!uniform) return;
  block.base = block.warps[0].base;
  block.warps.reset();
}

Clock VectorClock::get(uint32_t block, uint32_t thread) const {
  const Block* b = find(block);
  if (!b) return 0;
  if (!b->warps) return b->base;
  return warpTime(b->warps[thread / 32], thread % 32);
}

void VectorClock::set(uint32_t block, uint32_t thread, Clock time) {
  Block& b = findOrInsert(block);
  if (!b.warps) {
    if (b.base == time) return;
    expand(b);
  }
  Warp& warp = b.warps[thread / 32];
  if (!warp.lanes) {
    if (warp.base == time) return;
    expand(warp);
  }
  warp.lanes[thread % 32] = time;
}

void VectorClock::setBlock(uint32_t block, Clock time) {
  Block& b = findOrInsert(block);
  if (geometry_->compression) {
    b.warps.reset();
    b.base = time;
    return;
  }
  for (uint32_t w = 0; w < geometry_->warpsPerBlock; ++w)
    std::fill_n(b.warps[w].lanes.get(), 32, time);
}

void VectorClock::setWarp(uint32_t block, uint32_t warp, Clock time) {
  Block& b = findOrInsert(block);
  expand(b);
  Warp& w = b.warps[warp];
  if (geometry_->compression) {
    w.lanes.reset();
    w.base = time;
    compress(b);
    return;
  }
  std::fill_n(w.lanes.get(), 32, time);
}

void VectorClock::joinInto(Warp& mine, const Warp& other) const {
  if (!mine.lanes && !other.lanes) {
    mine.base = std::max(mine.base, other.base);
    return;
  }
  expand(mine);
  for (uint32_t lane = 0; lane < 32; ++lane)
    mine.lanes[lane] = std::max(mine.lanes[lane], warpTime(other, lane));
}

void VectorClock::joinInto(Block& mine, const Block& other) const {
  if (!mine.warps && !other.warps) {
    mine.base = std::max(mine.base, other.base);
    return;
  }
  if (!other.warps) {
    Warp uniform{other.base, nullptr};
    for (uint32_t w = 0; w < geometry_->warpsPerBlock; ++w) joinInto(mine.warps[w], uniform);
  } else {
    expand(mine);
    for (uint32_t w = 0; w < geometry_->warpsPerBlock; ++w) joinInto(mine.warps[w], other.warps[w]);
  }
  compress(mine);
}

void VectorClock::join(const VectorClock& other) {
  if (other.blocks_.empty()) return;
  if (blocks_.empty()) {
    *this = other;
    return;
  }
  // Common case: every block of `other` is already here; join in place.
  size_t i = 0;
  bool subset = true;
  for (const Block& theirs : other.blocks_) {
    while (i < blocks_.size() && blocks_[i].id < theirs.id) ++i;
    if (i == blocks_.size() || blocks_[i].id != theirs.id) {
      subset = false;
      break;
    }
  }
  if (subset) {
    i = 0;
    for (const Block& theirs : other.blocks_) {
      while (blocks_[i].id < theirs.id) ++i;
      joinInto(blocks_[i], theirs);
    }
    return;
  }
  std::vector<Block> merged;
  merged.reserve(blocks_.size() + other.blocks_.size());
  i = 0;
  size_t j = 0;
  while (i < blocks_.size() || j < other.blocks_.size()) {
    if (j == other.blocks_.size() || (i < blocks_.size() && blocks_[i].id < other.blocks_[j].id)) {
      merged.push_back(std::move(blocks_[i++]));
    } else if (i == blocks_.size() || other.blocks_[j].id < blocks_[i].id) {
      merged.push_back(copy(other.blocks_[j++]));
    } else {
      joinInto(blocks_[i], other.blocks_[j++]);
      merged.push_back(std::move(blocks_[i++]));
    }
  }
  blocks_ = std::move(merged);
}

bool VectorClock::leq(const VectorClock& other) const { return leq(other, UINT32_MAX, 0, 0); }

bool VectorClock::leq(const VectorClock& other, uint32_t exceptBlock, uint32_t exceptThread, Clock time) const {
  static const Block kEmpty{};
  for (const Block& mine : blocks_) {
    const Block* found = other.find(mine.id);
    const Block& theirs = found ? *found : kEmpty;
    bool special = mine.id == exceptBlock;
    auto mineAt = [&](uint32_t w, uint32_t lane) { return mine.warps ? warpTime(mine.warps[w], lane) : mine.base; };
    auto theirsAt = [&](uint32_t w, uint32_t lane) {
      if (special && w * 32 + lane == exceptThread) return time;
      return theirs.warps ? warpTime(theirs.warps[w], lane) : theirs.base;
    };
    if (!mine.warps && !theirs.warps && !special) {
      if (mine.base > theirs.base) return false;
      continue;
    }
    for (uint32_t w = 0; w < geometry_->warpsPerBlock; ++w) {
      bool mineUniform = !mine.warps || !mine.warps[w].lanes;
      bool theirsUniform = (!theirs.warps || !theirs.warps[w].lanes) && !(special && exceptThread / 32 == w);
      if (mineUniform && theirsUniform) {
        if (mineAt(w, 0) > theirsAt(w, 0)) return false;
        continue;
      }
      for (uint32_t lane = 0; lane < geometry_->lanesInWarp(w); ++lane)
        if (mineAt(w, lane) > theirsAt(w, lane)) return false;
    }
  }
  return true;
}

uint64_t VectorClock::bytes() const {
  uint64_t total = blocks_.capacity() * sizeof(Block);
  for (const Block& block : blocks_) {
    if (!block.warps) continue;
    total += geometry_->warpsPerBlock * sizeof(Warp);
    for (uint32_t w = 0; w < geometry_->warpsPerBlock; ++w)
      if (block.warps[w].lanes) total += 32 * sizeof(Clock);
  }
  return total;
}

}  // namespace predatar
