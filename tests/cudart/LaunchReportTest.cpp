// The JSON launch report: what the library writes, `predatar run` reads back.
#include <gtest/gtest.h>

#include "cudart/LaunchReport.h"

namespace predatar::cudart {
namespace {

LaunchRecord racyLaunch() {
  LaunchRecord l;
  l.index = 3;
  l.kernel = "shiftSum(int const*, int*)";
  l.mangled = "_Z8shiftSumPKiPi";
  l.module = "shared_race.cu";
  l.grid = Dim3{2, 1, 1};
  l.block = Dim3{64, 1, 1};
  l.checked = true;
  l.detectors = {"gwcp"};
  l.info.sources = {{"shared_race.cu", 23, 3}, {"shared_race.cu", 25, 15}};
  l.info.symbols = {{"tile", MemorySpace::Shared, 0, 256, 4}};
  Race r;
  r.detector = "gwcp";
  r.kind = RaceKind::WriteRead;
  r.space = MemorySpace::Shared;
  r.sharedBlock = 1;
  r.address = 8;
  r.count = 5;
  r.first.block = 1;
  r.first.thread = 2;
  r.first.type = AccessType::Write;
  r.first.origin.pc = 14;
  r.first.origin.source = 0;
  r.second.block = 1;
  r.second.thread = 33;
  r.second.type = AccessType::Read;
  r.second.origin.pc = 19;
  r.second.origin.source = 1;
  l.races.push_back(r);
  Race g = r;
  g.space = MemorySpace::Global;
  g.address = 0x1000;
  g.second.origin.source = Origin::kNoSource;
  l.races.push_back(g);
  l.allocations = {"", "cudaMalloc #1+0"};
  return l;
}

TEST(LaunchReport, RoundTrip) {
  LaunchRecord failed;
  failed.index = 4;
  failed.kernel = failed.mangled = "k";
  failed.error = "kernel 'k': out-of-bounds store";
  auto launches = readLaunchReport(launchesToJson({racyLaunch(), failed}));
  ASSERT_TRUE(launches.ok()) << launches.status();
  ASSERT_EQ(launches->size(), 2u);
  const ReportedLaunch& l = (*launches)[0];
  EXPECT_EQ(l.index, 3u);
  EXPECT_EQ(l.kernel, "shiftSum(int const*, int*)");
  EXPECT_EQ(l.grid, (Dim3{2, 1, 1}));
  EXPECT_TRUE(l.checked);
  EXPECT_TRUE(l.error.empty());
  ASSERT_EQ(l.races.size(), 2u);
  const ReportedRace& r = l.races[0];
  EXPECT_EQ(r.kind, "write-read");
  EXPECT_EQ(r.space, "shared");
  EXPECT_EQ(r.sharedBlock, 1u);
  EXPECT_EQ(r.location, "tile[2]");
  EXPECT_EQ(r.count, 5u);
  ASSERT_TRUE(r.first.source.has_value());
  EXPECT_EQ(*r.first.source, (SourcePosition{"shared_race.cu", 23, 3}));
  EXPECT_EQ(r.second.source->line, 25u);
  EXPECT_EQ(r.second.threadIdx, (Dim3{33, 0, 0}));
  EXPECT_EQ(r.second.blockIdx, (Dim3{1, 0, 0}));
  EXPECT_EQ(r.second.warp, 1u);
  EXPECT_EQ(r.second.lane, 1u);
  EXPECT_EQ(r.first.type, "write");
  const ReportedRace& g = l.races[1];
  EXPECT_EQ(g.location, "cudaMalloc #1+0");
  EXPECT_FALSE(g.sharedBlock.has_value());
  EXPECT_FALSE(g.second.source.has_value());
  EXPECT_EQ((*launches)[1].error, "kernel 'k': out-of-bounds store");
}

TEST(LaunchReport, DescribeRaceNamesBothSourcePositions) {
  LaunchRecord l = racyLaunch();
  l.index = 7;
  std::string line = describeRace(l, l.races[0]);
  // The launch is named: repeated launches of a kernel report the same pair.
  EXPECT_NE(line.find("predatar: launch 7: write-read race (gwcp) in shiftSum(int const*, int*)"), std::string::npos)
      << line;
  EXPECT_NE(line.find("shared_race.cu:23:3"), std::string::npos) << line;
  EXPECT_NE(line.find("shared_race.cu:25:15"), std::string::npos) << line;
  EXPECT_NE(line.find("[5 times]"), std::string::npos) << line;
}

// CUB's names in the one-line form: long template argument lists shortened,
// short ones kept, the report's JSON whole.
TEST(LaunchReport, DescribeRaceShortensLongTemplateArguments) {
  const std::string policy =
      "cub::CUB_300001_SM_750::detail::radix::policy_hub<unsigned int, unsigned int, unsigned long long>::Policy1000";
  LaunchRecord l = racyLaunch();
  l.kernel = "void cub::DeviceRadixSortOnesweepKernel<" + policy + ", (cub::SortOrder)0, unsigned int>(int*, int*)";
  l.info.sources = {{"agent_radix_sort_onesweep.cuh", 297, 9, {{"cub::AgentRadixSortOnesweep<" + policy + ", false>::Process",
                                                                "radix_sort.cuh", 751, 3}}},
                    {"block_reduce.cuh", 25, 15, {{"reduce<256>", "k.cu", 12, 1}}}};
  std::string line = describeRace(l, l.races[0]);
  EXPECT_NE(line.find("race (gwcp) in void cub::DeviceRadixSortOnesweepKernel<...>(int*, int*) on"), std::string::npos)
      << line;
  EXPECT_NE(line.find("inlined into cub::AgentRadixSortOnesweep<...>::Process at radix_sort.cuh:751"),
            std::string::npos)
      << line;
  EXPECT_NE(line.find("inlined into reduce<256> at k.cu:12"), std::string::npos) << line;
  EXPECT_EQ(line.find("Policy1000"), std::string::npos) << line;
  EXPECT_NE(launchesToJson({l}).find("Policy1000"), std::string::npos);
  EXPECT_EQ(shortTemplateArguments("std::less<int>::operator()<" + policy + ">"), "std::less<int>::operator()<...>");
  EXPECT_EQ(shortTemplateArguments("bool operator< <" + policy + ">(int, int)"),  // ambiguous: whole
            "bool operator< <" + policy + ">(int, int)");
  EXPECT_EQ(shortTemplateArguments("f<" + policy), "f<" + policy);  // unbalanced: whole
}

// A launch keeps the source positions its races name, renumbered, and its
// races still describe the same lines.
TEST(LaunchReport, KeepsOnlyTheSourcesItsRacesName) {
  LaunchRecord l = racyLaunch();
  l.info.sources = {{"shared_race.cu", 5, 1}, {"shared_race.cu", 25, 15}, {"shared_race.cu", 9, 2},
                    {"shared_race.cu", 23, 3}, {"shared_race.cu", 40, 7}};
  for (Race& r : l.races) {
    r.first.origin.source = 3;
    r.second.origin.source = 1;
  }
  // (the flag read a missing-fence note names, at a source no access has)
  l.races[0].missingFence = {MissingFence::Side::AfterRead, Origin{0, 0x8, 4}};
  std::string before = describeRace(l, l.races[0]);
  std::string beforeNotes = launchesToJson({l});
  keepOnlyRaceSources(l);
  ASSERT_EQ(l.info.sources.size(), 3u);
  EXPECT_EQ(describeRace(l, l.races[0]), before);
  EXPECT_NE(before.find("shared_race.cu:23:3"), std::string::npos) << before;
  for (const Race& r : l.races) {
    EXPECT_EQ(l.info.sources[r.first.origin.source].line, 23u);
    EXPECT_EQ(l.info.sources[r.second.origin.source].line, 25u);
  }
  EXPECT_EQ(l.info.sources[l.races[0].missingFence.at.source].line, 40u);
  for (const std::string& json : {beforeNotes, launchesToJson({l})})
    EXPECT_NE(json.find("no fence after the flag read at shared_race.cu:40:7"), std::string::npos) << json;
}

TEST(LaunchReport, MalformedOrMissingReports) {
  EXPECT_FALSE(readLaunchReport("{").ok());
  EXPECT_FALSE(readLaunchReport("{}").ok());
  EXPECT_FALSE(readLaunchReport("[{\"launch\": 0}]").ok());
  auto empty = readLaunchReport("[]");
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->empty());
  EXPECT_EQ(readLaunchReportFile("/nonexistent/report.json").status().code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace predatar::cudart
