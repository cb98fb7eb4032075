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
  if (racyLocations_.insert(where).second) sortedStale_ = true;
  RaceKind kind = classify(first, second);
  Key key{launch_, first.origin.pc, second.origin.pc, uint8_t(kind), perLocation_ ? uint8_t(space) : 0,
          perLocation_ && space == MemorySpace::Shared ? sharedBlock : 0, perLocation_ ? address : 0};
  auto [it, inserted] = index_.try_emplace(key, races_.size());
  if (!inserted) {
    ++races_[it->second].count;
    return;
  }
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
  racyLocations_.clear();
  sortedLocations_.clear();
  sortedStale_ = false;
  occurrences_ = 0;
}

}  // namespace predatar
