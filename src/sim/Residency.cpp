#include "sim/Residency.h"

#include <algorithm>

#include <charconv>

#include "absl/strings/str_cat.h"

namespace predatar::sim {
namespace {

// Under the random schedule there is no proof that warps are stuck: memory
// unchanged for this many warp instructions while blocks wait to start is
// taken as a sign that the resident ones wait for them.
constexpr uint64_t kQuietStepsBeforeAdmitting = uint64_t(1) << 22;
constexpr size_t kBlocksNamed = 4;

// The PTX registers declared, not the slots they share: how many blocks are
// resident, and so the interleavings and the memory a run takes, stay what
// they were before registers shared slots.
uint32_t registersPerThread(const Launch& L) { return std::clamp<uint32_t>(L.declaredRegisters, 16, 255); }

std::string blockName(const Block& b) {
  return "(" + std::to_string(b.idx.x) + "," + std::to_string(b.idx.y) + "," + std::to_string(b.idx.z) + ")";
}

}  // namespace

absl::StatusOr<uint32_t> parseResidentBlocks(std::string_view text) {
  if (text == "gpu") return 0u;
  if (text == "all") return kAllBlocksResident;
  uint32_t n = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (error != std::errc() || end != text.data() + text.size() || n == 0)
    return absl::InvalidArgumentError("resident blocks '" + std::string(text) +
                                      "': expected gpu (as an sm_90 GPU holds them), all, or a positive number");
  return n;
}

uint32_t blocksPerSm(const Launch& L, const DeviceLimits& device) {
  uint32_t threads = uint32_t(L.cfg.block.count());
  uint32_t warps = (threads + 31) / 32;
  uint32_t byThreads = device.threadsPerSm / (warps * 32);
  uint64_t sharedPerBlock = L.sharedBytes + device.reservedSharedPerBlock;
  uint32_t byShared = uint32_t(std::min<uint64_t>(device.sharedPerSm / sharedPerBlock, UINT32_MAX));
  uint32_t perWarp = (registersPerThread(L) * 32 + device.registerUnit - 1) / device.registerUnit * device.registerUnit;
  uint32_t byRegisters = device.registersPerSm / (perWarp * warps);
  return std::max<uint32_t>(1, std::min({byThreads, byShared, byRegisters, device.blocksPerSm}));
}

int occupancyBlocksPerSm(int threadsPerBlock, uint64_t sharedBytes) {
  const DeviceLimits device;
  int warps = std::max((threadsPerBlock + 31) / 32, 1);
  int blocks = int(device.blocksPerSm);
  int byThreads = int(device.threadsPerSm) / (warps * 32);
  int byShared = sharedBytes ? int(std::min<uint64_t>(device.sharedPerSm / sharedBytes, blocks)) : blocks;
  return std::max(0, std::min({byThreads, byShared, blocks}));
}

absl::Status checkCooperativeGridFits(const LaunchConfig& config, std::string_view kernel) {
  const uint64_t multiprocessors = DeviceLimits{}.multiprocessors;
  uint64_t blocks = config.grid.count();
  int perSm = occupancyBlocksPerSm(int(config.block.count()), config.dynamicSharedBytes);
  if (blocks <= perSm * multiprocessors) return absl::OkStatus();
  return absl::ResourceExhaustedError(absl::StrCat("cooperative launch of ", std::string(kernel), ": ", blocks,
                                                   " blocks, but the device holds ", perSm * multiprocessors,
                                                   " at once (", perSm, " per SM)"));
}

Residency::Residency(const Launch& L) {
  uint32_t option = L.cfg.schedule.maxResidentBlocks;
  uint64_t hardware = uint64_t(DeviceLimits{}.multiprocessors) * blocksPerSm(L);
  uint64_t wanted = option == 0 ? hardware : option;
  limit_ = uint32_t(std::min<uint64_t>(wanted, L.blocks.size()));
}

uint32_t Residency::admitOnDemand(const Launch& L, const std::vector<uint32_t>& order, bool stuck,
                                  bool randomSchedule) {
  if (L.memoryChanges != lastChanges_) {
    lastChanges_ = L.memoryChanges;
    quietSince_ = L.steps;
  }
  bool quiet = randomSchedule && L.steps - quietSince_ >= kQuietStepsBeforeAdmitting;
  if (!stuck && !quiet) return 0;
  quietSince_ = L.steps;
  heuristic_ = heuristic_ || !stuck;
  if (waited_.empty())
    for (uint32_t i : order) {
      uint32_t b = L.warps[i].block;
      if (std::find(waited_.begin(), waited_.end(), b) == waited_.end()) waited_.push_back(b);
    }
  uint32_t more = std::max<uint32_t>(1, extra_);  // doubling: a grid-wide wait costs log2(grid) episodes
  extra_ += more;
  ++episodes_;
  return more;
}

std::string Residency::warning(const Launch& L) const {
  if (extra_ == 0) return {};
  std::string blocks;
  for (size_t i = 0; i < waited_.size() && i < kBlocksNamed; ++i)
    blocks += (i ? ", " : "") + blockName(L.blocks[waited_[i]]);
  if (waited_.size() > kBlocksNamed) blocks += " and " + std::to_string(waited_.size() - kBlocksNamed) + " more";
  return "kernel '" + L.kernelName + "': resident blocks " + blocks +
         (heuristic_ ? " appear to wait" : " wait") + " for blocks that were not resident; " + std::to_string(extra_) +
         " more blocks were brought in (" + std::to_string(episodes_) +
         " times) so that the launch finishes, but the program relies on co-residency the hardware does not "
         "promise: an sm_90-class GPU holds " + std::to_string(limit_) +
         " blocks of this launch at once and would hang (use a cooperative launch, or do not wait on other blocks)";
}

}  // namespace predatar::sim
