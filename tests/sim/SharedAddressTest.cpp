// Shared-memory addresses held in 32-bit registers wrap modulo 2^32: nvcc
// splits an offset so that the register may hold a "negative" address and
// the instruction's constant brings it back (bench/apps/needle.cu does).
#include <cstring>

#include "SimTestUtil.h"

namespace predatar::sim::testing {
namespace {

TEST(SharedAddress, ThirtyTwoBitBaseWrapsBeforeTheOffset) {
  DeviceMemory mem;
  std::string ptx = R"(
.version 8.0
.target sm_75
.address_size 64
.visible .entry k(.param .u64 out)
{
  .shared .align 4 .b8 s[16];
  .reg .b32 %r<6>;
  .reg .b64 %rd<3>;
  mov.u32 %r1, s;
  add.s32 %r2, %r1, -64;
  mov.u32 %r3, 7;
  st.shared.u32 [%r2+68], %r3;
  ld.shared.u32 %r4, [%r1+4];
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  st.global.u32 [%rd2], %r4;
  ret;
}
)";
  auto m = loadPtx(ptx, "wrap.ptx", mem);
  ASSERT_TRUE(m.ok()) << m.status();
  uint64_t out = mem.allocate(sizeof(uint32_t), "out");
  std::memset(reinterpret_cast<void*>(out), 0, sizeof(uint32_t));
  LaunchConfig cfg;
  cfg.grid = {1, 1, 1};
  cfg.block = {1, 1, 1};
  cfg.args = {&out};
  NullSink sink;
  auto st = launch(**m, "k", cfg, mem, sink);
  ASSERT_TRUE(st.ok()) << st;
  EXPECT_EQ(*reinterpret_cast<uint32_t*>(out), 7u);
}

}  // namespace
}  // namespace predatar::sim::testing
