// Emulated runs of racy / race-free kernel pairs (tests/cuda/figures.cu)
// through every detector: the racy variant must be reported, the race-free
// one must not.
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace predatar::sim::testing
