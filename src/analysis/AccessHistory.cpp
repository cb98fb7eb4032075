// AccessHistory's launch bookkeeping: what a launch's start and the
// launches still live keep of the shadow.
#include "analysis/AccessHistory.h"

namespace predatar {

void AccessHistory::beginLaunch(const KernelInfo& kernel) {
  retain(kernel.liveLaunches);  // (before the reset: finished_ still tells of the last launch's blocks)
  launch_ = kernel.launch;
  unordered_ = kernel.unorderedLaunches;
  overlapped_ = kernel.overlappedLaunch;
  finished_.reset(kernel);
  published_.assign(kernel.numBlocks(), false);
  heldLaunches_.add(launch_);
}

void AccessHistory::retain(const std::vector<uint32_t>& liveLaunches) {
  if (liveLaunches.empty()) return clear();
  RecordHeapCharge charge(*this);
  for (auto& [key, strong] : strongDevice_) {  // earlier launches' records live in shadow_
    Records& records = shadow_.at(key);
    bool wasEmpty = records.empty();
    // (strong: before the plain reads)
    records.insert(records.begin() + plainReadsBegin(records), strong.begin(), strong.end());
    if (wasEmpty && !records.empty()) shadow_.filled();
  }
  clearStrongDevice();
  if (!heldLaunches_.retire(liveLaunches) && !finished_.sharedMayRemain()) return;  // nothing to drop
  auto live = [&](const PackedRecord& r) { return HeldLaunches::isLive(liveLaunches, r.launch); };
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
