// A brute-force reference for the three detectors, written straight from
// ../shared/docs/race-semantics.md, independent of the vector-clock code it
// certifies.
//
// gwcp and hb: the trace is expanded into per-thread events (one per active
// lane of a warp event, one per participant of a barrier; lanes of one warp
// event share a trace position and are unordered), scoped happens-before is
// built from its generators (thread order, barriers, rel(l) -> later
// overlapping acq(l), message passing F -> F' of rule 4, a read observing the
// last writes of its word before it in trace order or the RMW chain they
// end) and closed transitively, and <GWCP is computed as the
// least fixpoint of rules (i)-(iv). A location is racy when some conflicting
// pair e1 <tr e2 on it (or two lanes of one warp event) is unordered and not
// excused by same-location observation. Volatile accesses are plain.
// Points the semantics page leaves open are settled as follows:
//  * a thread's participation in a bar/syncwarp counts as an event after
//    that barrier, so a thread idle between two barriers carries ordering
//    from the first to the second (PTX arrive/wait, the paper's SYNC);
//  * threads that have exited take part in no later bar or syncwarp, even if
//    the event lists them;
//  * an arrival at a named barrier (bar.arrive, a BarrierEvent that is not
//    `complete`) is a release: the arriver's events up to it precede the
//    waiters' events after the barrier's completion, nothing precedes the
//    arriver's later events (PTX: bar.arrive does not wait); lockset counts
//    the arrivers the completion lists as taking part in it;
//  * rule (ii) applies to any two overlapping releases r1 <tr r2 of l, also
//    of one thread; rule (iii) also orders a participant's own events;
//  * an access of s > 4 bytes touches every word it overlaps, and a pair of
//    accesses sharing several words races on each of them.
// lockset: when several lanes of the last writing event wrote a word, each
// of them is a last write (the lanes are unordered, none is "the" last);
// bar and syncwarp both count as barriers (a syncwarp can only matter to
// lanes of one warp, which lockset does not compare anyway).
//
// lockset: the operational description of ScoRD in race-semantics.md, run
// event by event (last write and reads since, per 4-byte word).
//
// Quadratic memory and cubic time in the number of per-thread events: meant
// for traces of a few hundred per-thread events (tests/support/RandomTrace.h).
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "events/Trace.h"
#include "report/Race.h"

namespace predatar::reference {

using LocationSet = std::set<LocationKey>;

// One racy pair behind a location, for diagnostics: trace positions
// (indices in Trace::events) and threads.
struct Witness {
  LocationKey location{};
  uint64_t firstPos = 0, secondPos = 0;
  uint32_t firstBlock = 0, firstThread = 0;
  uint32_t secondBlock = 0, secondThread = 0;
};

struct DetectorResult {
  LocationSet locations;
  std::vector<Witness> witnesses;  // the first racy pair found for each location
};

struct Results {
  DetectorResult gwcp;
  DetectorResult hb;
  DetectorResult lockset;
};

// All three detectors on one trace.
Results analyze(const Trace& trace);

DetectorResult hb(const Trace& trace);
DetectorResult gwcp(const Trace& trace);
DetectorResult lockset(const Trace& trace);

// "gwcp", "hb", "lockset" or an alias ("predatar", "barracuda", "scord").
// Throws std::invalid_argument for an unknown name.
LocationSet racyLocations(std::string_view detector, const Trace& trace);

// "b0.t3 @3 / b1.t0 @9" for a witness.
std::string toString(const Witness& witness);

}  // namespace predatar::reference
