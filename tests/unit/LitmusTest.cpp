#include "litmus/Litmus.h"

#include <gtest/gtest.h>

#include "report/Report.h"

namespace predatar::litmus {
namespace {

LitmusFile parseOk(const std::string& text) {
  auto f = parse(text, "t.litmus");
  EXPECT_TRUE(f.ok()) << f.status();
  return f.ok() ? *f : LitmusFile{};
}

std::string parseError(const std::string& text) {
  auto f = parse(text, "t.litmus");
  EXPECT_FALSE(f.ok());
  return std::string(f.status().message());
}

TEST(Litmus, InfersTheLaunchFromTheEvents) {
  LitmusFile f = parseOk("b2.t5: wr x\nb0.w1[0x00000100]: rd x\n");
  EXPECT_EQ(f.trace.kernel.grid.x, 3u);
  EXPECT_EQ(f.trace.kernel.block.x, 41u);  // lane 8 of warp 1 is thread 40
}

// Whether a lock may be acquired at block scope (KernelInfo::blockScopedAcquires):
// known from the events when the reader goes over them once to find the
// launch; a trace streamed after its `launch` line may.
TEST(Litmus, SaysWhetherALockIsAcquiredAtBlockScope) {
  EXPECT_FALSE(parseOk("b0.t0: acq m\nb0.t0: rel m\n").trace.kernel.blockScopedAcquires);
  EXPECT_TRUE(parseOk("b0.t0: acq.block m\nb0.t0: rel.block m\n").trace.kernel.blockScopedAcquires);
  EXPECT_TRUE(parseOk("launch blocks=1 threads=1\nb0.t0: acq m\nb0.t0: rel m\n").trace.kernel.blockScopedAcquires);
}

TEST(Litmus, LaneIndexedWarpEvents) {
  LitmusFile f = parseOk("launch blocks=1 threads=40\nshared buf\nb0.w1: wr buf[lane+1]\n");
  const auto& m = std::get<MemoryEvent>(f.trace.events.at(0));
  EXPECT_EQ(m.lanes.mask, 0xffu);  // threads 32..39 only
  EXPECT_EQ(m.space, MemorySpace::Shared);
  EXPECT_EQ(m.address[7] - m.address[0], 28u);
  const auto& buf = f.trace.kernel.symbols.at(0);
  EXPECT_EQ(m.address[0] - buf.base, 4u);  // index lane+1 = 1 for lane 0
}

TEST(Litmus, BarrierExcludesExitedThreadsAndUnmaskedWarpsSkipThem) {
  LitmusFile f = parseOk("launch threads=3\nt1: exit\nb0: bar\nb0.w0: rd x\n");
  const auto& bar = std::get<BarrierEvent>(f.trace.events.at(1));
  EXPECT_EQ(bar.threads, (std::vector<uint32_t>{0, 2}));
  EXPECT_EQ(std::get<MemoryEvent>(f.trace.events.at(2)).lanes.mask, 0b101u);
}

TEST(Litmus, ScopesAndKinds) {
  LitmusFile f = parseOk("t0: atom.block x\nt0: ard y\nt0: awr.system z\nt0: fence\nt0: acq.block m\nt0: rel.block m\n");
  const auto& atom = std::get<MemoryEvent>(f.trace.events[0]);
  EXPECT_EQ(atom.type, AccessType::AtomicRmw);
  EXPECT_EQ(atom.scope, Scope::Block);
  EXPECT_TRUE(std::get<MemoryEvent>(f.trace.events[1]).strong);
  EXPECT_EQ(std::get<MemoryEvent>(f.trace.events[1]).scope, Scope::Device);
  EXPECT_EQ(std::get<MemoryEvent>(f.trace.events[2]).scope, Scope::System);
  EXPECT_EQ(std::get<FenceEvent>(f.trace.events[3]).scope, Scope::Device);
  EXPECT_EQ(std::get<AcquireEvent>(f.trace.events[4]).scope, Scope::Block);
}

TEST(Litmus, ExpectationsUseCanonicalNamesAndIndexZeroIsTheName) {
  LitmusFile f = parseOk("t0: wr x\nexpect scord: race x[0], y[2]\nexpect barracuda: norace\ntruth: race x (free text)\n");
  ASSERT_EQ(f.expectations.size(), 2u);
  EXPECT_EQ(f.expectations[0].detector, "lockset");
  EXPECT_EQ(f.expectations[0].locations, (std::set<std::string>{"x", "y[2]"}));
  EXPECT_EQ(f.expectations[1].detector, "hb");
  EXPECT_TRUE(f.expectations[1].locations.empty());
}

TEST(Litmus, SourcePositionsAndCommentsAndCrLf) {
  LitmusFile f = parseOk("t0: wr x @ kernel.cu:12   # a comment\r\nt1: rd x\r\n");
  const auto& k = f.trace.kernel;
  EXPECT_EQ(k.sources.at(std::get<MemoryEvent>(f.trace.events[0]).origin.source).file, "kernel.cu");
  EXPECT_EQ(k.sources.at(std::get<MemoryEvent>(f.trace.events[0]).origin.source).line, 12u);
  // Without '@' the position is the line itself: no source entry per event.
  const Origin& second = std::get<MemoryEvent>(f.trace.events[1]).origin;
  EXPECT_EQ(second.source, kTraceLineSource);
  EXPECT_EQ(second.pc, 2u);
  EXPECT_EQ(k.name, "t.litmus");
}

TEST(Litmus, ErrorsNameFileLineAndWhatWasExpected) {
  EXPECT_EQ(parseError("t0: wr x\nt0 wr x\n"), "t.litmus:2: expected ':' after 'b0.t0' but found 'wr'");
  EXPECT_NE(parseError("launch threads=2\nt2: wr x\n").find("t.litmus:2: thread 2 is outside the launch"),
            std::string::npos);
  EXPECT_NE(parseError("t0: rel m\n").find("does not hold"), std::string::npos);
  EXPECT_NE(parseError("t0: acq m\nt0: acq n\nt0: rel m\n").find("well nested"), std::string::npos);
}

}  // namespace
}  // namespace predatar::litmus
