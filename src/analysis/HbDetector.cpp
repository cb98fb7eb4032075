#include "analysis/HbDetector.h"

#include "analysis/LaneLoop.h"

namespace predatar {

HbDetector::HbDetector(const DetectorOptions& options) : Detector("hb", options) {
  geometry_.compression = options.compression;
}

void HbDetector::kernelBegin(const KernelInfo& kernel) {
  geometry_ = ClockGeometry::make(kernel.threadsPerBlock(), geometry_.compression);
  threads_.reset(kernel, &geometry_);
  locks_.clear();
  history_.clear();
  races_.beginKernel(kernel.name);
}

void HbDetector::memory(const MemoryEvent& event) {
  countEvent();
  forEachLane(event.lanes, [&](uint32_t thread, uint32_t lane) {
    ThreadClocks& t = threads_.at(event.lanes.block, thread);
    AccessRecord record{event.lanes.block, thread, t.now, event.type, event.strong || event.type == AccessType::AtomicRmw,
                        event.scope, 0xf, event.origin};
    auto ordered = [&t](const AccessRecord& r) { return r.clock <= t.hbTime(r.block, r.thread); };
    forEachWord(event.address[lane], event.size, [&](uint64_t word, uint8_t bytes) {
      record.bytes = bytes;
      history_.access(locationKey(event.space, event.lanes.block, word), record, ordered, races_);
    });
  });
}

void HbDetector::barrier(const BarrierEvent& event) {
  countEvent();
  synchronize(threads_, geometry_, event.block, event.threads, /*withWcp=*/false);
}

void HbDetector::syncWarp(const SyncWarpEvent& event) {
  countEvent();
  synchronize(threads_, geometry_, event.lanes.block, liveLanes(threads_, event.lanes), false);
}

void HbDetector::acquire(const LockEvent& event) {
  countEvent();
  forEachLane(event.lanes, [&](uint32_t thread, uint32_t lane) {
    ThreadClocks& t = threads_.at(event.lanes.block, thread);
    locks_[event.lock[lane]].acquire(t, event.scope, /*withWcp=*/false);
  });
}

void HbDetector::release(const LockEvent& event) {
  countEvent();
  forEachLane(event.lanes, [&](uint32_t thread, uint32_t lane) {
    ThreadClocks& t = threads_.at(event.lanes.block, thread);
    locks_[event.lock[lane]].release(t, t.hbSnapshot(), event.scope, &geometry_, /*withWcp=*/false);
    t.tick();
  });
}

void HbDetector::exit(const ExitEvent& event) {
  countEvent();
  forEachLane(event.lanes, [&](uint32_t thread, uint32_t) { threads_.exit(event.lanes.block, thread); });
}

void HbDetector::sampleMemory() {
  stats_.peakThreadClockBytes = std::max(stats_.peakThreadClockBytes, threads_.clockBytes());
  uint64_t lockBytes = 0;
  for (const auto& [_, lock] : locks_) lockBytes += lock.bytes();
  stats_.peakLockClockBytes = std::max(stats_.peakLockClockBytes, lockBytes);
  stats_.peakShadowBytes = std::max(stats_.peakShadowBytes, history_.peakBytes());
}

void HbDetector::kernelEnd() { sampleMemory(); }

}  // namespace predatar
