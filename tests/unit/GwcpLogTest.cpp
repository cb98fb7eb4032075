// gwcp's rule (ii) log (analysis/GwcpDetector): what it keeps and when it
// lets go of critical sections.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <variant>

#include "analysis/GwcpDetector.h"
#include "analysis/HbDetector.h"
#include "support/ReferenceModel.h"
#include "support/TraceBuilder.h"

namespace predatar {
namespace {

using testsupport::TraceBuilder;

// Block-scoped critical sections with no __syncthreads between them (per-slot
// locks) stay in their block's log until the block finishes: then no thread
// can scan that log again, and it goes.
TEST(GwcpLog, AFinishedBlockLetsGoOfItsLog) {
  TraceBuilder b(2, 4);
  b.shared({"slot"});
  for (uint32_t block = 0; block < 2; ++block)
    for (uint32_t t = 0; t < 4; ++t)
      b.acq(block, t, "m", Scope::Block).wr(block, t, "slot").rel(block, t, "m", Scope::Block);
  Trace critical = b.build();
  for (uint32_t t = 0; t < 4; ++t) b.exit(0, t);
  Trace all = b.build();

  GwcpDetector gwcp(DetectorOptions{});
  gwcp.kernelBegin(all.kernel);
  EventDelivery deliver{gwcp};
  size_t at = 0;
  for (; at < critical.events.size(); ++at) std::visit(deliver, all.events[at]);
  EXPECT_EQ(gwcp.loggedCriticalSections(), 8u);
  for (; at + 1 < all.events.size(); ++at) std::visit(deliver, all.events[at]);
  EXPECT_EQ(gwcp.loggedCriticalSections(), 8u);  // thread 3 of block 0 still lives
  std::visit(deliver, all.events[at]);
  EXPECT_EQ(gwcp.loggedCriticalSections(), 4u);  // block 1's
  gwcp.kernelEnd();
  EXPECT_TRUE(gwcp.races().races().empty());
}

// A lock in a block's shared memory dies with the block: once the block has
// finished, gwcp and hb forget its clocks and gwcp its rule (i) state; a
// global lock stays.
TEST(GwcpLog, AFinishedBlockLetsGoOfItsSharedMemoryLocks) {
  TraceBuilder b(2, 4);
  b.shared({"slot", "m"});
  for (uint32_t block = 0; block < 2; ++block)
    for (uint32_t t = 0; t < 4; ++t) {
      b.acq(block, t, "m", Scope::Block).wr(block, t, "slot").rel(block, t, "m", Scope::Block);
      b.acq(block, t, "g").wr(block, t, "total").rel(block, t, "g");
    }
  Trace critical = b.build();
  for (uint32_t t = 0; t < 4; ++t) b.exit(0, t);
  Trace all = b.build();

  GwcpDetector gwcp(DetectorOptions{});
  HbDetector hb(DetectorOptions{});
  for (Detector* d : {static_cast<Detector*>(&gwcp), static_cast<Detector*>(&hb)}) {
    d->kernelBegin(all.kernel);
    EventDelivery deliver{*d};
    for (size_t at = 0; at < critical.events.size(); ++at) std::visit(deliver, all.events[at]);
  }
  EXPECT_EQ(gwcp.trackedLocks(), 3u);  // m of blocks 0 and 1, g
  EXPECT_EQ(gwcp.trackedLockLocations(), 3u);
  EXPECT_EQ(hb.trackedLocks(), 3u);
  for (Detector* d : {static_cast<Detector*>(&gwcp), static_cast<Detector*>(&hb)}) {
    EventDelivery deliver{*d};
    for (size_t at = critical.events.size(); at < all.events.size(); ++at) std::visit(deliver, all.events[at]);
    d->kernelEnd();
  }
  EXPECT_EQ(gwcp.trackedLocks(), 2u);  // block 0's m went
  EXPECT_EQ(gwcp.trackedLockLocations(), 2u);
  EXPECT_EQ(hb.trackedLocks(), 2u);
  EXPECT_TRUE(gwcp.races().races().empty());
  EXPECT_TRUE(hb.races().races().empty());
}

// gwcp on `trace` with its rule (ii) logs trimmed at every release; the most
// critical sections its logs held at once in `peakLogged`.
std::set<LocationKey> gwcpTrimmingAtEveryRelease(const Trace& trace, size_t* peakLogged = nullptr) {
  setenv("PREDATAR_GWCP_TRIM_EVERY", "1", 1);
  GwcpDetector gwcp(DetectorOptions{});
  unsetenv("PREDATAR_GWCP_TRIM_EVERY");
  gwcp.kernelBegin(trace.kernel);
  EventDelivery deliver{gwcp};
  for (const auto& e : trace.events) {
    std::visit(deliver, e);
    if (peakLogged) *peakLogged = std::max(*peakLogged, gwcp.loggedCriticalSections());
  }
  gwcp.kernelEnd();
  return gwcp.races().locations();
}

// A lock that every thread of the grid takes in turn, block after block,
// updating a counter: each critical section's release H is in the lock's P
// after the next one (rule (i) on the counter), so the device log keeps the
// last entry only, though most of the grid has not started, and threads that
// started have not taken the lock yet (trimLog, absorbedAtAcquire).
TEST(GwcpLog, ThreadsThatHaveNotTakenALockDoNotHoldItsLog) {
  TraceBuilder b(8, 4);
  for (uint32_t block = 0; block < 8; ++block) {
    for (uint32_t t = 0; t < 4; ++t) b.rd(block, t, "input");
    for (uint32_t t = 0; t < 4; ++t) b.acq(block, t, "m").rd(block, t, "count").wr(block, t, "count").rel(block, t, "m");
    for (uint32_t t = 0; t < 4; ++t) b.exit(block, t);
  }
  Trace trace = b.build();
  size_t peakLogged = 0;
  EXPECT_EQ(gwcpTrimmingAtEveryRelease(trace, &peakLogged), reference::gwcp(trace).locations);
  EXPECT_EQ(peakLogged, 1u);  // (a release trims the log right after adding its entry)
}

// An entry a thread that does not hold the lock will need: C (block 0) is
// GWCP-after A's acquire of m through lock n (rule (i) on y), but not after
// A's release of m. B (block 1) consumes A's critical section (rule (i) on
// x) and releases m at device scope, which would let the log go. But C then
// takes m at block scope, which joins only block 0's releases of m, and its
// release needs A's entry (rule (ii)) to order A's write of x before C's read.
TEST(GwcpLog, AnEntryANonHolderWillNeedIsKept) {
  TraceBuilder b(2, 4);
  b.acq(0, 0, "m").acq(0, 0, "n").wr(0, 0, "y").rel(0, 0, "n").wr(0, 0, "x").rel(0, 0, "m");
  b.acq(0, 1, "n").rd(0, 1, "y").rel(0, 1, "n");
  b.acq(1, 0, "m").rd(1, 0, "x").rel(1, 0, "m");
  b.acq(0, 1, "m", Scope::Block).rel(0, 1, "m", Scope::Block).rd(0, 1, "x");
  Trace trace = b.build();
  EXPECT_EQ(gwcpTrimmingAtEveryRelease(trace), reference::gwcp(trace).locations);
}

}  // namespace
}  // namespace predatar
