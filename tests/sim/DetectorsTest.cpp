// Emulated runs of racy / race-free kernel pairs (tests/cuda/figures.cu)
// through every detector: the racy variant must be reported, the race-free
// one must not.
#include <gtest/gtest.h>

#include <set>

#include "SimTestUtil.h"
#include "analysis/Detector.h"

namespace predatar::sim::testing {
namespace {

struct Case {
  const char* kernel;
  Dim3 grid, block;
  bool racy;
  int buffers;          // int buffers passed as arguments
  bool intraWarp = false;  // a race between lanes of one warp: lockset (ScoRD) does not model ITS
};

class DetectorsOnEmulator : public ::testing::TestWithParam<std::string> {};

size_t racesFor(const std::string& detector, const Case& c) {
  Fixture f("figures");
  std::vector<int*> bufs;
  for (int i = 0; i < c.buffers; ++i) bufs.push_back(f.zeros<int>(256));
  auto det = makeDetector(detector, DetectorOptions{});
  EXPECT_NE(det, nullptr) << detector;
  if (!det) return 0;
  std::vector<const void*> args = c.buffers == 1 ? f.args(bufs[0]) : f.args(bufs[0], bufs[1]);
  auto st = f.run(c.kernel, c.grid, c.block, args, *det);
  EXPECT_TRUE(st.ok()) << st;
  return det->races().races().size();
}

const Case kCases[] = {
    {"itsRacy", {1, 1, 1}, {2, 1, 1}, true, 1, true},
    {"intraWarpRacy", {1, 1, 1}, {32, 1, 1}, true, 2, true},
    {"intraWarpSynced", {1, 1, 1}, {32, 1, 1}, false, 2},
    {"scopedAtomicRacy", {2, 1, 1}, {32, 1, 1}, true, 1},
    {"scopedAtomicOk", {2, 1, 1}, {32, 1, 1}, false, 1},
    {"sharedRacy", {2, 1, 1}, {128, 1, 1}, true, 1},
    {"sharedSynced", {2, 1, 1}, {128, 1, 1}, false, 1},
    {"lockedUpdate", {2, 1, 1}, {64, 1, 1}, false, 2},
    {"unlockedUpdate", {2, 1, 1}, {64, 1, 1}, true, 2},
};

TEST_P(DetectorsOnEmulator, RacyAndRaceFreePairs) {
  for (const Case& c : kCases) {
    if (c.intraWarp && GetParam() == "lockset") continue;
    size_t n = racesFor(GetParam(), c);
    if (c.racy) EXPECT_GT(n, 0u) << c.kernel << " should race under " << GetParam();
    else EXPECT_EQ(n, 0u) << c.kernel << " should not race under " << GetParam();
  }
}

INSTANTIATE_TEST_SUITE_P(All, DetectorsOnEmulator, ::testing::ValuesIn(allDetectorNames()));

// A named barrier's producer (warp 0, bar.arrive) and consumer (warp 1,
// bar.sync). The producer writes s[0..31], arrives, and writes s[64..95]
// without waiting; the consumer reads both after the barrier. The emulator
// runs warp 0 to its end first, so both writes come before the barrier's
// completion in the trace, yet only the first is ordered before the
// consumer's reads (an arrive is a release, taken when it happens): a race
// on exactly s[64..95] under hb and gwcp.
std::set<uint64_t> racyWordsOfNamedBarrier(const std::string& detector) {
  DeviceMemory mem;
  std::string ptx = R"(
.version 8.0
.target sm_80
.address_size 64
.visible .entry k()
{
  .shared .align 4 .b8 s[512];
  .reg .b32 %r<10>;
  .reg .pred %p<2>;
  mov.u32 %r1, %tid.x;
  and.b32 %r2, %r1, 31;
  shl.b32 %r3, %r2, 2;
  mov.u32 %r4, s;
  add.u32 %r5, %r4, %r3;
  setp.lt.u32 %p1, %r1, 32;
  @!%p1 bra CONSUMER;
  st.shared.u32 [%r5], %r1;
  bar.arrive 1, 64;
  st.shared.u32 [%r5+256], %r1;
  ret;
CONSUMER:
  bar.sync 1, 64;
  ld.shared.u32 %r6, [%r5];
  ld.shared.u32 %r7, [%r5+256];
  ret;
}
)";
  auto m = loadPtx(ptx, "named_barrier.ptx", mem);
  EXPECT_TRUE(m.ok()) << m.status();
  if (!m.ok()) return {};
  auto det = makeDetector(detector, DetectorOptions{});
  LaunchConfig cfg;
  cfg.grid = {1, 1, 1};
  cfg.block = {64, 1, 1};
  auto st = launch(**m, "k", cfg, mem, *det);
  EXPECT_TRUE(st.ok()) << st;
  std::set<uint64_t> words;
  for (const LocationKey& l : det->races().locations()) words.insert(l.address / 4);
  return words;
}

TEST(DetectorsOnEmulatorNamedBarrier, BarArriveIsAReleaseWhenItHappens) {
  std::set<uint64_t> afterArrive;
  for (uint64_t w = 64; w < 96; ++w) afterArrive.insert(w);
  EXPECT_EQ(racyWordsOfNamedBarrier("hb"), afterArrive);
  EXPECT_EQ(racyWordsOfNamedBarrier("gwcp"), afterArrive);
  // lockset (ScoRD) compares barrier intervals in trace order: the
  // completion lies between the producer's writes and the reads, and the
  // producer took part, so it reports neither (a race only a predictive
  // detector sees).
  EXPECT_TRUE(racyWordsOfNamedBarrier("lockset").empty());
}

}  // namespace
}  // namespace predatar::sim::testing
