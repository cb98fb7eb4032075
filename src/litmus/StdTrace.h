// RAPID's STD trace format (`.std`), so one trace runs in both tools:
//
//   T0|acq(L1)|12        thread|op(operand)|program location
//
// ops: r(V) w(V) acq(L) rel(L) fork(T) join(T) begin end. How a CPU trace
// becomes our event stream (README "STD traces"):
// * thread k (in order of first appearance) is a thread of block 0: with
//   StdThreads::Warps lane 0 of warp k (thread 32k), so no two CPU threads
//   share a warp and every detector compares them; with StdThreads::Lanes
//   lane k%32 of warp k/32 (thread k): vector clocks 32x smaller, gwcp and hb
//   find the same races, but lockset (which keeps per-warp state) no longer
//   compares threads of one warp (`check --std-threads auto` picks);
// * r/w: plain 4-byte loads/stores of global memory, one word per variable;
// * acq/rel: device-scoped lock events; re-entrant acquires (Java monitors)
//   are counted and only the outermost pair becomes events;
// * fork(T)/join(T): a barrier of the two threads (every event of the parent
//   before a fork precedes the child's; every event of the child precedes
//   the parent's after a join);
// * begin/end (atomicity markers) carry no synchronization and are skipped;
// * the program location is the event's pc, reported as "loc:N" (races are
//   deduplicated per pair of locations, as RAPID counts them).
#pragma once

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "events/EventSink.h"
#include "io/LineReader.h"
#include "litmus/Litmus.h"

namespace predatar::litmus {

enum class StdThreads { Warps, Lanes };

// Streams an STD trace to `sink` (two passes: the first finds the threads).
// Errors name the file and line.
absl::StatusOr<LitmusSummary> streamStd(io::LineReader& in, EventSink& sink, StdThreads mapping = StdThreads::Warps);
absl::StatusOr<LitmusSummary> streamStdText(std::string_view text, const std::string& path, EventSink& sink,
                                            StdThreads mapping = StdThreads::Warps);

// Whether a line reads as an STD event (the format detection: litmus has no '|').
bool looksLikeStd(std::string_view line);

}  // namespace predatar::litmus
