// Calls beyond a call tree (sim/Calls.cpp): recursion (registers per
// activation, depth bounded by the stack limit) and indirect calls through
// function tables in initializers.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "SimTestUtil.h"

namespace predatar::sim::testing {
namespace {

// down(n): n == 0 ? 0 : 1 + down(n - 1), keeping n in a register across the
// call (so a callee that clobbered its caller's registers would be caught);
// forever(): recursion without a base case.
const char* kPtx = R"(
.version 8.0
.target sm_90
.address_size 64
.func (.param .b32 r) down(.param .b32 n)
{
  .reg .pred %p;
  .reg .b32 %n, %m, %sub, %out;
  ld.param.b32 %n, [n];
  setp.eq.s32 %p, %n, 0;
  @%p bra BASE;
  add.s32 %m, %n, -1;
  {
  .param .b32 arg0;
  st.param.b32 [arg0], %m;
  .param .b32 ret0;
  call.uni (ret0), down, (arg0);
  ld.param.b32 %sub, [ret0];
  }
  sub.s32 %out, %n, %m;
  add.s32 %out, %out, %sub;
  st.param.b32 [r], %out;
  ret;
BASE:
  st.param.b32 [r], 0;
  ret;
}
.func forever()
{
  call.uni forever, ();
  ret;
}
.visible .entry depth(.param .u64 out)
{
  .reg .b32 %t, %d;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %t, %tid.x;
  {
  .param .b32 arg0;
  st.param.b32 [arg0], %t;
  .param .b32 ret0;
  call.uni (ret0), down, (arg0);
  ld.param.b32 %d, [ret0];
  }
  mul.wide.u32 %rd2, %t, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %d;
  ret;
}
.visible .entry overflow()
{
  call.uni forever, ();
  ret;
}
)";

LaunchConfig oneBlock(uint32_t threads, std::vector<const void*> args = {}) {
  LaunchConfig cfg;
  cfg.grid = {1, 1, 1};
  cfg.block = {threads, 1, 1};
  cfg.args = std::move(args);
  return cfg;
}

TEST(Recursion, EachLaneRecursesToItsOwnDepth) {
  Fixture f(PtxText{kPtx, "recursion.ptx"});
  ASSERT_TRUE(f.module);
  uint32_t* out = f.zeros<uint32_t>(64);
  auto cfg = oneBlock(64, f.args(out));
  cfg.stackLimitBytes = 4096;  // 63 frames of 32 bytes: more than CUDA's default 1 KiB
  NullSink sink;
  auto st = f.run("depth", cfg, sink);
  ASSERT_TRUE(st.ok()) << st;
  for (uint32_t t = 0; t < 64; ++t) EXPECT_EQ(out[t], t) << t;
  EXPECT_EQ(repeatabilityProblem(*f.module, "depth"), "");
}

TEST(Recursion, TooDeepForTheStackLimitIsAFault) {
  Fixture f(PtxText{kPtx, "recursion.ptx"});
  ASSERT_TRUE(f.module);
  auto cfg = oneBlock(32);
  cfg.stackLimitBytes = 1024;
  NullSink sink;
  auto st = f.run("overflow", cfg, sink);
  ASSERT_FALSE(st.ok());
  std::string msg(st.message());
  EXPECT_NE(msg.find("call stack overflow"), std::string::npos) << msg;
  EXPECT_NE(msg.find("1024 bytes of stack per thread"), std::string::npos) << msg;
  EXPECT_NE(msg.find("cudaLimitStackSize"), std::string::npos) << msg;
}

// twice(x), square(x) in a table; lane l calls table[l % 2](l): the lanes of
// one warp call different functions. `wild` calls through a data address.
const char* kIndirectPtx = R"(
.version 8.0
.target sm_90
.address_size 64
.func (.param .b32 r) twice(.param .b32 x)
{
  .reg .b32 %x;
  ld.param.b32 %x, [x];
  add.s32 %x, %x, %x;
  st.param.b32 [r], %x;
  ret;
}
.func (.param .b32 r) square(.param .b32 x)
{
  .reg .b32 %x;
  ld.param.b32 %x, [x];
  mul.lo.s32 %x, %x, %x;
  st.param.b32 [r], %x;
  ret;
}
.global .align 8 .u64 table[2] = {twice, square};
.global .align 8 .u64 self[1] = {generic(table)+8};
.visible .entry dispatch(.param .u64 out)
{
  .reg .b32 %t, %v;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %t, %tid.x;
  and.b32 %v, %t, 1;
  mul.wide.u32 %rd2, %v, 8;
  mov.u64 %rd3, table;
  add.s64 %rd3, %rd3, %rd2;
  ld.global.u64 %rd4, [%rd3];
  {
  .param .b32 arg0;
  st.param.b32 [arg0], %t;
  .param .b32 ret0;
  proto : .callprototype (.param .b32 _) _ (.param .b32 _);
  call (ret0), %rd4, (arg0), proto;
  ld.param.b32 %v, [ret0];
  }
  mul.wide.u32 %rd2, %t, 4;
  add.s64 %rd5, %rd1, %rd2;
  st.global.u32 [%rd5], %v;
  ret;
}
.visible .entry wild(.param .u64 out)
{
  .reg .b32 %v;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  {
  .param .b32 arg0;
  st.param.b32 [arg0], 1;
  .param .b32 ret0;
  proto2 : .callprototype (.param .b32 _) _ (.param .b32 _);
  call (ret0), %rd1, (arg0), proto2;
  ld.param.b32 %v, [ret0];
  }
  ret;
}
)";

TEST(IndirectCalls, LanesCallTheFunctionsTheirTableEntriesName) {
  Fixture f(PtxText{kIndirectPtx, "indirect.ptx"});
  ASSERT_TRUE(f.module);
  int32_t* out = f.zeros<int32_t>(64);
  NullSink sink;
  auto st = f.run("dispatch", oneBlock(64, f.args(out)), sink);
  ASSERT_TRUE(st.ok()) << st;
  for (int t = 0; t < 64; ++t) EXPECT_EQ(out[t], t % 2 ? t * t : 2 * t) << t;
  // A variable's address in an initializer, with an addend.
  uint64_t table = 0, self = 0;
  for (const auto& g : f.module->globals()) {
    if (g.name == "table") table = g.address;
    if (g.name == "self") self = g.address;
  }
  ASSERT_NE(self, 0u);
  EXPECT_EQ(*reinterpret_cast<const uint64_t*>(self), table + 8);
}

TEST(IndirectCalls, ACallThroughADataAddressIsAFault) {
  Fixture f(PtxText{kIndirectPtx, "indirect.ptx"});
  ASSERT_TRUE(f.module);
  uint64_t* out = f.zeros<uint64_t>(2);
  NullSink sink;
  auto st = f.run("wild", oneBlock(1, f.args(out)), sink);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(std::string(st.message()).find("not the address of a device function"), std::string::npos) << st;
}

TEST(IndirectCalls, UnknownSymbolInAnInitializerIsAnError) {
  DeviceMemory memory;
  auto m = loadPtx(R"(
.version 8.0
.target sm_90
.address_size 64
.global .align 8 .u64 table[1] = {nowhere};
)",
                   "bad.ptx", memory);
  ASSERT_FALSE(m.ok());
  EXPECT_NE(std::string(m.status().message()).find("unknown symbol 'nowhere'"), std::string::npos) << m.status();
}

}  // namespace
}  // namespace predatar::sim::testing
