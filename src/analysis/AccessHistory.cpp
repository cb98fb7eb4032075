#include "analysis/AccessHistory.h"

#include <algorithm>

namespace predatar {

void AccessHistory::beginLaunch(const KernelInfo& kernel) {
  launch_ = kernel.launch;
  unordered_ = kernel.unorderedLaunches;
  overlapped_ = kernel.overlappedLaunch;
  finished_.reset(kernel);
  published_.assign(kernel.numBlocks(), false);
  if (kernel.liveLaunches.empty()) return clear();
  RecordHeapCharge charge(*this);
  for (auto& [key, strong] : strongDevice_) {  // earlier launches' records live in shadow_
    Records& records = shadow_.at(key);
    bool wasEmpty = records.empty();
    // (strong: before the plain reads)
    records.insert(records.begin() + plainReadsBegin(records), strong.begin(), strong.end());
    if (wasEmpty && !records.empty()) shadow_.filled();
  }
  clearStrongDevice();
  auto live = [&](const PackedRecord& r) {
    return std::find(kernel.liveLaunches.begin(), kernel.liveLaunches.end(), r.launch) != kernel.liveLaunches.end();
  };
  liveRecords_ = 0;
  shadow_.forEachWord([&](uint64_t key, Records& records) {
    // Shared memory does not outlive its block.
    if (locationOf(key).space == MemorySpace::Shared) records.clear();
    records.erase(std::remove_if(records.begin(), records.end(), [&](const PackedRecord& r) { return !live(r); }),
                  records.end());
    if (records.empty()) Records().swap(records);  // gives back an outgrown vector's heap block
    else releaseSlack(records);
    liveRecords_ += records.size();
  });
}

}  // namespace predatar
