// ThreadClocks::orderedByHb/orderedByWcp: an access of another thread made
// after this thread's clocks last changed is not ordered before it, and is
// answered without a clock lookup; one made before is looked up.
#include "analysis/ThreadClocks.h"

#include <gtest/gtest.h>

namespace predatar {
namespace {

TEST(ThreadClocks, AccessesAfterTheLastClockChangeAreNotOrdered) {
  ClockGeometry g = ClockGeometry::make(64, /*compression=*/true);
  ThreadTable table;
  KernelInfo kernel;
  kernel.grid = Dim3{1, 1, 1};
  kernel.block = Dim3{64, 1, 1};
  table.reset(kernel, &g);
  ThreadClocks& u = table.at(0, 1);
  ThreadClocks& t = table.at(0, 2);
  Clock beforeBarrier = u.now;
  synchronize(table, g, 0, {1, 2}, /*withWcp=*/true);  // a barrier of u and t at trace position 10
  auto noteBoth = [&](uint64_t seq) {
    t.noteHbClock(seq);
    t.noteWcpClock(seq);
  };
  noteBoth(11);  // t's first access after it
  // u's access before the barrier (position 5) is ordered, by a lookup.
  EXPECT_TRUE(t.orderedByHb(0, 1, beforeBarrier, 5));
  EXPECT_TRUE(t.orderedByWcp(0, 1, beforeBarrier, 5));
  // u's access after it (position 12, u's next epoch) is not.
  EXPECT_FALSE(t.orderedByHb(0, 1, u.now, 12));
  EXPECT_FALSE(t.orderedByWcp(0, 1, u.now, 12));
  // t's clocks did not change since: a later access keeps the position.
  noteBoth(20);
  EXPECT_EQ(t.hbSteady.seq, 11u);
  EXPECT_EQ(t.wcpSteady.seq, 11u);
  // Another barrier changes them: the next access moves it.
  synchronize(table, g, 0, {1, 2}, /*withWcp=*/true);
  noteBoth(30);
  EXPECT_EQ(t.hbSteady.seq, 30u);
  EXPECT_EQ(t.wcpSteady.seq, 30u);
  EXPECT_TRUE(t.orderedByHb(0, 1, u.now - 1, 12));  // u's access at 12 is now before t
}

}  // namespace
}  // namespace predatar
