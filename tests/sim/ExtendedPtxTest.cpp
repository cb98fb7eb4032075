// Carry arithmetic, brx.idx and texture fetches (layered and cubemap too) on inline PTX, and the errors
// that name what is wrong with them.
#include <gtest/gtest.h>

#include "SimTestUtil.h"
#include "ptx/Parser.h"
#include "sim/Texture.h"

namespace predatar::sim::testing {
namespace {

const char* kHeader = ".version 8.0\n.target sm_75\n.address_size 64\n";

const char* kKernel = R"(
.visible .entry k(.param .u64 out, .param .u64 tex)
{
.reg .b32 %r<10>;
.reg .b64 %rd<5>;
.reg .f32 %f<8>;
ld.param.u64 %rd1, [out];
ld.param.u64 %rd2, [tex];
mov.u32 %r1, %tid.x;
add.cc.u32 %r2, %r1, -1;
addc.u32 %r3, 0, 0;
rem.u32 %r4, %r1, 3;
ts: .branchtargets L0, L1, L2;
brx.idx %r4, ts;
L0: mov.u32 %r5, 10; bra.uni D;
L1: mov.u32 %r5, 20; bra.uni D;
L2: mov.u32 %r5, 30;
D:
cvt.rn.f32.u32 %f1, %r1;
add.f32 %f1, %f1, 0f3F000000;
tex.1d.v4.f32.f32 {%f2, %f3, %f4, %f5}, [%rd2, {%f1}];
cvt.rzi.u32.f32 %r6, %f2;
mul.wide.u32 %rd3, %r1, 12;
add.s64 %rd4, %rd1, %rd3;
st.global.u32 [%rd4], %r3;
st.global.u32 [%rd4+4], %r5;
st.global.u32 [%rd4+8], %r6;
ret;
}
)";

TEST(ExtendedPtx, CarryIndexedBranchAndTexture) {
  DeviceMemory memory;
  auto m = loadPtx(std::string(kHeader) + kKernel, "k.ptx", memory);
  ASSERT_TRUE(m.ok()) << m.status();
  std::vector<float> texels(32);
  for (int i = 0; i < 32; ++i) texels[i] = float(2 * i);
  TextureObject t;
  t.data = reinterpret_cast<const uint8_t*>(texels.data());
  t.width = 32;
  t.pitch = 32 * 4;
  t.address[0] = TextureObject::Address::Clamp;
  uint64_t handle = createTexture(t);
  uint64_t out = memory.allocate(32 * 12, "out");
  LaunchConfig cfg;
  cfg.grid = {1, 1, 1};
  cfg.block = {32, 1, 1};
  cfg.args = {&out, &handle};
  NullSink sink;
  auto st = launch(**m, "k", cfg, memory, sink);
  ASSERT_TRUE(st.ok()) << st;
  const auto* r = reinterpret_cast<const uint32_t*>(out);
  for (uint32_t i = 0; i < 32; ++i) {
    EXPECT_EQ(r[3 * i], i >= 1 ? 1u : 0u) << i;       // carry of tid + 0xFFFFFFFF
    EXPECT_EQ(r[3 * i + 1], 10u * (i % 3 + 1)) << i;  // brx.idx target per lane
    EXPECT_EQ(r[3 * i + 2], 2 * i) << i;              // point-sampled texel
  }
  EXPECT_TRUE(destroyTexture(handle));
  // The handle is gone: the fetch faults and says so.
  st = launch(**m, "k", cfg, memory, sink);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(std::string(st.message()).find("not a live texture object"), std::string::npos) << st;
}

const char* kLayeredKernel = R"(
.visible .entry lc(.param .u64 out, .param .u64 tex, .param .u64 cube)
{
.reg .b32 %r<2>;
.reg .b64 %rd<6>;
.reg .f32 %f<16>;
ld.param.u64 %rd1, [out];
ld.param.u64 %rd2, [tex];
ld.param.u64 %rd3, [cube];
mov.u32 %r1, %tid.x;
mov.f32 %f1, 0f3FC00000;
mov.f32 %f2, 0f3F000000;
tex.a2d.v4.f32.f32 {%f3, %f4, %f5, %f6}, [%rd2, {%r1, %f1, %f2, %f2}];
mov.f32 %f7, 0fBF800000;
mov.f32 %f8, 0fBF000000;
tex.cube.v4.f32.f32 {%f9, %f10, %f11, %f12}, [%rd3, {%f7, %f8, %f2, %f2}];
mul.wide.u32 %rd4, %r1, 8;
add.s64 %rd5, %rd1, %rd4;
st.global.f32 [%rd5], %f3;
st.global.f32 [%rd5+4], %f9;
ret;
}
)";

// A float texture of `slices` slices of width x height texels valued slice * 100 + y * 10 + x.
TextureObject sliced(std::vector<float>& texels, uint64_t width, uint64_t height, uint64_t slices) {
  texels.resize(width * height * slices);
  for (uint64_t i = 0; i < texels.size(); ++i)
    texels[i] = float(i / (width * height) * 100 + i / width % height * 10 + i % width);
  TextureObject t;
  t.data = reinterpret_cast<const uint8_t*>(texels.data());
  t.width = width;
  t.height = height;
  t.depth = slices;
  t.pitch = width * 4;
  return t;
}

TEST(ExtendedPtx, LayeredAndCubemapFetches) {
  DeviceMemory memory;
  auto m = loadPtx(std::string(kHeader) + kLayeredKernel, "lc.ptx", memory);
  ASSERT_TRUE(m.ok()) << m.status();
  std::vector<float> layers, faces;
  TextureObject layered = sliced(layers, 4, 2, 3), cube = sliced(faces, 2, 2, 6);
  layered.layered = true;
  cube.cubemap = true;
  uint64_t tex = createTexture(layered), cubeTex = createTexture(cube);
  uint64_t out = memory.allocate(4 * 8, "out");
  LaunchConfig cfg;
  cfg.grid = {1, 1, 1};
  cfg.block = {4, 1, 1};
  cfg.args = {&out, &tex, &cubeTex};
  NullSink sink;
  auto st = launch(**m, "lc", cfg, memory, sink);
  ASSERT_TRUE(st.ok()) << st;
  const auto* r = reinterpret_cast<const float*>(out);
  for (uint32_t i = 0; i < 4; ++i) {
    EXPECT_EQ(r[2 * i], float(std::min(i, 2u) * 100 + 1)) << i;  // texel (1, 0) of the layer, clamped to the last
    // (-1, -0.5, 0.5): the -x face (1), s = (z + m) / 2m = 0.75, t = (-y + m) / 2m = 0.75: texel (1, 1).
    EXPECT_EQ(r[2 * i + 1], 111.0f) << i;
  }
  EXPECT_TRUE(destroyTexture(tex));
  EXPECT_TRUE(destroyTexture(cubeTex));
}

std::string parseError(const std::string& body) {
  std::string text = std::string(kHeader) + ".visible .entry e()\n{\n.reg .b32 %r<4>;\n.reg .b64 %rd<2>;\n.reg .f32 %f<5>;\n" +
                     body + "\nret;\n}\n";
  auto m = ptx::parse(text, "e.ptx");
  return m.ok() ? "OK" : std::string(m.status().message());
}

TEST(ExtendedPtx, ErrorsNameTheProblem) {
  EXPECT_NE(parseError("brx.idx %r1, nosuch;").find("unknown .branchtargets list 'nosuch'"), std::string::npos);
  EXPECT_NE(parseError("t: .branchtargets A;\nbrx.idx %r1, t;").find("unknown label 'A' in .branchtargets"),
            std::string::npos);
  EXPECT_NE(parseError("tex.2dms.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f1, %f2}];").find("unsupported modifier '.2dms'"),
            std::string::npos);
  EXPECT_NE(parseError("suld.p.2d.b32.trap {%r1}, [%rd1, {%r2, %r3}];").find("unsupported modifier '.p' in 'suld.p.2d.b32.trap'"),
            std::string::npos)
      << parseError("suld.p.2d.b32.trap {%r1}, [%rd1, {%r2, %r3}];");
  EXPECT_EQ(parseError("mul24.lo.s32 %r1, %r2, %r3;\ndp4a.u32.s32 %r1, %r2, %r3, %r1;\nmov.u32 %r1, WARP_SZ;"), "OK");
}

TEST(ExtendedPtx, BranchIndexOutOfRangeFaults) {
  DeviceMemory memory;
  auto m = loadPtx(std::string(kHeader) +
                       ".visible .entry b()\n{\n.reg .b32 %r<2>;\nmov.u32 %r1, %tid.x;\n"
                       "t: .branchtargets A, B;\nbrx.idx %r1, t;\nA: ret;\nB: ret;\n}\n",
                   "b.ptx", memory);
  ASSERT_TRUE(m.ok()) << m.status();
  LaunchConfig cfg;
  cfg.grid = {1, 1, 1};
  cfg.block = {4, 1, 1};
  NullSink sink;
  auto st = launch(**m, "b", cfg, memory, sink);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(std::string(st.message()).find("brx.idx index 2 outside its table of 2 targets"), std::string::npos) << st;
}

// setp and set on halves with a predicate operand: p = (a < b) and c, q =
// !(a < b) and c (not the negation of p); set writes 1.0 or all ones per
// half. Registers declared as `.reg.b16` (one token, as cuda_fp16.hpp's asm).
const char* kHalfCompareKernel = R"(
.visible .entry hc(.param .u64 out)
{
.reg.b16 %h<4>;
.reg .b32 %r<8>;
.reg .pred %p<6>;
.reg .b64 %rd<2>;
ld.param.u64 %rd1, [out];
mov.b16 %h1, 0x3C00;
mov.b16 %h2, 0x4000;
setp.eq.u32 %p1, 0, 1;
setp.lt.and.f16 %p2|%p3, %h1, %h2, %p1;
selp.u32 %r1, 1, 0, %p2;
selp.u32 %r2, 1, 0, %p3;
setp.lt.or.f16 %p4|%p5, %h1, %h2, !%p1;
selp.u32 %r3, 1, 0, %p4;
selp.u32 %r4, 1, 0, %p5;
set.lt.f16.f16 %h3, %h1, %h2;
cvt.u32.u16 %r5, %h3;
mov.b32 %r6, {%h1, %h2};
mov.b32 %r7, {%h2, %h1};
set.lt.u32.f16x2 %r6, %r6, %r7;
st.global.v4.u32 [%rd1], {%r1, %r2, %r3, %r4};
st.global.v2.u32 [%rd1+16], {%r5, %r6};
ret;
}
)";

TEST(ExtendedPtx, HalfComparisonsWithAPredicateOperand) {
  std::string text = std::string(kHeader) + kHalfCompareKernel;
  Fixture f(PtxText{text, "hc.ptx"});
  uint32_t* r = f.zeros<uint32_t>(6);
  NullSink sink;
  auto st = f.run("hc", {1, 1, 1}, {1, 1, 1}, f.args(r), sink);
  ASSERT_TRUE(st.ok()) << st;
  EXPECT_EQ(r[0], 0u);  // (1 < 2) and false
  EXPECT_EQ(r[1], 0u);  // !(1 < 2) and false
  EXPECT_EQ(r[2], 1u);  // (1 < 2) or true
  EXPECT_EQ(r[3], 1u);  // !(1 < 2) or true
  EXPECT_EQ(r[4], 0x3C00u);      // set.f16: 1.0
  EXPECT_EQ(r[5], 0x0000FFFFu);  // low half 1 < 2, high half 2 < 1 is false
}

}  // namespace
}  // namespace predatar::sim::testing
