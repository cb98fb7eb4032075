// Blocks whose threads have all exited. Shared memory belongs to one block, so
// once a block has finished no access can ever race with what its shared
// memory's shadow records: the detectors drop that shadow, and their memory
// follows the blocks resident at once (the emulator runs a grid in waves, as
// a GPU does) instead of the grid.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <vector>

#include "events/Event.h"

namespace predatar {

class FinishedBlocks {
 public:
  void reset(const KernelInfo& kernel) {
    threadsPerBlock_ = kernel.threadsPerBlock();
    exited_.assign(kernel.numBlocks(), 0);
    maxSharedWord_ = 0;
    anyShared_ = false;
  }
  // Notes a shadow key (AccessHistory's locationKey) that was used.
  void used(uint64_t key) {
    if (!(key >> 63)) return;
    anyShared_ = true;
    maxSharedWord_ = std::max(maxSharedWord_, uint32_t(key));
  }
  uint32_t threadsPerBlock() const { return threadsPerBlock_; }
  // Threads of the block that have exited.
  uint32_t exitedIn(uint32_t block) const { return block < exited_.size() ? exited_[block] : 0; }
  // Every thread of the block has exited.
  bool finished(uint32_t block) const { return block < exited_.size() && exited_[block] >= threadsPerBlock_; }
  // Whether some block that used shared memory may still have records of it:
  // a block that did not finish (a launch that stopped early) keeps them.
  bool sharedMayRemain() const {
    return anyShared_ && std::any_of(exited_.begin(), exited_.end(), [&](uint32_t n) { return n < threadsPerBlock_; });
  }
  // True when `event` is the exit of the block's last thread.
  bool finishes(const ExitEvent& event) {
    uint32_t b = event.lanes.block;
    if (b >= exited_.size()) return false;
    exited_[b] += uint32_t(std::popcount(event.lanes.mask));
    return exited_[b] >= threadsPerBlock_;
  }
  // Erases the block's shared words from `shadow` (a map keyed by locationKey);
  // `dropped(records)` sees each erased entry first.
  template <class Map, class F>
  void dropShared(Map& shadow, uint32_t block, F&& dropped) const {
    if (!anyShared_ || shadow.empty()) return;
    uint64_t base = (uint64_t(1) << 63) | (uint64_t(block) << 32);
    for (uint64_t word = 0; word <= maxSharedWord_; ++word) {
      auto it = shadow.find(base | word);
      if (it == shadow.end()) continue;
      dropped(it->second);
      shadow.erase(it);
    }
  }
  // The same for ShadowPages (a page of words at a time).
  template <class Shadow, class F>
  void dropSharedPages(Shadow& shadow, uint32_t block, bool keepPages, F&& dropped) const {
    if (!anyShared_ || shadow.empty()) return;
    uint64_t base = (uint64_t(1) << 63) | (uint64_t(block) << 32);
    shadow.erase(base, base | maxSharedWord_, dropped, keepPages);
  }

 private:
  uint32_t threadsPerBlock_ = 1;
  std::vector<uint32_t> exited_;
  uint32_t maxSharedWord_ = 0;
  bool anyShared_ = false;
};

}  // namespace predatar
