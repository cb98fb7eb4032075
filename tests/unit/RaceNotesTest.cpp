// Report notes (issue 9): both accesses volatile, and the fence a message
// passing pattern lacked, in text, JSON and SARIF; --volatile strong.
#include <gtest/gtest.h>

#include <sstream>
#include <string_view>

#include "analysis/Detector.h"
#include "litmus/Litmus.h"
#include "report/Report.h"

namespace predatar {
namespace {

Report reportOf(const Trace& trace, const DetectorOptions& options = {}, const char* detector = "hb") {
  auto d = makeDetector(detector, options);
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

// The trace of a litmus text (a parse error fails the test, and leaves no events).
Trace traceOf(std::string_view litmusText) {
  auto file = litmus::parse(litmusText, "notes.litmus");
  EXPECT_TRUE(file.ok()) << file.status().message();
  return file.ok() ? file->trace : Trace{};
}

// Message passing whose consumer lacks the fence after its flag read (k.cu:41).
constexpr std::string_view kReaderFenceMissing =
    "launch blocks=2 threads=32\n"
    "b0.t0: wr d\n"
    "b0.t0: fence\n"
    "b0.t0: awr f\n"
    "b1.t0: ard f @ k.cu:41\n"
    "b1.t0: rd d\n";

// A volatile access (strong .relaxed.sys, marked volatile).
MemoryEvent volatileAccess(AccessType type, uint32_t block, uint32_t thread, MemorySpace space, uint64_t seq) {
  MemoryEvent e;
  uint32_t lane = thread % 32;
  e.lanes = {block, thread / 32, 1u << lane};
  e.type = type;
  e.strong = true;
  e.isVolatile = true;
  e.scope = Scope::System;
  e.space = space;
  e.address[lane] = 4;
  e.origin.seq = seq;
  e.origin.pc = seq + 1;
  return e;
}

// Thread `writer` writes a volatile word that thread `reader` then reads:
// two lanes of a warp exchanging through shared memory by default.
Trace volatileTrace(uint32_t writerBlock = 0, uint32_t writer = 1, uint32_t readerBlock = 0, uint32_t reader = 0) {
  Trace t;
  t.kernel.name = "k";
  t.kernel.grid = {2, 1, 1};
  t.kernel.block = {64, 1, 1};
  MemorySpace space = writerBlock == readerBlock ? MemorySpace::Shared : MemorySpace::Global;
  t.events.push_back(volatileAccess(AccessType::Write, writerBlock, writer, space, 0));
  t.events.push_back(volatileAccess(AccessType::Read, readerBlock, reader, space, 1));
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

// The volatile note's fix is one that can order the two threads.
TEST(RaceNotes, TheVolatileNoteSuggestsWhatCanOrderTheTwoThreads) {
  auto noteOf = [](const Trace& trace) {
    Report r = reportOf(trace);
    EXPECT_EQ(r.races().size(), 1u);
    return r.races().empty() || r.races()[0].notes.empty() ? std::string() : r.races()[0].notes[0];
  };
  EXPECT_NE(noteOf(volatileTrace(0, 1, 0, 0)).find("add __syncwarp(), a barrier or a fence"), std::string::npos);
  std::string warps = noteOf(volatileTrace(0, 33, 0, 0));
  EXPECT_NE(warps.find("add a barrier (__syncthreads())"), std::string::npos) << warps;
  EXPECT_EQ(warps.find("__syncwarp"), std::string::npos) << warps;
  std::string blocks = noteOf(volatileTrace(0, 1, 1, 0));
  EXPECT_NE(blocks.find("a fence on both sides (message passing), or two kernel launches"), std::string::npos)
      << blocks;
  EXPECT_EQ(blocks.find("barrier"), std::string::npos) << blocks;
}

// A message-passing pattern over volatile data that lacks the reader's fence:
// the fence note names the fix, and the volatile note suggests none of its own.
TEST(RaceNotes, AMissingFenceIsTheOnlyFixNamedForVolatileData) {
  Trace trace = traceOf(kReaderFenceMissing);
  for (Event& e : trace.events) {
    auto* m = std::get_if<MemoryEvent>(&e);
    if (!m || m->strong) continue;
    m->strong = m->isVolatile = true;  // (d is volatile)
    m->scope = Scope::System;
  }
  Report r = reportOf(trace);
  ASSERT_EQ(r.races().size(), 1u);
  const std::vector<std::string>& notes = r.races()[0].notes;
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_EQ(notes[0], "both accesses are volatile: PTX treats volatile as .relaxed.sys, which orders nothing between threads");
  EXPECT_NE(notes[1].find("no fence after the flag read at k.cu:41"), std::string::npos) << notes[1];
}

TEST(RaceNotes, MissingFenceAfterTheFlagRead) {
  Report r = reportOf(traceOf(kReaderFenceMissing));
  ASSERT_EQ(r.races().size(), 1u);
  EXPECT_NE(text(r, writePlainText).find("no fence after the flag read at k.cu:41"), std::string::npos)
      << text(r, writePlainText);
}

TEST(RaceNotes, MissingFenceBeforeTheFlagWrite) {
  Report r = reportOf(traceOf(
      "launch blocks=2 threads=32\n"
      "b0.t0: wr d\n"
      "b0.t0: awr f @ k.cu:12\n"
      "b1.t0: ard f\n"
      "b1.t0: fence\n"
      "b1.t0: rd d\n"));
  ASSERT_EQ(r.races().size(), 1u);
  EXPECT_NE(text(r, writePlainText).find("no fence before the flag write at k.cu:12"), std::string::npos)
      << text(r, writePlainText);
}

TEST(RaceNotes, NoFenceNoteWhenBothFencesAreMissing) {
  Report r = reportOf(traceOf(
      "launch blocks=2 threads=32\n"
      "b0.t0: wr d\n"
      "b0.t0: awr f\n"
      "b1.t0: ard f\n"
      "b1.t0: rd d\n"));
  ASSERT_EQ(r.races().size(), 1u);
  EXPECT_EQ(text(r, writePlainText).find("no fence"), std::string::npos) << text(r, writePlainText);
}

// Two plain writes of one global word by threads of two blocks; the second
// left the word as it was when `unchanged` (MemoryEvent::unchangedWrites).
Trace sameValueTrace(bool unchanged) {
  Trace t;
  t.kernel.name = "k";
  t.kernel.grid = {2, 1, 1};
  t.kernel.block = {32, 1, 1};
  for (uint32_t block : {0u, 1u}) {
    MemoryEvent e;
    e.lanes = {block, 0, 1u};
    e.type = AccessType::Write;
    e.address[0] = 8;
    e.origin.seq = block;
    e.origin.pc = block + 1;
    if (block == 1 && unchanged) e.unchangedWrites = 1u;
    t.events.push_back(e);
  }
  return t;
}

// A write that stored what the location held is named in a note (every
// detector, every format); a write that changed it is not.
TEST(RaceNotes, AWriteThatLeftTheLocationAsItWasIsNamed) {
  for (const char* detector : {"gwcp", "hb", "lockset"}) {
    SCOPED_TRACE(detector);
    Report r = reportOf(sameValueTrace(true), {}, detector);
    ASSERT_EQ(r.races().size(), 1u);
    ASSERT_EQ(r.races()[0].notes.size(), 1u);
    EXPECT_NE(r.races()[0].notes[0].find("block (1,0,0) thread (0,0,0) stored the value the location already held"),
              std::string::npos);
    EXPECT_NE(text(r, writePlainText).find("same-value stores still race"), std::string::npos);
    EXPECT_NE(text(r, writeJson).find("same-value stores still race"), std::string::npos);
    EXPECT_NE(text(r, writeSarif).find("same-value stores still race"), std::string::npos);
    Report changed = reportOf(sameValueTrace(false), {}, detector);
    ASSERT_EQ(changed.races().size(), 1u);
    EXPECT_TRUE(changed.races()[0].notes.empty());
  }
}

}  // namespace
}  // namespace predatar
