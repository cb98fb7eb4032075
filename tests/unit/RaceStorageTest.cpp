// Race storage is bounded by the unique races, not by their occurrences:
// many racing pairs of a few instruction pairs over as many locations keep a
// few reports, with exact counts, occurrences and racy locations.
#include <gtest/gtest.h>

#include <cstdint>

#include "report/Race.h"

namespace predatar {
namespace {

Access at(uint32_t thread, uint64_t pc, uint32_t source = Origin::kNoSource) {
  Access a;
  a.thread = thread;
  a.type = AccessType::Write;
  a.origin = Origin{pc, pc, source};
  return a;
}

constexpr uint64_t kPairs = 200000;  // bench/reliability/race_storage.sh goes to 10^6

uint64_t countSum(const RaceLog& log) {
  uint64_t sum = 0;
  for (const Race& r : log.races()) sum += r.count;
  return sum;
}

TEST(RaceStorage, MillionOccurrencesOfTwoPairsKeepTwoReports) {
  RaceLog log("gwcp");
  log.beginKernel("k");
  for (uint64_t i = 0; i < kPairs; ++i) log.add(MemorySpace::Global, 0, 4 * i, at(0, 10 + i % 2), at(33, 20));
  ASSERT_EQ(log.races().size(), 2u);
  EXPECT_EQ(log.races()[0].count + log.races()[1].count, kPairs);
  EXPECT_EQ(log.races()[0].count, kPairs / 2);
  EXPECT_EQ(log.occurrences(), kPairs);
  EXPECT_EQ(log.locations().size(), kPairs);
}

TEST(RaceStorage, PerLocationKeepsAFewExamplesPerPair) {
  RaceLog log("gwcp", /*perLocation=*/true);
  log.beginKernel("k");
  for (uint64_t i = 0; i < kPairs; ++i) log.add(MemorySpace::Global, 0, 4 * i, at(0, 10 + i % 3), at(33, 20));
  EXPECT_EQ(log.races().size(), 3 * RaceLog::kLocationsPerPair);
  EXPECT_EQ(countSum(log), kPairs);
  EXPECT_EQ(log.occurrences(), kPairs);
  EXPECT_EQ(log.locations().size(), kPairs);  // expectations still see every racy location
  // The first report of a pair absorbs the locations beyond the examples; an
  // example location seen again is counted on its own report.
  EXPECT_EQ(log.races()[0].count, (kPairs + 2) / 3 - RaceLog::kLocationsPerPair + 1);
  EXPECT_EQ(log.races()[3].address, 12u);
  log.add(MemorySpace::Global, 0, 12, at(0, 10), at(33, 20));
  EXPECT_EQ(log.races()[3].count, 2u);
}

TEST(RaceStorage, PerLocationEventsOfOneSourceLineAreOneRace) {
  // A litmus trace names each event by its own line: many lines `@ k.cu:5`
  // racing with `@ k.cu:9` are one unique race (per location, a few examples).
  RaceLog log("hb", /*perLocation=*/true);
  log.beginKernel("trace");
  for (uint64_t i = 0; i < kPairs; ++i) log.add(MemorySpace::Global, 0, 4 * (i % 8), at(0, 2 * i, 5), at(33, 2 * i + 1, 9));
  EXPECT_EQ(log.races().size(), 8u);
  EXPECT_EQ(countSum(log), kPairs);
  EXPECT_EQ(log.races()[3].count, kPairs / 8);
}

}  // namespace
}  // namespace predatar
