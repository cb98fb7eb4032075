// Random well-formed kernel traces for differential testing (their litmus
// text: TraceLitmus.h).
//
// A generated trace is well formed: threads exist in the launch, no thread
// has an event after its exit, locks are well nested per thread, released
// with the scope they were acquired with, and mutually exclusive when the
// holders overlap (same block, or both device scope), every lock a thread
// holds is released before it exits, a `bar` lists exactly the non-exited
// threads of its block (ascending), a syncwarp mask only non-exited lanes.
// Lock events are single-lane. Origin.seq is the index in the trace and
// Origin.pc the index + 1.
//
// Memory: global "g0" (a few scalar words) and "g1" (an array indexed by
// lane), shared "s0" and "s1" alike (per block). Warp accesses are either
// lane-uniform (one word) or `base + 4*(lane+k)`.
//
// Each seed draws a shape (1-3 blocks of 2..96 threads, a few "actor"
// threads doing most single-lane work) and a mode: step-by-step random events
// ("free", or "disciplined": critical sections touch the words their lock
// protects), small per-thread programs of bare accesses and nested critical
// sections interleaved by a mutual-exclusion-respecting scheduler
// ("programs"), or a randomized instance of a shape where gwcp's rules
// matter ("motif": the WCP reordering, rule (ii) through inverted nesting,
// through a barrier inside a critical section, through a third thread). The
// kernel name records the seed and the choices.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "events/Trace.h"
#include "report/Race.h"

namespace predatar::testsupport {

struct RandomTraceOptions {
  uint32_t minEvents = 10;
  uint32_t maxEvents = 60;
  uint32_t maxBlocks = 3;
  uint32_t maxWarpsPerBlock = 3;   // a block of several warps has 32 * warps threads
  uint32_t maxLaneEvents = 400;    // cap on per-thread events (active lanes summed), for the reference
  uint32_t scalarWords = 3;        // words of g0 and of s0
  uint32_t locks = 3;              // m0, m1, ...
  bool sharedMemory = true;
  bool systemScope = true;         // sometimes use .system atomics, strong accesses and fences
  uint32_t wideAccessPercent = 0;  // accesses of 8 bytes (two words); not expressible in litmus
  // Barriers that are named barriers (two per block) of some of the block's
  // threads, arrivals (bar.arrive) or completions; not expressible in litmus.
  uint32_t namedBarrierPercent = 0;
};

Trace randomTrace(uint64_t seed, const RandomTraceOptions& options = {});

}  // namespace predatar::testsupport
