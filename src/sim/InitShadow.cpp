#include "sim/InitShadow.h"

#include <algorithm>
#include <bit>
#include <iterator>

namespace predatar::sim {
namespace {

// Bits [from, to) of `words`, a word at a time where the range covers one.
template <class Word>
void forWordsOf(uint64_t from, uint64_t to, Word word) {
  while (from < to) {
    uint64_t index = from / 64, first = from % 64;
    uint64_t count = std::min<uint64_t>(64 - first, to - from);
    if (!word(index, InitShadow::rangeMask(first, count))) return;
    from += count;
  }
}

}  // namespace

void InitShadow::track(uint64_t base, uint64_t bytes) {
  regions_[base] = Region{bytes, std::vector<uint64_t>((bytes + 63) / 64, 0)};
  last_ = nullptr;
}

void InitShadow::untrack(uint64_t base) {
  regions_.erase(base);
  last_ = nullptr;
}

InitShadow::Region* InitShadow::regionOf(uint64_t address, uint64_t& base) {
  if (last_ && address >= lastBase_ && address - lastBase_ < last_->bytes) {
    base = lastBase_;
    return last_;
  }
  auto it = regions_.upper_bound(address);
  if (it == regions_.begin()) return nullptr;
  --it;
  if (address - it->first >= it->second.bytes) return nullptr;
  base = lastBase_ = it->first;
  return last_ = &it->second;
}

void InitShadow::markWrittenSlow(uint64_t address, uint64_t bytes) {
  uint64_t base = 0;
  Region* r = regionOf(address, base);
  if (!r) return;
  uint64_t from = address - base, to = std::min(r->bytes, from + bytes);
  forWordsOf(from, to, [&](uint64_t i, uint64_t mask) {
    r->written[i] |= mask;
    return true;
  });
}

std::optional<uint64_t> InitShadow::firstUnwritten(uint64_t address, uint64_t bytes) {
  uint64_t base = 0;
  Region* r = regionOf(address, base);
  if (!r) return std::nullopt;
  uint64_t from = address - base, to = std::min(r->bytes, from + bytes);
  std::optional<uint64_t> found;
  forWordsOf(from, to, [&](uint64_t i, uint64_t mask) {
    uint64_t missing = ~r->written[i] & mask;
    if (missing) found = i * 64 + uint64_t(std::countr_zero(missing)) - from;
    return !missing;
  });
  return found;
}

void InitShadow::copy(uint64_t dst, uint64_t src, uint64_t bytes) {
  uint64_t base = 0;
  if (!regionOf(dst, base)) return;
  if (!firstUnwritten(src, bytes)) {  // (the usual case: all written, or not tracked)
    markWritten(dst, bytes);
    return;
  }
  for (uint64_t i = 0; i < bytes; ++i)
    if (!firstUnwritten(src + i, 1)) markWritten(dst + i, 1);
}

}  // namespace predatar::sim
