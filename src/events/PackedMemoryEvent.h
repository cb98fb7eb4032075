// A MemoryEvent in the few bytes it needs, for handing events between threads
// (events/ParallelFanout): the event is 330 bytes, mostly 32 lane addresses,
// and copying it whole into the ring and reading it back on another core cost
// the emulator's thread more than emulating the instruction did. Most warp
// accesses are affine in the lane (a coalesced load: base + lane * 4), so the
// addresses pack as a base and a stride; others as the addresses of the lanes
// that hold one. Unpacking gives back the event exactly, every field and every
// lane (lanes outside the mask too), so a sink cannot tell.
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
