#include "report/Race.h"

namespace predatar {

const char* toString(RaceKind kind) {
  switch (kind) {
    case RaceKind::WriteWrite: return "write-write";
    case RaceKind::WriteRead: return "write-read";
    case RaceKind::ReadWrite: return "read-write";
    case RaceKind::AtomicScope: return "atomic-scope";
  }
  return "?";
}

RaceKind classify(const Access& first, const Access& second) {
  if (first.strong && second.strong) return RaceKind::AtomicScope;
  if (first.writes() && second.writes()) return RaceKind::WriteWrite;
  return first.writes() ? RaceKind::WriteRead : RaceKind::ReadWrite;
}

void RaceLog::add(MemorySpace space, uint32_t sharedBlock, uint64_t address, const Access& first,
                  const Access& second, MissingFence missingFence) {
  ++occurrences_;
  LocationKey where{space, space == MemorySpace::Shared ? sharedBlock : 0, address};
  if (racyLocations_.insert(where).second) sortedStale_ = true;  // exact, for expectations and tests
  RaceKind kind = classify(first, second);
  Key pairKey{launch_, first.origin.pc, second.origin.pc, uint8_t(kind), 0, 0, 0};
  if (!perLocation_) {  // one report per instruction pair
    auto [it, inserted] = index_.try_emplace(pairKey, races_.size());
    if (!inserted) {
      ++races_[it->second].count;
      return;
    }
    races_.push_back(Race{detector_, kernel_, kind, space, sharedBlock, address, first, second, 1, missingFence});
    return;
  }
  // An instruction is its source position when it has one: a litmus trace
  // names each event by its line, but many events may be one `@ file:line`.
  auto site = [](const Origin& o) { return o.source == Origin::kNoSource ? o.pc : (uint64_t(1) << 63) | o.source; };
  pairKey = Key{launch_, site(first.origin), site(second.origin), uint8_t(kind), 0, 0, 0};
  Key key{launch_, site(first.origin), site(second.origin), uint8_t(kind), uint8_t(space),
          space == MemorySpace::Shared ? sharedBlock : 0, address};
  if (auto it = index_.find(key); it != index_.end()) {
    ++races_[it->second].count;
    return;
  }
  auto [pair, firstOfPair] = pairs_.try_emplace(pairKey, races_.size(), 0);
  if (!firstOfPair && pair->second.second >= kLocationsPerPair) {  // enough examples of this pair
    ++races_[pair->second.first].count;
    return;
  }
  ++pair->second.second;
  index_.emplace(key, races_.size());
  races_.push_back(Race{detector_, kernel_, kind, space, sharedBlock, address, first, second, 1, missingFence});
}

const std::set<LocationKey>& RaceLog::locations() const {
  if (sortedStale_) {
    sortedLocations_ = std::set<LocationKey>(racyLocations_.begin(), racyLocations_.end());
    sortedStale_ = false;
  }
  return sortedLocations_;
}

void RaceLog::clear() {
  races_.clear();
  index_.clear();
  pairs_.clear();
  racyLocations_.clear();
  sortedLocations_.clear();
  sortedStale_ = false;
  occurrences_ = 0;
}

}  // namespace predatar
