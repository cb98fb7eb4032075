#include "analysis/HbDetector.h"

#include "analysis/LaneLoop.h"
#include "analysis/SameWordReads.h"

namespace predatar {

HbDetector::HbDetector(const DetectorOptions& options) : Detector("hb", options) {
  geometry_.compression = options.compression;
}

void HbDetector::kernelBegin(const KernelInfo& kernel) {
  geometry_ = ClockGeometry::make(kernel.threadsPerBlock(), geometry_.compression, kernel.numBlocks());
  threads_.reset(kernel, &geometry_);
  messages_.reset(kernel.threadsPerBlock(), &geometry_);
  locks_.clear();
  blockLocal_.clear();
  arrivals_.reset(&geometry_);
  history_.beginLaunch(kernel);
  races_.beginKernel(kernel.name);
}

void HbDetector::memory(const MemoryEvent& event) {
  countEvent();
  bool strong = isStrong(event);
  // What the lanes' records share, built once (as GwcpDetector::memory does).
  AccessRecord record{event.lanes.block, 0, 0, event.type, strong, event.isVolatile, event.scope, 0xf, event.origin};
  auto perLane = [&](ThreadClocks& t, uint32_t lane) {
    record.thread = event.lanes.warp * kWarpSize + lane;
    record.clock = t.now;
    record.beforeDependencyWait = (event.beforeDependencyWait >> lane) & 1;
    record.unchanged = (event.unchangedWrites >> lane) & 1;
    t.noteHbClock(event.origin.seq & PackedRecord::kSeqMask);
    auto ordered = [&t](const AccessRecord& r) { return t.orderedByHb(r.block, r.thread, r.clock, r.origin.seq); };
    forEachWord(event.address[lane], event.size, [&](uint64_t word, uint8_t bytes) {
      uint64_t key = locationKey(event.space, event.lanes.block, word);
      if (strong && event.type != AccessType::Write)
        messages_.strongRead(t, key, event.scope, event.origin.seq, (event.lockLanes >> lane) & 1, event.origin);
      record.bytes = bytes;
      history_.access(
          key, record, ordered, races_, messages_.excuses(key, t),
          [&](const AccessRecord& r) { return messages_.missingFence(t, r); },
          skipAlikeRecords_ ? t.hbSteady.seq : UINT64_MAX);
    });
  };
  if (sameWordReads_ && !strong && event.type == AccessType::Read) {
    readInRuns(threads_, event, history_, record, perLane, [&](ThreadClocks& t, uint32_t) {
      t.noteHbClock(event.origin.seq & PackedRecord::kSeqMask);  // (as the per-lane path does)
      return true;
    });
  } else {
    forEachLaneThread(threads_, event.lanes, perLane);
  }
  updateChains(threads_, messages_, event, strong);
  history_.notePublication(event, strong);
}

void HbDetector::fence(const FenceEvent& event) {
  countEvent();
  history_.notePublication(event.lanes.block, event.scope);
  forEachLane(event.lanes, [&](uint32_t thread, uint32_t) {
    messages_.fence(threads_.at(event.lanes.block, thread), event.scope, /*withWcp=*/false);
  });
}

void HbDetector::barrier(const BarrierEvent& event) {
  countEvent();
  if (!arrivals_.apply(threads_, event, /*withWcp=*/false)) return;  // an arrival only
  history_.barrier(event.block, event.threads.size());
  // (From here, not from each thread's next access: the accesses other
  // threads make before it are unordered too, a loop's first round after
  // __syncthreads included. AlikeRecordSkip.)
  for (uint32_t thread : event.threads)
    threads_.at(event.block, thread).noteHbClock(event.origin.seq & PackedRecord::kSeqMask);
}

void HbDetector::syncWarp(const SyncWarpEvent& event) {
  countEvent();
  synchronize(threads_, geometry_, event.lanes.block, liveLanes(threads_, event.lanes), false);
}

void HbDetector::acquire(const LockEvent& event) {
  countEvent();
  prefetchWarpAcquires(threads_, locks_, event, [](const LockClocks& c) -> const LockClocks& { return c; });
  forEachLane(event.lanes, [&](uint32_t thread, uint32_t lane) {
    ThreadClocks& t = threads_.at(event.lanes.block, thread);
    blockLocal_.stateOf(locks_, event, lane).acquire(t, event.scope, /*withWcp=*/false);
  });
}

void HbDetector::release(const LockEvent& event) {
  countEvent();
  history_.notePublication(event.lanes.block, event.scope);
  forEachLane(event.lanes, [&](uint32_t thread, uint32_t lane) {
    ThreadClocks& t = threads_.at(event.lanes.block, thread);
    blockLocal_.stateOf(locks_, event, lane).release(t, t.hbSnapshot(), event.scope, &geometry_, /*withWcp=*/false);
    t.tick();
  });
}

void HbDetector::exit(const ExitEvent& event) {
  countEvent();
  forEachLane(event.lanes, [&](uint32_t thread, uint32_t) {
    messages_.exit(threads_.at(event.lanes.block, thread));
    threads_.exit(event.lanes.block, thread);
  });
  if (history_.exited(event)) {
    messages_.blockFinished(event.lanes.block, history_.finishedBlocks());
    for (uint64_t id : blockLocal_.take(event.lanes.block)) locks_.erase(id);
  }
}

void HbDetector::sampleMemory() {
  stats_.peakThreadClockBytes = std::max(stats_.peakThreadClockBytes, threads_.clockBytes());
  uint64_t lockBytes = 0;
  for (const auto& [_, lock] : locks_) lockBytes += lock.bytes();
  stats_.peakLockClockBytes = std::max(stats_.peakLockClockBytes, lockBytes + messages_.bytes());
  stats_.peakShadowBytes = std::max(stats_.peakShadowBytes, history_.peakBytes());
  sampling_.sampled(stats_.events, threads_.lastScanEntries());
}

void HbDetector::kernelEnd() { sampleMemory(); }

}  // namespace predatar
