// Records passed without a check when alike to one checked and unordered
// with the access (AlikeRecordSkip.h, DetectorOptions::skipAlikeRecords):
// gwcp and hb must report exactly what they report checking every record,
// every field (the earlier access each race names, the counts), with the
// same metadata figures, on the differential test's random traces and on
// traces shaped as a block's spin on a counter that its threads update
// atomically and read plainly (simpleAttributes' `hit`), with fences,
// strong reads and writes, plain writes, __syncwarp, locks and barriers
// among them.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <random>
#include <string>
#include <variant>

#include "AccessHistoryFixture.h"
#include "analysis/Detector.h"
#include "support/DescribeRaces.h"
#include "support/EnvNumber.h"
#include "support/RandomTrace.h"
#include "support/TraceBuilder.h"

namespace predatar {
namespace {

std::string reportsOf(const char* detector, const Trace& trace, bool skip) {
  DetectorOptions options;
  options.skipAlikeRecords = skip;
  std::unique_ptr<Detector> d = makeDetector(detector, options);
  replay(trace, *d);
  return testsupport::describeDetector(*d);
}

// The trace as a loop would make it: every access of one kind (type,
// strength, scope) from one instruction, so that records of different
// events, threads and warps are alike (the generators number each event's
// instruction apart).
Trace asLoop(Trace trace) {
  for (Event& event : trace.events)
    if (auto* m = std::get_if<MemoryEvent>(&event))
      m->origin.pc = 1 + uint32_t(m->type) * 8 + uint32_t(m->strong) * 4 + uint32_t(m->scope);
  return trace;
}

void expectSameReports(const Trace& trace, const std::string& what) {
  for (const Trace& t : {trace, asLoop(trace)})
    for (const char* detector : {"gwcp", "hb"})
      ASSERT_EQ(reportsOf(detector, t, false), reportsOf(detector, t, true)) << detector << ", " << what;
}

TEST(AlikeRecordSkip, SameReportsOnRandomTraces) {
  const uint64_t first = testsupport::envNumber("PREDATAR_DIFF_FIRST_SEED", 0);
  for (uint64_t seed = first; seed < first + testsupport::envNumber("PREDATAR_DIFF_SEEDS", 1000); ++seed) {
    testsupport::RandomTraceOptions options;
    options.scalarWords = 1 + seed % 3;  // (one word: every access meets every record)
    options.maxEvents = 120;
    options.namedBarrierPercent = seed % 2 ? 10 : 0;
    expectSameReports(testsupport::randomTrace(seed, options), "seed " + std::to_string(seed));
  }
}

// Two histories fed the same random warp accesses of two words by the 256
// threads of two blocks, one passing alike unordered records, one checking
// each: the same records after every event, and the same races. A thread's
// `ordered` follows its view of others' epochs, as a vector clock does, and
// answers false after its view last changed (as ThreadClocks::SteadySince
// lets the detectors'); its `excused` holds for strong writes before its
// own last strong access (monotone, as same-location observation is).
class AlikeRecordHistories : public AccessHistoryFixture {
 protected:
  static constexpr uint32_t kThreads = 128, kBlocks = 2, kAll = kBlocks * kThreads;
  static constexpr uint64_t kWords[2] = {0x100, 0x101};

  void reset() {
    for (std::unique_ptr<Side>& side : sides_) {
      side = std::make_unique<Side>();
      side->history.beginLaunch(kernel_);
      side->log.beginKernel("k");
    }
    threads_.assign(kAll, Thread());
  }
  struct Side {
    AccessHistory history;
    RaceLog log;
  };
  struct Thread {
    Clock now = 1;
    std::vector<Clock> view = std::vector<Clock>(kAll, 0);
    uint64_t steadySince = 0;  // its first access's position after the view changed
    bool viewChanged = true;
    uint64_t lastStrong = 0;
  };

  void access(uint64_t key, const AccessRecord& r) {
    Thread& t = threads_[r.block * kThreads + r.thread];
    if (t.viewChanged) t.steadySince = r.origin.seq, t.viewChanged = false;
    auto ordered = [&t](const AccessRecord& e) {
      return e.origin.seq <= t.steadySince && e.clock <= t.view[e.block * kThreads + e.thread];
    };
    // (Odd positions: as a lambda; even: with how far alike writes are excused.)
    auto excused = [&t](const AccessRecord& e) { return e.strong && e.writes() && e.origin.seq < t.lastStrong; };
    struct ExcusedThrough {
      const Thread& t;
      bool operator()(const AccessRecord& e) const { return e.strong && e.writes() && e.origin.seq < t.lastStrong; }
      uint64_t excusedThrough(const AccessRecord& e) const {
        return e.strong && e.writes() && t.lastStrong > 0 ? t.lastStrong - 1 : 0;
      }
    };
    if (r.origin.seq % 2) {
      sides_[0]->history.access(key, r, ordered, sides_[0]->log, excused, NoNote{}, UINT64_MAX);
      sides_[1]->history.access(key, r, ordered, sides_[1]->log, excused, NoNote{}, t.steadySince);
    } else {
      sides_[0]->history.access(key, r, ordered, sides_[0]->log, ExcusedThrough{t}, NoNote{}, UINT64_MAX);
      sides_[1]->history.access(key, r, ordered, sides_[1]->log, ExcusedThrough{t}, NoNote{}, t.steadySince);
    }
  }

  void randomEvent(std::mt19937& rng, uint64_t seq) {
    auto pick = [&](uint32_t n) { return uint32_t(rng() % n); };
    uint32_t block = pick(kBlocks), warp = pick(kThreads / 32);
    uint32_t mask = pick(3) == 0 ? uint32_t(rng()) | 1u : ~0u;
    AccessRecord common;
    common.block = block;
    uint32_t kind = pick(10);
    common.type = kind < 4 ? AccessType::Read : kind < 9 ? AccessType::AtomicRmw : AccessType::Write;
    common.strong = common.type == AccessType::AtomicRmw || (kind < 4 && pick(4) == 0);
    common.scope = pick(2) ? Scope::Device : Scope::Block;
    common.bytes = pick(6) ? 0xf : 0x3;
    common.origin.pc = 1 + pick(3);
    common.origin.seq = seq;
    uint64_t key = kWords[pick(2)];
    for (uint32_t lane = 0; lane < 32; ++lane) {
      if (!((mask >> lane) & 1)) continue;
      AccessRecord r = common;
      r.thread = warp * 32 + lane;
      Thread& t = threads_[block * kThreads + r.thread];
      r.clock = t.now;
      access(key, r);
      if (r.strong) t.lastStrong = seq;
    }
  }
  // A thread takes another's view and time (a barrier of two, a lock handed over).
  void randomSynchronization(std::mt19937& rng) {
    Thread& t = threads_[rng() % kAll];
    uint32_t u = uint32_t(rng() % kAll);
    for (uint32_t i = 0; i < kAll; ++i) t.view[i] = std::max(t.view[i], threads_[u].view[i]);
    t.view[u] = std::max(t.view[u], threads_[u].now);
    t.viewChanged = true;
    ++threads_[u].now;
  }

  std::unique_ptr<Side> sides_[2];
  std::vector<Thread> threads_;
};

TEST_F(AlikeRecordHistories, SameRecordsAndRacesAsCheckingEach) {
  for (uint32_t seed = 0; seed < 20; ++seed) {
    reset();
    std::mt19937 rng(seed);
    for (uint64_t seq = 1; seq <= 300; ++seq) {
      if (rng() % 3 == 0) randomSynchronization(rng);
      randomEvent(rng, seq);
      for (uint64_t key : kWords)
        ASSERT_EQ(sides_[0]->history.recordsOf(key), sides_[1]->history.recordsOf(key))
            << "seed " << seed << ", event " << seq << ", word " << key;
      ASSERT_EQ(testsupport::describeRaces(sides_[0]->log), testsupport::describeRaces(sides_[1]->log))
          << "seed " << seed << ", event " << seq;
    }
  }
}

// One or two blocks of three warps spinning on shared `h`: each round, a
// warp's lanes read h plainly and add to it atomically (block scope), and
// one of a few other events happens.
Trace spinTrace(uint64_t seed) {
  constexpr uint32_t kWarps = 3;
  std::mt19937_64 rng(seed);
  auto pick = [&rng](uint32_t n) { return uint32_t(rng() % n); };
  uint32_t blocks = 1 + pick(2);
  testsupport::TraceBuilder b(blocks, 32 * kWarps);
  b.shared({"h"});
  auto someLanes = [&]() { return pick(4) == 0 ? LaneMask(rng()) | 1u : ~0u; };
  for (uint32_t round = 0, rounds = 10 + pick(30); round < rounds; ++round) {
    uint32_t blk = pick(blocks), w = pick(kWarps), t = 32 * w + pick(32);
    b.warpAccess(blk, w, someLanes(), AccessType::Read, false, Scope::Device, "h");
    b.warpAccess(blk, w, someLanes(), AccessType::AtomicRmw, true, Scope::Block, "h");
    switch (pick(12)) {
      case 0: b.fence(blk, t, pick(2) ? Scope::Block : Scope::Device); break;
      case 1: b.ard(blk, t, "h", Scope::Block); break;
      case 2: b.awr(blk, t, "h", pick(2) ? Scope::Block : Scope::Device); break;
      case 3: b.wr(blk, t, "h"); break;
      case 4: b.syncwarp(blk, w, ~0u); break;
      case 5: b.acq(blk, t, "m", Scope::Block).rd(blk, t, "h").atom(blk, t, "h", Scope::Block).rel(blk, t, "m", Scope::Block); break;
      case 6: b.atom(blk, t, "g", Scope::Device).rd(blk, t, "g"); break;
      case 7:
        if (pick(3) == 0) b.bar(blk);
        break;
      default: break;
    }
  }
  return b.build();
}

TEST(AlikeRecordSkip, SameReportsOnBlockCounterSpins) {
  for (uint64_t seed = 0; seed < 150; ++seed) expectSameReports(spinTrace(seed), "spin seed " + std::to_string(seed));
}

}  // namespace
}  // namespace predatar

namespace predatar {
namespace {

// A record the access subsumes is passed only after the bound: here the
// atomics of threads 40, 45 and 50 (unordered, kept) come before thread
// 70's alike one, which thread 100 has seen (ordered, so dropped by 100's
// atomic), all before 100's bound. (Scans of 4 records and more learn; the
// random histories do not make this order.)
TEST(AlikeRecordSkipCases, AnOrderedRecordAfterAnUnorderedAlikeOneIsStillDropped) {
  constexpr uint64_t kWord = 0x100;
  KernelInfo kernel;
  kernel.grid = Dim3{1, 1, 1};
  kernel.block = Dim3{128, 1, 1};
  kernel.launch = 1;
  auto atomic = [](uint32_t thread, uint64_t seq) {
    AccessRecord r;
    r.thread = thread;
    r.clock = 1;
    r.type = AccessType::AtomicRmw;
    r.strong = true;
    r.scope = Scope::Block;
    r.origin.pc = 5;
    r.origin.seq = seq;
    return r;
  };
  auto none = [](const AccessRecord&) { return false; };
  auto seen70 = [](const AccessRecord& r) { return r.origin.seq <= 5 && r.thread == 70; };
  std::vector<PackedRecord> after[2];
  for (bool skip : {false, true}) {
    AccessHistory history;
    RaceLog log;
    history.beginLaunch(kernel);
    log.beginKernel("k");
    for (uint32_t thread : {40, 45, 50}) history.access(kWord, atomic(thread, thread / 5 - 7), none, log);
    history.access(kWord, atomic(70, 4), none, log);
    history.access(kWord, atomic(100, 5), seen70, log, NoExcuse{}, NoNote{}, skip ? 5 : UINT64_MAX);
    after[skip] = history.recordsOf(kWord);
  }
  EXPECT_EQ(after[0], after[1]);
  EXPECT_EQ(after[1].size(), 4u);  // all but 70's
}

}  // namespace
}  // namespace predatar
