// Where records lie in a word's records (AccessHistory keeps them in two
// runs: first every other record in the order it came, then its plain reads
// sorted by (launch, block, warp)), and in a word's strong device-scoped
// records apart (by block).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <tuple>
#include <utility>

#include "analysis/PackedRecord.h"

namespace predatar {

// Plain read `a` sorts before plain read `b`.
inline bool readBefore(const PackedRecord& a, const PackedRecord& b) {
  uint32_t aWarp = a.warp(), bWarp = b.warp();
  return std::tie(a.launch, a.block, aWarp) < std::tie(b.launch, b.block, bWarp);
}
inline size_t plainReadsBegin(const Records& records) {
  size_t n = records.size();
  if (n == 0 || !isPlainRead(records[n - 1])) return n;
  if (isPlainRead(records[0])) return 0;
  if (n > 1 && isPlainRead(records[1])) return 1;  // a write, then its readers
  return size_t(std::partition_point(records.begin(), records.end(),
                                     [](const PackedRecord& r) { return !isPlainRead(r); }) -
                records.begin());
}

// A word's strong device-scoped records, by block and within a block in
// the order they came: a block's records are a range of one vector. Sorted
// by block, so that the scan order, and so which earlier access a report
// names, is the same in every detector instance (a hash map's order depends
// on where its table lives). One vector of records in place of a vector of
// groups: a million-thread histogram has a group per bin and block of about
// one record, and the groups' vector moved them one by one as it grew
// (a sixth of the run under hb).
//
// The range of `block`'s records in `records` (empty, where they would go,
// when it has none). Blocks come mostly in order: the last block's range,
// walked from the end (the scan reads it anyway), or a new one at the end.
inline std::pair<size_t, size_t> blockRange(const Records& records, uint32_t block) {
  size_t end = records.size();
  if (end == 0 || records[end - 1].block < block) return {end, end};
  if (records[end - 1].block == block) {
    size_t from = end;
    while (from > 0 && records[from - 1].block == block) --from;
    return {from, end};
  }
  auto byBlock = [](const PackedRecord& r, uint32_t b) { return r.block < b; };
  auto from = std::lower_bound(records.begin(), records.end(), block, byBlock);
  auto to = std::find_if(from, records.end(), [&](const PackedRecord& r) { return r.block != block; });
  return {size_t(from - records.begin()), size_t(to - records.begin())};
}

}  // namespace predatar
