// Barracuda+: scoped happens-before (program order, barriers, release ->
// overlapping acquire of the same lock, message passing through fences and
// strong accesses) tracked with vector clocks, and
// FastTrack-style epochs in the per-location history.
#pragma once

#include "absl/container/flat_hash_map.h"
#include "analysis/AccessHistory.h"
#include "analysis/Detector.h"
#include "analysis/MessagePassing.h"
#include "analysis/ThreadClocks.h"

namespace predatar {

class HbDetector final : public Detector {
 public:
  explicit HbDetector(const DetectorOptions& options);
  std::string_view name() const override { return "hb"; }
  DetectorStats stats() const override { return stats_; }

  void kernelBegin(const KernelInfo& kernel) override;
  void memory(const MemoryEvent& event) override;
  void barrier(const BarrierEvent& event) override;
  void syncWarp(const SyncWarpEvent& event) override;
  void fence(const FenceEvent& event) override;
  void acquire(const LockEvent& event) override;
  void release(const LockEvent& event) override;
  void exit(const ExitEvent& event) override;
  void kernelEnd() override;
  void retainLaunches(const std::vector<uint32_t>& live) override { history_.retain(live); }
  size_t trackedLocks() const { return locks_.size(); }  // (tests)

 private:
  void sampleMemory();
  // Counts an event; metadata sizes are sampled for --stats (MemorySampleSchedule).
  void countEvent() {
    if (sampling_.due(++stats_.events)) sampleMemory();
  }

  ClockGeometry geometry_;
  ThreadTable threads_;
  absl::flat_hash_map<uint64_t, LockClocks> locks_;
  BlockLocalLocks blockLocal_;
  PendingArrivals arrivals_;
  AccessHistory history_;
  MessagePassing messages_;
  DetectorStats stats_;
  MemorySampleSchedule sampling_;
};

}  // namespace predatar
