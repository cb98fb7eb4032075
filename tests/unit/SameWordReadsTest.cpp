// The later lanes of a run of lanes that read one word, taken in one step
// (AccessHistory::sameWordReads, SameWordReads.h), against the per-lane path
// they replace: on random warp accesses, the same races (every field, the
// earlier access each names included) and the same records after every
// event; and the detectors, with and without it, on the differential test's
// random traces.
#include <memory>
#include <random>
#include <sstream>
#include <string>

#include "AccessHistoryFixture.h"
#include "analysis/Detector.h"
#include "support/DescribeRaces.h"
#include "support/RandomTrace.h"

namespace predatar {
namespace {

std::string describe(const RaceLog& log) { return testsupport::describeRaces(log); }

std::string describe(const std::vector<PackedRecord>& records) {
  std::ostringstream out;
  for (const PackedRecord& r : records)
    out << "(" << r.seqAndKind << " " << r.block << " " << r.thread << " " << r.clock << " " << r.pc << ")";
  return out.str();
}

// Two histories fed the same random warp accesses of two words by the 256
// threads of two blocks: `lanes` takes every lane through access(), `runs`
// takes a plain read's later lanes of one word through sameWordReads.
class SameWordReadsTest : public AccessHistoryFixture {
 protected:
  static constexpr uint32_t kThreads = 128, kBlocks = 2;
  static constexpr uint64_t kWords[2] = {0x100, 0x101};

  void SetUp() override {
    firstLaunch(kBlocks, kThreads, {&lanes_, &runs_});
    now_.assign(kBlocks * kThreads, 1);
    view_.assign(kBlocks * kThreads, std::vector<Clock>(kBlocks * kThreads, 0));
  }

  // Earlier accesses a thread's view covers are ordered before its own.
  auto orderedFor(uint32_t accessor) {
    return [this, accessor](const AccessRecord& r) { return r.clock <= view_[accessor][r.block * kThreads + r.thread]; };
  }
  void laneByLane(Side& side, uint64_t key, const std::vector<AccessRecord>& lanes) {
    for (const AccessRecord& r : lanes)
      side.history.access(key, r, orderedFor(r.block * kThreads + r.thread), side.log);
  }
  void inOneStep(Side& side, uint64_t key, const std::vector<AccessRecord>& lanes) {
    side.history.access(key, lanes[0], orderedFor(lanes[0].block * kThreads + lanes[0].thread), side.log);
    std::vector<AccessHistory::LaneEpoch> later;
    for (size_t i = 1; i < lanes.size(); ++i) later.push_back({lanes[i].thread, lanes[i].clock});
    size_t taken = later.empty() ? 0 : side.history.sameWordReads(key, lanes[0], later.data(), later.size());
    for (size_t i = 1 + taken; i < lanes.size(); ++i)
      side.history.access(key, lanes[i], orderedFor(lanes[i].block * kThreads + lanes[i].thread), side.log);
  }

  // One warp event: a plain read of one word by its lanes (most events), or
  // a write or a strong access of it, by lanes with their own epochs.
  void randomEvent(std::mt19937& rng, uint64_t seq) {
    auto pick = [&](uint32_t n) { return uint32_t(rng() % n); };
    uint32_t block = pick(kBlocks), warp = pick(kThreads / 32);
    uint32_t mask = pick(3) == 0 ? uint32_t(rng()) : pick(2) ? ~0u : (~0u >> pick(32)) << pick(8);
    if (mask == 0) mask = 1;
    AccessRecord common;
    common.block = block;
    common.type = pick(8) == 0 ? AccessType::Write : AccessType::Read;
    common.strong = pick(12) == 0;
    common.scope = pick(2) ? Scope::Device : Scope::Block;
    static constexpr uint8_t kBytes[] = {0xf, 0xf, 0xf, 0x3, 0xc, 0x1};
    common.bytes = kBytes[pick(6)];
    common.origin.pc = 1 + pick(3);  // few instructions: reads alike in all but the thread
    common.origin.seq = seq;
    uint64_t key = kWords[pick(2)];
    std::vector<AccessRecord> lanes;
    for (uint32_t lane = 0; lane < 32; ++lane) {
      if (!((mask >> lane) & 1)) continue;
      AccessRecord r = common;
      r.thread = warp * 32 + lane;
      r.clock = now_[block * kThreads + r.thread];
      lanes.push_back(r);
    }
    laneByLane(*lanes_, key, lanes);
    if (common.type == AccessType::Read && !common.strong) inOneStep(*runs_, key, lanes);
    else laneByLane(*runs_, key, lanes);
  }

  // A plain read by thread `thread` of `block` at instruction `pc` (also its trace position).
  static AccessRecord read(uint32_t block, uint32_t thread, uint64_t pc, Clock clock = 0) {
    AccessRecord r = record(thread, pc, AccessType::Read, clock);
    r.block = block;
    return r;
  }

  // A second launch after the first, ordered after it or not: the first's
  // reads stay, and a word's reads then compact (compactReads).
  void nextLaunch(bool unordered) {
    kernel_.launch = 2;
    kernel_.liveLaunches = {1, 2};
    if (unordered) kernel_.unorderedLaunches = {1};
    for (Side* side : {lanes_.get(), runs_.get()}) side->history.beginLaunch(kernel_);
  }

  // Epochs end and views grow: a thread ticks, or takes another's view and
  // time (a barrier of two, a lock handed over).
  void randomSynchronization(std::mt19937& rng) {
    uint32_t t = uint32_t(rng() % (kBlocks * kThreads)), u = uint32_t(rng() % (kBlocks * kThreads));
    if (rng() % 2) {
      ++now_[t];
      return;
    }
    for (size_t i = 0; i < view_[t].size(); ++i) view_[t][i] = std::max(view_[t][i], view_[u][i]);
    view_[t][u] = std::max(view_[t][u], now_[u]);
    ++now_[u];
  }

  std::unique_ptr<Side> lanes_, runs_;
  std::vector<Clock> now_;
  std::vector<std::vector<Clock>> view_;
};

TEST_F(SameWordReadsTest, SameRacesAndRecordsAsLaneByLane) {
  uint64_t oneStepEvents = 0;
  for (uint32_t seed = 0; seed < 25; ++seed) {
    SetUp();
    std::mt19937 rng(seed);
    for (uint64_t seq = 1; seq <= 300; ++seq) {
      if (seq == 150) nextLaunch(rng() % 2 == 0);
      if (rng() % 4 == 0) randomSynchronization(rng);
      randomEvent(rng, seq);
      for (uint64_t key : kWords)
        ASSERT_EQ(describe(lanes_->history.recordsOf(key)), describe(runs_->history.recordsOf(key)))
            << "seed " << seed << ", event " << seq << ", word " << key;
      ASSERT_EQ(describe(lanes_->log), describe(runs_->log)) << "seed " << seed << ", event " << seq;
      ASSERT_EQ(lanes_->history.records(), runs_->history.records());
    }
    oneStepEvents += runs_->log.races().size();
  }
  RecordProperty("races", std::to_string(oneStepEvents));
}

// Lanes alike and apart: a group forms, lanes leave an older epoch's group
// and join the new one, and a lane with another epoch makes its own record.
TEST_F(SameWordReadsTest, RunsJoinLeaveAndSplitGroups) {
  auto both = [&](const std::vector<AccessRecord>& lanes) {
    laneByLane(*lanes_, kWords[0], lanes);
    inOneStep(*runs_, kWords[0], lanes);
    EXPECT_EQ(describe(lanes_->history.recordsOf(kWords[0])), describe(runs_->history.recordsOf(kWords[0])));
  };
  std::vector<AccessRecord> warp;
  for (uint32_t lane = 0; lane < 32; ++lane) warp.push_back(read(0, lane, 10, 1));
  both(warp);
  EXPECT_EQ(runs_->history.records(), 1u);  // one group
  for (AccessRecord& r : warp) r.clock = 2, r.origin.pc = 11;
  both(warp);
  EXPECT_EQ(runs_->history.records(), 1u);  // every lane left the first group for the second
  warp[7].clock = 3;
  for (AccessRecord& r : warp) r.origin.pc = 12;
  both(warp);
  EXPECT_EQ(runs_->history.records(), 2u);  // lane 7 alone at pc 12, the others' group; pc 11's gone
  EXPECT_EQ(lanes_->history.records(), runs_->history.records());
}

// A run whose first lane brings a word to 8 records: the next lane's access
// compacts the word's reads (compactReads, at 8), so the run must too.
TEST_F(SameWordReadsTest, ALaterLaneCompactsAsItsOwnAccessWould) {
  for (uint32_t warp = 0; warp < 7; ++warp) {  // 7 warps' reads alike in all but the thread
    std::vector<AccessRecord> one{read(warp / 4, warp % 4 * 32, 10)};
    laneByLane(*lanes_, kWords[0], one);
    laneByLane(*runs_, kWords[0], one);
  }
  nextLaunch(/*unordered=*/true);  // they stay, interchangeable
  std::vector<AccessRecord> warp;
  for (uint32_t lane = 0; lane < 32; ++lane) warp.push_back(read(1, 96 + lane, 20));
  laneByLane(*lanes_, kWords[0], warp);
  inOneStep(*runs_, kWords[0], warp);
  EXPECT_EQ(describe(lanes_->history.recordsOf(kWords[0])), describe(runs_->history.recordsOf(kWords[0])));
  EXPECT_EQ(runs_->history.records(), 2u);  // the first launch's reads merged into one
}

// The detectors, on the differential test's random traces (lane-uniform
// warp reads among them): the same races, every field, either way.
TEST(SameWordReadsDetectors, SameReportsWithAndWithout) {
  for (const char* name : {"gwcp", "hb"}) {
    for (uint64_t seed = 0; seed < 2000; ++seed) {
      testsupport::RandomTraceOptions traceOptions;
      traceOptions.maxWarpsPerBlock = 2;
      Trace trace = testsupport::randomTrace(seed, traceOptions);
      std::string reports[2];
      for (bool oneStep : {false, true}) {
        DetectorOptions options;
        options.sameWordReads = oneStep;
        std::unique_ptr<Detector> d = makeDetector(name, options);
        replay(trace, *d);
        reports[oneStep] = testsupport::describeDetector(*d);
      }
      ASSERT_EQ(reports[0], reports[1]) << name << ", seed " << seed;
    }
  }
}

}  // namespace
}  // namespace predatar
