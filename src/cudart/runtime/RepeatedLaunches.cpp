#include "cudart/runtime/RepeatedLaunches.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <string_view>

#include "absl/hash/hash.h"
#include "sim/Texture.h"

namespace predatar::cudart {
namespace {

// Memory as absl's own string_view, which absl hashes with its fast bulk
// hash (std::string_view goes through std::hash, ~5x slower: 14% of scan's
// CPU went to hashing footprints before).
absl::string_view bytesAt(uint64_t address, uint64_t bytes) {
  return absl::string_view(reinterpret_cast<const char*>(address), bytes);
}

// The read grains as byte ranges inside allocations (merged where they touch).
std::vector<sim::DeviceMemory::Range> clipChunks(std::vector<uint64_t> chunks,
                                                 const std::vector<sim::DeviceMemory::Range>& allocations) {
  std::sort(chunks.begin(), chunks.end());
  std::vector<sim::DeviceMemory::Range> out;
  auto alloc = allocations.begin();
  for (uint64_t c : chunks) {
    uint64_t begin = c * RepeatedLaunches::kGrainBytes, end = begin + RepeatedLaunches::kGrainBytes;
    while (alloc != allocations.end() && alloc->base + alloc->bytes <= begin) ++alloc;
    for (auto a = alloc; a != allocations.end() && a->base < end; ++a) {
      uint64_t lo = std::max(begin, a->base), hi = std::min(end, a->base + a->bytes);
      if (lo >= hi) continue;
      // Adjacent chunks merge within one allocation only: allocations of the
      // device arena are contiguous, and a range across two is no allocation's
      // (hashInputs then refused it, and no footprint was ever learned there).
      if (!out.empty() && out.back().base + out.back().bytes == lo && out.back().base >= a->base)
        out.back().bytes += hi - lo;
      else out.push_back(sim::DeviceMemory::Range{lo, hi - lo});
    }
  }
  return out;
}

// Cuts `ranges` (sorted, disjoint) where an allocation ends; false when a
// byte of them is in no allocation.
bool splitByAllocation(std::vector<std::pair<uint64_t, uint64_t>>& ranges, const sim::DeviceMemory& memory) {
  std::vector<std::pair<uint64_t, uint64_t>> out;
  out.reserve(ranges.size());
  for (auto [begin, end] : ranges) {
    while (begin < end) {
      auto a = memory.rangeOf(begin, 1);
      if (!a) return false;
      uint64_t hi = std::min(end, a->base + a->bytes);
      out.emplace_back(begin, hi);
      begin = hi;
    }
  }
  ranges = std::move(out);
  return true;
}

}  // namespace

namespace {

// The active lanes' bytes as one range [begin, end) when each lane's address
// is where the one before ends (a coalesced access), else nullopt.
std::optional<std::pair<uint64_t, uint64_t>> contiguousRange(const MemoryEvent& e) {
  uint64_t size = std::max<uint8_t>(e.size, 1);
  LaneMask m = e.lanes.mask;
  if (m == 0) return std::nullopt;
  uint64_t begin = e.address[std::countr_zero(m)], end = begin + size;
  for (m &= m - 1; m; m &= m - 1) {
    if (e.address[std::countr_zero(m)] != end) return std::nullopt;
    end += size;
  }
  return std::pair{begin, end};
}

}  // namespace

void FootprintRecorder::noteRead(uint64_t begin, uint64_t end) {
  for (uint64_t c = begin / RepeatedLaunches::kGrainBytes; c <= (end - 1) / RepeatedLaunches::kGrainBytes; ++c)
    if (uint64_t& recent = recentReadChunks_[c % recentReadChunks_.size()]; recent != c) {
      readChunks.insert(c);
      recent = c;
    }
}

void FootprintRecorder::noteWrite(uint64_t begin, uint64_t end) {
  if (!writes.empty() && begin >= writes.back().first && begin <= writes.back().second) {
    writes.back().second = std::max(writes.back().second, end);
    return;
  }
  writes.emplace_back(begin, end);
  if (writes.size() < compactAt_) return;
  compactWrites();
  compactAt_ = std::max(kMinCompaction, 2 * writes.size());
}

void FootprintRecorder::compactWrites() {
  std::sort(writes.begin(), writes.end());
  size_t kept = 0;
  for (const auto& w : writes) {
    if (kept > 0 && w.first <= writes[kept - 1].second)
      writes[kept - 1].second = std::max(writes[kept - 1].second, w.second);
    else
      writes[kept++] = w;
  }
  writes.resize(kept);
}

void FootprintRecorder::memory(const MemoryEvent& e) {
  if (e.space != MemorySpace::Global) return;
  bool reads = e.type != AccessType::Write, written = e.type != AccessType::Read;
  if (auto range = contiguousRange(e)) {
    if (reads) noteRead(range->first, range->second);
    if (written) noteWrite(range->first, range->second);
    return;
  }
  // (A lane at the address of the lane before it notes nothing new: a
  // broadcast load, `*factor` in every thread, is one range, not 32.)
  uint64_t previous = ~uint64_t(0);
  for (LaneMask m = e.lanes.mask; m; m &= m - 1) {
    uint32_t l = uint32_t(std::countr_zero(m));
    uint64_t a = e.address[l], end = a + std::max<uint8_t>(e.size, 1);
    if (a == previous) continue;
    previous = a;
    if (reads) noteRead(a, end);
    if (written) noteWrite(a, end);
  }
}

uint64_t RepeatedLaunches::hashKey(const Key& k) {
  return absl::HashOf(k.kernel, k.grid.x, k.grid.y, k.grid.z, k.block.x, k.block.y, k.block.z, k.sharedBytes,
                      k.gridWorkspace,
                      std::string_view(reinterpret_cast<const char*>(k.params.data()), k.params.size()));
}

// Device allocations, adopted host memory, and the texels of texture and
// surface objects (CUDA arrays are not device allocations). The texture
// generation is a range of its own, so that creating or destroying an object
// changes the state.
std::vector<sim::DeviceMemory::Range> RepeatedLaunches::reachable(const sim::DeviceMemory& memory) {
  std::vector<sim::DeviceMemory::Range> ranges = memory.ranges();
  sim::TextureMemory textures = sim::textureMemory();
  ranges.push_back(sim::DeviceMemory::Range{textures.generation, 0});
  for (const auto& [data, bytes] : textures.ranges)
    ranges.push_back(sim::DeviceMemory::Range{reinterpret_cast<uint64_t>(data), bytes});
  return ranges;
}

void RepeatedLaunches::hashState(Probe& probe) {
  probe.chunks.clear();
  uint64_t state = 0;
  for (const auto& r : probe.ranges) {
    state = absl::HashOf(state, r.base, r.bytes);
    for (uint64_t offset = 0; offset < r.bytes; offset += kChunkBytes) {
      uint64_t h = absl::HashOf(bytesAt(r.base + offset, std::min(kChunkBytes, r.bytes - offset)));
      probe.chunks.push_back(h);
      state = absl::HashOf(state, h);
    }
  }
  probe.stateHash = state;
  probe.hashed = true;
}

std::optional<RepeatedLaunches::Outcome> RepeatedLaunches::lookup(const Key& key, const sim::DeviceMemory& memory,
                                                                   Probe& probe) {
  found_ = nullptr;
  foundFootprint_ = nullptr;
  probe = Probe{};
  probe.keyHash = hashKey(key);
  KeyStats& stats = keys_[probe.keyHash];
  if (stats.footprintMisses < kMaxMisses && footprints_.count(probe.keyHash)) {
    if ((foundFootprint_ = findFootprint(key, probe.keyHash, memory))) {
      ++stats.seen;
      stats.misses = stats.footprintMisses = 0;
      return foundFootprint_->outcome;
    }
    if (++stats.footprintMisses == kMaxMisses) dropFootprints(probe.keyHash);
  }
  // A key seen for the first time cannot repeat anything; one that kept missing will not.
  if (stats.seen++ == 0 || stats.misses >= kMaxMisses) return std::nullopt;
  probe.ranges = reachable(memory);
  uint64_t total = 0;
  for (const auto& r : probe.ranges) total += r.bytes;
  if (total > kMaxStateBytes) return std::nullopt;
  hashState(probe);
  auto it = effects_.find({probe.keyHash, probe.stateHash});
  if (it == effects_.end() || !(it->second.key == key)) {
    // (A large effect's state seen again: its effect is kept this time.)
    if (!largeEffectStates_.contains({probe.keyHash, probe.stateHash})) ++stats.misses;
    return std::nullopt;
  }
  stats.misses = 0;
  found_ = &it->second;
  return found_->outcome;
}

void RepeatedLaunches::apply(const Probe& probe, sim::DeviceMemory& memory) {
  const std::vector<Write>* writes = foundFootprint_ ? &foundFootprint_->writes
                                     : found_ && probe.hashed ? &found_->writes
                                                              : nullptr;
  if (writes == nullptr) return;
  for (const Write& w : *writes) {
    if (!w.bytes.empty() && memory.rangeOf(w.address, w.bytes.size()))  // hash-only writes: memory holds them
      std::memcpy(reinterpret_cast<void*>(w.address), w.bytes.data(), w.bytes.size());
    memory.noteHostWrite(w.address, w.length);  // (--initcheck: the kernel's stores, replayed)
  }
  ++replays_;
  found_ = nullptr;
  foundFootprint_ = nullptr;
}

uint64_t RepeatedLaunches::hashWritten(const std::vector<Write>& writes) {
  uint64_t h = 0;
  for (const Write& w : writes) h = absl::HashOf(h, w.address, bytesAt(w.address, w.length));
  return h;
}

std::optional<uint64_t> RepeatedLaunches::hashInputs(const std::vector<sim::DeviceMemory::Range>& inputs,
                                                     const sim::DeviceMemory& memory) {
  uint64_t h = 0;
  for (const auto& r : inputs) {
    if (r.bytes && !memory.rangeOf(r.base, r.bytes)) return std::nullopt;
    h = absl::HashOf(h, r.base, r.bytes, bytesAt(r.base, r.bytes));
  }
  sim::TextureMemory textures = sim::textureMemory();
  h = absl::HashOf(h, textures.generation);
  for (const auto& [data, bytes] : textures.ranges)
    h = absl::HashOf(h, bytesAt(reinterpret_cast<uint64_t>(data), bytes));
  return h;
}

const RepeatedLaunches::FootprintEffect* RepeatedLaunches::findFootprint(const Key& key, uint64_t keyHash,
                                                                        const sim::DeviceMemory& memory) {
  auto it = footprints_.find(keyHash);
  if (it == footprints_.end()) return nullptr;
  for (const FootprintEffect& f : it->second) {
    if (!(f.key == key)) continue;
    bool writable = std::all_of(f.writes.begin(), f.writes.end(),
                                [&](const Write& w) { return memory.rangeOf(w.address, w.length).has_value(); });
    if (!writable) continue;
    auto h = hashInputs(f.inputs, memory);
    if (!h || *h != f.inputHash) continue;
    if (!f.bytesKept && hashWritten(f.writes) != f.writtenHash) continue;
    return &f;
  }
  return nullptr;
}

void RepeatedLaunches::learnFootprint(const Key& key, FootprintRecorder& footprint, const sim::DeviceMemory& memory,
                                      const std::vector<sim::DeviceMemory::Range>& constants,
                                      const Outcome& outcome) {
  uint64_t keyHash = hashKey(key);
  KeyStats& stats = keys_[keyHash];
  if (stats.footprintMisses >= kMaxMisses) return;  // this key's inputs keep changing
  ++stats.footprintRefusals;  // (until the footprint is kept, below)
  footprint.compactWrites();
  std::vector<std::pair<uint64_t, uint64_t>> merged = std::move(footprint.writes);  // (the recorder is done)
  // A chunk both read and written: the reads may have seen the launch's own writes.
  for (const auto& [begin, end] : merged)
    for (uint64_t c = begin / kGrainBytes; c <= (end - 1) / kGrainBytes; ++c)
      if (footprint.readChunks.contains(c)) return;
  FootprintEffect effect{key, {}, 0, {}, true, 0, outcome};
  effect.inputs = clipChunks(std::vector<uint64_t>(footprint.readChunks.begin(), footprint.readChunks.end()),
                             memory.ranges());
  effect.inputs.insert(effect.inputs.end(), constants.begin(), constants.end());
  auto h = hashInputs(effect.inputs, memory);
  if (!h) return;
  effect.inputHash = *h;
  // Written ranges by allocation: writes that touch across neighbouring
  // (arena) allocations merged into one range that no allocation holds.
  if (!splitByAllocation(merged, memory)) return;  // wrote outside any allocation: keep nothing
  uint64_t written = 0;
  for (const auto& [begin, end] : merged) written += end - begin;
  effect.bytesKept = written <= kMaxFootprintWriteBytes && storedBytes_ + written <= kMaxStoredBytes;
  stats.footprintRefusals = 0;
  for (const auto& [begin, end] : merged) {
    Write w{begin, end - begin, {}};
    if (effect.bytesKept) {
      absl::string_view now = bytesAt(begin, end - begin);
      w.bytes.assign(now.begin(), now.end());
    }
    effect.writes.push_back(std::move(w));
  }
  if (effect.bytesKept) storedBytes_ += written;
  else effect.writtenHash = hashWritten(effect.writes);
  auto& list = footprints_[keyHash];
  if (list.size() >= kFootprintsPerKey) {
    storedBytes_ -= keptBytes(list.front());
    list.erase(list.begin());
  }
  list.push_back(std::move(effect));
}

bool RepeatedLaunches::wantsFootprint(uint64_t keyHash) const {
  auto it = keys_.find(keyHash);
  if (it == keys_.end()) return true;
  const KeyStats& stats = it->second;
  // (Refused ones try again now and then: a launch may read what it wrote
  // only for some inputs.)
  return stats.footprintMisses < kMaxMisses &&
         (stats.footprintRefusals < kMaxFootprintRefusals || stats.seen % kFootprintRetryEvery == 0);
}

uint64_t RepeatedLaunches::keptBytes(const FootprintEffect& f) {
  uint64_t bytes = 0;
  for (const Write& w : f.writes) bytes += w.bytes.size();
  return bytes;
}

void RepeatedLaunches::dropFootprints(uint64_t keyHash) {
  auto it = footprints_.find(keyHash);
  if (it == footprints_.end()) return;
  for (const FootprintEffect& f : it->second) storedBytes_ -= keptBytes(f);
  footprints_.erase(it);
}

void RepeatedLaunches::learn(const Key& key, const Probe& before, const sim::DeviceMemory& memory,
                             const Outcome& outcome) {
  if (!before.hashed || storedBytes_ >= kMaxStoredBytes) return;
  Probe after;
  after.ranges = reachable(memory);
  // The launch changed what memory exists (it cannot, unless something else ran).
  if (after.ranges.size() != before.ranges.size()) return;
  for (size_t i = 0; i < after.ranges.size(); ++i)
    if (after.ranges[i].base != before.ranges[i].base || after.ranges[i].bytes != before.ranges[i].bytes) return;
  hashState(after);
  std::vector<sim::DeviceMemory::Range> changed;  // the chunks the launch changed
  uint64_t changedBytes = 0;
  size_t chunk = 0;
  for (const auto& r : after.ranges)
    for (uint64_t offset = 0; offset < r.bytes; offset += kChunkBytes, ++chunk)
      if (after.chunks[chunk] != before.chunks[chunk]) {
        changed.push_back({r.base + offset, std::min(kChunkBytes, r.bytes - offset)});
        changedBytes += changed.back().bytes;
      }
  std::pair<uint64_t, uint64_t> state{before.keyHash, before.stateHash};
  if (storedBytes_ + changedBytes > kMaxStoredBytes) return;
  // A large effect is kept once its state came twice (the first repeat runs):
  // FDTD3d's ping-pong launches, whose states never repeat, kept 0.6 GB of
  // effects to the end, over its own 1.1 GB.
  if (changedBytes > kMaxEagerEffectBytes && largeEffectStates_.insert(state).second) return;
  Effect effect{key, {}, outcome};
  for (const auto& c : changed) {
    absl::string_view now = bytesAt(c.base, c.bytes);
    effect.writes.push_back(Write{c.base, now.size(), std::vector<uint8_t>(now.begin(), now.end())});
  }
  storedBytes_ += changedBytes;
  auto [it, inserted] = effects_.try_emplace(state, std::move(effect));
  // A checked run replaces an unchecked one: checked launches replay only checked runs.
  if (!inserted && outcome.checked && !it->second.outcome.checked) it->second = std::move(effect);
}

void RepeatedLaunches::noteCheckedRun(const Key& key, uint64_t launch) {
  if (checkedRunOf(key)) return;  // (the first stands for all: the same events)
  checkedRuns_.emplace(hashKey(key), std::pair{key, launch});
}

std::optional<uint64_t> RepeatedLaunches::checkedRunOf(const Key& key) const {
  auto [from, to] = checkedRuns_.equal_range(hashKey(key));
  for (auto it = from; it != to; ++it)
    if (it->second.first == key) return it->second.second;
  return std::nullopt;
}

}  // namespace predatar::cudart
