// Register slots (ptx/RegisterSlots.h): registers share a slot only where
// their values cannot both be alive, loops included.
#include <gtest/gtest.h>

#include <string>

#include "SimTestUtil.h"
#include "ptx/Parser.h"
#include "ptx/RegisterSlots.h"

namespace predatar::ptx {
namespace {

// A loop summing 3i for i < n: %r1 (n), %r2 (the sum) and %r3 (i) live
// across the loop; %r4 and %p1 are written and read within one iteration
// (neither is alive across the back edge), one after the other; %r5 and %r6
// come after it.
const char* kLoop = R"(
.version 9.0
.target sm_75
.address_size 64

.visible .entry sum3(
	.param .u64 sum3_param_0,
	.param .u32 sum3_param_1
)
{
	.reg .pred 	%p<2>;
	.reg .b32 	%r<8>;
	.reg .b64 	%rd<3>;
	ld.param.u64 	%rd1, [sum3_param_0];
	ld.param.u32 	%r1, [sum3_param_1];
	mov.u32 	%r2, 0;
	mov.u32 	%r3, 0;
$L__loop:
	mul.lo.s32 	%r4, %r3, 3;
	add.s32 	%r2, %r2, %r4;
	add.s32 	%r3, %r3, 1;
	setp.lt.u32 	%p1, %r3, %r1;
	@%p1 bra 	$L__loop;
	mov.u32 	%r5, %r2;
	add.s32 	%r6, %r5, 1;
	cvta.to.global.u64 	%rd2, %rd1;
	st.global.u32 	[%rd2], %r6;
	ret;
}
)";

// A register read before anything writes it (%r2: undefined in PTX, 0 in
// the emulator, whose registers start cleared) right after a value dies
// (%r1): %r2 must not start with %r1's 77.
const char* kReadFirst = R"(
.version 9.0
.target sm_75
.address_size 64

.visible .entry readFirst(
	.param .u64 readFirst_param_0
)
{
	.reg .b32 	%r<4>;
	.reg .b64 	%rd<3>;
	mov.u32 	%r1, 77;
	add.s32 	%r3, %r1, 1;
	add.s32 	%r2, %r2, 6;
	ld.param.u64 	%rd1, [readFirst_param_0];
	cvta.to.global.u64 	%rd2, %rd1;
	st.global.u32 	[%rd2], %r2;
	st.global.u32 	[%rd2+4], %r3;
	ret;
}
)";

uint32_t reg(const Module& m, const char* name) {
  const Function& f = m.functions[0];
  for (uint32_t r = 0; r < f.regNames.size(); ++r)
    if (f.regNames[r] == name) return r;
  ADD_FAILURE() << "no register " << name;
  return 0;
}

TEST(RegisterSlots, ValuesAliveAcrossALoopKeepTheirSlots) {
  auto m = parse(kLoop, "loop.ptx");
  ASSERT_TRUE(m.ok()) << m.status();
  SlotAssignment a = assignRegisterSlots(*m, 0);
  auto slot = [&](const char* name) { return a.slotOf[reg(*m, name)]; };
  // The values alive across the back edge have slots of their own, which
  // the loop's temporaries do not take.
  std::vector<uint32_t> loop = {slot("%rd1"), slot("%r1"), slot("%r2"), slot("%r3"), slot("%r4")};
  std::sort(loop.begin(), loop.end());
  EXPECT_EQ(std::unique(loop.begin(), loop.end()), loop.end());
  for (const char* across : {"%rd1", "%r1", "%r2", "%r3"}) EXPECT_NE(slot("%p1"), slot(across)) << across;
  // %r4 dies (add) before %p1 is written (setp): one slot for both.
  EXPECT_EQ(slot("%p1"), slot("%r4"));
  // After it, %r5 and %r6 take slots of values that died, and nothing more.
  EXPECT_EQ(a.slots, 5u);
  EXPECT_NE(slot("%r5"), slot("%r2"));  // %r5 is written from %r2
  EXPECT_NE(slot("%r6"), slot("%r5"));
  EXPECT_NE(slot("%rd2"), slot("%r6"));
  EXPECT_EQ(a.slotOf[reg(*m, "%r0")], UINT32_MAX);  // declared, never used
}

// A loop whose body is a long chain of temporaries (unrolled code: a
// tensor-core GEMM's kernel is one loop around 35000 registers), with a
// value carried across the back edge in the middle of it.
std::string chainLoop(uint32_t temporaries) {
  std::string body;
  for (uint32_t i = 1; i <= temporaries; ++i)
    body += "\tadd.s32 \t%r" + std::to_string(10 + i) + ", %r" + std::to_string(9 + i) + ", %r3;\n";
  return R"(
.version 9.0
.target sm_75
.address_size 64

.visible .entry chain(
	.param .u64 chain_param_0,
	.param .u32 chain_param_1
)
{
	.reg .pred 	%p<2>;
	.reg .b32 	%r<)" + std::to_string(11 + temporaries) + R"(>;
	.reg .b64 	%rd<3>;
	ld.param.u64 	%rd1, [chain_param_0];
	ld.param.u32 	%r1, [chain_param_1];
	mov.u32 	%r2, 0;
	mov.u32 	%r3, 0;
$L__loop:
	add.s32 	%r10, %r2, 1;
)" + body + R"(	mov.u32 	%r2, %r)" + std::to_string(10 + temporaries) + R"(;
	add.s32 	%r3, %r3, 1;
	setp.lt.u32 	%p1, %r3, %r1;
	@%p1 bra 	$L__loop;
	cvta.to.global.u64 	%rd2, %rd1;
	st.global.u32 	[%rd2], %r2;
	ret;
}
)";
}

TEST(RegisterSlots, ALoopsTemporariesShareSlots) {
  std::string text = chainLoop(200);
  auto m = parse(text, "chain.ptx");
  ASSERT_TRUE(m.ok()) << m.status();
  SlotAssignment a = assignRegisterSlots(*m, 0);
  // %rd1, %r1, %r2, %r3 across the loop, and two links of the chain at once.
  EXPECT_LE(a.slots, 6u);
  sim::testing::Fixture f(sim::testing::PtxText{text, "chain.ptx"});
  ASSERT_TRUE(f.module);
  uint32_t* out = f.zeros<uint32_t>(1);
  sim::testing::NullSink sink;
  ASSERT_TRUE(f.run("chain", {1, 1, 1}, {32, 1, 1}, f.args(out, 3u), sink).ok());
  // Iteration i (i = 0, 1, 2) adds 1 + 200 i to the sum.
  EXPECT_EQ(*out, 3u + 200 * (0 + 1 + 2));
}

// The dataflow in batches of registers (a word of 64 each here) finds the
// same slots as all at once.
TEST(RegisterSlots, LivenessInBatchesOfRegistersGivesTheSameSlots) {
  std::string text = chainLoop(200);
  auto m = parse(text, "chain.ptx");
  ASSERT_TRUE(m.ok()) << m.status();
  SlotAssignment whole = assignRegisterSlots(*m, 0), batched = assignRegisterSlots(*m, 0, /*maxSetWords=*/1);
  EXPECT_EQ(batched.slots, whole.slots);
  EXPECT_EQ(batched.slotOf, whole.slotOf);
}

TEST(RegisterSlots, KernelsComputeTheSameWithSharedSlots) {
  sim::testing::Fixture f(sim::testing::PtxText{kLoop, "loop.ptx"});
  ASSERT_TRUE(f.module);
  uint32_t* out = f.zeros<uint32_t>(1);
  sim::testing::NullSink sink;
  ASSERT_TRUE(f.run("sum3", {1, 1, 1}, {32, 1, 1}, f.args(out, 5u), sink).ok());
  EXPECT_EQ(*out, 0u + 3 + 6 + 9 + 12 + 1);
}

TEST(RegisterSlots, ARegisterReadBeforeItIsWrittenSharesNoSlotBeforeIt) {
  auto m = parse(kReadFirst, "readfirst.ptx");
  ASSERT_TRUE(m.ok()) << m.status();
  SlotAssignment a = assignRegisterSlots(*m, 0);
  EXPECT_NE(a.slotOf[reg(*m, "%r2")], a.slotOf[reg(*m, "%r1")]);
  sim::testing::Fixture f(sim::testing::PtxText{kReadFirst, "readfirst.ptx"});
  ASSERT_TRUE(f.module);
  uint32_t* out = f.zeros<uint32_t>(2);
  sim::testing::NullSink sink;
  ASSERT_TRUE(f.run("readFirst", {1, 1, 1}, {1, 1, 1}, f.args(out), sink).ok());
  EXPECT_EQ(out[0], 6u);
  EXPECT_EQ(out[1], 78u);
}

TEST(RegisterSlots, OperandsAreRenumberedToTheSlots) {
  auto m = parse(kLoop, "loop.ptx");
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->functions[0].numRegs, 13u);
  shareRegisterSlots(*m);
  EXPECT_EQ(m->functions[0].numRegs, 5u);
  for (const Instr& in : m->code)
    for (Ref r : {in.dst[0], in.src[0], in.src[1], in.guard, in.addr.ref})
      if (r != kNoRef && (r & kRefKindMask) == kRefReg) {
        EXPECT_LT(r & kRefIndexMask, 5u);
      }
}

// Every block but the last spins until the last one writes the flag; the
// kernel declares 300 registers and uses eight. It shares 8 slots, but
// occupancy counts what ptxas would be asked for (255 registers a thread), so
// an sm_90 device holds one 1024-thread block per SM: 132 blocks, and the
// 140th comes in only when the spinning ones are seen to wait for it (with a
// warning). Counted by slots, two blocks an SM would all be resident.
const char* kWaitForLast = R"(
.version 9.0
.target sm_75
.address_size 64

.visible .entry waitForLast(
	.param .u64 waitForLast_param_0
)
{
	.reg .pred 	%p<3>;
	.reg .b32 	%r<300>;
	.reg .b64 	%rd<3>;
	ld.param.u64 	%rd1, [waitForLast_param_0];
	cvta.to.global.u64 	%rd2, %rd1;
	mov.u32 	%r1, %tid.x;
	setp.ne.s32 	%p1, %r1, 0;
	@%p1 bra 	$L__done;
	mov.u32 	%r2, %ctaid.x;
	mov.u32 	%r3, %nctaid.x;
	add.s32 	%r4, %r3, -1;
	setp.ne.s32 	%p2, %r2, %r4;
	@%p2 bra 	$L__wait;
	mov.u32 	%r5, 1;
	st.volatile.global.u32 	[%rd2], %r5;
	bra.uni 	$L__done;
$L__wait:
	ld.volatile.global.u32 	%r6, [%rd2];
	setp.eq.s32 	%p1, %r6, 0;
	@%p1 bra 	$L__wait;
$L__done:
	ret;
}
)";

TEST(RegisterSlots, OccupancyCountsTheDeclaredRegisters) {
  sim::testing::Fixture f(sim::testing::PtxText{kWaitForLast, "wait.ptx"});
  ASSERT_TRUE(f.module);
  uint32_t* flag = f.zeros<uint32_t>(1);
  sim::LaunchConfig cfg;
  cfg.grid = {140, 1, 1};  // more than 132 resident, fewer than 264
  cfg.block = {1024, 1, 1};
  cfg.args = f.args(flag);
  sim::testing::NullSink sink;
  sim::LaunchStats stats;
  ASSERT_TRUE(sim::launch(*f.module, "waitForLast", cfg, f.memory, sink, &stats).ok());
  EXPECT_EQ(*flag, 1u);
  ASSERT_EQ(stats.warnings.size(), 1u);
  EXPECT_NE(stats.warnings[0].find("co-residency"), std::string::npos) << stats.warnings[0];
}

}  // namespace
}  // namespace predatar::ptx
