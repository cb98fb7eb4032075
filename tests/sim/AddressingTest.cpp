// Address arithmetic as the hardware does it: shared and local addresses are
// 32 bits wide, so a register + offset sum (or a cvta of such a sum) wraps.
// One hand-written kernel per way a register becomes an address; each stores
// 4 + 7 through an address computed as 0xFFFFFFC0 + 68 (= 4 modulo 2^32) or
// similar and copies the word at offset 4 out to global memory.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

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

// A warp of 32 threads runs BODY with %rd1 = out + 16 * tid (global) and %r1 =
// sh + 16 * tid (a 512-byte shared array), then copies its 16 shared bytes
// to out + 512 + 16 * tid. Memory starts as 0x5A bytes; the launch's status.
absl::Status runWarp(const std::string& body, std::vector<uint8_t>& out) {
  DeviceMemory mem;
  auto m = loadPtx(R"(
.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out)
{
  .shared .align 16 .b8 sh[512];
  .reg .pred %p<4>;
  .reg .b16 %h<4>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<16>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r2, %tid.x;
  shl.b32 %r3, %r2, 4;
  mul.wide.u32 %rd2, %r3, 1;
  add.s64 %rd1, %rd1, %rd2;
  mov.u32 %r1, sh;
  add.s32 %r1, %r1, %r3;
  mov.u32 %r4, 0x5A5A5A5A;
  st.shared.v4.u32 [%r1], {%r4, %r4, %r4, %r4};
  bar.sync 0;
)" + body + R"(
  bar.sync 0;
  ld.shared.v4.u32 {%r4, %r5, %r6, %r7}, [%r1];
  st.global.v4.u32 [%rd1+512], {%r4, %r5, %r6, %r7};
  ret;
}
)",
                   "warp.ptx", mem);
  if (!m.ok()) return m.status();
  uint64_t buffer = mem.allocate(out.size(), "out");
  std::memset(reinterpret_cast<void*>(buffer), 0x5A, out.size());
  LaunchConfig cfg;
  cfg.grid = {1, 1, 1};
  cfg.block = {32, 1, 1};
  cfg.args = {&buffer};
  NullSink sink;
  absl::Status st = launch(**m, "k", cfg, mem, sink);
  std::memcpy(out.data(), reinterpret_cast<void*>(buffer), out.size());
  return st;
}

// Every width of store, by a whole warp (the path that resolves all lanes at
// once): each writes its own bytes and no neighbour's (byte 1 of each
// thread's 16 stays 0x5A), in global and in shared memory alike. Widest
// first: a store wider than its type would overwrite the one before it.
TEST(Addressing, WarpStoresOfEveryWidthWriteTheirBytesOnly) {
  std::vector<uint8_t> out(1024);
  auto st = runWarp(R"(
  mov.u16 %h1, 0xAB;
  mov.u16 %h2, 0xCDEF;
  mov.u32 %r8, 0x12345678;
  mov.u64 %rd8, 0x0102030405060708;
  st.global.u64 [%rd1+8], %rd8;
  st.global.u32 [%rd1+4], %r8;
  st.global.u16 [%rd1+2], %h2;
  st.global.u8 [%rd1], %h1;
  st.shared.u64 [%r1+8], %rd8;
  st.shared.u32 [%r1+4], %r8;
  st.shared.u16 [%r1+2], %h2;
  st.shared.u8 [%r1], %h1;
)",
                    out);
  ASSERT_TRUE(st.ok()) << st;
  const uint8_t expected[16] = {0xAB, 0x5A, 0xEF, 0xCD, 0x78, 0x56, 0x34, 0x12,
                                0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01};
  for (int t = 0; t < 32; ++t)
    for (int b = 0; b < 16; ++b) {
      EXPECT_EQ(out[16 * t + b], expected[b]) << "global, thread " << t << ", byte " << b;
      EXPECT_EQ(out[512 + 16 * t + b], expected[b]) << "shared, thread " << t << ", byte " << b;
    }
}

// One lane of a warp out of bounds, or misaligned: the fault names that lane,
// whatever the other 31 do: BODY's store faults in one lane only.
void expectFaultOfOneLane(const std::string& body, const std::string& what, const std::string& thread) {
  std::vector<uint8_t> out(1024);
  absl::Status st = runWarp(body, out);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(std::string(st.message()).find(what), std::string::npos) << st;
  EXPECT_NE(std::string(st.message()).find(thread), std::string::npos) << st;
}

TEST(Addressing, OneBadLaneOfAWarpIsTheFault) {
  expectFaultOfOneLane(R"(
  setp.eq.u32 %p1, %r2, 31;
  selp.b32 %r9, 4096, 0, %p1;
  add.s32 %r10, %r1, %r9;
  st.shared.u32 [%r10], %r2;
)",
                       "out-of-bounds store", "thread (31,0,0)");
  expectFaultOfOneLane(R"(
  setp.eq.u32 %p1, %r2, 7;
  selp.b64 %rd9, 2, 0, %p1;
  add.s64 %rd10, %rd1, %rd9;
  st.global.u32 [%rd10], %r2;
)",
                       "misaligned store", "thread (7,0,0)");
}

}  // namespace
}  // namespace predatar::sim::testing
