#include "sim/KernelArgs.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "SimTestUtil.h"

namespace predatar::sim {
namespace {

TEST(KernelArgs, ParsesDimensions) {
  EXPECT_EQ(*parseDim3("128"), (Dim3{128, 1, 1}));
  EXPECT_EQ(*parseDim3("4,2"), (Dim3{4, 2, 1}));
  EXPECT_EQ(*parseDim3("4,2,3"), (Dim3{4, 2, 3}));
  EXPECT_FALSE(parseDim3("0").ok());
  EXPECT_FALSE(parseDim3("1,2,3,4").ok());
  EXPECT_FALSE(parseDim3("x").ok());
}

TEST(KernelArgs, ParsesSpecs) {
  auto a = parseArgSpec("buf:float:1024:iota");
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->kind, ArgSpec::Kind::Buffer);
  EXPECT_EQ(a->type, ElementType::F32);
  EXPECT_EQ(a->count, 1024u);
  EXPECT_EQ(a->init, ArgSpec::Init::Iota);
  auto r = parseArgSpec("buf:u32:64:random:17");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->init, ArgSpec::Init::Random);
  EXPECT_EQ(r->seed, 17u);
  auto z = parseArgSpec("buf:int:256:zeros");
  ASSERT_TRUE(z.ok());
  EXPECT_EQ(z->init, ArgSpec::Init::Zeros);
  auto f = parseArgSpec("buf:f32:8:file:/tmp/some:path.bin");
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->path, "/tmp/some:path.bin");
  auto s = parseArgSpec("scalar:f32:1.5");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->kind, ArgSpec::Kind::Scalar);
  EXPECT_FALSE(parseArgSpec("scalar:int:abc").ok());
  EXPECT_FALSE(parseArgSpec("buf:quux:8").ok());
  EXPECT_FALSE(parseArgSpec("buf:int:8:bogus").ok());
  EXPECT_FALSE(parseArgSpec("thing:int:8").ok());
}

TEST(KernelArgs, BuildsArgumentsAndRunsKernel) {
  testing::Fixture fx("reduce");
  const KernelSignature* sig = nullptr;
  for (auto& k : fx.module->kernels())
    if (k.name == "reduceShared") sig = &k;
  ASSERT_NE(sig, nullptr);
  std::vector<ArgSpec> specs = {*parseArgSpec("buf:f32:512:iota"), *parseArgSpec("buf:f32:2"),
                                *parseArgSpec("scalar:int:512")};
  auto args = KernelArgs::build(*sig, specs, fx.memory);
  ASSERT_TRUE(args.ok()) << args.status();
  LaunchConfig cfg;
  cfg.grid = *parseDim3("2");
  cfg.block = *parseDim3("256");
  cfg.args = args->pointers();
  testing::NullSink sink;
  ASSERT_TRUE(launch(*fx.module, "reduceShared", cfg, fx.memory, sink).ok());
  ASSERT_EQ(args->buffers().size(), 2u);
  std::string dump = KernelArgs::format(args->buffers()[1]);
  EXPECT_EQ(dump, "reduceShared_param_1 (param 1) f32[2]: 32640 98176");
  EXPECT_NE(args->dump(3).find("f32[512]: 0 1 2 ..."), std::string::npos) << args->dump(3);
  // wrong scalar size and argument count
  std::vector<ArgSpec> wrong = {specs[0], specs[1], *parseArgSpec("scalar:i64:5")};
  EXPECT_FALSE(KernelArgs::build(*sig, wrong, fx.memory).ok());
  EXPECT_FALSE(KernelArgs::build(*sig, {specs[0]}, fx.memory).ok());
}

TEST(KernelArgs, ParsesStructBytes) {
  auto b = parseArgSpec("bytes:12:0a000000ff");
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(b->kind, ArgSpec::Kind::Bytes);
  EXPECT_EQ(b->count, 12u);
  EXPECT_EQ(b->bytes, (std::vector<uint8_t>{0x0a, 0, 0, 0, 0xff}));
  EXPECT_TRUE(parseArgSpec("bytes:16")->bytes.empty());
  for (const char* bad : {"bytes:4:0a0", "bytes:4:zz", "bytes:2:000000", "bytes:0", "bytes", "bytes:4:00:00"})
    EXPECT_FALSE(parseArgSpec(bad).ok()) << bad;
  EXPECT_NE(std::string(parseArgSpec("bytes:4:0g").status().message()).find("'0g' in '0g' is not a byte in hex"),
            std::string::npos);
}

// struct Triple { int a, b, c; };
// __global__ void useTriple(Triple t, int* out) { out[threadIdx.x] = t.a + t.b * t.c; }
constexpr const char* kTriplePtx = R"(
.version 8.0
.target sm_75
.address_size 64
.visible .entry useTriple(
	.param .align 4 .b8 useTriple_param_0[12],
	.param .u64 useTriple_param_1
)
{
	.reg .b32 	%r<6>;
	.reg .b64 	%rd<5>;
	ld.param.u64 	%rd1, [useTriple_param_1];
	ld.param.u32 	%r1, [useTriple_param_0];
	ld.param.u32 	%r2, [useTriple_param_0+8];
	ld.param.u32 	%r3, [useTriple_param_0+4];
	cvta.to.global.u64 	%rd2, %rd1;
	mad.lo.s32 	%r4, %r3, %r2, %r1;
	mov.u32 	%r5, %tid.x;
	mul.wide.u32 	%rd3, %r5, 4;
	add.s64 	%rd4, %rd2, %rd3;
	st.global.u32 	[%rd4], %r4;
	ret;
}
)";

TEST(KernelArgs, PassesAStructByValue) {
  DeviceMemory memory;
  auto module = loadPtx(kTriplePtx, "triple.ptx", memory);
  ASSERT_TRUE(module.ok()) << module.status();
  const KernelSignature& sig = (*module)->kernels().at(0);
  // a = 10, b = 3, c = 7 (the missing high bytes of c are zero)
  auto args = KernelArgs::build(sig, {*parseArgSpec("bytes:12:0a0000000300000007"), *parseArgSpec("buf:i32:2")},
                                memory);
  ASSERT_TRUE(args.ok()) << args.status();
  LaunchConfig cfg;
  cfg.block = *parseDim3("2");
  cfg.args = args->pointers();
  testing::NullSink sink;
  ASSERT_TRUE(launch(**module, "useTriple", cfg, memory, sink).ok());
  EXPECT_EQ(KernelArgs::format(args->buffers()[0]), "useTriple_param_1 (param 1) i32[2]: 31 31");

  // A scalar, a buffer or the wrong size for the struct says what to pass.
  for (const char* wrong : {"scalar:i32:1", "buf:i32:4"}) {
    auto r = KernelArgs::build(sig, {*parseArgSpec(wrong), *parseArgSpec("buf:i32:2")}, memory);
    ASSERT_FALSE(r.ok()) << wrong;
    EXPECT_NE(std::string(r.status().message()).find("(a struct by value: pass bytes:12[:HEX])"), std::string::npos)
        << r.status();
  }
  auto r = KernelArgs::build(sig, {*parseArgSpec("bytes:8"), *parseArgSpec("buf:i32:2")}, memory);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(std::string(r.status().message()).find("8 bytes given, the parameter is 12"), std::string::npos)
      << r.status();
}

TEST(KernelArgs, RandomIsReproducibleAndFilesLoad) {
  DeviceMemory mem;
  KernelSignature sig{"k", {KernelParam{"a", 8, 8}, KernelParam{"b", 8, 8}, KernelParam{"c", 8, 8}}};
  std::string path = ::testing::TempDir() + "/predatar_args.bin";
  {
    std::ofstream f(path, std::ios::binary);
    int32_t v[4] = {5, -6, 7, 8};
    f.write(reinterpret_cast<const char*>(v), sizeof v);
  }
  std::vector<ArgSpec> specs = {*parseArgSpec("buf:u32:16:random:3"), *parseArgSpec("buf:u32:16:random:3"),
                                *parseArgSpec("buf:i32:4:file:" + path)};
  auto args = KernelArgs::build(sig, specs, mem);
  ASSERT_TRUE(args.ok()) << args.status();
  auto& b = args->buffers();
  EXPECT_EQ(std::memcmp(reinterpret_cast<void*>(b[0].address), reinterpret_cast<void*>(b[1].address), 64), 0);
  EXPECT_EQ(KernelArgs::format(b[2]), "c (param 2) i32[4]: 5 -6 7 8");
  std::remove(path.c_str());
}

}  // namespace
}  // namespace predatar::sim
