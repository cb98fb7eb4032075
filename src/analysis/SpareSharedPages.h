// Finished blocks' shared-memory pages, kept for the next block's page at
// the same offset of its shared memory (ShadowPages, LocksetShadow), emptied
// by their owner but for their words' heap blocks: blocks lay out their
// shared memory alike, so the words that several threads read (a stencil's
// tile, its halo) need the same room again. Freeing them at every block's end
// and growing them again, 1, 2, 4, 8 records, cost a run of a Jacobi step
// with a shared tile (20 launches of 320x240) 9% of gwcp's instructions, and
// lockset's on hotspot 1.7% of its own.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

namespace predatar {

template <class Page, uint32_t PageShift>
class SpareSharedPages {
 public:
  // A page number's index in its block's shared memory (the key's low 32 bits
  // are the word: locationKey), for the first 256 KiB of it.
  static constexpr uint64_t kIndexMask = (uint64_t(1) << (32 - PageShift)) - 1;
  static constexpr uint64_t kOffsets = (256 << 10) / 4 / (uint64_t(1) << PageShift);

  // The page kept for `pageNo`'s offset, or nullptr.
  std::unique_ptr<Page> take(uint64_t pageNo) {
    uint64_t i = pageNo & kIndexMask;
    if (i >= spare_.size() || !spare_[i]) return nullptr;
    --pages_;
    return std::move(spare_[i]);
  }
  // Keeps `page` for `pageNo`'s offset, after empty(page), unless one is
  // kept there already or the offset is beyond what is kept: then `page`
  // stays the caller's, as it was (to free). True when kept. (One page an
  // offset: a stack of them for the blocks that finish about together made
  // gwcp's hotspot run 3% longer, emptying pages more than growing words.)
  template <class Empty>
  bool keep(uint64_t pageNo, std::unique_ptr<Page>& page, Empty&& empty) {
    uint64_t i = pageNo & kIndexMask;
    if (i >= kOffsets) return false;
    if (i >= spare_.size()) spare_.resize(i + 1);
    if (spare_[i]) return false;
    empty(*page);
    spare_[i] = std::move(page);
    ++pages_;
    return true;
  }
  void clear() {
    spare_.clear();
    pages_ = 0;
  }
  uint64_t bytes() const { return spare_.capacity() * sizeof(void*) + pages_ * sizeof(Page); }

 private:
  std::vector<std::unique_ptr<Page>> spare_;  // by offset
  uint64_t pages_ = 0;
};

}  // namespace predatar
