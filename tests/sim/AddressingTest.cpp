// Address arithmetic as the hardware does it: shared and local addresses are
// 32 bits wide, so a register + offset sum (or a cvta of such a sum) wraps.
// One hand-written kernel per way a register becomes an address; each stores
// 4 + 7 through an address computed as 0xFFFFFFC0 + 68 (= 4 modulo 2^32) or
// similar and copies the word at offset 4 out to global memory.
#include <gtest/gtest.h>

#include <string>

#include "sim/Device.h"
#include "SimTestUtil.h"

namespace predatar::sim::testing {
namespace {

// A kernel with a 16-word shared array `sh`, a 16-word local array `loc`, and
// BODY between the prologue (%rd1 = out) and the epilogue (out[0] = sh[1],
// out[1] = loc[1]).
std::string kernel(const std::string& body) {
  return R"(
.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out)
{
  .shared .align 4 .b8 sh[64];
  .local .align 4 .b8 loc[64];
  .reg .b32 %r<16>;
  .reg .b64 %rd<16>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r9, 0;
  st.local.u32 [loc+4], %r9;
)" + body + R"(
  ld.shared.u32 %r10, [sh+4];
  st.global.u32 [%rd1], %r10;
  ld.local.u32 %r11, [loc+4];
  st.global.u32 [%rd1+4], %r11;
  ret;
}
)";
}

// Runs BODY on one thread; returns out[0], out[1] (or fails the test).
std::pair<int, int> run(const std::string& body) {
  DeviceMemory mem;
  auto m = loadPtx(kernel(body), "addressing.ptx", mem);
  EXPECT_TRUE(m.ok()) << m.status();
  if (!m.ok()) return {-1, -1};
  uint64_t out = mem.allocate(8, "out");
  LaunchConfig cfg;
  cfg.grid = {1, 1, 1};
  cfg.block = {1, 1, 1};
  cfg.args = {&out};
  NullSink sink;
  auto st = launch(**m, "k", cfg, mem, sink);
  EXPECT_TRUE(st.ok()) << st;
  auto* p = reinterpret_cast<int*>(out);
  return {p[0], p[1]};
}

// ld/st.shared [%r+imm] with a 32-bit register: 0xFFFFFFC0 + 68 = 4 (needle -O2).
TEST(Addressing, SharedRegisterPlusOffsetWraps32) {
  auto [s, l] = run(R"(
  mov.u32 %r1, sh;
  add.s32 %r2, %r1, -64;
  mov.u32 %r3, 11;
  st.shared.u32 [%r2+68], %r3;
)");
  EXPECT_EQ(s, 11);
  EXPECT_EQ(l, 0);
}

// A 64-bit register holding a zero-extended 32-bit shared address.
TEST(Addressing, SharedZeroExtendedRegisterWraps) {
  auto [s, l] = run(R"(
  mov.u32 %r1, sh;
  add.s32 %r2, %r1, -64;
  cvt.u64.u32 %rd2, %r2;
  mov.u32 %r3, 12;
  st.shared.u32 [%rd2+68], %r3;
)");
  EXPECT_EQ(s, 12);
}

// mov of the shared symbol into a 64-bit register, minus 64, plus 68.
TEST(Addressing, SharedSymbol64MinusOffset) {
  auto [s, l] = run(R"(
  mov.u64 %rd2, sh;
  add.s64 %rd3, %rd2, -64;
  mov.u32 %r3, 13;
  st.shared.u32 [%rd3+68], %r3;
)");
  EXPECT_EQ(s, 13);
}

// cvta.shared.u64 (to generic) of a wrapped 32-bit offset, then a generic store.
TEST(Addressing, CvtaToGenericOfWrappedOffset) {
  auto [s, l] = run(R"(
  mov.u32 %r1, sh;
  add.s32 %r2, %r1, -64;
  add.s32 %r4, %r2, 68;
  cvt.u64.u32 %rd2, %r4;
  cvta.shared.u64 %rd3, %rd2;
  mov.u32 %r3, 14;
  st.u32 [%rd3], %r3;
)");
  EXPECT_EQ(s, 14);
}

// cvta.to.shared of a generic shared address, then [%rd+imm] with a negative
// displacement folded into the register.
TEST(Addressing, CvtaToSharedRoundTrip) {
  auto [s, l] = run(R"(
  mov.u64 %rd2, sh;
  cvta.shared.u64 %rd3, %rd2;
  cvta.to.shared.u64 %rd4, %rd3;
  cvt.u32.u64 %r1, %rd4;
  add.s32 %r2, %r1, -1000;
  mov.u32 %r3, 15;
  st.shared.u32 [%r2+1004], %r3;
)");
  EXPECT_EQ(s, 15);
}

// Generic addressing into the shared window: generic pointer + 4.
TEST(Addressing, GenericIntoSharedWindow) {
  auto [s, l] = run(R"(
  mov.u64 %rd2, sh;
  cvta.shared.u64 %rd3, %rd2;
  mov.u32 %r3, 16;
  st.u32 [%rd3+4], %r3;
)");
  EXPECT_EQ(s, 16);
}

// ld/st.local [%r+imm] with a 32-bit register wraps like shared.
TEST(Addressing, LocalRegisterPlusOffsetWraps32) {
  auto [s, l] = run(R"(
  mov.u32 %r1, loc;
  add.s32 %r2, %r1, -64;
  mov.u32 %r3, 17;
  st.local.u32 [%r2+68], %r3;
)");
  EXPECT_EQ(l, 17);
}

// cvta.local (to generic) of a local frame address, then a generic store.
TEST(Addressing, GenericIntoLocalWindow) {
  auto [s, l] = run(R"(
  mov.u64 %rd2, loc;
  cvta.local.u64 %rd3, %rd2;
  mov.u32 %r3, 18;
  st.u32 [%rd3+4], %r3;
)");
  EXPECT_EQ(l, 18);
}

// Out of the window is still a fault: a 32-bit sum that does not wrap to a
// valid offset.
TEST(Addressing, WrappedOutOfBoundsStillFaults) {
  DeviceMemory mem;
  auto m = loadPtx(kernel(R"(
  mov.u32 %r1, sh;
  add.s32 %r2, %r1, -64;
  mov.u32 %r3, 1;
  st.shared.u32 [%r2+32], %r3;
)"),
                   "addressing.ptx", mem);
  ASSERT_TRUE(m.ok()) << m.status();
  uint64_t out = mem.allocate(8, "out");
  LaunchConfig cfg;
  cfg.grid = {1, 1, 1};
  cfg.block = {1, 1, 1};
  cfg.args = {&out};
  NullSink sink;
  auto st = launch(**m, "k", cfg, mem, sink);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(std::string(st.message()).find("shared offset 0xffffffe0"), std::string::npos) << st;
}

}  // namespace
}  // namespace predatar::sim::testing
