// gwcp's rule (ii) log (analysis/GwcpDetector): what it keeps and when it
// lets go of critical sections.
#include <gtest/gtest.h>

#include <variant>

#include "analysis/GwcpDetector.h"
#include "analysis/HbDetector.h"
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

}  // namespace
}  // namespace predatar
