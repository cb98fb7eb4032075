// What message passing keeps per thread (analysis/MessagePassing.h): only
// what a thread's strong reads and fences need.
#include <gtest/gtest.h>

#include <variant>

#include "analysis/GwcpDetector.h"
#include "analysis/HbDetector.h"
#include "analysis/MessagePassing.h"
#include "analysis/ThreadClocks.h"
#include "support/ReferenceModel.h"
#include "support/TraceBuilder.h"

namespace predatar {
namespace {

// Every thread of a histogram reads its bin's latest unfenced atomic (an RMW
// after no fence): it keeps the note for a later missing-fence report and its
// observation, not a thread's fence and pending clocks (a PerThread made for
// the note alone was 320 of the ~780 bytes a thread cost at 10^6 threads).
TEST(MessagePassingTest, ThreadsThatReadUnfencedAtomicsKeepNotesNotClocks) {
  constexpr uint32_t kBlocks = 64, kThreads = 64;
  KernelInfo kernel;
  kernel.grid = Dim3{kBlocks, 1, 1};
  kernel.block = Dim3{kThreads, 1, 1};
  ClockGeometry geometry = ClockGeometry::make(kThreads, true, kBlocks);
  ThreadTable threads;
  threads.reset(kernel, &geometry);
  MessagePassing messages;
  messages.reset(kThreads, &geometry);
  uint64_t bin = locationKey(MemorySpace::Global, 0, 0x100), seq = 0;
  for (uint32_t block = 0; block < kBlocks; ++block)
    for (uint32_t thread = 0; thread < kThreads; ++thread) {
      ThreadClocks& t = threads.at(block, thread);
      messages.strongRead(t, bin, Scope::Device, ++seq, false, Origin{seq, 7, 0});
      messages.chainAdd(t, bin, Scope::Device, Origin{seq, 7, 0});
    }
  double perThread = double(messages.bytes()) / (kBlocks * kThreads);
  EXPECT_LT(perThread, 500.0) << "bytes of message-passing state per thread";
  // (776 bytes with a PerThread per reader.) The note still names the
  // unfenced write once the reader fences.
  ThreadClocks& last = threads.at(kBlocks - 1, kThreads - 1);
  messages.fence(last, Scope::Device, true);
  AccessRecord earlier;
  earlier.block = kBlocks - 1;
  earlier.thread = kThreads - 2;
  earlier.clock = threads.at(kBlocks - 1, kThreads - 2).now;
  MissingFence missing = messages.missingFence(last, earlier);
  EXPECT_EQ(missing.side, MissingFence::Side::BeforeWrite);
  EXPECT_EQ(missing.at.seq, seq - 1);
}


// A writer that reads the chain again after another writer joined it (a
// grid barrier's spin: every block's thread 0 adds to the word, then reads it
// until all have) takes only the writers that changed since its last read.
// Here B's first read brings A's release (x), its second C's (y): taking
// none again, or all but C's, reports a race the reference does not.
TEST(MessagePassingTest, AReadAgainTakesTheWritersThatChangedSinceItsWidestRead) {
  testsupport::TraceBuilder b(3, 1);
  b.wr(0, 0, "x").fence(0, 0).atom(0, 0, "h");
  b.fence(1, 0).atom(1, 0, "h").ard(1, 0, "h");
  b.wr(2, 0, "y").fence(2, 0).atom(2, 0, "h");
  b.ard(1, 0, "h").fence(1, 0).rd(1, 0, "x").rd(1, 0, "y");
  Trace trace = b.build();
  EXPECT_TRUE(reference::hb(trace).locations.empty());
  EXPECT_TRUE(reference::gwcp(trace).locations.empty());
  GwcpDetector gwcp(DetectorOptions{});
  HbDetector hb(DetectorOptions{});
  for (Detector* d : {static_cast<Detector*>(&gwcp), static_cast<Detector*>(&hb)}) {
    d->kernelBegin(trace.kernel);
    EventDelivery deliver{*d};
    for (const auto& e : trace.events) std::visit(deliver, e);
    d->kernelEnd();
  }
  EXPECT_TRUE(gwcp.races().locations().empty());
  EXPECT_TRUE(hb.races().locations().empty());
}

}  // namespace
}  // namespace predatar
