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

// Kernels whose events follow only their configuration and arguments
// (sim::dataDependenceProblem): a later launch with other data has the same races.
TEST(Repeatable, DataIndependenceFollowsWhatAddressesAndBranchesUse) {
  DeviceMemory memory;
  auto m = load(R"(
.visible .entry copyLoop(.param .u64 out, .param .u64 in, .param .u32 n)
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  .reg .f32 %f<3>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [out];
  ld.param.u64 %rd2, [in];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %tid.x;
LOOP:
  mul.wide.u32 %rd3, %r2, 4;
  add.s64 %rd4, %rd2, %rd3;
  ld.global.f32 %f1, [%rd4];
  add.f32 %f2, %f1, %f1;
  add.s64 %rd5, %rd1, %rd3;
  st.global.f32 [%rd5], %f2;
  add.u32 %r2, %r2, 32;
  setp.lt.u32 %p1, %r2, %r1;
  @%p1 bra LOOP;
  ret;
}
.visible .entry gather(.param .u64 out, .param .u64 index)
{
  .reg .b32 %r<3>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [out];
  ld.param.u64 %rd2, [index];
  ld.global.u32 %r1, [%rd2];
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd1, %rd3;
  st.global.u32 [%rd4], 0;
  ret;
}
.visible .entry untilZero(.param .u64 flag)
{
  .reg .pred %p<2>;
  .reg .b32 %r<2>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [flag];
AGAIN:
  ld.volatile.global.u32 %r1, [%rd1];
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra AGAIN;
  ret;
}
.visible .entry storeIfPositive(.param .u64 data)
{
  .reg .pred %p<2>;
  .reg .f32 %f<2>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [data];
  ld.global.f32 %f1, [%rd1];
  setp.gt.f32 %p1, %f1, 0f00000000;
  @%p1 st.global.f32 [%rd1+4], %f1;
  ret;
}
.visible .entry counts(.param .u64 counter)
{
  .reg .b32 %r<2>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [counter];
  atom.global.add.u32 %r1, [%rd1], 1;
  ret;
}
.visible .entry slotReused(.param .u64 out, .param .u64 in)
{
  .reg .b32 %r<3>;
  .reg .b64 %rd<5>;
  ld.param.u64 %rd1, [out];
  ld.param.u64 %rd2, [in];
  ld.global.u32 %r1, [%rd2];
  st.global.u32 [%rd1], %r1;
  mov.u32 %r2, %tid.x;
  mul.wide.u32 %rd3, %r2, 4;
  add.s64 %rd4, %rd1, %rd3;
  st.global.u32 [%rd4+8], %r2;
  ret;
}
)", memory);
  ASSERT_TRUE(m);
  EXPECT_EQ(dataDependenceProblem(*m, "copyLoop"), "");
  EXPECT_EQ(dataDependenceProblem(*m, "pure"), "");
  // (a value loaded, then a slot reused for an address: per program point, not per slot)
  EXPECT_EQ(dataDependenceProblem(*m, "slotReused"), "");
  EXPECT_NE(dataDependenceProblem(*m, "gather").find("the address of a memory access"), std::string::npos)
      << dataDependenceProblem(*m, "gather");
  EXPECT_NE(dataDependenceProblem(*m, "untilZero").find("whether an instruction runs"), std::string::npos)
      << dataDependenceProblem(*m, "untilZero");
  EXPECT_NE(dataDependenceProblem(*m, "storeIfPositive").find("whether an instruction runs"), std::string::npos)
      << dataDependenceProblem(*m, "storeIfPositive");
  EXPECT_NE(dataDependenceProblem(*m, "counts").find("atomics"), std::string::npos);
  EXPECT_EQ(dataDependenceProblem(*m, "missing"), "no such kernel");
}

}  // namespace
}  // namespace predatar::sim::testing
