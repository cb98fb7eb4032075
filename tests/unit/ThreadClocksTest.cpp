// ThreadClocks::orderedByHb/orderedByWcp: an access of another thread made
// after this thread's clocks last changed is not ordered before it, and is
// answered without a clock lookup; one made before is looked up. The stamps
// of clocks a thread joined (CoveredStamps): a repeat join is skipped, and a
// lock's clock is replaced at a release only when the releaser covers it.
#include "analysis/ThreadClocks.h"

#include <gtest/gtest.h>

#include "analysis/GwcpDetector.h"

namespace predatar {
namespace {

// One block of 64 threads, compressed clocks.
class ThreadClocksTest : public ::testing::Test {
 protected:
  ThreadClocksTest() {
    KernelInfo kernel;
    kernel.grid = Dim3{1, 1, 1};
    kernel.block = Dim3{64, 1, 1};
    table.reset(kernel, &g);
  }
  // A block-scoped release of `lock` by x, which then ends its epoch.
  void release(ThreadClocks& x) {
    lock.release(x, x.hbSnapshot(), Scope::Block, &g, /*withWcp=*/true);
    x.tick();
  }
  ClockGeometry g = ClockGeometry::make(64, /*compression=*/true);
  ThreadTable table;
  LockClocks lock;
};

TEST_F(ThreadClocksTest, AccessesAfterTheLastClockChangeAreNotOrdered) {
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

// A thread whose clocks never changed (no barrier, no acquire) has ordered
// nothing of this launch before it, wherever another thread's access lies:
// steady since the launch began, before its own first access.
TEST_F(ThreadClocksTest, AThreadThatNeverSynchronizedIsSteadySinceTheLaunchBegan) {
  ThreadClocks& u = table.at(0, 1);
  ThreadClocks& t = table.at(0, 2);
  t.noteHbClock(100);  // t's first access, at 100
  t.noteWcpClock(100);
  EXPECT_EQ(t.hbSteady.seq, 0u);
  EXPECT_EQ(t.wcpSteady.seq, 0u);
  EXPECT_FALSE(t.orderedByHb(0, 1, u.now, 50));  // u's access at 50: answered without a lookup
  EXPECT_FALSE(t.orderedByWcp(0, 1, u.now, 50));
  synchronize(table, g, 0, {1, 2}, /*withWcp=*/true);  // then a barrier changes them
  t.noteHbClock(120);
  t.noteWcpClock(120);
  EXPECT_EQ(t.hbSteady.seq, 120u);
  EXPECT_TRUE(t.orderedByHb(0, 1, u.now - 1, 50));
}

// A release publishes the holder's clocks by sharing them when the lock's
// clocks were joined at the holder's acquire and nothing released the lock
// since; after another release in between it joins, keeping both.
TEST_F(ThreadClocksTest, AReleaseSharesTheHoldersClockOnlyWhenItCoversTheLocks) {
  ThreadClocks& u = table.at(0, 1);
  ThreadClocks& t = table.at(0, 2);
  ThreadClocks& v = table.at(0, 3);
  lock.acquire(u, Scope::Block, true);
  release(u);  // lock H = {u: 1}
  lock.acquire(t, Scope::Block, true);
  EXPECT_TRUE(t.hbCovers.has(lock.byBlock.at(0).hb));
  t.hb.set(0, 5, 7);  // t learns more before its release
  release(t);
  const VectorClock& h = lock.byBlock.at(0).hb;
  EXPECT_EQ(h.get(0, 1), 1u);
  EXPECT_EQ(h.get(0, 2), 1u);
  EXPECT_EQ(h.get(0, 5), 7u);
  // v acquires, then u releases again (an overlapping critical section):
  // v's release no longer covers the lock's clock and must keep u's entry.
  lock.acquire(v, Scope::Block, true);
  lock.acquire(u, Scope::Block, true);
  release(u);  // u's second epoch: {u: 2}
  release(v);
  const VectorClock& after = lock.byBlock.at(0).hb;
  EXPECT_EQ(after.get(0, 1), 2u);
  EXPECT_EQ(after.get(0, 3), 1u);
  EXPECT_EQ(after.get(0, 5), 7u);
}

// Joining a clock P_t already covers is answered by its stamp: P_t does not
// change, and absorbWcp says so.
TEST_F(ThreadClocksTest, AClockJoinedOnceIsNotWalkedAgain) {
  ThreadClocks& t = table.at(0, 2);
  VectorClock released(&g);
  released.set(0, 1, 4);
  EXPECT_TRUE(t.absorbWcp(released));
  uint64_t stamp = t.wcp.stamp();
  EXPECT_FALSE(t.absorbWcp(released));
  t.joinWcp(released);
  EXPECT_EQ(t.wcp.stamp(), stamp);
  VectorClock later = released;
  later.set(0, 1, 5);  // a new value: a new stamp
  EXPECT_TRUE(t.absorbWcp(later));
  EXPECT_EQ(t.wcp.get(0, 1), 5u);
}

// A thread's H that it published at its release of a lock is below the
// lock's clock from then on (lock clocks only grow): at its next acquire the
// join is the lock's clock, shared, not walked; and a thread whose H changed
// since is joined by a walk, keeping its own entries.
TEST_F(ThreadClocksTest, AClockBelowALocksLineageTakesTheLocksClockWhole) {
  ThreadClocks& u = table.at(0, 1);
  ThreadClocks& t = table.at(0, 2);
  ThreadClocks& v = table.at(0, 3);
  t.hb.set(0, 6, 3);
  lock.acquire(t, Scope::Block, true);
  release(t);  // t's H and P are below the lock's now
  lock.acquire(u, Scope::Block, true);
  u.hb.set(0, 7, 9);
  u.wcp.set(0, 7, 8);
  release(u);  // the lock's clocks grow
  uint64_t lockHb = lock.byBlock.at(0).hb.stamp(), lockWcp = lock.byBlock.at(0).wcp.stamp();
  lock.acquire(t, Scope::Block, true);
  EXPECT_EQ(t.hb.stamp(), lockHb) << "H_t is the lock's H, shared";
  EXPECT_EQ(t.wcp.stamp(), lockWcp);
  EXPECT_EQ(t.hb.get(0, 6), 3u);
  EXPECT_EQ(t.hb.get(0, 7), 9u);
  EXPECT_EQ(t.hb.get(0, 2), 1u);  // its own release, through the lock
  EXPECT_EQ(t.wcp.get(0, 7), 8u);
  // v released before u, then learned more: its H is no longer below.
  lock.acquire(v, Scope::Block, true);
  release(v);
  v.hb.set(0, 8, 5);
  lock.acquire(u, Scope::Block, true);
  u.hb.set(0, 9, 4);
  release(u);
  lock.acquire(v, Scope::Block, true);
  EXPECT_NE(v.hb.stamp(), lock.byBlock.at(0).hb.stamp());
  EXPECT_EQ(v.hb.get(0, 8), 5u) << "v's own knowledge kept";
  EXPECT_EQ(v.hb.get(0, 9), 4u) << "and the lock's joined";
}

// A device-scoped release publishes one clock as its block's and the
// device's: a device-scoped acquire that took its block's clock whole takes
// the device's whole too, without a walk. Not when the block's clock holds
// more than the device's (a block-scoped release of w while u held the lock
// at device scope): then the device clock is joined, and w's entry stays.
TEST_F(ThreadClocksTest, ADeviceAcquireTakesTheDeviceClockWholeOnlyBelowIt) {
  ThreadClocks& u = table.at(0, 1);
  ThreadClocks& t = table.at(0, 2);
  ThreadClocks& w = table.at(0, 3);
  lock.acquire(t, Scope::Block, true);
  release(t);  // t's H is below the block's clock
  lock.acquire(u, Scope::Device, true);
  u.hb.set(0, 7, 9);
  lock.release(u, u.hbSnapshot(), Scope::Device, &g, true);
  u.tick();
  lock.acquire(t, Scope::Device, true);
  EXPECT_EQ(t.hb.stamp(), lock.hbDevice.stamp()) << "the device H, shared";
  EXPECT_EQ(t.hb.get(0, 7), 9u);

  lock.acquire(u, Scope::Device, true);
  w.hb.set(0, 9, 4);
  release(w);  // (block scoped, while u holds the lock)
  lock.release(u, u.hbSnapshot(), Scope::Device, &g, true);
  lock.acquire(t, Scope::Device, true);
  EXPECT_EQ(t.hb.get(0, 9), 4u) << "w's release, through the block's clock";
}

// A rule (i) clock remembers the releaser's P, which is below the H it
// gives: a thread whose P is still that very clock (it took the lock's P,
// which that release had set) joins the H by taking it whole; another
// thread's P is joined by a walk and keeps its own entries.
TEST_F(ThreadClocksTest, ARuleOneClockIsTakenWholeByTheReleasersP) {
  ThreadClocks& u = table.at(0, 1);
  ThreadClocks& t = table.at(0, 2);
  ThreadClocks& v = table.at(0, 3);
  u.hb.set(0, 5, 4);
  u.wcp.set(0, 5, 2);  // P_u <= H_u
  VectorClock hb = u.hbSnapshot();
  gwcp::ConflictClock conflicts;
  conflicts.add(0, 1, hb, {u.wcp.stamp(), 0}, /*exclusive=*/true);
  t.wcp = u.wcp;       // the lock's P, as u's release left it
  u.wcp.set(0, 7, 1);  // u goes on: t's P is its own list now
  conflicts.joinInto(t);
  EXPECT_EQ(t.wcp.stamp(), hb.stamp()) << "taken whole, shared";
  EXPECT_EQ(t.wcp.get(0, 5), 4u);
  v.wcp.set(0, 6, 3);
  conflicts.joinInto(v);
  EXPECT_NE(v.wcp.stamp(), hb.stamp());
  EXPECT_EQ(v.wcp.get(0, 5), 4u);
  EXPECT_EQ(v.wcp.get(0, 6), 3u) << "v's own knowledge kept";
}

// It also remembers the H the releaser gave at its release before, below
// the one it gives now (H only grows): a thread whose P is that earlier H
// (it took it whole from a rule (i) clock of another slot) takes the new one
// whole too.
TEST_F(ThreadClocksTest, ARuleOneClockIsTakenWholeByTheReleasersEarlierH) {
  ThreadClocks& u = table.at(0, 1);
  ThreadClocks& t = table.at(0, 2);
  u.hb.set(0, 5, 4);
  VectorClock earlier = u.hbSnapshot();
  u.tick();
  u.hb.set(0, 6, 2);
  VectorClock hb = u.hbSnapshot();
  t.wcp = earlier;
  gwcp::ConflictClock conflicts;
  conflicts.add(0, 1, hb, {u.wcp.stamp(), earlier.stamp()}, /*exclusive=*/true);
  conflicts.joinInto(t);
  EXPECT_EQ(t.wcp.stamp(), hb.stamp()) << "taken whole, shared";
  EXPECT_EQ(t.wcp.get(0, 1), u.now);
  EXPECT_EQ(t.wcp.get(0, 6), 2u);
}

// A warp event's threads are found with one lookup once every lane of it
// has acted, side by side; before that, and once the block finished, lane
// by lane (at() creates a thread, or answers for a finished block).
TEST_F(ThreadClocksTest, AWarpsThreadsAreFoundTogetherOnceEachHasActed) {
  EXPECT_EQ(table.warpThreads(0, 1, 0b11), nullptr);  // no thread of the block yet
  table.at(0, 32);
  EXPECT_EQ(table.warpThreads(0, 1, 0b11), nullptr);  // lane 1 (thread 33) has not acted
  ThreadClocks& lane1 = table.at(0, 33);
  ThreadClocks* warp = table.warpThreads(0, 1, 0b11);
  ASSERT_NE(warp, nullptr);
  EXPECT_EQ(&warp[1], &lane1);
  EXPECT_EQ(warp[0].thread, 32u);
  EXPECT_EQ(table.warpThreads(0, 1, 0b111), nullptr);  // lane 2 has not
  EXPECT_EQ(table.warpThreads(0, 0, 0b1), nullptr);    // nor warp 0's
  for (uint32_t thread = 0; thread < 64; ++thread) table.exit(0, thread);
  EXPECT_EQ(table.warpThreads(0, 1, 0b11), nullptr);  // finished
  EXPECT_TRUE(table.at(0, 33).exited);
}

// A block's threads start on cache lines (each ThreadClocks is a whole
// number of lines, so every thread's first two lines hold what each event
// reads of it), in storage from plain operator new that the next block's
// threads reuse.
TEST_F(ThreadClocksTest, ABlocksThreadsStartOnCacheLines) {
  static_assert(sizeof(ThreadClocks) % 64 == 0);
  for (uint32_t thread : {0u, 1u, 33u, 63u})
    EXPECT_EQ(reinterpret_cast<uintptr_t>(&table.at(0, thread)) % 64, 0u) << thread;
  LineAlignedAllocator<ThreadClocks> allocator;
  for (size_t n : {1, 3, 128}) {
    ThreadClocks* p = allocator.allocate(n);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 64, 0u) << n;
    allocator.deallocate(p, n);  // (a wrong pointer freed: ASan's error)
  }
}

}  // namespace
}  // namespace predatar
