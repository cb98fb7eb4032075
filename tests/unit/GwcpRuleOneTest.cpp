// gwcp's rule (i) state (analysis/GwcpDetector): a critical section finds a
// location's state once and keeps it; a lock's state and log of its first
// block sit inline (FirstBlockInline).
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "analysis/GwcpDetector.h"
#include "support/ReferenceModel.h"
#include "support/TraceBuilder.h"

namespace predatar {
namespace {

using testsupport::TraceBuilder;

std::set<LocationKey> gwcpLocations(const Trace& trace) {
  GwcpDetector gwcp(DetectorOptions{});
  gwcp.kernelBegin(trace.kernel);
  EventDelivery deliver{gwcp};
  for (const auto& e : trace.events) std::visit(deliver, e);
  gwcp.kernelEnd();
  return gwcp.races().locations();
}

// A reads x in its critical section of m before x has rule (i) state for m;
// B, holding m too (the critical sections overlap), writes x and releases m,
// which makes that state. A's write of x then finds it (a critical section
// that found no state looks again) and joins B's release H by rule (i),
// which orders B's earlier write of z before A's.
TEST(GwcpRuleOne, StateMadeWhileASectionIsOpenIsFoundByItsNextAccess) {
  TraceBuilder b(1, 2);
  b.acq(0, 0, "m").rd(0, 0, "x");
  b.wr(0, 1, "z").acq(0, 1, "m").wr(0, 1, "x").rel(0, 1, "m");
  b.wr(0, 0, "x").rel(0, 0, "m").wr(0, 0, "z");
  Trace trace = b.build();
  std::set<LocationKey> expected = reference::gwcp(trace).locations;
  EXPECT_EQ(gwcpLocations(trace), expected);
  EXPECT_TRUE(expected.contains(b.loc("x")));   // (A's read and B's write overlap)
  EXPECT_FALSE(expected.contains(b.loc("z")));  // (rule (i) at A's write of x)
}

// Once found, a location's state is read in place by the section's later
// accesses, and the release adds to it: per-slot locks taken by threads in
// turn, each reading and writing its slot twice, in two blocks (each block's
// state inline), against the reference.
TEST(GwcpRuleOne, RepeatedAccessesOfASectionReadItsStateInPlace) {
  TraceBuilder b(2, 4);
  b.shared({"s0", "s1", "l0", "l1"});
  for (uint32_t block = 0; block < 2; ++block)
    for (uint32_t t = 0; t < 4; ++t) {
      std::string slot = std::to_string(t % 2);
      b.acq(block, t, "l" + slot, Scope::Block).rd(block, t, "s" + slot).wr(block, t, "s" + slot);
      b.rd(block, t, "s" + slot).wr(block, t, "s" + slot).rel(block, t, "l" + slot, Scope::Block);
      b.wr(block, t, "out" + std::to_string(block));
    }
  Trace trace = b.build();
  EXPECT_EQ(gwcpLocations(trace), reference::gwcp(trace).locations);
}

// An access checks rule (i) only when its thread holds a lock (a count
// beside its clocks, not its lock stack): A still holds n after releasing m,
// the lock it took first, so its write of x in n's critical section is
// ordered after B's release of n (B wrote x in its own), and with it B's
// earlier write of z. A count left at 0 by the first release would report z.
TEST(GwcpRuleOne, AThreadStillHoldingALockAfterReleasingAnotherKeepsRuleOne) {
  TraceBuilder b(1, 2);
  b.wr(0, 1, "z").acq(0, 1, "n").wr(0, 1, "x").rel(0, 1, "n");
  b.acq(0, 0, "m").acq(0, 0, "n").rel(0, 0, "m").wr(0, 0, "x").rel(0, 0, "n").wr(0, 0, "z");
  Trace trace = b.build();
  std::set<LocationKey> expected = reference::gwcp(trace).locations;
  EXPECT_EQ(gwcpLocations(trace), expected);
  EXPECT_FALSE(expected.contains(b.loc("z")));
  EXPECT_FALSE(expected.contains(b.loc("x")));
}

TEST(FirstBlockInline, HoldsTheFirstBlockInlineOthersInAMapAndErasesEither) {
  gwcp::FirstBlockInline<std::vector<int>> byBlock;
  EXPECT_EQ(byBlock.find(3), nullptr);
  byBlock[3].push_back(30);
  const std::vector<int>* first = byBlock.find(3);
  ASSERT_NE(first, nullptr);
  byBlock[7].push_back(70);
  byBlock[9].push_back(90);
  byBlock[3].push_back(31);
  EXPECT_EQ(byBlock.find(3), first);  // (in place: later blocks do not move it)
  EXPECT_EQ(*byBlock.find(3), (std::vector<int>{30, 31}));
  EXPECT_EQ(*byBlock.find(7), std::vector<int>{70});
  EXPECT_EQ(byBlock.find(8), nullptr);
  std::vector<std::pair<uint32_t, size_t>> visited;
  byBlock.forEach([&](uint32_t block, const std::vector<int>& v) { visited.emplace_back(block, v.size()); });
  std::sort(visited.begin(), visited.end());
  EXPECT_EQ(visited, (std::vector<std::pair<uint32_t, size_t>>{{3, 2}, {7, 1}, {9, 1}}));

  // (A rule (ii) log goes when its block finishes: FirstBlockInline::erase.)
  byBlock.erase(3);
  byBlock.erase(9);
  EXPECT_EQ(byBlock.find(3), nullptr);
  EXPECT_EQ(byBlock.find(9), nullptr);
  EXPECT_EQ(*byBlock.find(7), std::vector<int>{70});
  byBlock[7].push_back(71);  // (still in the map, not the freed inline place)
  EXPECT_EQ(*byBlock.find(7), (std::vector<int>{70, 71}));
  byBlock[4].push_back(40);  // (a new block takes the inline place, empty)
  EXPECT_EQ(*byBlock.find(4), std::vector<int>{40});
  size_t blocks = 0;
  byBlock.forEach([&](uint32_t, const std::vector<int>&) { ++blocks; });
  EXPECT_EQ(blocks, 2u);
}

}  // namespace
}  // namespace predatar
