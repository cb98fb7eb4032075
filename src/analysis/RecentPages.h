// Pages reached lately, by page number modulo the slots, in front of a
// shadow's hash map (ShadowPages, LocksetShadow, WordPages): a warp whose
// lanes access a column (wmma.load of a column-major fragment, a transposing
// kernel, needle's tiles) reaches a page a lane, and a map lookup a lane was
// 6% of a tensor-core GEMM under gwcp and a fifth of lockset's time on needle
// (with its new pages). The owner forgets a page it frees or moves (and clears all
// when it empties): a slot's page stays where it is until then.
#pragma once

#include <array>
#include <cstdint>

namespace predatar {

template <class Page>
class RecentPages {
 public:
  static constexpr uint32_t kSlots = 64;

  // Page `pageNo`, when its slot holds it; else nullptr.
  Page* find(uint64_t pageNo) const {
    const Slot& slot = slots_[pageNo % kSlots];
    return slot.pageNo == pageNo ? slot.page : nullptr;
  }
  void remember(uint64_t pageNo, Page* page) { slots_[pageNo % kSlots] = Slot{pageNo, page}; }
  void forget(uint64_t pageNo) {
    if (Slot& slot = slots_[pageNo % kSlots]; slot.pageNo == pageNo) slot = {};
  }
  void clear() { slots_.fill(Slot{}); }

 private:
  struct Slot {
    uint64_t pageNo = UINT64_MAX;
    Page* page = nullptr;
  };
  std::array<Slot, kSlots> slots_{};
};

}  // namespace predatar
