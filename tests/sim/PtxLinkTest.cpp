// Linking the PTX units of an -rdc=true program (ptx/Link.h).
#include <gtest/gtest.h>

#include <string>

#include "ptx/Link.h"
#include "ptx/Parser.h"

namespace predatar::ptx {
namespace {

// Calls a function and reads a variable defined by the library unit; has its
// own static twice() and $str, like the library; a weak helper both define.
const char* kMain = R"(
.version 8.8
.target sm_75
.address_size 64

.file 1 "main.cu"
.extern .global .align 4 .u32 offset;
.global .align 1 .b8 $str[5] = {109, 97, 105, 110, 0};
.extern .func (.param .b32 func_retval0) scaleAndShift(.param .b32 p);
.func (.param .b32 func_retval0) twice(.param .b32 p)
{
	.reg .b32 %r<3>;
	ld.param.u32 %r1, [p];
	mul.lo.s32 %r2, %r1, 20;
	st.param.b32 [func_retval0+0], %r2;
	ret;
}
.weak .func (.param .b32 func_retval0) helper(.param .b32 p)
{
	.reg .b32 %r<3>;
	ld.param.u32 %r1, [p];
	add.s32 %r2, %r1, 7;
	st.param.b32 [func_retval0+0], %r2;
	ret;
}
.visible .entry mainKernel(.param .u64 out)
{
	.reg .b32 %r<8>;
	.reg .b64 %rd<4>;
	.loc 1 10 3
	ld.param.u64 %rd1, [out];
	ld.global.u32 %r1, [offset];
	{
	.param .b32 a;
	st.param.b32 [a+0], %r1;
	.param .b32 r;
	call.uni (r), scaleAndShift, (a);
	ld.param.b32 %r2, [r+0];
	}
	{
	.param .b32 a;
	st.param.b32 [a+0], %r2;
	.param .b32 r;
	call.uni (r), twice, (a);
	ld.param.b32 %r3, [r+0];
	}
	mov.u64 %rd2, $str;
	st.global.u32 [%rd1], %r3;
	ret;
}
)";

const char* kLibrary = R"(
.version 9.0
.target sm_75
.address_size 64

.file 1 "lib.cu"
.file 2 "header.h"
.visible .global .align 4 .u32 offset = 100;
.global .align 1 .b8 $str[4] = {108, 105, 98, 0};
.func (.param .b32 func_retval0) twice(.param .b32 p)
{
	.reg .b32 %r<3>;
	ld.param.u32 %r1, [p];
	shl.b32 %r2, %r1, 1;
	st.param.b32 [func_retval0+0], %r2;
	ret;
}
.visible .func (.param .b32 func_retval0) scaleAndShift(.param .b32 p)
{
	.reg .b32 %r<3>;
	.loc 2 4 1
	ld.param.u32 %r1, [p];
	{
	.param .b32 a;
	st.param.b32 [a+0], %r1;
	.param .b32 r;
	call.uni (r), twice, (a);
	ld.param.b32 %r2, [r+0];
	}
	st.param.b32 [func_retval0+0], %r2;
	ret;
}
.weak .func (.param .b32 func_retval0) helper(.param .b32 p)
{
	.reg .b32 %r<3>;
	ld.param.u32 %r1, [p];
	add.s32 %r2, %r1, 7;
	st.param.b32 [func_retval0+0], %r2;
	ret;
}
)";

// What libcudadevrt's PTX looks like: built-ins over driver entry points.
const char* kDeviceRuntime = R"(
.version 9.0
.target sm_75
.address_size 64
.extern .func (.param .b32 func_retval0) cnpGetLastError();
.visible .func (.param .b32 func_retval0) __cudaCDP2GetLastError()
{
	.reg .b32 %r<2>;
	{
	.param .b32 r;
	call.uni (r), cnpGetLastError, ();
	ld.param.b32 %r1, [r+0];
	}
	st.param.b32 [func_retval0+0], %r1;
	ret;
}
)";

absl::StatusOr<std::string> link(std::vector<PtxUnit> units) { return linkUnits(units); }

TEST(PtxLink, OneUnitIsItself) {
  auto linked = link({{"main.cu", kMain}});
  ASSERT_TRUE(linked.ok()) << linked.status();
  EXPECT_EQ(*linked, kMain);
}

TEST(PtxLink, UnitsBecomeOneModule) {
  auto linked = link({{"main.cu", kMain}, {"lib.cu", kLibrary}, {"", kDeviceRuntime}});
  ASSERT_TRUE(linked.ok()) << linked.status();
  auto m = parse(*linked, "linked");
  ASSERT_TRUE(m.ok()) << m.status() << "\n" << *linked;
  // One of each global name; the library's static twice() and $str renamed.
  EXPECT_GE(m->findFunction("scaleAndShift"), 0);
  EXPECT_GE(m->findFunction("twice"), 0);
  EXPECT_GE(m->findFunction("twice$u1"), 0);
  EXPECT_GE(m->findFunction("helper"), 0);
  EXPECT_LT(m->findFunction("__cudaCDP2GetLastError"), 0) << "the device runtime's unit is the emulator's";
  EXPECT_NE(linked->find("$str$u1[4]"), std::string::npos);
  EXPECT_NE(linked->find("call.uni (r), twice$u1, (a);"), std::string::npos);
  EXPECT_NE(linked->find("call.uni (r), twice, (a);"), std::string::npos);
  // Each unit's files keep their lines: the library's indices follow main's.
  EXPECT_NE(linked->find(".file 2 \"lib.cu\""), std::string::npos);
  EXPECT_NE(linked->find(".file 3 \"header.h\""), std::string::npos);
  EXPECT_NE(linked->find(".loc 3 4 1"), std::string::npos);
  EXPECT_NE(linked->find(".loc 1 10 3"), std::string::npos);
  // The highest version, the extern declaration of `offset` dropped for its definition.
  EXPECT_NE(linked->find(".version 9.0"), std::string::npos);
  EXPECT_EQ(linked->find(".extern .global .align 4 .u32 offset"), std::string::npos);
  int defined = 0;
  for (const auto& f : m->functions) defined += f.defined && f.name == "helper";
  EXPECT_EQ(defined, 1) << "a weak definition repeated in two units is kept once";
}

TEST(PtxLink, AStrongDefinitionOverridesWeakOnes) {
  std::string strongHelper(kLibrary);
  strongHelper.replace(strongHelper.find(".weak .func"), 5, ".visible");
  auto linked = link({{"main.cu", kMain}, {"lib.cu", strongHelper}});
  ASSERT_TRUE(linked.ok()) << linked.status();
  EXPECT_EQ(linked->find(".weak .func (.param .b32 func_retval0) helper(.param .b32 p)\n{"), std::string::npos);
  EXPECT_NE(linked->find(".visible .func (.param .b32 func_retval0) helper(.param .b32 p)\n{"), std::string::npos);
  EXPECT_TRUE(parse(*linked, "linked").ok());
}

TEST(PtxLink, TwoStrongDefinitionsAreAnError) {
  auto linked = link({{"lib.cu", kLibrary}, {"copy.cu", kLibrary}});
  ASSERT_FALSE(linked.ok());
  EXPECT_NE(linked.status().message().find("multiple definition of 'offset'"), std::string::npos)
      << linked.status();
}

TEST(PtxLink, MalformedUnitNamesItself) {
  auto linked = link({{"main.cu", kMain}, {"bad.cu", ".version 9.0\n.target sm_75\n.global .u32 ;\n"}});
  ASSERT_FALSE(linked.ok());
  EXPECT_NE(linked.status().message().find("bad.cu:3"), std::string::npos) << linked.status();
}

}  // namespace
}  // namespace predatar::ptx
