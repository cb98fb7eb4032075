// A MemoryEvent in the few bytes it needs, for handing events between threads
// (events/ParallelFanout): the event is 312 bytes, mostly 32 lane addresses,
// and the ring between the emulator and the detectors holds four times as
// many events in the same memory when they are packed (it needs to be long:
// ParallelLimits). Most warp accesses are affine in the lane (a coalesced
// load: base + lane * 4), so the addresses pack as a base and a stride, about
// 80 bytes in all; others as the addresses of the lanes that hold one.
// Unpacking gives back the event exactly, every field and every lane (lanes
// outside the mask too), so a sink cannot tell. Packing costs about what the
// copy of the whole event did.
#pragma once

#include <cstddef>

#include "events/Event.h"

namespace predatar {

// The most bytes pack() writes for one event.
size_t maxPackedMemoryEventBytes();

// Writes `event` at `out`; returns the end of what it wrote.
std::byte* pack(const MemoryEvent& event, std::byte* out);
// Reads an event pack() wrote at `in` into `event`; returns the end of it.
const std::byte* unpack(const std::byte* in, MemoryEvent& event);

}  // namespace predatar
