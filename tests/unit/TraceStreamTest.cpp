// The streaming trace readers: litmus files reach the detectors as they are
// read, in memory independent of their length; RAPID's STD traces read into
// the same event stream; errors name file and line.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <malloc.h>

#include <filesystem>
#include <fstream>

#include "io/LineReader.h"
#include "litmus/Litmus.h"
#include "litmus/StdTrace.h"
#include "litmus/TraceInput.h"

namespace predatar::litmus {
namespace {

namespace fs = std::filesystem;

std::string tempPath(const std::string& name) {
  return (fs::temp_directory_path() / fmt::format("predatar_stream_{}_{}", ::getpid(), name)).string();
}

void writeFile(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

// Counts events and notes how much the heap grew between the first and the
// last event: what a reader keeps per event shows up here.
class CountingSink final : public NullEventSink {
 public:
  uint64_t events = 0, acquires = 0, barriers = 0;
  int64_t heapAtFirst = 0, heapGrowth = 0;
  bool ended = false;
  void memory(const MemoryEvent&) override { count(); }
  void acquire(const LockEvent&) override { ++acquires, count(); }
  void release(const LockEvent&) override { count(); }
  void barrier(const BarrierEvent&) override { ++barriers, count(); }
  void kernelEnd() override { ended = true; }

 private:
  static int64_t heap() { return int64_t(mallinfo2().uordblks); }
  void count() {
    if (events++ == 1000) heapAtFirst = heap();
    heapGrowth = heap() - heapAtFirst;
  }
};

// A CPU-shaped trace of `n` events: 32 threads in turn, lock-protected
// writes and unprotected reads.
std::string largeLitmus(uint64_t n, bool withLaunch) {
  std::string text = withLaunch ? "launch blocks=1 threads=1024\n" : "";
  for (uint64_t i = 0; i < n; i += 4) {
    uint32_t t = uint32_t(i / 4 % 32) * 32;
    text += fmt::format("t{0}: acq L{1}\nt{0}: wr V{2}\nt{0}: rel L{1}\nt{0}: rd V{3}\n", t, i % 100,
                        (i % 100) * 50 + i % 50, 5000 + i % 5000);
  }
  return text;
}

std::string largeStd(uint64_t n) {
  std::string text;
  for (uint64_t i = 0; i < n; i += 4) {
    uint64_t t = i / 4 % 32;
    text += fmt::format("T{0}|acq(L{1})|1\nT{0}|w(V{2})|2\nT{0}|rel(L{1})|3\nT{0}|r(V{3})|4\n", t, i % 100,
                        (i % 100) * 50 + i % 50, 5000 + i % 5000);
  }
  return text;
}

// The old reader held ~600 B per event; a streaming one holds none.
TEST(TraceStream, LitmusMemoryDoesNotGrowWithTheTrace) {
  for (bool withLaunch : {true, false}) {  // without a launch line: two passes
    std::string path = tempPath(withLaunch ? "launch.litmus" : "nolaunch.litmus");
    writeFile(path, largeLitmus(200000, withLaunch));
    CountingSink sink;
    auto summary = stream(path, sink);
    ASSERT_TRUE(summary.ok()) << summary.status();
    EXPECT_EQ(summary->events, 200000u);
    EXPECT_EQ(sink.events, 200000u);
    EXPECT_TRUE(sink.ended);
    EXPECT_EQ(summary->kernel.block.x, withLaunch ? 1024u : 993u);
    EXPECT_LT(sink.heapGrowth, 8 << 20) << "bytes kept while streaming 200000 events";
    fs::remove(path);
  }
}

TEST(TraceStream, StdMemoryDoesNotGrowWithTheTrace) {
  std::string path = tempPath("big.std");
  writeFile(path, largeStd(200000));
  CountingSink sink;
  auto summary = streamTrace(path, TraceFormat::Auto, sink);
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_EQ(sink.events, 200000u);
  EXPECT_EQ(sink.acquires, 50000u);
  EXPECT_LT(sink.heapGrowth, 8 << 20);
  fs::remove(path);
}

// Streaming (events reach the detectors while the file is read) finds exactly
// what replaying the whole recorded trace finds, on every suite file.
TEST(TraceStream, StreamingEqualsWholeTraceOnTheSuite) {
  std::vector<std::string> roots;
  for (const char* dir : {"tests/litmus/paper", "tests/litmus/semantics", "bench/micro"})
    roots.push_back(std::string(PREDATAR_SOURCE_DIR) + "/" + dir);
  auto files = collect(roots);
  ASSERT_TRUE(files.ok()) << files.status();
  ASSERT_GT(files->size(), 20u);
  DetectorOptions options;
  options.perLocationDedup = true;
  for (const std::string& path : *files) {
    auto whole = read(path);
    ASSERT_TRUE(whole.ok()) << whole.status();
    auto replayed = analyze(*whole, allDetectorNames(), options);
    auto streamed = analyzeTrace(path, TraceFormat::Auto, allDetectorNames(), options);
    ASSERT_TRUE(streamed.ok()) << streamed.status();
    EXPECT_EQ(streamed->summary.expectations.size(), whole->expectations.size()) << path;
    for (size_t d = 0; d < replayed.size(); ++d) {
      const auto& a = replayed[d]->races().races();
      const auto& b = streamed->detectors[d]->races().races();
      ASSERT_EQ(a.size(), b.size()) << path << " " << replayed[d]->name();
      for (size_t r = 0; r < a.size(); ++r) {
        EXPECT_EQ(a[r].address, b[r].address) << path;
        EXPECT_EQ(a[r].first.origin.pc, b[r].first.origin.pc) << path;
        EXPECT_EQ(a[r].second.origin.pc, b[r].second.origin.pc) << path;
      }
      EXPECT_EQ(racyLocations(*whole, *replayed[d]), racyLocations(streamed->summary.kernel, *streamed->detectors[d]));
    }
  }
}

TEST(TraceStream, PositionsKeepOneRacePerPairOfSites) {
  std::string text = "launch threads=64\n";
  for (int i = 0; i < 100; ++i) text += "t0: wr x @ k.cu:3\nt32: wr x @ k.cu:7\n";
  auto f = parse(text, "t.litmus");
  ASSERT_TRUE(f.ok()) << f.status();
  auto detectors = analyze(*f, {"hb"}, DetectorOptions{});
  ASSERT_EQ(detectors[0]->races().races().size(), 2u);  // (3,7) and (7,3), not one per line pair
}

TEST(TraceStream, ErrorsNameFileAndLineWhileStreaming) {
  CountingSink sink;
  auto s = streamText("launch blocks=1 threads=64\nt0: wr x\nt1: wr x\nt1: frob x\n", "s.litmus", sink);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("s.litmus:4: unknown operation 'frob'"), std::string::npos) << s.status();
  EXPECT_EQ(sink.events, 2u);  // the prefix reached the sink, the end did not
  EXPECT_FALSE(sink.ended);
}

// ---------------------------------------------------------------- line reader

TEST(LineReader, LinesCrLfAndAFinalLineWithoutNewline) {
  std::string path = tempPath("lines.txt");
  writeFile(path, "a\r\n\nbc\nlast");
  auto in = io::LineReader::open(path);
  ASSERT_TRUE(in.ok());
  std::vector<std::string> lines;
  std::string_view line;
  while ((*in)->next(line)) lines.emplace_back(line);
  EXPECT_TRUE((*in)->status().ok());
  EXPECT_EQ(lines, (std::vector<std::string>{"a", "", "bc", "last"}));
  EXPECT_EQ((*in)->lineNumber(), 4u);
  ASSERT_TRUE((*in)->rewind().ok());
  ASSERT_TRUE((*in)->next(line));
  EXPECT_EQ(line, "a");
  fs::remove(path);
}

TEST(LineReader, RefusesBinaryAndEndlessLines) {
  std::string path = tempPath("binary.txt");
  writeFile(path, std::string("t0: wr x\n\0\0", 11));
  auto in = io::LineReader::open(path);
  std::string_view line;
  while ((*in)->next(line)) {}
  EXPECT_NE((*in)->status().message().find("not a text file"), std::string::npos);
  writeFile(path, "t0: wr x\n" + std::string(io::kMaxLineBytes + 10, 'x'));
  in = io::LineReader::open(path);
  while ((*in)->next(line)) {}
  EXPECT_NE((*in)->status().message().find(":2: line longer than"), std::string::npos) << (*in)->status();
  fs::remove(path);
  EXPECT_FALSE(io::LineReader::open(fs::temp_directory_path().string()).ok());  // a folder
}

// ---------------------------------------------------------------- STD

struct Recorded : NullEventSink {
  KernelInfo kernel;
  std::vector<std::string> log;
  void kernelBegin(const KernelInfo& k) override { kernel = k; }
  void memory(const MemoryEvent& e) override {
    log.push_back(fmt::format("{} w{} {:#x} pc{}", e.type == AccessType::Read ? "rd" : "wr", e.lanes.warp,
                              e.address[0], e.origin.pc & ~kPositionPc));
  }
  void acquire(const LockEvent& e) override { log.push_back(fmt::format("acq w{} {}", e.lanes.warp, e.lock[0])); }
  void release(const LockEvent& e) override { log.push_back(fmt::format("rel w{} {}", e.lanes.warp, e.lock[0])); }
  void barrier(const BarrierEvent& e) override {
    log.push_back(fmt::format("bar {},{}", e.threads.at(0), e.threads.at(1)));
  }
};

TEST(StdTrace, ReadsRapidsFormat) {
  Recorded r;
  auto s = streamStdText(
      "main|fork(T1)|1\nT1|acq(L)|2\nT1|acq(L)|2\nT1|w(V.f[0])|3\nT1|rel(L)|4\nT1|rel(L)|4\n"
      "main|join(T1)|5\nmain|begin|6\nmain|r(V.f[0])|7\nmain|end|8\n\n",
      "a.std", r);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(r.kernel.block.x, 64u);  // two threads, each its own warp
  EXPECT_EQ(r.log, (std::vector<std::string>{"bar 0,32", "acq w1 0", "wr w1 0x400000000 pc2", "rel w1 0",
                                             "bar 0,32", "rd w0 0x400000000 pc5"}));  // pc: position index
  EXPECT_EQ(s->kernel.symbols.at(0).name, "V.f[0]");
  EXPECT_EQ(s->kernel.lockNames, (std::vector<std::string>{"L"}));
  EXPECT_EQ(s->kernel.sources.at(0).file, "loc");
}

std::set<std::string> stdRaces(const std::string& text, const std::string& detector) {
  std::string path = tempPath("r.std");
  writeFile(path, text);
  auto a = analyzeTrace(path, TraceFormat::Auto, {detector}, DetectorOptions{});
  fs::remove(path);
  EXPECT_TRUE(a.ok()) << a.status();
  return a.ok() ? racyLocations(a->summary.kernel, *a->detectors[0]) : std::set<std::string>{};
}

TEST(StdTrace, DetectorsSeeThreadsLocksAndForkJoin) {
  // The WCP figure: swapping the critical sections makes the writes of x meet.
  std::string wcp = "T0|w(x)|1\nT0|acq(l)|2\nT0|w(y)|3\nT0|rel(l)|4\nT1|acq(l)|5\nT1|w(x)|6\nT1|w(y)|7\nT1|rel(l)|8\n";
  EXPECT_EQ(stdRaces(wcp, "gwcp"), (std::set<std::string>{"x"}));
  EXPECT_EQ(stdRaces(wcp, "hb"), (std::set<std::string>{}));
  EXPECT_EQ(stdRaces("T0|w(x)|1\nT1|w(x)|2\n", "hb"), (std::set<std::string>{"x"}));
  EXPECT_EQ(stdRaces("T0|w(x)|1\nT0|fork(T1)|2\nT1|w(x)|3\nT0|join(T1)|4\nT0|r(x)|5\n", "hb"),
            (std::set<std::string>{}));
  EXPECT_EQ(stdRaces("T0|w(x)|1\nT0|fork(T1)|2\nT1|w(x)|3\nT0|r(x)|5\n", "hb"), (std::set<std::string>{"x"}));
}

TEST(StdTrace, SameTraceInBothFormatsSameRaces) {
  std::string lit = "launch blocks=1 threads=96\nt0: wr a @ loc:1\nt32: acq m @ loc:2\nt32: wr a @ loc:3\n"
                    "t32: rel m @ loc:4\nt64: acq m @ loc:2\nt64: rd a @ loc:5\nt64: rel m @ loc:4\n";
  std::string std = "T0|w(a)|1\nT1|acq(m)|2\nT1|w(a)|3\nT1|rel(m)|4\nT2|acq(m)|2\nT2|r(a)|5\nT2|rel(m)|4\n";
  std::string litPath = tempPath("same.litmus"), stdPath = tempPath("same.std");
  writeFile(litPath, lit);
  writeFile(stdPath, std);
  for (const std::string& d : allDetectorNames()) {
    auto a = analyzeTrace(litPath, TraceFormat::Auto, {d}, DetectorOptions{});
    auto b = analyzeTrace(stdPath, TraceFormat::Auto, {d}, DetectorOptions{});
    ASSERT_TRUE(a.ok() && b.ok());
    const auto& ra = a->detectors[0]->races().races();
    const auto& rb = b->detectors[0]->races().races();
    ASSERT_EQ(ra.size(), rb.size()) << d;
    for (size_t i = 0; i < ra.size(); ++i) {
      EXPECT_EQ(ra[i].first.thread, rb[i].first.thread) << d;
      EXPECT_EQ(ra[i].second.thread, rb[i].second.thread) << d;
      EXPECT_EQ(a->summary.kernel.sources.at(ra[i].first.origin.source).line,
                b->summary.kernel.sources.at(rb[i].first.origin.source).line);
    }
  }
  fs::remove(litPath);
  fs::remove(stdPath);
}

std::string stdError(const std::string& text) {
  NullEventSink sink;
  auto s = streamStdText(text, "bad.std", sink);
  EXPECT_FALSE(s.ok()) << text;
  return std::string(s.status().message());
}

TEST(StdTrace, MalformedLinesNameFileAndLine) {
  EXPECT_EQ(stdError("T0|w(x)|1\nT0|w(x)\n"),
            "bad.std:2: expected three fields 'thread|op(operand)|location', such as 'T0|w(V2)|12'");
  EXPECT_EQ(stdError("T0|w(x)|1|2\n"),
            "bad.std:1: expected three fields 'thread|op(operand)|location', such as 'T0|w(V2)|12'");
  EXPECT_NE(stdError("T0|write(x)|1\n").find("bad.std:1: unknown operation 'write'"), std::string::npos);
  EXPECT_NE(stdError("T0|w(x)|abc\n").find("bad.std:1: expected a program location"), std::string::npos);
  EXPECT_NE(stdError("T0|w(x|1\n").find("bad.std:1: expected ')'"), std::string::npos);
  EXPECT_NE(stdError("T0|w()|1\n").find("bad.std:1: expected a name"), std::string::npos);
  EXPECT_NE(stdError("T0|acq|1\n").find("bad.std:1: 'acq' needs an operand"), std::string::npos);
  EXPECT_NE(stdError("|w(x)|1\n").find("bad.std:1: expected a thread name"), std::string::npos);
  EXPECT_NE(stdError("T0|w(x)|1\nT0|rel(l)|2\n").find("bad.std:2: T0 releases lock l which it does not hold"),
            std::string::npos);
  EXPECT_NE(stdError("T0|acq(a)|1\nT0|acq(b)|2\nT0|rel(a)|3\n").find("bad.std:3: T0 releases lock a but acquired b"),
            std::string::npos);
  EXPECT_NE(stdError("T0|fork(T0)|1\n").find("bad.std:1: thread T0 cannot fork or join itself"), std::string::npos);
}

TEST(StdTrace, FormatByExtensionContentOrForce) {
  std::string txt = tempPath("trace.txt");
  writeFile(txt, "\n# a comment\nt0: wr x\nT0|w(x)|1\n");
  EXPECT_EQ(*detectFormat(txt, TraceFormat::Auto), TraceFormat::Litmus);  // the first statement decides
  writeFile(txt, "\n# a comment\nT0|w(x)|1\n");
  EXPECT_EQ(*detectFormat(txt, TraceFormat::Auto), TraceFormat::Std);
  EXPECT_EQ(*detectFormat(txt, TraceFormat::Litmus), TraceFormat::Litmus);
  EXPECT_EQ(*detectFormat("x.std", TraceFormat::Auto), TraceFormat::Std);
  EXPECT_EQ(*detectFormat("x.litmus", TraceFormat::Auto), TraceFormat::Litmus);
  NullEventSink sink;
  auto forced = streamTrace(txt, TraceFormat::Litmus, sink);  // STD read as litmus: a clear error
  ASSERT_FALSE(forced.ok());
  EXPECT_NE(forced.status().message().find("trace.txt:3:"), std::string::npos) << forced.status();
  fs::remove(txt);
}

}  // namespace
}  // namespace predatar::litmus
