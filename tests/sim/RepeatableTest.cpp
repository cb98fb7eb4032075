// Which kernels are a function of their configuration, arguments and memory
// (sim::repeatabilityProblem), and the ranges of memory kernels can reach:
// what the runtime compares before replaying a repeated launch.
#include <gtest/gtest.h>

#include <string>

#include "SimTestUtil.h"
#include "sim/Device.h"

namespace predatar::sim::testing {
namespace {

std::unique_ptr<Module> load(const std::string& body, DeviceMemory& memory) {
  std::string ptx = R"(
.version 8.0
.target sm_90
.address_size 64
.func (.param .b64 r) stamp()
{
  .reg .b64 %t;
  mov.u64 %t, %globaltimer;
  st.param.b64 [r], %t;
  ret;
}
.visible .entry pure(.param .u64 out)
{
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  st.global.u64 [%rd1], 7;
  ret;
}
)" + body;
  auto m = loadPtx(ptx, "repeatable.ptx", memory);
  EXPECT_TRUE(m.ok()) << m.status();
  return m.ok() ? std::move(*m) : nullptr;
}

TEST(Repeatable, PlainKernelIsRepeatable) {
  DeviceMemory memory;
  auto m = load("", memory);
  ASSERT_TRUE(m);
  EXPECT_EQ(repeatabilityProblem(*m, "pure"), "");
  EXPECT_EQ(repeatabilityProblem(*m, "missing"), "no such kernel");
}

TEST(Repeatable, ClockReadsAreNotRepeatable) {
  DeviceMemory memory;
  auto m = load(R"(
.visible .entry timed(.param .u64 out)
{
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u64 %rd2, %clock64;
  st.u64 [%rd1], %rd2;
  ret;
}
.visible .entry timedInCallee(.param .u64 out)
{
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  {
  .param .b64 retval0;
  call.uni (retval0), stamp, ();
  ld.param.b64 %rd2, [retval0];
  }
  st.u64 [%rd1], %rd2;
  ret;
}
)",
                memory);
  ASSERT_TRUE(m);
  EXPECT_EQ(repeatabilityProblem(*m, "timed"), "it reads a clock or timer");
  EXPECT_EQ(repeatabilityProblem(*m, "timedInCallee"), "it reads a clock or timer");
  EXPECT_EQ(repeatabilityProblem(*m, "pure"), "") << "a function no kernel of interest calls does not count";
}

TEST(Repeatable, PrintfAndAssertAreNotRepeatable) {
  Fixture f("builtins");
  ASSERT_TRUE(f.module);
  EXPECT_EQ(repeatabilityProblem(*f.module, "printing"), "it prints");
  EXPECT_EQ(repeatabilityProblem(*f.module, "asserting"), "it asserts");
  EXPECT_EQ(repeatabilityProblem(*f.module, "intrinsics"), "");
}

TEST(Repeatable, RangesListEveryAllocationByAddress) {
  DeviceMemory memory;
  uint64_t a = memory.allocate(100, "a");
  uint64_t b = memory.allocate(300, "b");
  std::vector<int> host(10);
  ASSERT_TRUE(memory.adopt(reinterpret_cast<uint64_t>(host.data()), 40, "host"));
  auto ranges = memory.ranges();
  ASSERT_EQ(ranges.size(), 3u);
  for (size_t i = 1; i < ranges.size(); ++i) EXPECT_LT(ranges[i - 1].base, ranges[i].base);
  auto has = [&](uint64_t base, uint64_t bytes) {
    for (const auto& r : ranges)
      if (r.base == base && r.bytes == bytes) return true;
    return false;
  };
  EXPECT_TRUE(has(a, 100));
  EXPECT_TRUE(has(b, 300));
  EXPECT_TRUE(has(reinterpret_cast<uint64_t>(host.data()), 40));
  ASSERT_TRUE(memory.free(a).ok());
  EXPECT_EQ(memory.ranges().size(), 2u);
}

}  // namespace
}  // namespace predatar::sim::testing
