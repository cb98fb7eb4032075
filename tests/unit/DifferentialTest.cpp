// Randomized differential test: every real detector (src/analysis) against
// the brute-force reference (tests/support/ReferenceModel.h) on random
// well-formed traces (tests/support/RandomTrace.h), with and without clock
// compression.
//
//   PREDATAR_DIFF_SEEDS=N        seeds 0..N-1 (default 1000)
//   PREDATAR_DIFF_FIRST_SEED=S   start at seed S instead (to replay one: S and N=1)
//
// A mismatch prints the seed, both location sets, a witness pair of the
// reference for each location only it reports, and the trace as a litmus
// file with the reference's expectations (ready for tests/litmus/).
//
// LitmusRoundTrip also checks toLitmus against the litmus reader (src/litmus)
// on the same seeds.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <iterator>
#include <memory>
#include <optional>
#include <sstream>
#include <string>

#include "analysis/Detector.h"
#include "events/EventSink.h"
#include "litmus/Litmus.h"
#include "support/EnvNumber.h"
#include "support/RandomTrace.h"
#include "support/ReferenceModel.h"
#include "support/TraceLitmus.h"

namespace predatar {
namespace {

using testsupport::envNumber;
using testsupport::RandomTraceOptions;

constexpr int kMaxReports = 5;  // printed mismatches per test; all are counted

reference::DetectorResult referenceFor(const std::string& detector, const Trace& trace) {
  if (detector == "gwcp") return reference::gwcp(trace);
  if (detector == "hb") return reference::hb(trace);
  return reference::lockset(trace);
}

std::string mismatchReport(const Trace& trace, uint64_t seed, const std::string& detector, bool compression,
                           const reference::DetectorResult& expected, const std::set<LocationKey>& got) {
  std::set<LocationKey> missing, extra;
  std::set_difference(expected.locations.begin(), expected.locations.end(), got.begin(), got.end(),
                      std::inserter(missing, missing.end()));
  std::set_difference(got.begin(), got.end(), expected.locations.begin(), expected.locations.end(),
                      std::inserter(extra, extra.end()));
  std::ostringstream out;
  out << "seed " << seed << ", detector " << detector << ", compression " << (compression ? "on" : "off") << "\n"
      << "  reference: " << testsupport::describeLocations(trace.kernel, expected.locations) << "\n"
      << "  detector:  " << testsupport::describeLocations(trace.kernel, got) << "\n";
  if (!missing.empty()) {
    out << "  missed:    " << testsupport::describeLocations(trace.kernel, missing) << "\n";
    for (const auto& w : expected.witnesses)
      if (missing.count(w.location))
        out << "    " << testsupport::describeLocations(trace.kernel, {w.location}) << ": racing pair "
            << reference::toString(w) << "\n";
  }
  if (!extra.empty())
    out << "  spurious:  " << testsupport::describeLocations(trace.kernel, extra) << "\n";
  out << "  replay: PREDATAR_DIFF_FIRST_SEED=" << seed << " PREDATAR_DIFF_SEEDS=1\n";
  const reference::Results all = reference::analyze(trace);
  out << "----- litmus (expectations from the reference) -----\n"
      << testsupport::toLitmus(trace, {{"gwcp", all.gwcp.locations},
                                       {"hb", all.hb.locations},
                                       {"lockset", all.lockset.locations}})
      << "-----";
  return out.str();
}

// `seedFactor`: times PREDATAR_DIFF_SEEDS, for shapes whose cases are rare.
void runDifferential(const std::string& detector, const RandomTraceOptions& traceOptions,
                     void (*transform)(Trace&) = nullptr, uint64_t seedFactor = 1) {
  const uint64_t first = envNumber("PREDATAR_DIFF_FIRST_SEED", 0);
  const uint64_t count = envNumber("PREDATAR_DIFF_SEEDS", 1000) * seedFactor;
  uint64_t mismatches = 0, runs = 0, racyRuns = 0;
  for (uint64_t seed = first; seed < first + count; ++seed) {
    Trace trace = testsupport::randomTrace(seed, traceOptions);
    if (transform) transform(trace);
    // (as the emulator says: no block-scoped acquire where the trace has none)
    trace.kernel.blockScopedAcquires = std::any_of(trace.events.begin(), trace.events.end(), [](const Event& e) {
      auto* a = std::get_if<AcquireEvent>(&e);
      return a && a->scope == Scope::Block;
    });
    const reference::DetectorResult expected = referenceFor(detector, trace);
    if (!expected.locations.empty()) ++racyRuns;
    // hb is also checked as gwcp checks it when both run (GwcpDetector::
    // checkHbToo), gwcp beside it unchanged.
    std::optional<reference::DetectorResult> gwcpExpected;
    if (detector == "hb") gwcpExpected = referenceFor("gwcp", trace);
    for (bool compression : {true, false}) {
      for (bool onGwcp : {false, true}) {
        if (onGwcp && !gwcpExpected) continue;
        DetectorOptions options;
        options.compression = compression;
        options.locksetLeavesBeforeCompact = 1;  // (lockset: compacts pages as soon as it may,
        options.locksetTablesFromBytes = 0;  // tables too)
        std::vector<std::unique_ptr<Detector>> ds =
            makeDetectors(onGwcp ? std::vector<std::string>{"gwcp", detector} : std::vector<std::string>{detector},
                          options);
        ASSERT_NE(ds.back(), nullptr) << "makeDetectors(\"" << detector << "\") returned null";
        EventFanout fanout;
        for (EventSink* sink : eventSinksOf(ds)) fanout.add(sink);
        replay(trace, fanout);
        ++runs;
        auto check = [&](const Detector& d, const reference::DetectorResult& want) {
          const std::set<LocationKey>& got = d.races().locations();
          if (got == want.locations) return;
          std::string name = std::string(d.name()) + (onGwcp ? " (hb checked by gwcp)" : "");
          if (++mismatches <= kMaxReports)
            ADD_FAILURE() << mismatchReport(trace, seed, name, compression, want, got);
        };
        check(*ds.back(), expected);
        if (onGwcp) check(*ds.front(), *gwcpExpected);
      }
    }
  }
  EXPECT_EQ(mismatches, 0u) << detector << ": " << mismatches << " of " << runs
                            << " runs differ from the reference (first " << kMaxReports << " printed)";
  // Not a check of the detector: tells whether the seeds exercised anything.
  ::testing::Test::RecordProperty("racy_traces", std::to_string(racyRuns));
}

TEST(Differential, Gwcp) { runDifferential("gwcp", {}); }
TEST(Differential, Hb) { runDifferential("hb", {}); }
TEST(Differential, Lockset) { runDifferential("lockset", {}); }

// One warp per block, two locks, two protected words, no shared memory:
// denser lock interplay, where gwcp and hb part ways more often.
RandomTraceOptions lockHeavy() {
  RandomTraceOptions o;
  o.maxWarpsPerBlock = 1;
  o.locks = 2;
  o.scalarWords = 2;
  o.sharedMemory = false;
  return o;
}
TEST(Differential, GwcpLockHeavy) { runDifferential("gwcp", lockHeavy()); }
TEST(Differential, HbLockHeavy) { runDifferential("hb", lockHeavy()); }
TEST(Differential, LocksetLockHeavy) { runDifferential("lockset", lockHeavy()); }

// 8-byte accesses (two words per lane); not expressible in litmus files, so
// the printed litmus text of a mismatch here is only approximate.
RandomTraceOptions wide() {
  RandomTraceOptions o;
  o.wideAccessPercent = 20;
  return o;
}
// Every lock operation made device scoped: block-scoped critical sections of
// different blocks, which could interleave, now overlap, so overlapping
// critical sections interleave (not an execution a GPU can produce, but a
// litmus file may say so, and the definitions still apply).
void deviceScopedLocks(Trace& trace) {
  for (Event& e : trace.events) {
    if (auto* a = std::get_if<AcquireEvent>(&e)) a->scope = Scope::Device;
    if (auto* r = std::get_if<ReleaseEvent>(&e)) r->scope = Scope::Device;
  }
}
TEST(Differential, GwcpInterleavedCriticalSections) { runDifferential("gwcp", lockHeavy(), deviceScopedLocks); }
TEST(Differential, HbInterleavedCriticalSections) { runDifferential("hb", lockHeavy(), deviceScopedLocks); }
TEST(Differential, LocksetInterleavedCriticalSections) {
  runDifferential("lockset", lockHeavy(), deviceScopedLocks);
}

// A transform's events become the trace's, with trace positions in order
// again and pcs as randomTrace makes them.
void replaceEvents(Trace& trace, std::vector<Event> events) {
  trace.events = std::move(events);
  uint64_t seq = 0;
  for (Event& e : trace.events) std::visit([&seq](auto& x) { x.origin.seq = seq++, x.origin.pc = uint32_t(seq); }, e);
}

// Locks as the emulator infers them (sim/LockInference): an acquire is an
// atom.cas of the lock word, a fence, then the acquire event; a release is a
// fence, the release event, then the atom.exch of the lock word (both RMWs
// marked as lock lanes), all at the lock's scope. The fence of a release
// ticks inside its critical section: gwcp's rule (ii) log leaves out a
// section that published nothing else (GwcpDetector::publishedInside).
void emulatedLocks(Trace& trace) {
  constexpr uint64_t kLockWords = 0x7000;  // (global words of their own, apart from g0 and g1)
  auto lockWord = [](const LockEvent& l, AtomicOp op) {
    uint32_t lane = uint32_t(std::countr_zero(l.lanes.mask));
    MemoryEvent m;
    m.lanes = l.lanes;
    m.type = AccessType::AtomicRmw;
    m.strong = true;
    m.op = op;
    m.scope = l.scope;
    m.space = MemorySpace::Global;
    m.address[lane] = kLockWords + 4 * l.lock[lane];
    m.lockLanes = l.lanes.mask;
    m.origin = l.origin;
    return m;
  };
  auto fenceOf = [](const LockEvent& l) { return FenceEvent{l.lanes, l.scope, l.origin}; };
  std::vector<Event> out;
  for (Event& e : trace.events) {
    if (auto* a = std::get_if<AcquireEvent>(&e)) {
      out.push_back(lockWord(*a, AtomicOp::Cas));
      out.push_back(fenceOf(*a));
      out.push_back(e);
    } else if (auto* r = std::get_if<ReleaseEvent>(&e)) {
      out.push_back(fenceOf(*r));
      out.push_back(e);
      out.push_back(lockWord(*r, AtomicOp::Exch));
    } else {
      out.push_back(e);
    }
  }
  replaceEvents(trace, std::move(out));
}
TEST(Differential, GwcpEmulatedLocks) {
  runDifferential("gwcp", {}, emulatedLocks);
  runDifferential("gwcp", lockHeavy(), emulatedLocks);
}
TEST(Differential, HbEmulatedLocks) { runDifferential("hb", lockHeavy(), emulatedLocks); }

// A flag that its writers also read, as a grid barrier's spinners do: before
// some events, one of the event's threads arrives (a device fence, then an
// atomic add of the flag) or spins (a strong read of the flag, then a device
// fence). A reader that wrote the flag takes the other writers' releases and
// never its own (MessagePassing::takeDeviceJoin); with locks about, its own
// release may hold what P does not.
void flagWritersReadBack(Trace& trace) {
  constexpr uint64_t kFlag = 0x7800;  // (a global word of its own, apart from g0 and g1)
  std::vector<Event> out;
  for (Event& e : trace.events) {
    std::optional<WarpLanes> lanes;
    uint64_t seq = 0;
    std::visit([&](auto& x) { seq = x.origin.seq; }, e);
    if (auto* m = std::get_if<MemoryEvent>(&e)) lanes = m->lanes;
    if (auto* f = std::get_if<FenceEvent>(&e)) lanes = f->lanes;
    if (auto* a = std::get_if<AcquireEvent>(&e)) lanes = a->lanes;
    if (auto* r = std::get_if<ReleaseEvent>(&e)) lanes = r->lanes;
    uint64_t pick = (seq + 1) * 2654435761u;
    if (lanes && lanes->mask && (pick >> 8) % 3 == 0) {
      uint32_t lane = uint32_t(std::countr_zero(lanes->mask));
      WarpLanes one{lanes->block, lanes->warp, 1u << lane};
      MemoryEvent flag;
      flag.lanes = one;
      flag.strong = true;
      flag.scope = Scope::Device;
      flag.space = MemorySpace::Global;
      flag.address[lane] = kFlag;
      bool arrive = (pick >> 16) % 2 == 0;
      flag.type = arrive ? AccessType::AtomicRmw : AccessType::Read;
      flag.op = arrive ? AtomicOp::Add : AtomicOp::None;
      FenceEvent fence{one, Scope::Device, {}};
      if (arrive) out.push_back(fence);
      out.push_back(flag);
      if (!arrive) out.push_back(fence);
    }
    out.push_back(e);
  }
  replaceEvents(trace, std::move(out));
}
TEST(Differential, GwcpFlagWritersReadBack) {
  runDifferential("gwcp", {}, flagWritersReadBack);
  runDifferential("gwcp", lockHeavy(), flagWritersReadBack);
}
TEST(Differential, HbFlagWritersReadBack) { runDifferential("hb", lockHeavy(), flagWritersReadBack); }

// gwcp trimming its rule (ii) log at every release (GwcpDetector::trimLog):
// dropping consumed critical sections must not change a single report.
class TrimEveryRelease {
 public:
  TrimEveryRelease() { setenv("PREDATAR_GWCP_TRIM_EVERY", "1", 1); }
  ~TrimEveryRelease() { unsetenv("PREDATAR_GWCP_TRIM_EVERY"); }
};
TEST(Differential, GwcpTrimmedLog) {
  TrimEveryRelease trim;
  runDifferential("gwcp", {});
}
TEST(Differential, GwcpTrimmedLogLockHeavy) {
  TrimEveryRelease trim;
  runDifferential("gwcp", lockHeavy());
}
TEST(Differential, GwcpTrimmedLogInterleaved) {
  TrimEveryRelease trim;
  runDifferential("gwcp", lockHeavy(), deviceScopedLocks);
}
TEST(Differential, GwcpTrimmedLogEmulatedLocks) {
  TrimEveryRelease trim;
  runDifferential("gwcp", lockHeavy(), emulatedLocks);
}
// Every other block-scoped release made device scoped, as the emulator infers
// one after atom.cta.cas and a device fence (random traces otherwise release
// with the acquire's scope): such a section reads every device-log entry at
// its release, having joined only its own block's P at its acquire. (The
// trimmed-log false alarm this allows without KernelInfo::blockScopedAcquires
// needs a longer chain than these traces make: 12,000 of them do not show it;
// GwcpLog.ABlockAcquiredDeviceReleasedSectionNeedsOtherBlocksEntries does.)
void mixedScopeReleases(Trace& trace) {
  for (Event& e : trace.events)
    if (auto* r = std::get_if<ReleaseEvent>(&e); r && r->scope == Scope::Block && r->origin.seq % 2 == 0)
      r->scope = Scope::Device;
}
TEST(Differential, GwcpTrimmedLogMixedScopes) {
  TrimEveryRelease trim;
  runDifferential("gwcp", lockHeavy(), mixedScopeReleases, 4);
}
// (Untrimmed too: a block-scoped section overlapping a device-scoped one of
// another block gave a false race with or without trimming,
// tests/litmus/semantics/gwcp_rule_i_overlap_across_scopes.litmus.)
TEST(Differential, GwcpMixedScopes) { runDifferential("gwcp", lockHeavy(), mixedScopeReleases, 4); }
TEST(Differential, HbMixedScopes) { runDifferential("hb", lockHeavy(), mixedScopeReleases, 4); }

// Every access on one word of g0 and s0, from up to 5 blocks: device-scoped
// atomics of many blocks pile up on one word (AccessHistory keeps them by
// block) before plain accesses and block-scoped atomics scan them all; with
// the rule (ii) log trimmed at every release, block logs included.
RandomTraceOptions oneWord() {
  RandomTraceOptions o;
  o.scalarWords = 1;
  o.maxBlocks = 5;
  o.maxWarpsPerBlock = 1;
  return o;
}
TEST(Differential, GwcpOneWord) { runDifferential("gwcp", oneWord()); }
TEST(Differential, HbOneWord) { runDifferential("hb", oneWord()); }
TEST(Differential, GwcpTrimmedLogOneWord) {
  TrimEveryRelease trim;
  runDifferential("gwcp", oneWord());
}

// Memory events of only two instructions: reads by consecutive threads at
// one instruction and epoch share a record (AccessHistory's read groups),
// across warps and events too, and writes split those groups thread by thread.
void twoInstructions(Trace& trace) {
  for (Event& e : trace.events)
    if (auto* m = std::get_if<MemoryEvent>(&e)) m->origin.pc = 1 + m->origin.seq % 2;
}
TEST(Differential, GwcpReadGroups) { runDifferential("gwcp", {}, twoInstructions); }
TEST(Differential, HbReadGroups) { runDifferential("hb", {}, twoInstructions); }
TEST(Differential, GwcpReadGroupsOneWord) { runDifferential("gwcp", oneWord(), twoInstructions); }
TEST(Differential, HbReadGroupsOneWord) { runDifferential("hb", oneWord(), twoInstructions); }

// Read-shared words compacted at every doubling from two records
// (AccessHistory::compactReads): reads of finished blocks that never
// published, and of earlier launches, merged by instruction must not change
// a single report. Few instructions and words, many blocks and events, so
// blocks finish while others still read.
class CompactReadsEarly {
 public:
  CompactReadsEarly() { setenv("PREDATAR_COMPACT_READS_AT", "2", 1); }
  ~CompactReadsEarly() { unsetenv("PREDATAR_COMPACT_READS_AT"); }
};
RandomTraceOptions readShared() {
  RandomTraceOptions o;
  o.scalarWords = 1;
  o.maxBlocks = 8;
  o.maxWarpsPerBlock = 1;
  o.minEvents = 80;
  o.maxEvents = 240;
  return o;
}
// Blocks publish nothing (no fences, locks, or strong global writes: those
// become plain), so their reads merge once they finish.
void unpublished(Trace& trace) {
  twoInstructions(trace);
  std::erase_if(trace.events, [](const Event& e) {
    return std::holds_alternative<FenceEvent>(e) || std::holds_alternative<AcquireEvent>(e) ||
           std::holds_alternative<ReleaseEvent>(e);
  });
  for (Event& e : trace.events)
    if (auto* m = std::get_if<MemoryEvent>(&e); m && m->space == MemorySpace::Global && m->type != AccessType::Read) {
      m->strong = false;
      m->type = AccessType::Write;
      m->op = AtomicOp::None;
      m->lockLanes = 0;
    }
}
// Every block's threads exit right after the block's last event, so blocks
// finish while later ones still run (as blocks of a wave do).
void blocksFinishEarly(Trace& trace) {
  auto blockOf = [](const Event& e) {
    return std::visit([](const auto& x) -> uint32_t {
      if constexpr (std::is_same_v<std::decay_t<decltype(x)>, BarrierEvent>) return x.block;
      else return x.lanes.block;
    }, e);
  };
  uint32_t blocks = trace.kernel.numBlocks(), tpb = trace.kernel.threadsPerBlock();
  std::vector<size_t> last(blocks, SIZE_MAX);
  for (size_t i = 0; i < trace.events.size(); ++i) last[blockOf(trace.events[i])] = i;
  std::vector<std::vector<LaneMask>> exited(blocks, std::vector<LaneMask>((tpb + 31) / 32, 0));
  std::vector<Event> out;
  for (size_t i = 0; i < trace.events.size(); ++i) {
    out.push_back(trace.events[i]);
    if (auto* x = std::get_if<ExitEvent>(&trace.events[i])) exited[x->lanes.block][x->lanes.warp] |= x->lanes.mask;
    uint32_t b = blockOf(trace.events[i]);
    if (last[b] != i) continue;
    for (uint32_t w = 0; w < (tpb + 31) / 32; ++w) {
      uint32_t lanes = std::min(32u, tpb - 32 * w);
      LaneMask all = lanes == 32 ? ~LaneMask(0) : (LaneMask(1) << lanes) - 1, left = all & ~exited[b][w];
      if (!left) continue;
      ExitEvent e;
      e.lanes = {b, w, left};
      out.push_back(e);
    }
  }
  trace.events = std::move(out);
  uint64_t seq = 0;  // trace positions in order again
  for (Event& e : trace.events) std::visit([&seq](auto& x) { x.origin.seq = ++seq; }, e);
}
void unpublishedFinishing(Trace& trace) {
  unpublished(trace);
  blocksFinishEarly(trace);
}
void finishing(Trace& trace) {
  twoInstructions(trace);
  blocksFinishEarly(trace);
}
TEST(Differential, GwcpCompactedReads) {
  CompactReadsEarly compact;
  runDifferential("gwcp", readShared(), twoInstructions);
  runDifferential("gwcp", readShared(), unpublishedFinishing);
  runDifferential("gwcp", readShared(), finishing);
}
TEST(Differential, HbCompactedReads) {
  CompactReadsEarly compact;
  runDifferential("hb", readShared(), twoInstructions);
  runDifferential("hb", readShared(), unpublishedFinishing);
  runDifferential("hb", readShared(), finishing);
}


// Lane-indexed accesses made exactly coalesced (lane l on word l of a
// 64-byte aligned array): a half warp's records fill a shadow page, which is
// then kept compressed as one record (ShadowPages) and expanded when touched
// again.
void coalesced(Trace& trace) {
  for (Event& e : trace.events) {
    auto* m = std::get_if<MemoryEvent>(&e);
    if (!m || m->size != 4) continue;
    std::optional<uint64_t> base;
    bool perLane = true;
    for (uint32_t lane = 0; lane < kWarpSize && perLane; ++lane) {
      if (!((m->lanes.mask >> lane) & 1)) continue;
      uint64_t b = m->address[lane] - 4 * lane;
      perLane = !base || *base == b;
      base = b;
    }
    if (!perLane || !base) continue;
    for (uint32_t lane = 0; lane < kWarpSize; ++lane) m->address[lane] = (*base & ~uint64_t(0xff)) + 4 * lane;
  }
}
TEST(Differential, GwcpCoalescedPages) { runDifferential("gwcp", {}, coalesced); }
TEST(Differential, HbCoalescedPages) { runDifferential("hb", {}, coalesced); }

// Every lane of a memory event at its first lane's address: a warp's lanes on
// one word in one event (a broadcast read, a binary search's first steps), a
// read group joined lane after lane among the lanes' own and their warp
// mates' earlier writes and strong accesses (mergeSort: 43% of the lanes
// read the word the lane before them read).
void broadcast(Trace& trace) {
  for (Event& e : trace.events) {
    auto* m = std::get_if<MemoryEvent>(&e);
    if (!m || !m->lanes.mask) continue;
    uint64_t first = m->address[std::countr_zero(m->lanes.mask)];
    for (uint32_t lane = 0; lane < kWarpSize; ++lane) m->address[lane] = first;
  }
}
TEST(Differential, GwcpBroadcastReads) { runDifferential("gwcp", {}, broadcast); }
TEST(Differential, HbBroadcastReads) { runDifferential("hb", {}, broadcast); }
TEST(Differential, GwcpBroadcastReadsOneWord) { runDifferential("gwcp", oneWord(), broadcast); }
TEST(Differential, HbBroadcastReadsOneWord) { runDifferential("hb", oneWord(), broadcast); }

// Named barriers of some of a block's threads, some of which only arrive
// (bar.arrive: a release, they do not wait): the waiters learn the arrivers'
// past, the arrivers learn nothing; lockset counts them as taking part.
RandomTraceOptions namedBarriers() {
  RandomTraceOptions o;
  o.namedBarrierPercent = 80;
  return o;
}
// (More seeds than elsewhere: gwcp's and hb's arrivals that complete a
// barrier later are rare among random events; lockset's two threads that
// each took a different named barrier after an access rarer still, and
// lockset is cheap.)
TEST(Differential, GwcpNamedBarriers) { runDifferential("gwcp", namedBarriers(), nullptr, 5); }
TEST(Differential, HbNamedBarriers) { runDifferential("hb", namedBarriers(), nullptr, 5); }
TEST(Differential, LocksetNamedBarriers) { runDifferential("lockset", namedBarriers(), nullptr, 20); }
TEST(Differential, GwcpTrimmedLogNamedBarriers) {
  TrimEveryRelease trim;
  runDifferential("gwcp", namedBarriers(), nullptr, 5);
}

TEST(Differential, GwcpWideAccesses) { runDifferential("gwcp", wide()); }
TEST(Differential, HbWideAccesses) { runDifferential("hb", wide()); }
TEST(Differential, LocksetWideAccesses) { runDifferential("lockset", wide()); }

// The grid's blocks made one block (block b's thread t is thread b * S + t,
// S its thread count rounded up to a warp), so critical sections that
// were block-scoped in different blocks now overlap in one (a lock no longer
// exclusive), and every lock marked as in that block's shared memory
// (LockEvent::blockLocal), as the emulator marks a lock word in shared
// memory: random traces otherwise have global locks only.
void oneBlockLocalLocks(Trace& trace) {
  KernelInfo& k = trace.kernel;
  const uint32_t stride = (k.threadsPerBlock() + kWarpSize - 1) / kWarpSize * kWarpSize;
  k.block = {k.numBlocks() * stride, 1, 1};
  k.grid = {1, 1, 1};
  auto lanes = [&](WarpLanes& l) {
    l.warp += l.block * (stride / kWarpSize);
    l.block = 0;
  };
  for (Event& e : trace.events) {
    std::visit(
        [&](auto& x) {
          using T = std::decay_t<decltype(x)>;
          if constexpr (std::is_same_v<T, BarrierEvent>) {
            for (auto* threads : {&x.threads, &x.arrivers})
              for (uint32_t& t : *threads) t += x.block * stride;
            x.block = 0;
          } else {
            lanes(x.lanes);
          }
          if constexpr (std::is_base_of_v<LockEvent, T>) x.blockLocal = x.lanes.mask;
        },
        e);
  }
}
TEST(Differential, GwcpOneBlockLocalLocks) {
  runDifferential("gwcp", {}, oneBlockLocalLocks);
  runDifferential("gwcp", lockHeavy(), oneBlockLocalLocks);
}
TEST(Differential, HbOneBlockLocalLocks) { runDifferential("hb", lockHeavy(), oneBlockLocalLocks); }
TEST(Differential, LocksetOneBlockLocalLocks) { runDifferential("lockset", lockHeavy(), oneBlockLocalLocks); }
TEST(Differential, GwcpTrimmedLogOneBlockLocalLocks) {
  TrimEveryRelease trim;
  runDifferential("gwcp", lockHeavy(), oneBlockLocalLocks);
}

// toLitmus and the litmus reader agree: the text of a random trace, read
// back, is the same execution (same events, the reference finds the same
// locations by name), and the real detectors meet its `expect` lines, as
// `predatar litmus` would check them.
std::set<std::string> names(const KernelInfo& kernel, const std::set<LocationKey>& locations) {
  std::set<std::string> out;
  for (const LocationKey& l : locations) out.insert(testsupport::litmusLocation(kernel, l.space, l.address));
  return out;
}

TEST(Differential, LitmusRoundTrip) {
  const uint64_t first = envNumber("PREDATAR_DIFF_FIRST_SEED", 0);
  const uint64_t count = envNumber("PREDATAR_DIFF_SEEDS", 1000);
  int reports = 0;
  for (uint64_t seed = first; seed < first + count && reports < kMaxReports; ++seed) {
    const Trace trace = testsupport::randomTrace(seed);
    const reference::Results ref = reference::analyze(trace);
    const std::string text = testsupport::toLitmus(
        trace, {{"gwcp", ref.gwcp.locations}, {"hb", ref.hb.locations}, {"lockset", ref.lockset.locations}});
    const std::string context = "seed " + std::to_string(seed) + "\n" + text;
    auto file = litmus::parse(text, "random-" + std::to_string(seed) + ".litmus");
    if (!file.ok()) {
      ++reports;
      ADD_FAILURE() << file.status().message() << "\n" << context;
      continue;
    }
    bool ok = true;
    auto expectEq = [&](const auto& a, const auto& b, const std::string& what) {
      if (a == b) return;
      ok = false;
      ADD_FAILURE() << what << " differs after reading the litmus text back\n" << context;
    };
    expectEq(file->trace.events.size(), trace.events.size(), "the number of events");
    expectEq(file->trace.kernel.numBlocks(), trace.kernel.numBlocks(), "blocks");
    expectEq(file->trace.kernel.threadsPerBlock(), trace.kernel.threadsPerBlock(), "threads per block");
    const reference::Results back = reference::analyze(file->trace);
    expectEq(names(file->trace.kernel, back.gwcp.locations), names(trace.kernel, ref.gwcp.locations), "reference gwcp");
    expectEq(names(file->trace.kernel, back.hb.locations), names(trace.kernel, ref.hb.locations), "reference hb");
    expectEq(names(file->trace.kernel, back.lockset.locations), names(trace.kernel, ref.lockset.locations),
             "reference lockset");
    for (bool compression : {true, false}) {
      DetectorOptions options;
      options.compression = compression;
      auto detectors = litmus::analyze(*file, allDetectorNames(), options);
      for (const auto& d : detectors)
        for (const litmus::Expectation& x : file->expectations)
          if (x.detector == d->name())
            expectEq(litmus::racyLocations(*file, *d), x.locations,
                     std::string(d->name()) + (compression ? "" : " (no compression)") + " against its expect line");
    }
    if (!ok) ++reports;
  }
}

}  // namespace
}  // namespace predatar
