// Races between kernels of streams that nothing orders, or between a
// programmatic dependent launch and the kernel it overlaps: the detectors
// report the earlier kernel's access with its launch (Access::launch); here it
// gets its source position and a note naming the two streams, or the missing
// griddepcontrol.wait.
#include "absl/strings/str_cat.h"
#include "cudart/runtime/Runtime.h"

namespace predatar::cudart {
namespace {

std::string coordinates(uint32_t linear, const Dim3& shape) {
  uint32_t x = shape.x ? linear % shape.x : 0, rest = shape.x ? linear / shape.x : 0;
  uint32_t y = shape.y ? rest % shape.y : 0, z = shape.y ? rest / shape.y : 0;
  return absl::StrCat("(", x, ",", y, ",", z, ")");
}

}  // namespace

void Runtime::noteLaunchOrder(LaunchRecord& record, uintptr_t stream) {
  std::string here = order_.streamName(stream);
  record.launchNotes.assign(record.races.size(), {});
  for (size_t i = 0; i < record.races.size(); ++i) {
    Access& first = record.races[i].first;
    if (first.launch == record.index) continue;
    auto it = liveLaunches_.find(first.launch);
    if (it == liveLaunches_.end()) continue;
    const LiveLaunchInfo& other = it->second;
    if (first.origin.source != Origin::kNoSource && first.origin.source < other.sources.size()) {
      record.info.sources.push_back(other.sources[first.origin.source]);
      first.origin.source = uint32_t(record.info.sources.size() - 1);
    } else {
      first.origin.source = Origin::kNoSource;
    }
    std::string firstAccess =
        absl::StrCat("the first access is by launch ", first.launch, " (", other.kernel, ", block ",
                     coordinates(first.block, other.grid), " thread ", coordinates(first.thread, other.block), ")");
    if (first.launch == record.info.overlappedLaunch) {
      record.launchNotes[i] = absl::StrCat(
          firstAccess, ", which let this programmatic dependent launch start before it completed "
          "(griddepcontrol.launch_dependents); the second access comes before its thread's griddepcontrol.wait "
          "(cudaGridDependencySynchronize), which would order them");
      continue;
    }
    std::string streams = other.stream == here ? absl::StrCat("both on ", here)
                                               : absl::StrCat("on ", other.stream, " and ", here);
    record.launchNotes[i] =
        absl::StrCat(firstAccess, "; the two kernels ran ", streams, " with no event or synchronization ordering them");
  }
  // Keep what reports of later launches need while this one is live (which
  // includes a launch the stream's next one may overlap: keptForDependents).
  std::erase_if(liveLaunches_, [&](const auto& entry) { return !order_.isLive(entry.first); });
  if (order_.isLive(uint32_t(record.index)))
    liveLaunches_[uint32_t(record.index)] =
        LiveLaunchInfo{record.kernel, here, record.info.grid, record.info.block, record.info.sources};
}

}  // namespace predatar::cudart
