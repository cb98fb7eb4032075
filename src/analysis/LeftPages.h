// When a full shadow page is tried for compression: the schedule gwcp's
// ShadowPages and lockset's LocksetShadow share (each with its own fit).
//
// A page left behind (another page visited) is tried only after `window`
// more pages were left, if it was not touched in between: an instruction's
// accesses alternate between a few pages (a warp's lanes span two, its next
// instructions other arrays, then the same ones again), and compressing each
// at once expanded it again at the next event (a third of scan's detector
// time under gwcp).
// A page that fits no pattern backs off exponentially, 1, 3, 7 ... 63 leaves
// before its next try: a page that fits nothing (a word read by several
// warps) is left again and again, and trying each time cost a tenth of a
// launch-heavy program's analysis (jacobiCudaGraphs: 13M failed fits); one
// that fits later (its last word's record came) is compressed a little later.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <optional>

namespace predatar {

class LeftPages {
 public:
  static constexpr uint32_t kMaxWindow = 64;

  // What a page keeps of the schedule.
  struct State {
    uint64_t leftAt = 0;  // the leave count when last left (0: never)
    uint8_t failedFits = 0;  // in a row
    uint16_t leavesBeforeTry = 0;
  };
  struct Left {
    uint64_t pageNo = 0;
    uint64_t leftAt = 0;
  };

  // `window`: rounded down to a power of two, at most kMaxWindow; 0 never
  // offers a page.
  explicit LeftPages(uint32_t window) : window_(std::bit_floor(std::min(window, kMaxWindow))) {}
  bool never() const { return window_ == 0; }

  // Page `pageNo`, whose state is `page`, is left now. Returns the page left
  // `window` leaves before, to try if its state's leftAt still equals the
  // returned one (nothing touched it since), or nothing.
  std::optional<Left> leave(uint64_t pageNo, State& page) {
    page.leftAt = ++pagesLeft_;
    if (page.leavesBeforeTry) {
      --page.leavesBeforeTry;
      return std::nullopt;
    }
    Left& slot = ring_[pagesLeft_ & (window_ - 1)];
    Left due = slot;
    slot = Left{pageNo, page.leftAt};
    if (!due.leftAt) return std::nullopt;
    return due;
  }
  // A try of `page` found no fit: it waits longer for the next.
  static void fitFailed(State& page) {
    page.failedFits = uint8_t(std::min(page.failedFits + 1, 6));
    page.leavesBeforeTry = uint16_t((1u << page.failedFits) - 1);
  }
  // f(left) for each page left and not yet offered, forgetting them.
  template <class F>
  void drain(F&& f) {
    for (Left& left : ring_) {
      if (left.leftAt) f(left);
      left = Left{};
    }
  }
  void clear() { ring_.fill(Left{}); }

 private:
  uint32_t window_;
  uint64_t pagesLeft_ = 0;
  std::array<Left, kMaxWindow> ring_{};
};

}  // namespace predatar
