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

}  // namespace
}  // namespace predatar::sim::testing
