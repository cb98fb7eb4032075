// A recorded kernel execution: the kernel description and its events in
// trace order. The litmus reader and the random trace generator produce one;
// replay() feeds it to any EventSink.
#pragma once

#include <variant>
#include <vector>

#include "events/EventSink.h"

namespace predatar {

struct AcquireEvent : LockEvent {};
struct ReleaseEvent : LockEvent {};

using Event = std::variant<MemoryEvent, BarrierEvent, SyncWarpEvent, FenceEvent, ExitEvent,
                           AcquireEvent, ReleaseEvent>;

struct Trace {
  KernelInfo kernel;
  std::vector<Event> events;
};

// Hands one event to the sink method of its kind (std::visit over an Event,
// or over a variant that holds more alternatives than Event: derive and add).
struct EventDelivery {
  EventSink& sink;
  void operator()(const MemoryEvent& e) const { sink.memory(e); }
  void operator()(const BarrierEvent& e) const { sink.barrier(e); }
  void operator()(const SyncWarpEvent& e) const { sink.syncWarp(e); }
  void operator()(const FenceEvent& e) const { sink.fence(e); }
  void operator()(const ExitEvent& e) const { sink.exit(e); }
  void operator()(const AcquireEvent& e) const { sink.acquire(e); }
  void operator()(const ReleaseEvent& e) const { sink.release(e); }
};

// Feeds kernelBegin, every event in order, then kernelEnd.
void replay(const Trace& trace, EventSink& sink);

const Origin& originOf(const Event& event);

}  // namespace predatar
