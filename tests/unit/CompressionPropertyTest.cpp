// Vector clock compression must not change what any detector reports: on
// large random traces (many blocks and warps, beyond what the brute-force
// reference can check), compression on and off give the same races.
#include <gtest/gtest.h>

#include <algorithm>

#include "analysis/Detector.h"
#include "support/EnvNumber.h"
#include "support/RandomTrace.h"

namespace predatar {
namespace {

std::set<LocationKey> racyLocations(const Trace& trace, const std::string& detector, bool compression) {
  auto d = makeDetector(detector, DetectorOptions{compression, true});
  replay(trace, *d);
  return d->races().locations();
}

TEST(CompressionProperty, LargeRandomTracesReportTheSameRaces) {
  // (a fifth of the differential tests' seeds: these traces are larger)
  const uint64_t first = testsupport::envNumber("PREDATAR_DIFF_FIRST_SEED", 0) / 5;
  const uint64_t seeds = std::max<uint64_t>(50, testsupport::envNumber("PREDATAR_DIFF_SEEDS", 1000) / 5);
  testsupport::RandomTraceOptions options;
  options.minEvents = 200;
  options.maxEvents = 800;
  options.maxBlocks = 12;
  options.maxWarpsPerBlock = 8;
  options.maxLaneEvents = 100000;
  options.scalarWords = 8;
  options.locks = 4;
  uint64_t racy = 0;
  for (uint64_t seed = first; seed < first + seeds; ++seed) {
    Trace trace = testsupport::randomTrace(seed, options);
    for (const char* detector : {"gwcp", "hb"}) {
      auto on = racyLocations(trace, detector, true);
      auto off = racyLocations(trace, detector, false);
      ASSERT_EQ(on, off) << detector << " differs with compression on and off at seed " << seed;
      racy += !on.empty();
    }
  }
  EXPECT_GT(racy, 0u);  // the traces do exercise the race paths
}

}  // namespace
}  // namespace predatar
