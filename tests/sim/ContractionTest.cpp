// Multiply-add contraction (ptx/Contraction.h): the emulator fuses the mul
// and add pairs a GPU's ptxas fuses, and no others.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <string>

#include "SimTestUtil.h"
#include "ptx/Contraction.h"
#include "ptx/Parser.h"

namespace predatar::ptx {
namespace {

using sim::testing::Fixture;
using sim::testing::NullSink;
using sim::testing::PtxText;

// out[0] = a*b - c*d, out[1] = the same with .rn (never fused), out[2] =
// x - a*b, out[3] = a*b + a*b from one product read twice (not fused),
// out[4] = a*a - t in a loop's body (the product of a value computed once,
// before the loop: fused), out[5] = t*a + 1 after the loop, where t changes
// in the loop after the product is taken (not fused).
const char* kPairs = R"(
.version 9.0
.target sm_75
.address_size 64

.visible .entry pairs(
	.param .u64 pairs_param_0,
	.param .f32 pairs_param_1
)
{
	.reg .pred 	%p<2>;
	.reg .b32 	%r<3>;
	.reg .f32 	%f<30>;
	.reg .b64 	%rd<3>;
	ld.param.u64 	%rd1, [pairs_param_0];
	cvta.to.global.u64 	%rd2, %rd1;
	ld.param.f32 	%f1, [pairs_param_1];
	mul.f32 	%f2, %f1, %f1;
	mul.f32 	%f3, %f1, %f1;
	sub.f32 	%f4, %f2, %f3;
	st.global.f32 	[%rd2], %f4;
	mul.rn.f32 	%f5, %f1, %f1;
	mul.rn.f32 	%f6, %f1, %f1;
	sub.rn.f32 	%f7, %f5, %f6;
	st.global.f32 	[%rd2+4], %f7;
	mul.f32 	%f8, %f1, %f1;
	sub.f32 	%f9, %f6, %f8;
	st.global.f32 	[%rd2+8], %f9;
	mul.f32 	%f10, %f1, %f1;
	add.f32 	%f11, %f10, %f10;
	st.global.f32 	[%rd2+12], %f11;
	mul.f32 	%f12, %f1, %f1;
	mov.f32 	%f13, %f6;
	mov.u32 	%r1, 0;
$L__loop:
	mul.f32 	%f14, %f13, %f1;
	sub.f32 	%f15, %f12, %f13;
	add.s32 	%r1, %r1, 1;
	mov.f32 	%f13, %f15;
	setp.lt.u32 	%p1, %r1, 1;
	@%p1 bra 	$L__loop;
	st.global.f32 	[%rd2+16], %f15;
	add.f32 	%f16, %f14, 0f3F800000;
	st.global.f32 	[%rd2+20], %f16;
	ret;
}
)";

TEST(Contraction, FusesTheMulAndAddPairsPtxasFuses) {
  auto m = parse(kPairs, "pairs.ptx");
  ASSERT_TRUE(m.ok()) << m.status();
  // a*b - c*d (the first product), x - a*b, and a*a - t in the loop.
  EXPECT_EQ(contractMultiplyAdds(*m), 3u);
  uint32_t negatedAddend = 0, negatedProduct = 0, fmas = 0;
  for (const Instr& in : m->code) {
    if (in.op != Op::Fma) continue;
    ++fmas;
    negatedAddend += in.mode == kFmaNegateAddend;
    negatedProduct += in.mode == kFmaNegateProduct;
  }
  EXPECT_EQ(fmas, 3u);
  EXPECT_EQ(negatedAddend, 2u);  // a*b - c*d, a*a - t
  EXPECT_EQ(negatedProduct, 1u);  // x - a*b
}

TEST(Contraction, FusedPairsRoundOnce) {
  Fixture fx(PtxText{kPairs, "pairs.ptx"});
  ASSERT_TRUE(fx.module);
  // a = 1 + 2^-12: a*a = 1 + 2^-11 + 2^-24, which rounds to 1 + 2^-11 (a tie, to even).
  const float a = 1.0f + std::ldexp(1.0f, -12);
  float* out = fx.zeros<float>(6);
  NullSink sink;
  ASSERT_TRUE(fx.run("pairs", {1, 1, 1}, {1, 1, 1}, fx.args(out, a), sink).ok());
  float product = a * a;
  EXPECT_EQ(out[0], std::fma(a, a, -product));  // 2^-24: the exact product's rounding error
  EXPECT_NE(out[0], 0.0f);
  EXPECT_EQ(out[1], 0.0f);  // .rn: each rounded
  EXPECT_EQ(out[2], std::fma(-a, a, product));
  EXPECT_EQ(out[3], product + product);
  float t = product;
  EXPECT_EQ(std::bit_cast<uint32_t>(out[4]), std::bit_cast<uint32_t>(std::fma(a, a, -t)));
  EXPECT_NE(out[4], 0.0f);  // unfused, 0
  EXPECT_EQ(out[5], t * a + 1.0f);  // the product of the loop's first t, rounded, plus 1
}

// --fmad off (LoadOptions): every pair is rounded twice, as the PTX reads.
TEST(Contraction, OffRoundsEachMulAndAdd) {
  Fixture fx;
  fx.load(kPairs, "pairs.ptx", {.fusedMultiplyAdd = false});
  ASSERT_TRUE(fx.module);
  const float a = 1.0f + std::ldexp(1.0f, -12);
  float* out = fx.zeros<float>(6);
  NullSink sink;
  ASSERT_TRUE(fx.run("pairs", {1, 1, 1}, {1, 1, 1}, fx.args(out, a), sink).ok());
  EXPECT_EQ(out[0], 0.0f);
  EXPECT_EQ(out[2], 0.0f);
  EXPECT_EQ(out[4], 0.0f);
}

}  // namespace
}  // namespace predatar::ptx
