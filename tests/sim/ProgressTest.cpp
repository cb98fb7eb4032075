// What scheduling a program may rely on (tests/cuda/progress.cu): blocks come
// in waves as a GPU runs them, block by block within a wave, a spin-wait on a block that is not resident is
// completed with a warning, and lanes of one warp that need each other past a
// loop get a warning too; valid programs get none.
#include <gtest/gtest.h>

#include "SimTestUtil.h"

namespace predatar::sim::testing {
namespace {

struct LaunchResult {
  absl::Status status;
  LaunchStats stats;
};

LaunchResult launchProgress(Fixture& f, std::string_view kernel, Dim3 grid, Dim3 block, std::vector<const void*> args,
                   ScheduleOptions schedule = {}) {
  LaunchConfig cfg;
  cfg.grid = grid;
  cfg.block = block;
  cfg.args = std::move(args);
  cfg.schedule = schedule;
  NullSink sink;
  LaunchResult r;
  r.status = launch(*f.module, kernel, cfg, f.memory, sink, &r.stats);
  return r;
}

bool mentions(const LaunchStats& stats, const std::string& what) {
  for (const auto& w : stats.warnings)
    if (w.find(what) != std::string::npos) return true;
  return false;
}

TEST(Residency, SpinWaitOnABlockNotResidentFinishesWithAWarning) {
  Fixture f("progress");
  int* flag = f.zeros<int>(1);
  int* out = f.zeros<int>(1);
  ScheduleOptions s;
  s.maxResidentBlocks = 1;  // block 0 alone: it spins until more come in
  LaunchResult r = launchProgress(f, "waitForLastBlock", {3, 1, 1}, {32, 1, 1}, f.args(flag, out), s);
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_EQ(*out, 1);
  ASSERT_EQ(r.stats.warnings.size(), 1u);
  EXPECT_TRUE(mentions(r.stats, "waitForLastBlock")) << r.stats.warnings[0];
  EXPECT_TRUE(mentions(r.stats, "(0,0,0)")) << r.stats.warnings[0];
  EXPECT_TRUE(mentions(r.stats, "co-residency")) << r.stats.warnings[0];
}

TEST(Residency, RandomScheduleAlsoBringsBlocksIn) {
  Fixture f("progress");
  int* flag = f.zeros<int>(1);
  int* out = f.zeros<int>(1);
  ScheduleOptions s;
  s.maxResidentBlocks = 1;
  s.policy = ScheduleOptions::Policy::Random;
  s.seed = 3;
  LaunchResult r = launchProgress(f, "waitForLastBlock", {3, 1, 1}, {32, 1, 1}, f.args(flag, out), s);
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_TRUE(mentions(r.stats, "appear to wait"));
}

TEST(Residency, AllResidentOrIndependentBlocksGetNoWarning) {
  Fixture f("progress");
  int* flag = f.zeros<int>(1);
  int* out = f.zeros<int>(1);
  ScheduleOptions all;
  all.maxResidentBlocks = kAllBlocksResident;
  LaunchResult r = launchProgress(f, "waitForLastBlock", {6, 1, 1}, {32, 1, 1}, f.args(flag, out), all);
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_TRUE(r.stats.warnings.empty());
  int* many = f.zeros<int>(2000 * 64);
  LaunchResult g = launchProgress(f, "independentBlocks", {2000, 1, 1}, {64, 1, 1}, f.args(many));
  ASSERT_TRUE(g.status.ok()) << g.status;
  EXPECT_TRUE(g.stats.warnings.empty());
  for (int b = 0; b < 2000; b += 97) EXPECT_EQ(many[b * 64 + 5], b);
}

// The round-robin schedule runs a block's warps in turns until they finish
// (or all wait) before the next block's, so the shadow of a block's words
// stays in the caches: every block makes all its steps before the next one
// takes its first ticket.
TEST(Schedule, RoundRobinRunsBlockByBlock) {
  Fixture f("progress");
  constexpr int kSteps = 8, kBlocks = 4;
  int* counter = f.zeros<int>(1);
  int* tickets = f.zeros<int>(kSteps * kBlocks);
  int steps = kSteps;
  LaunchResult r = launchProgress(f, "ticketsPerStep", {kBlocks, 1, 1}, {64, 1, 1}, f.args(counter, tickets, steps));
  ASSERT_TRUE(r.status.ok()) << r.status;
  for (int i = 0; i < kSteps * kBlocks; ++i) EXPECT_EQ(tickets[i], i) << "block " << i / kSteps;
}

// Turns that read words the warp had not read (a table walk before the first
// store) are not a spin-wait: the block keeps running, and its second ticket
// comes before the next block's first.
TEST(Schedule, ABlockThatReadsOnKeepsRunning) {
  Fixture f("progress");
  constexpr int kBlocks = 4, kThreads = 64, kTable = 1024;
  int* counter = f.zeros<int>(1);
  int* tickets = f.zeros<int>(2 * kBlocks);
  int* table = f.zeros<int>(kTable);
  for (int i = 0; i < kTable; ++i) table[i] = i;
  int* sums = f.zeros<int>(kBlocks * kThreads);
  int n = kTable;
  LaunchResult r = launchProgress(f, "ticketsAroundATableWalk", {kBlocks, 1, 1}, {kThreads, 1, 1},
                                  f.args(counter, tickets, table, n, sums));
  ASSERT_TRUE(r.status.ok()) << r.status;
  for (int i = 0; i < 2 * kBlocks; ++i) EXPECT_EQ(tickets[i], i) << "block " << i / 2;
  EXPECT_EQ(sums[kBlocks * kThreads - 1], kTable * (kTable - 1) / 2);
}

// A block that spins on another changes no memory: after such a turn the
// next block runs, so the spin costs a turn a round, not a whole round.
TEST(Schedule, ASpinningBlockLetsTheNextRun) {
  Fixture f("progress");
  int* flag = f.zeros<int>(1);
  int* out = f.zeros<int>(1);
  ScheduleOptions all;
  all.maxResidentBlocks = kAllBlocksResident;
  LaunchResult r = launchProgress(f, "waitForLastBlock", {64, 1, 1}, {32, 1, 1}, f.args(flag, out), all);
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_EQ(*out, 1);
  // Block 0: a quiet turn of 64 instructions before block 63 sets the flag.
  EXPECT_LT(r.stats.warpInstructions, 64u * 20 + 3 * 64);
}

TEST(Residency, ParsesTheOption) {
  EXPECT_EQ(*parseResidentBlocks("gpu"), 0u);
  EXPECT_EQ(*parseResidentBlocks("all"), kAllBlocksResident);
  EXPECT_EQ(*parseResidentBlocks("12"), 12u);
  EXPECT_FALSE(parseResidentBlocks("0").ok());
  EXPECT_FALSE(parseResidentBlocks("many").ok());
}

TEST(ForwardProgress, LanesThatNeedEachOtherPastALoopGetAWarning) {
  Fixture f("progress");
  int* turn = f.zeros<int>(1);
  int* out = f.zeros<int>(32);
  LaunchResult r = launchProgress(f, "turnAfterLoop", {1, 1, 1}, {32, 1, 1}, f.args(turn, out));
  ASSERT_TRUE(r.status.ok()) << r.status;  // the emulator completes it; an H100 does not
  EXPECT_EQ(*turn, 32);
  ASSERT_EQ(r.stats.warnings.size(), 1u);
  EXPECT_TRUE(mentions(r.stats, "turnAfterLoop")) << r.stats.warnings[0];
  EXPECT_TRUE(mentions(r.stats, "fairer")) << r.stats.warnings[0];
  EXPECT_TRUE(mentions(r.stats, "progress.cu:23")) << r.stats.warnings[0];
}

TEST(ForwardProgress, TurnsInLockstepGetNoWarning) {
  Fixture f("progress");
  int* turn = f.zeros<int>(1);
  int* out = f.zeros<int>(64);
  LaunchResult r = launchProgress(f, "turnsInLockstep", {1, 1, 1}, {64, 1, 1}, f.args(turn, out));
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_EQ(*turn, 64);
  EXPECT_TRUE(r.stats.warnings.empty()) << r.stats.warnings[0];
  for (int i = 0; i < 64; ++i) EXPECT_EQ(out[i], i);
}

// The emulator runs the lowest group first; a group that jumped past a lower
// one (a case of the switch to its end) used to run on into later
// iterations, meet the others at the loop's back edge a few iterations
// ahead, and leave the loop from there: a warning for a valid program.
TEST(ForwardProgress, DivergentCasesInALoopGetNoWarning) {
  Fixture f("progress");
  unsigned* out = f.zeros<unsigned>(32);
  constexpr int kIterations = 64;
  LaunchResult r = launchProgress(f, "divergentCasesInALoop", {1, 1, 1}, {32, 1, 1}, f.args(out, kIterations));
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_TRUE(r.stats.warnings.empty()) << r.stats.warnings[0];
  for (unsigned lane = 0; lane < 32; ++lane) {
    unsigned acc = 0;
    for (unsigned i = 0; i < kIterations; ++i) {
      switch ((lane + i) % 6) {
        case 0: acc += i * 3; break;
        case 1: acc ^= i << 2; break;
        case 2: acc -= i; break;
        case 3: acc += __builtin_popcount(i); break;
        case 4: acc *= 3; break;
        default: acc += 7; break;
      }
    }
    EXPECT_EQ(out[lane], acc) << "lane " << lane;
  }
}

// Lanes in a loop that others have left, working through a table for
// hundreds of steps, are not waiting for them: the others are not let run on
// past the loop's end (they stored their results while the loop ran: a
// warning for a valid program, NVIDIA's Monte Carlo samples' curand_init).
TEST(ForwardProgress, UnevenLoopsOverATableGetNoWarning) {
  Fixture f("progress");
  constexpr unsigned kWords = 4096;
  unsigned* table = f.zeros<unsigned>(kWords);
  for (unsigned i = 0; i < kWords; ++i) table[i] = i * 2654435761u;
  unsigned* out = f.zeros<unsigned>(32);
  LaunchResult r = launchProgress(f, "unevenTableWalks", {1, 1, 1}, {32, 1, 1}, f.args(table, out, kWords));
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_TRUE(r.stats.warnings.empty()) << r.stats.warnings[0];
  for (unsigned lane = 0; lane < 32; ++lane) {
    unsigned acc = 0;
    for (unsigned i = 0; i < 40 * (lane + 1) + 1; ++i) acc ^= table[(i * 7 + lane) % kWords];
    EXPECT_EQ(out[lane], acc) << "lane " << lane;
  }
}

}  // namespace
}  // namespace predatar::sim::testing
