// The consumer side of the event stream. Every detector, the trace recorder
// and the fan-out implement it; every front end calls it in trace order.
#pragma once

#include <algorithm>
#include <vector>

#include "events/Event.h"

namespace predatar {

class EventSink {
 public:
  virtual ~EventSink() = default;
  virtual void kernelBegin(const KernelInfo& kernel) = 0;
  virtual void memory(const MemoryEvent& event) = 0;
  virtual void barrier(const BarrierEvent& event) = 0;
  virtual void syncWarp(const SyncWarpEvent& event) = 0;
  virtual void fence(const FenceEvent& event) = 0;
  virtual void acquire(const LockEvent& event) = 0;
  virtual void release(const LockEvent& event) = 0;
  virtual void exit(const ExitEvent& event) = 0;
  virtual void kernelEnd() = 0;
  // False when nothing downstream looks at the events of a launch beyond
  // kernelBegin (emulation alone, `--detectors none`): a front end may then
  // skip building them. Every sink that overrides an event consumes them.
  virtual bool consumesEvents() const { return true; }
};

// A sink that ignores everything; override what you need.
class NullEventSink : public EventSink {
 public:
  void kernelBegin(const KernelInfo&) override {}
  void memory(const MemoryEvent&) override {}
  void barrier(const BarrierEvent&) override {}
  void syncWarp(const SyncWarpEvent&) override {}
  void fence(const FenceEvent&) override {}
  void acquire(const LockEvent&) override {}
  void release(const LockEvent&) override {}
  void exit(const ExitEvent&) override {}
  void kernelEnd() override {}
};

// Keeps the kernel description a front end announces (sources, symbols), to
// name locations and positions in reports.
class KernelInfoRecorder final : public NullEventSink {
 public:
  KernelInfo info;
  void kernelBegin(const KernelInfo& kernel) override { info = kernel; }
  bool consumesEvents() const override { return false; }
};

// Feeds one stream to several sinks, so all detectors see the same execution
// in one pass.
class EventFanout final : public EventSink {
 public:
  void add(EventSink* sink) { sinks_.push_back(sink); }
  void kernelBegin(const KernelInfo& k) override { for (auto* s : sinks_) s->kernelBegin(k); }
  void memory(const MemoryEvent& e) override { for (auto* s : sinks_) s->memory(e); }
  void barrier(const BarrierEvent& e) override { for (auto* s : sinks_) s->barrier(e); }
  void syncWarp(const SyncWarpEvent& e) override { for (auto* s : sinks_) s->syncWarp(e); }
  void fence(const FenceEvent& e) override { for (auto* s : sinks_) s->fence(e); }
  void acquire(const LockEvent& e) override { for (auto* s : sinks_) s->acquire(e); }
  void release(const LockEvent& e) override { for (auto* s : sinks_) s->release(e); }
  void exit(const ExitEvent& e) override { for (auto* s : sinks_) s->exit(e); }
  void kernelEnd() override { for (auto* s : sinks_) s->kernelEnd(); }
  bool consumesEvents() const override {
    return std::any_of(sinks_.begin(), sinks_.end(), [](const EventSink* s) { return s->consumesEvents(); });
  }

 private:
  std::vector<EventSink*> sinks_;
};

}  // namespace predatar
