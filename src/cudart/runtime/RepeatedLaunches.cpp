#include "cudart/runtime/RepeatedLaunches.h"

#include <cstring>
#include <string_view>

#include "absl/hash/hash.h"
#include "sim/Texture.h"

namespace predatar::cudart {
namespace {

std::string_view bytesAt(uint64_t address, uint64_t bytes) {
  return std::string_view(reinterpret_cast<const char*>(address), bytes);
}

}  // namespace

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
  probe = Probe{};
  probe.keyHash = hashKey(key);
  KeyStats& stats = keys_[probe.keyHash];
  // A key seen for the first time cannot repeat anything; one that kept missing will not.
  if (stats.seen++ == 0 || stats.misses >= kMaxMisses) return std::nullopt;
  probe.ranges = reachable(memory);
  uint64_t total = 0;
  for (const auto& r : probe.ranges) total += r.bytes;
  if (total > kMaxStateBytes) return std::nullopt;
  hashState(probe);
  auto it = effects_.find({probe.keyHash, probe.stateHash});
  if (it == effects_.end() || !(it->second.key == key)) {
    ++stats.misses;
    return std::nullopt;
  }
  stats.misses = 0;
  found_ = &it->second;
  return found_->outcome;
}

void RepeatedLaunches::apply(const Probe& probe) {
  if (found_ == nullptr || !probe.hashed) return;
  for (const Write& w : found_->writes)
    std::memcpy(reinterpret_cast<void*>(w.address), w.bytes.data(), w.bytes.size());
  ++replays_;
  found_ = nullptr;
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
  Effect effect{key, {}, outcome};
  size_t chunk = 0;
  for (const auto& r : after.ranges)
    for (uint64_t offset = 0; offset < r.bytes; offset += kChunkBytes, ++chunk) {
      if (after.chunks[chunk] == before.chunks[chunk]) continue;
      std::string_view now = bytesAt(r.base + offset, std::min(kChunkBytes, r.bytes - offset));
      effect.writes.push_back(Write{r.base + offset, std::vector<uint8_t>(now.begin(), now.end())});
      storedBytes_ += now.size();
    }
  auto [it, inserted] = effects_.try_emplace({before.keyHash, before.stateHash}, std::move(effect));
  // A checked run replaces an unchecked one: checked launches replay only checked runs.
  if (!inserted && outcome.checked && !it->second.outcome.checked) it->second = std::move(effect);
}

}  // namespace predatar::cudart
