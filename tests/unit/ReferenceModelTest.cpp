// The brute-force reference (tests/support/ReferenceModel.h) on hand-built
// traces whose answers follow from ../shared/docs/race-semantics.md, and the
// random trace generator's guarantees.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <type_traits>
#include <variant>

#include "support/RandomTrace.h"
#include "support/ReferenceModel.h"
#include "support/TraceBuilder.h"
#include "support/TraceLitmus.h"

namespace predatar {
namespace {

using reference::LocationSet;
using testsupport::TraceBuilder;
constexpr Scope kBlock = Scope::Block;
constexpr Scope kDevice = Scope::Device;

struct Expected {
  LocationSet gwcp, hb, lockset;
};

void check(const Trace& trace, const Expected& expected) {
  reference::Results r = reference::analyze(trace);
  auto show = [&](const LocationSet& s) { return testsupport::describeLocations(trace.kernel, s); };
  EXPECT_EQ(show(r.gwcp.locations), show(expected.gwcp)) << "gwcp\n" << testsupport::toLitmus(trace);
  EXPECT_EQ(show(r.hb.locations), show(expected.hb)) << "hb\n" << testsupport::toLitmus(trace);
  EXPECT_EQ(show(r.lockset.locations), show(expected.lockset)) << "lockset\n" << testsupport::toLitmus(trace);
  // The single-detector entry points agree with analyze().
  EXPECT_EQ(reference::racyLocations("predatar", trace), r.gwcp.locations);
  EXPECT_EQ(reference::racyLocations("barracuda", trace), r.hb.locations);
  EXPECT_EQ(reference::racyLocations("scord", trace), r.lockset.locations);
  EXPECT_EQ(r.gwcp.witnesses.size(), r.gwcp.locations.size());
}

// litmus-format.md, "the paper's figure of a GWCP-predictable race".
TEST(ReferenceModel, PaperGwcpFigure) {
  TraceBuilder b(2, 2);
  b.wr(0, 0, "x").acq(0, 0, "m").wr(0, 0, "y").rel(0, 0, "m");
  b.acq(0, 1, "m").wr(0, 1, "y").rel(0, 1, "m");
  b.acq(0, 1, "n", kBlock).wr(0, 1, "z").rel(0, 1, "n", kBlock);
  b.acq(1, 1, "n", kBlock).wr(1, 1, "z").rel(1, 1, "n", kBlock);
  b.wr(1, 1, "x");
  LocationSet xz{b.loc("x"), b.loc("z")};
  // lockset: x has no lock on either side and no fence; z is held under n by
  // both, but block-scoped in two blocks; y is written by lanes 0 and 1 of
  // one warp in different events, which per-warp metadata does not compare.
  check(b.trace(), {xz, xz, xz});
}

// litmus-format.md, "a race only a predictive detector sees (the WCP figure)".
TEST(ReferenceModel, WcpFigure) {
  TraceBuilder b(1, 2);
  b.wr(0, 0, "x").acq(0, 0, "l").wr(0, 0, "y").rel(0, 0, "l");
  b.acq(0, 1, "l").wr(0, 1, "x").wr(0, 1, "y").rel(0, 1, "l");
  // The litmus file expects `lockset: race x`, but t0 and t1 are lanes 0 and
  // 1 of warp 0: race-semantics.md says ScoRD's per-warp metadata does not
  // compare accesses of different lanes of one warp in different events, so
  // the strict rule gives no race. The same figure across warps is below.
  check(b.trace(), {{b.loc("x")}, {}, {}});
}

TEST(ReferenceModel, WcpFigureAcrossWarps) {
  TraceBuilder b(1, 64);
  b.wr(0, 0, "x").acq(0, 0, "l").wr(0, 0, "y").rel(0, 0, "l");
  b.acq(0, 32, "l").wr(0, 32, "x").wr(0, 32, "y").rel(0, 32, "l");
  // lockset: t0 wrote x holding no lock, t32 holding l.
  check(b.trace(), {{b.loc("x")}, {}, {b.loc("x")}});
}

// Rule (ii) is needed: y is ordered only because the two critical sections
// on l contain <GWCP-ordered events (t1's rel k <=HB t3's rel m <GWCP t2's rd x).
TEST(ReferenceModel, RuleTwoOrdersReleases) {
  TraceBuilder b(3, 1);
  b.acq(0, 0, "l").acq(0, 0, "k").rel(0, 0, "k").wr(0, 0, "y").rel(0, 0, "l");
  b.acq(1, 0, "k").rel(1, 0, "k").acq(1, 0, "m").wr(1, 0, "x").rel(1, 0, "m");
  b.acq(2, 0, "l").acq(2, 0, "m").rd(2, 0, "x").rel(2, 0, "m").rel(2, 0, "l").rd(2, 0, "y");
  // lockset: y written under l, read under no lock.
  check(b.trace(), {{}, {}, {b.loc("y")}});
}

// Rule (i) needs a conflict: critical sections on one lock with unrelated
// contents do not order an access after them.
TEST(ReferenceModel, NonConflictingCriticalSectionsDoNotOrder) {
  TraceBuilder b(2, 1);
  b.wr(0, 0, "x").acq(0, 0, "l").wr(0, 0, "y").rel(0, 0, "l");
  b.acq(1, 0, "l").wr(1, 0, "z").rel(1, 0, "l").rd(1, 0, "x");
  // lockset: neither access holds a lock, and b0 has no fence after its write.
  check(b.trace(), {{b.loc("x")}, {}, {b.loc("x")}});
}

TEST(ReferenceModel, BarrierOrders) {
  TraceBuilder b(1, 64);
  b.shared({"s"});
  b.wr(0, 0, "s").wr(0, 0, "g").bar(0).rd(0, 32, "s").wr(0, 33, "g");
  check(b.trace(), {});
}

TEST(ReferenceModel, NoBarrierRaces) {
  TraceBuilder b(1, 64);
  b.shared({"s"});
  b.wr(0, 0, "s").rd(0, 32, "s");
  LocationSet s{b.loc("s", 0)};
  check(b.trace(), {s, s, s});
}

TEST(ReferenceModel, SharedMemoryIsPerBlock) {
  TraceBuilder b(2, 1);
  b.shared({"s"});
  b.wr(0, 0, "s").wr(1, 0, "s").wr(0, 0, "g").wr(1, 0, "g");
  LocationSet g{b.loc("g")};
  check(b.trace(), {g, g, g});
}

TEST(ReferenceModel, BarrierOfAnotherBlockDoesNotOrder) {
  TraceBuilder b(2, 1);
  b.wr(0, 0, "g").bar(0).bar(1).wr(1, 0, "g");
  LocationSet g{b.loc("g")};
  check(b.trace(), {g, g, g});
}

TEST(ReferenceModel, ExitedThreadIsNotInBarrier) {
  TraceBuilder b(1, 64);
  b.wr(0, 0, "g").exit(0, 0).bar(0).wr(0, 32, "g");
  LocationSet g{b.loc("g")};
  check(b.trace(), {g, g, g});
}

TEST(ReferenceModel, ExitAfterBarrier) {
  TraceBuilder b(1, 64);
  b.wr(0, 0, "g").bar(0).exit(0, 0).wr(0, 32, "g");
  check(b.trace(), {});
}

// A barrier event that still lists an exited thread: the thread takes part
// in no later barrier (litmus-format.md, `exit`), so nothing is ordered.
TEST(ReferenceModel, BarrierListingExitedThread) {
  TraceBuilder b(1, 64);
  std::vector<uint32_t> all;
  for (uint32_t t = 0; t < 64; ++t) all.push_back(t);
  b.wr(0, 0, "g").exit(0, 0).barThreads(0, all).wr(0, 32, "g");
  LocationSet g{b.loc("g")};
  check(b.trace(), {g, g, g});
}

TEST(ReferenceModel, SyncWarpOrdersItsLanes) {
  TraceBuilder b(1, 2);
  b.wr(0, 0, "g").syncwarp(0, 0, 0x3).rd(0, 1, "g");
  check(b.trace(), {});
}

// Lane 1 does nothing between the two syncwarps, yet carries lane 0's write
// from the first to the second (PTX: wait, then arrive; the paper's SYNC).
TEST(ReferenceModel, SyncWarpChainThroughIdleLane) {
  TraceBuilder b(1, 3);
  b.wr(0, 0, "g").syncwarp(0, 0, 0x3).syncwarp(0, 0, 0x6).rd(0, 2, "g");
  check(b.trace(), {});
}

TEST(ReferenceModel, BarrierChainThroughIdleThread) {
  TraceBuilder b(1, 64);
  b.wr(0, 0, "g").bar(0).exit(0, 0).bar(0).wr(0, 32, "g");
  b.wr(0, 1, "h").syncwarp(0, 0, 0x6).exit(0, 1).bar(0).rd(0, 40, "h");
  // lockset has no transitivity: t1 took part in no barrier with t40.
  check(b.trace(), {{}, {}, {b.loc("h")}});
}

TEST(ReferenceModel, SyncWarpWithoutTheLane) {
  TraceBuilder b(1, 3);
  b.wr(0, 0, "g").syncwarp(0, 0, 0x6).rd(0, 1, "g");
  // lockset never compares two lanes of one warp in different events.
  LocationSet g{b.loc("g")};
  check(b.trace(), {g, g, {}});
}

TEST(ReferenceModel, SyncWarpSkipsExitedLanes) {
  TraceBuilder b(1, 2);
  b.wr(0, 0, "g").exit(0, 0).syncwarp(0, 0, 0x3).rd(0, 1, "g");
  LocationSet g{b.loc("g")};
  check(b.trace(), {g, g, {}});
}

TEST(ReferenceModel, BlockScopedLockAcrossBlocksDoesNotOrder) {
  TraceBuilder b(2, 1);
  b.acq(0, 0, "m", kBlock).wr(0, 0, "g").rel(0, 0, "m", kBlock);
  b.acq(1, 0, "m", kBlock).wr(1, 0, "g").rel(1, 0, "m", kBlock);
  LocationSet g{b.loc("g")};
  check(b.trace(), {g, g, g});
}

TEST(ReferenceModel, BlockScopedLockInOneBlockOrders) {
  TraceBuilder b(1, 64);
  b.acq(0, 0, "m", kBlock).wr(0, 0, "g").rel(0, 0, "m", kBlock);
  b.acq(0, 32, "m", kBlock).wr(0, 32, "g").rel(0, 32, "m", kBlock);
  check(b.trace(), {});
}

TEST(ReferenceModel, DeviceScopedLockAcrossBlocksOrders) {
  TraceBuilder b(2, 1);
  b.acq(0, 0, "m").wr(0, 0, "g").rel(0, 0, "m");
  b.acq(1, 0, "m").wr(1, 0, "g").rel(1, 0, "m");
  check(b.trace(), {});
}

// A block-scoped release and a device-scoped acquire in another block are not
// morally strong: no ordering (race-semantics.md, departures).
TEST(ReferenceModel, BlockReleaseToDeviceAcquireAcrossBlocks) {
  TraceBuilder b(2, 1);
  b.acq(0, 0, "m", kBlock).wr(0, 0, "g").rel(0, 0, "m", kBlock);
  b.acq(1, 0, "m", kDevice).wr(1, 0, "g").rel(1, 0, "m", kDevice);
  LocationSet g{b.loc("g")};
  check(b.trace(), {g, g, g});
}

TEST(ReferenceModel, BlockReleaseToDeviceAcquireInOneBlock) {
  TraceBuilder b(1, 64);
  b.acq(0, 0, "m", kBlock).wr(0, 0, "g").rel(0, 0, "m", kBlock);
  b.acq(0, 32, "m", kDevice).wr(0, 32, "g").rel(0, 32, "m", kDevice);
  check(b.trace(), {});
}

TEST(ReferenceModel, BlockScopedAtomicsAcrossBlocksRace) {
  TraceBuilder b(2, 1);
  b.atom(0, 0, "g", kBlock).atom(1, 0, "g", kBlock);
  LocationSet g{b.loc("g")};
  check(b.trace(), {g, g, g});
}

TEST(ReferenceModel, DeviceAndBlockAtomicAcrossBlocksRace) {
  TraceBuilder b(2, 1);
  b.atom(0, 0, "g", kDevice).atom(1, 0, "g", kBlock);
  LocationSet g{b.loc("g")};
  check(b.trace(), {g, g, g});
}

TEST(ReferenceModel, SufficientlyScopedAtomicsDoNotRace) {
  TraceBuilder b(2, 64);
  b.atom(0, 0, "g", kDevice).atom(1, 0, "g", kDevice).atom(0, 0, "g", Scope::System);
  b.atom(0, 0, "h", kBlock).atom(0, 32, "h", kBlock);
  b.awr(0, 0, "k", kDevice).ard(1, 0, "k", kDevice);
  check(b.trace(), {});
}

TEST(ReferenceModel, StrongAndPlainAccessesRace) {
  TraceBuilder b(2, 1);
  b.atom(0, 0, "g", kDevice).rd(1, 0, "g");
  b.wr(0, 0, "h").ard(1, 0, "h", kDevice);
  b.ard(0, 0, "k", kDevice).ard(1, 0, "k", kBlock);  // two reads: no conflict
  LocationSet gh{b.loc("g"), b.loc("h")};
  check(b.trace(), {gh, gh, gh});
}

TEST(ReferenceModel, IntraWarpSameEventWriteRaces) {
  TraceBuilder b(1, 32);
  b.warpAccess(0, 0, 0x3, AccessType::Write, false, kDevice, "g");
  LocationSet g{b.loc("g")};
  check(b.trace(), {g, g, g});
}

TEST(ReferenceModel, IntraWarpSameEventNonConflicting) {
  TraceBuilder b(1, 32);
  b.warpAccess(0, 0, 0xffffffff, AccessType::Write, false, kDevice, "a", /*perLane=*/true);
  b.warpAccess(0, 0, 0xffffffff, AccessType::Read, false, kDevice, "r");
  b.warpAccess(0, 0, 0xffffffff, AccessType::AtomicRmw, true, kBlock, "c");
  b.warpAccess(0, 0, 0x0000ffff, AccessType::Write, true, kBlock, "s");
  check(b.trace(), {});
}

// Lanes of one warp in different events: the happens-before detectors see
// two unordered threads, ScoRD's per-warp metadata does not compare them.
TEST(ReferenceModel, IntraWarpDifferentEvents) {
  TraceBuilder b(1, 32);
  b.warpAccess(0, 0, 0x1, AccessType::Write, false, kDevice, "g");
  b.warpAccess(0, 0, 0x2, AccessType::Write, false, kDevice, "g");
  LocationSet g{b.loc("g")};
  check(b.trace(), {g, g, {}});
}

// ScoRD's fence check: with no lock held, a fence by the first thread after
// its access whose scope covers the second thread hides the race.
TEST(ReferenceModel, LocksetFenceCheck) {
  {
    TraceBuilder b(2, 1);
    b.wr(0, 0, "g").fence(0, 0, kDevice).rd(1, 0, "g");
    LocationSet g{b.loc("g")};
    check(b.trace(), {g, g, {}});
  }
  {
    TraceBuilder b(2, 1);
    b.wr(0, 0, "g").fence(0, 0, kBlock).rd(1, 0, "g");
    LocationSet g{b.loc("g")};
    check(b.trace(), {g, g, g});
  }
  {
    TraceBuilder b(1, 64);
    b.wr(0, 0, "g").fence(0, 0, kBlock).rd(0, 32, "g");
    LocationSet g{b.loc("g")};
    check(b.trace(), {g, g, {}});
  }
  {  // the fence must come from the earlier access's thread, after it
    TraceBuilder b(2, 1);
    b.fence(0, 0, kDevice).wr(0, 0, "g").fence(1, 0, kDevice).rd(1, 0, "g");
    LocationSet g{b.loc("g")};
    check(b.trace(), {g, g, g});
  }
  {  // a lock held on one side: the lock rule decides, fences do not help
    TraceBuilder b(2, 1);
    b.acq(0, 0, "m").wr(0, 0, "g").rel(0, 0, "m").fence(0, 0, kDevice).rd(1, 0, "g");
    LocationSet g{b.loc("g")};
    check(b.trace(), {g, g, g});
  }
}

// ScoRD keeps only the last write: b2's read is compared with b1's write
// (common lock b), not with b0's (no common lock). Everything is ordered.
TEST(ReferenceModel, LocksetComparesWithLastWriteOnly) {
  TraceBuilder b(3, 1);
  b.acq(0, 0, "a").wr(0, 0, "g").rel(0, 0, "a");
  b.acq(1, 0, "a").acq(1, 0, "b").wr(1, 0, "g").rel(1, 0, "b").rel(1, 0, "a");
  b.acq(2, 0, "b").rd(2, 0, "g").rel(2, 0, "b");
  check(b.trace(), {});
}

// When several lanes of one warp event write a word, each of them is a last
// write (the lanes are unordered; none is "the" last): lane 0's atomic, with
// no fence after it, races with the later plain write from block 1, though
// lane 1 fenced.
TEST(ReferenceModel, LocksetLastWriteIsEveryLaneOfTheEvent) {
  TraceBuilder b(2, 32);
  b.warpAccess(0, 0, 0x3, AccessType::AtomicRmw, true, kBlock, "g");
  b.fence(0, 1, kDevice).wr(1, 0, "g");
  LocationSet g{b.loc("g")};
  check(b.trace(), {g, g, g});
}

TEST(ReferenceModel, LocksetReadsSinceLastWrite) {
  TraceBuilder b(3, 1);
  b.rd(0, 0, "g").rd(1, 0, "g").fence(1, 0, kDevice).wr(2, 0, "g");
  // lockset: b0's read has no fence after it -> race.
  LocationSet g{b.loc("g")};
  check(b.trace(), {g, g, g});
}

// An 8-byte access touches two words.
TEST(ReferenceModel, WideAccessTouchesTwoWords) {
  TraceBuilder b(2, 1);
  b.access(0, 0, AccessType::Write, false, kDevice, "g", 8).wr(1, 0, "g[1]").rd(1, 0, "g[2]");
  LocationSet g1{b.loc("g[1]")};
  check(b.trace(), {g1, g1, g1});
}

// ---------------------------------------------------------------------------
// The random trace generator.

void checkWellFormed(const Trace& trace, uint64_t seed) {
  const KernelInfo& k = trace.kernel;
  std::set<std::pair<uint32_t, uint32_t>> exited;
  std::map<std::pair<uint32_t, uint32_t>, std::vector<std::pair<uint64_t, Scope>>> held;
  auto eachLane = [&](const WarpLanes& lanes, auto&& f) {
    ASSERT_LT(lanes.block, k.numBlocks()) << seed;
    ASSERT_NE(lanes.mask, 0u) << seed;
    for (uint32_t lane = 0; lane < kWarpSize; ++lane)
      if (lanes.mask >> lane & 1) {
        uint32_t tid = lanes.warp * kWarpSize + lane;
        ASSERT_LT(tid, k.threadsPerBlock()) << seed;
        ASSERT_FALSE(exited.count({lanes.block, tid})) << "event after exit, seed " << seed;
        f(lane, std::pair{lanes.block, tid});
      }
  };
  for (size_t i = 0; i < trace.events.size(); ++i) {
    const Event& ev = trace.events[i];
    EXPECT_EQ(originOf(ev).seq, i);
    EXPECT_EQ(originOf(ev).pc, i + 1);
    std::visit(
        [&](const auto& e) {
          using T = std::decay_t<decltype(e)>;
          if constexpr (std::is_same_v<T, MemoryEvent>) {
            eachLane(e.lanes, [&](uint32_t lane, auto) {
              EXPECT_EQ(e.address[lane] % 4, 0u);
              if (e.type == AccessType::AtomicRmw) {
                EXPECT_TRUE(e.strong);
              }
            });
          } else if constexpr (std::is_same_v<T, AcquireEvent>) {
            EXPECT_EQ(std::popcount(e.lanes.mask), 1);
            eachLane(e.lanes, [&](uint32_t lane, auto t) {
              for (auto& [other, hs] : held)
                for (auto& [lock, scope] : hs)
                  EXPECT_FALSE(lock == e.lock[lane] && morallyStrong(scope, other.first, e.scope, t.first))
                      << "overlapping holders, seed " << seed << " event " << i;
              held[t].push_back({e.lock[lane], e.scope});
            });
          } else if constexpr (std::is_same_v<T, ReleaseEvent>) {
            eachLane(e.lanes, [&](uint32_t lane, auto t) {
              ASSERT_FALSE(held[t].empty()) << seed;
              EXPECT_EQ(held[t].back().first, e.lock[lane]) << "not well nested, seed " << seed;
              EXPECT_EQ(held[t].back().second, e.scope) << seed;
              held[t].pop_back();
            });
          } else if constexpr (std::is_same_v<T, ExitEvent>) {
            eachLane(e.lanes, [&](uint32_t, auto t) {
              EXPECT_TRUE(held[t].empty()) << "exit holding a lock, seed " << seed;
            });
            eachLane(e.lanes, [&](uint32_t, auto t) { exited.insert(t); });
          } else if constexpr (std::is_same_v<T, BarrierEvent>) {
            std::vector<uint32_t> live;
            for (uint32_t tid = 0; tid < k.threadsPerBlock(); ++tid)
              if (!exited.count({e.block, tid})) live.push_back(tid);
            EXPECT_EQ(e.threads, live) << seed;
          } else {
            eachLane(e.lanes, [&](uint32_t, auto) {});
          }
        },
        ev);
  }
}

TEST(RandomTrace, WellFormedAndDeterministic) {
  testsupport::RandomTraceOptions options;
  for (uint64_t seed = 0; seed < 300; ++seed) {
    Trace t = testsupport::randomTrace(seed, options);
    EXPECT_GE(t.events.size(), 1u);
    EXPECT_LE(t.events.size(), 2 * options.maxEvents);  // releases at exits and at the end
    checkWellFormed(t, seed);
    EXPECT_EQ(testsupport::toLitmus(t), testsupport::toLitmus(testsupport::randomTrace(seed, options)));
    EXPECT_EQ(testsupport::toLitmus(t).find("warning"), std::string::npos) << testsupport::toLitmus(t);
  }
}

TEST(RandomTrace, ReferenceFindsSomeRacesAndSomeOrder) {
  // The generator is useful only if the detectors disagree sometimes.
  int gwcpOnly = 0, hbRacy = 0, quiet = 0, locksetDiffers = 0;
  for (uint64_t seed = 0; seed < 300; ++seed) {
    Trace t = testsupport::randomTrace(seed);
    auto r = reference::analyze(t);
    // <GWCP is contained in <=HB on well-formed traces: every hb race is a gwcp race.
    for (const auto& l : r.hb.locations) EXPECT_TRUE(r.gwcp.locations.count(l)) << "hb race not a gwcp race, seed " << seed;
    if (r.gwcp.locations != r.hb.locations) ++gwcpOnly;
    if (!r.hb.locations.empty()) ++hbRacy;
    if (r.hb.locations.empty()) ++quiet;
    if (r.lockset.locations != r.hb.locations) ++locksetDiffers;
  }
  EXPECT_GT(gwcpOnly, 0);
  EXPECT_GT(hbRacy, 0);
  EXPECT_GT(quiet, 0);
  EXPECT_GT(locksetDiffers, 0);
  std::printf("gwcp!=hb: %d, hb racy: %d, hb quiet: %d, lockset!=hb: %d (of 300)\n", gwcpOnly, hbRacy, quiet,
              locksetDiffers);
}

TEST(RandomTrace, LitmusText) {
  TraceBuilder b(2, 64);
  b.shared({"s"});
  b.wr(0, 0, "x").acq(1, 33, "m", kBlock).ard(1, 33, "s[2]", kBlock).rel(1, 33, "m", kBlock);
  b.warpAccess(0, 1, 0x0000000f, AccessType::AtomicRmw, true, kDevice, "x[1]", true);
  b.warpAccess(1, 0, 0x00000003, AccessType::Write, false, kDevice, "x[3]");
  b.fence(0, 0, Scope::System).syncwarp(0, 1, 0xffffffff).exit(0, 0).bar(0);
  auto r = reference::analyze(b.trace());
  std::string text = testsupport::toLitmus(
      b.trace(), {{"gwcp", r.gwcp.locations}, {"hb", r.hb.locations}, {"lockset", r.lockset.locations}});
  EXPECT_EQ(text,
            "# builder: 10 events\n"
            "launch blocks=2 threads=64\n"
            "shared s\n"
            "b0.t0: wr x\n"
            "b1.t33: acq.block m\n"
            "b1.t33: ard.block s[2]\n"
            "b1.t33: rel.block m\n"
            "b0.w1[0x0000000f]: atom.device x[lane+1]\n"
            "b1.w0[0x00000003]: wr x[3]\n"
            "b0.t0: fence.system\n"
            "b0.w1[0xffffffff]: syncwarp\n"
            "b0.t0: exit\n"
            "b0: bar\n"
            "expect gwcp: race x[3]\n"
            "expect hb: race x[3]\n"
            "expect lockset: race x[3]\n");
}

}  // namespace
}  // namespace predatar
