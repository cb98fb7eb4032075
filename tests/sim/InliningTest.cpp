// Source positions of inlined __device__ functions: the innermost .loc (the
// function's own line) with the chain of call sites (PTX `inlined_at`).
#include <gtest/gtest.h>

#include "SimTestUtil.h"

namespace predatar::sim::testing {
namespace {

TEST(Inlining, InnermostLineWithCallChain) {
  Fixture f("inlined");
  int* out = f.zeros<int>(1);
  RecordingSink rec;
  auto st = f.run("inlinedReduce", {1, 1, 1}, {32, 1, 1}, f.args(out), rec);
  ASSERT_TRUE(st.ok()) << st;
  bool found = false;
  for (const auto& e : rec.memoryEvents) {
    if (e.origin.source >= rec.kernel.sources.size()) continue;
    const SourcePosition& p = rec.kernel.sources[e.origin.source];
    if (p.line != 5) continue;
    found = true;
    EXPECT_NE(p.file.find("inlined.cu"), std::string::npos) << p.file;
    ASSERT_EQ(p.inlinedInto.size(), 2u);
    EXPECT_EQ(p.inlinedInto[0].function, "step");
    EXPECT_EQ(p.inlinedInto[0].line, 9u);
    EXPECT_EQ(p.inlinedInto[1].function, "inlinedReduce");
    EXPECT_EQ(p.inlinedInto[1].line, 16u);
  }
  EXPECT_TRUE(found) << "no access at inlined.cu:5";
}

// A launch hands detectors its module's table unmade: a position is made when
// a report reads it (a Thrust module's table, made whole, was 69 MB and 0.7 s
// a launch), and a second launch shares what the first made.
TEST(Inlining, PositionsAreMadeWhenReadAndSharedByLaunches) {
  Fixture f("inlined");
  int* out = f.zeros<int>(1);
  RecordingSink first, second;
  ASSERT_TRUE(f.run("inlinedReduce", {1, 1, 1}, {32, 1, 1}, f.args(out), first).ok());
  ASSERT_GT(first.kernel.sources.size(), 2u);
  EXPECT_EQ(first.kernel.sources.made(), 0u);
  const SourcePosition& p = first.kernel.sources[first.memoryEvents.at(0).origin.source];
  EXPECT_EQ(first.kernel.sources.made(), 1u);
  ASSERT_TRUE(f.run("inlinedReduce", {1, 1, 1}, {32, 1, 1}, f.args(out), second).ok());
  EXPECT_EQ(second.kernel.sources.made(), 1u);
  EXPECT_EQ(&second.kernel.sources[second.memoryEvents.at(0).origin.source], &p);
}

}  // namespace
}  // namespace predatar::sim::testing

namespace predatar::sim::testing {
namespace {

// inlined.ptx with its source file renamed, so that every frame is in CUDA's headers.
std::vector<SourcePosition> positionsAtLine5(const std::string& file) {
  std::string ptx = cudaPtx("inlined");
  size_t at = ptx.find("\t.file\t1 \"");
  EXPECT_NE(at, std::string::npos);
  size_t begin = at + 10, end = ptx.find('"', begin);
  ptx.replace(begin, end - begin, file);
  Fixture f(PtxText{ptx, "inlined.ptx"});
  int* out = f.zeros<int>(1);
  RecordingSink rec;
  EXPECT_TRUE(f.run("inlinedReduce", {1, 1, 1}, {32, 1, 1}, f.args(out), rec).ok());
  std::vector<SourcePosition> found;
  for (const auto& e : rec.memoryEvents)
    if (e.origin.source < rec.kernel.sources.size()) found.push_back(rec.kernel.sources[e.origin.source]);
  return found;
}

// A CUB kernel is all toolkit headers: its accesses are named at CUB's own
// innermost line (with the chain out), not at the kernel's call of the algorithm.
TEST(Inlining, LibraryCodeKeepsItsInnermostLine) {
  bool found = false;
  for (const SourcePosition& p : positionsAtLine5("/usr/local/cuda/include/cccl/cub/agent/agent_scan.cuh")) {
    EXPECT_NE(p.line, 16u) << "named at the outermost frame";
    if (p.line != 5) continue;
    found = true;
    ASSERT_EQ(p.inlinedInto.size(), 2u);
    EXPECT_EQ(p.inlinedInto[1].line, 16u);
  }
  EXPECT_TRUE(found);
}

// An intrinsic's header (sm_30_intrinsics.hpp, ...) is skipped out to the caller as before.
TEST(Inlining, IntrinsicHeadersNameTheirCaller) {
  auto positions = positionsAtLine5("/usr/local/cuda/include/sm_30_intrinsics.hpp");
  ASSERT_FALSE(positions.empty());
  for (const SourcePosition& p : positions) EXPECT_NE(p.line, 5u);
}

}  // namespace
}  // namespace predatar::sim::testing
