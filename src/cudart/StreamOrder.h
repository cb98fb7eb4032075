// Which kernel launches CUDA orders before which: streams (each in issue
// order), events (cudaEventRecord + cudaStreamWaitEvent), the legacy default
// stream (it waits for, and is waited for by, every blocking stream; streams
// created with cudaStreamNonBlocking take no part), the per-thread default
// stream (a blocking stream), and host synchronization (a launch issued after
// the host saw work complete is ordered after that work).
//
// The runtime still runs launches one after the other; this order is what the
// detectors are told (KernelInfo::launch, liveLaunches, unorderedLaunches), so
// that kernels of unordered streams race with each other.
//
// Each stream, event and the host hold a frontier: per stream, the latest
// launch of that stream known complete before them (vector-clock style).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "events/EventSink.h"

namespace predatar::cudart {

class StreamOrder {
 public:
  // Stream handles as the CUDA API passes them.
  static constexpr uintptr_t kDefault = 0, kLegacy = 1, kPerThread = 2;

  // True when the new stream is non-blocking and an earlier launch the host
  // has not waited for was already forgotten (forgetCompleted): a race
  // between the two goes unreported, which the caller tells the user.
  bool createStream(uintptr_t handle, bool nonBlocking);
  void destroyStream(uintptr_t handle);

  // The ordering of a new launch `launch` (ids increase) on `stream`.
  struct Launch {
    std::vector<uint32_t> live;       // earlier launches this or a later launch may be unordered with
    std::vector<uint32_t> unordered;  // those this launch is not ordered after
    // KernelInfo::overlappedLaunch: the stream's previous launch when it let
    // this one start early (keptForDependents) and this one is a programmatic
    // dependent launch (also in `live`).
    uint32_t overlapped = UINT32_MAX;
  };
  Launch launch(uintptr_t stream, uint32_t launch, bool programmatic = false);
  // `launch`, the latest on `stream`, executed griddepcontrol.launch_dependents:
  // the stream's next launch, if a programmatic dependent launch, may overlap
  // it, so it stays live until that launch.
  void keptForDependents(uintptr_t stream, uint32_t launch);
  // A copy or memset on the legacy default stream (it synchronizes the
  // blocking streams as a launch there does), blocking the host when `blocking`.
  void legacyOperation(bool blocking);

  void recordEvent(uintptr_t event, uintptr_t stream);
  void waitEvent(uintptr_t stream, uintptr_t event);
  void destroyEvent(uintptr_t event) { events_.erase(event); }
  // The host saw `stream` / `event` / every stream complete.
  void synchronizeStream(uintptr_t stream);
  void synchronizeEvent(uintptr_t event);
  void synchronizeDevice();

  // "stream 2", "the default stream", "the per-thread default stream" (for reports).
  std::string streamName(uintptr_t stream) const;
  // Whether a later launch may still be unordered with `launch`.
  bool isLive(uint32_t launch) const {
    for (const LiveLaunch& l : live_)
      if (l.id == launch) return true;
    for (const auto& [_, s] : streams_)
      if (s.dependentsOf == launch) return true;
    return false;
  }
  // Whether a later launch of a stream that exists now may be unordered with
  // `launch` (isLive, less the launches kept for streams yet to be created).
  bool mayRaceWithExistingStreams(uint32_t launch) const {
    for (const auto& [_, s] : streams_)
      if (s.dependentsOf == launch) return true;
    for (const LiveLaunch& l : live_)
      if (l.id == launch) return !l.onlyNewStreamsMayRace;
    return false;
  }

 private:
  // Per stream number: 1 + the id of the latest launch of that stream ordered before.
  using Frontier = std::map<uint32_t, uint64_t>;
  struct Stream {
    uint32_t number = 0;  // 0: the legacy default stream; created streams from 1
    bool blocking = true;
    Frontier frontier;
    uint32_t dependentsOf = UINT32_MAX;  // keptForDependents
  };
  struct LiveLaunch {
    uint32_t id;
    uint32_t stream;  // number
    uintptr_t handle;
    bool onlyNewStreamsMayRace = false;  // every existing stream is ordered after it
  };
  static void join(Frontier& into, const Frontier& from);
  static bool ordered(const Frontier& f, const LiveLaunch& l);
  Stream& stream(uintptr_t handle);
  // Brings in the implicit synchronization of the legacy default stream and
  // of the host: what an operation issued now on `s` is ordered after.
  void materialize(uintptr_t handle);
  void forgetCompleted();

  std::map<uintptr_t, Stream> streams_;
  std::map<uintptr_t, Frontier> events_;
  Frontier host_;
  std::vector<LiveLaunch> live_;
  // Per stream number: the id of the latest launch forgotten while the host
  // had not ordered it (forgetCompleted).
  std::map<uint32_t, uint64_t> forgotten_;
  uint32_t nextNumber_ = 1;
};

// Tells the sink behind it the launch's ordering (KernelInfo::launch,
// liveLaunches, unorderedLaunches) at kernelBegin; forwards the rest as is.
class LaunchOrderSink final : public EventSink {
 public:
  LaunchOrderSink(EventSink& next, uint32_t launch, StreamOrder::Launch order)
      : next_(next), launch_(launch), order_(std::move(order)) {}
  void kernelBegin(const KernelInfo& k) override {
    KernelInfo ordered = k;
    ordered.launch = launch_;
    ordered.liveLaunches = order_.live;
    ordered.unorderedLaunches = order_.unordered;
    ordered.overlappedLaunch = order_.overlapped;
    next_.kernelBegin(ordered);
  }
  void memory(const MemoryEvent& e) override { next_.memory(e); }
  void barrier(const BarrierEvent& e) override { next_.barrier(e); }
  void syncWarp(const SyncWarpEvent& e) override { next_.syncWarp(e); }
  void fence(const FenceEvent& e) override { next_.fence(e); }
  void acquire(const LockEvent& e) override { next_.acquire(e); }
  void release(const LockEvent& e) override { next_.release(e); }
  void exit(const ExitEvent& e) override { next_.exit(e); }
  void kernelEnd() override { next_.kernelEnd(); }
  bool consumesEvents() const override { return next_.consumesEvents(); }

 private:
  EventSink& next_;
  uint32_t launch_;
  StreamOrder::Launch order_;
};

}  // namespace predatar::cudart
