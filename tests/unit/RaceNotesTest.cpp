// Report notes (issue 9): both accesses volatile, and the fence a message
// passing pattern lacked, in text, JSON and SARIF; --volatile strong.
#include <gtest/gtest.h>

#include <sstream>

#include "analysis/Detector.h"
#include "litmus/Litmus.h"
#include "report/Report.h"

namespace predatar {
namespace {

Report reportOf(const Trace& trace, const DetectorOptions& options = {}) {
  auto d = makeDetector("hb", options);
  replay(trace, *d);
  Report report;
  report.add(trace.kernel, d->races());
  return report;
}

std::string text(const Report& r, void (*write)(std::ostream&, const Report&)) {
  std::ostringstream out;
  write(out, r);
  return out.str();
}
void writePlainText(std::ostream& out, const Report& r) { writeText(out, r); }

// Two lanes of a warp exchanging through volatile shared memory.
Trace volatileTrace() {
  Trace t;
  t.kernel.name = "k";
  t.kernel.block = {32, 1, 1};
  for (auto [type, lane, seq] : {std::tuple{AccessType::Write, 1u, 0u}, std::tuple{AccessType::Read, 0u, 1u}}) {
    MemoryEvent e;
    e.lanes = {0, 0, 1u << lane};
    e.type = type;
    e.strong = true;
    e.isVolatile = true;
    e.scope = Scope::System;
    e.space = MemorySpace::Shared;
    e.address[lane] = 4;
    e.origin.seq = seq;
    e.origin.pc = seq + 1;
    t.events.push_back(e);
  }
  return t;
}

TEST(RaceNotes, VolatileIsPlainByDefaultWithANote) {
  Report r = reportOf(volatileTrace());
  ASSERT_EQ(r.races().size(), 1u);
  EXPECT_NE(text(r, writePlainText).find("note: both accesses are volatile"), std::string::npos);
  EXPECT_NE(text(r, writeJson).find("\"notes\""), std::string::npos);
  EXPECT_NE(text(r, writeSarif).find("__syncwarp()"), std::string::npos);
  DetectorOptions strong;
  strong.volatileStrong = true;
  EXPECT_TRUE(reportOf(volatileTrace(), strong).races().empty());
}

TEST(RaceNotes, MissingFenceAfterTheFlagRead) {
  auto file = litmus::parse(
      "launch blocks=2 threads=32\n"
      "b0.t0: wr d\n"
      "b0.t0: fence\n"
      "b0.t0: awr f\n"
      "b1.t0: ard f @ k.cu:41\n"
      "b1.t0: rd d\n",
      "notes.litmus");
  ASSERT_TRUE(file.ok()) << file.status().message();
  Report r = reportOf(file->trace);
  ASSERT_EQ(r.races().size(), 1u);
  EXPECT_NE(text(r, writePlainText).find("no fence after the flag read at k.cu:41"), std::string::npos)
      << text(r, writePlainText);
}

TEST(RaceNotes, MissingFenceBeforeTheFlagWrite) {
  auto file = litmus::parse(
      "launch blocks=2 threads=32\n"
      "b0.t0: wr d\n"
      "b0.t0: awr f @ k.cu:12\n"
      "b1.t0: ard f\n"
      "b1.t0: fence\n"
      "b1.t0: rd d\n",
      "notes.litmus");
  ASSERT_TRUE(file.ok()) << file.status().message();
  Report r = reportOf(file->trace);
  ASSERT_EQ(r.races().size(), 1u);
  EXPECT_NE(text(r, writePlainText).find("no fence before the flag write at k.cu:12"), std::string::npos)
      << text(r, writePlainText);
}

TEST(RaceNotes, NoFenceNoteWhenBothFencesAreMissing) {
  auto file = litmus::parse(
      "launch blocks=2 threads=32\n"
      "b0.t0: wr d\n"
      "b0.t0: awr f\n"
      "b1.t0: ard f\n"
      "b1.t0: rd d\n",
      "notes.litmus");
  ASSERT_TRUE(file.ok()) << file.status().message();
  Report r = reportOf(file->trace);
  ASSERT_EQ(r.races().size(), 1u);
  EXPECT_EQ(text(r, writePlainText).find("no fence"), std::string::npos) << text(r, writePlainText);
}

}  // namespace
}  // namespace predatar
