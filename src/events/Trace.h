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

// Feeds kernelBegin, every event in order, then kernelEnd.
void replay(const Trace& trace, EventSink& sink);

const Origin& originOf(const Event& event);

}  // namespace predatar
