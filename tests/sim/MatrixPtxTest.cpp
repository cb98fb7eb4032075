// wmma / ldmatrix / cp.async / mbarrier / cvt.tf32 on hand-written PTX: the
// values, the memory events the detectors see, and the refusals by name.
#include <gtest/gtest.h>

#include "SimTestUtil.h"
#include "ptx/Parser.h"

namespace predatar::sim::testing {
namespace {

const char* kHeader = ".version 8.0\n.target sm_80\n.address_size 64\n";

// A buffer the kernel may write (registered with the emulator's memory).
struct Buffer {
  DeviceMemory memory;
  uint64_t addr;
  explicit Buffer(size_t bytes) : addr(memory.allocate(bytes, "out")) {}
  uint32_t* u32() { return reinterpret_cast<uint32_t*>(addr); }
};

absl::Status runIn(Buffer& b, const std::string& body, EventSink& sink, uint32_t threads = 32) {
  std::string text = std::string(kHeader) +
                     ".visible .entry k(.param .u64 out)\n{\n.reg .b32 %r<40>;\n.reg .b64 %rd<10>;\n"
                     ".reg .f32 %f<10>;\n.reg .pred %p<4>;\n.shared .align 8 .b8 sm[1024];\n"
                     "ld.param.u64 %rd1, [out];\nmov.u32 %r1, %tid.x;\nmul.wide.u32 %rd2, %r1, 4;\n"
                     "add.s64 %rd3, %rd1, %rd2;\n" + body + "\nret;\n}\n";
  auto m = loadPtx(text, "k.ptx", b.memory);
  if (!m.ok()) return m.status();
  LaunchConfig cfg;
  cfg.grid = {1, 1, 1};
  cfg.block = {threads, 1, 1};
  cfg.args = {&b.addr};
  return launch(**m, "k", cfg, b.memory, sink);
}

TEST(MatrixPtx, MbarrierPhasesAndTokens) {
  Buffer b(32 * 4);
  RecordingSink sink;
  // Lane 0 initializes a barrier of 2 arrivals; lanes 0 and 1 arrive; every
  // lane then tests the phase of lane 0's token (complete) and of a token
  // taken after the phase flipped (not complete).
  auto st = runIn(b, R"(
mov.u32 %r2, sm;
setp.eq.u32 %p1, %r1, 0;
@%p1 mbarrier.init.shared.b64 [%r2], 2;
bar.sync 0;
setp.lt.u32 %p2, %r1, 2;
@%p2 mbarrier.arrive.shared.b64 %rd4, [%r2];
bar.sync 0;
mov.b64 %rd5, 0;
mbarrier.test_wait.shared.b64 %p3, [%r2], %rd5;
selp.u32 %r3, 1, 0, %p3;
mbarrier.test_wait.parity.shared.b64 %p3, [%r2], 1;
selp.u32 %r4, 2, 0, %p3;
or.b32 %r3, %r3, %r4;
st.global.u32 [%rd3], %r3;
)", sink);
  ASSERT_TRUE(st.ok()) << st;
  for (int i = 0; i < 32; ++i) EXPECT_EQ(b.u32()[i], 1u) << i;  // phase 0 complete, phase 1 (parity 1) not
  // The arrives are a fence and a strong RMW of the object; the waits strong reads.
  int rmw = 0, strongReads = 0;
  for (const MemoryEvent& e : sink.memoryEvents) {
    if (e.space != MemorySpace::Shared) continue;
    rmw += e.type == AccessType::AtomicRmw && e.strong && e.scope == Scope::Block;
    strongReads += e.type == AccessType::Read && e.strong;
  }
  EXPECT_EQ(rmw, 1);
  EXPECT_EQ(strongReads, 2);
  EXPECT_GE(sink.fences.size(), 2u);
}

TEST(MatrixPtx, CvtTf32Rounds) {
  Buffer b(32 * 4);
  NullSink sink;
  // 1 + 2^-11 (halfway between two tf32 values: rna rounds up, rz down) and 1 + 3*2^-12.
  auto st = runIn(b, R"(
mov.b32 %f1, 0f3F801000;
cvt.rna.tf32.f32 %r2, %f1;
cvt.rz.tf32.f32 %r3, %f1;
setp.eq.u32 %p1, %r1, 0;
@%p1 st.global.u32 [%rd1], %r2;
@%p1 st.global.u32 [%rd1+4], %r3;
)", sink);
  ASSERT_TRUE(st.ok()) << st;
  EXPECT_EQ(b.u32()[0], 0x3F802000u);
  EXPECT_EQ(b.u32()[1], 0x3F800000u);
}

TEST(MatrixPtx, CpAsyncCopiesWhenWaitedFor) {
  Buffer b(64 * 4);
  RecordingSink sink;
  // Each lane copies out[32 + tid] to shared, reads it before and after the wait.
  auto st = runIn(b, R"(
st.global.u32 [%rd3+128], %r1;
mov.u32 %r2, sm;
shl.b32 %r5, %r1, 2;
add.u32 %r2, %r2, %r5;
st.shared.u32 [%r2], 77;
add.s64 %rd4, %rd3, 128;
cp.async.ca.shared.global [%r2], [%rd4], 4;
cp.async.commit_group;
ld.shared.u32 %r3, [%r2];
cp.async.wait_group 0;
ld.shared.u32 %r4, [%r2];
mad.lo.u32 %r3, %r3, 1000, %r4;
st.global.u32 [%rd3], %r3;
)", sink);
  ASSERT_TRUE(st.ok()) << st;
  for (uint32_t i = 0; i < 32; ++i) EXPECT_EQ(b.u32()[i], 77000 + i) << i;
  // The copy's events (global read, shared write) come after the first shared read.
  std::string kinds;
  for (const MemoryEvent& e : sink.memoryEvents)
    kinds += e.space == MemorySpace::Shared ? (e.type == AccessType::Write ? 'W' : 'R') : (e.type == AccessType::Write ? 'w' : 'r');
  EXPECT_EQ(kinds, "wWRrWRw");
}

TEST(MatrixPtx, UnsupportedFormsAreRefusedByName) {
  {
    Buffer b(32 * 4);
    NullSink sink;
    auto st = runIn(b, "setp.eq.u32 %p1, %r1, %r1;\n@%p1 bra SKIP;\nwmma.load.a.sync.aligned.row.m8n8k32.s4 {%r2}, [%rd1], 32;\nSKIP:", sink);
    EXPECT_TRUE(st.ok()) << st;  // not executed: the kernel runs
  }
  Buffer b(32 * 4);
  NullSink sink;
  auto st = runIn(b, "wmma.load.a.sync.aligned.row.m8n8k32.s4 {%r2}, [%rd1], 32;", sink);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(std::string(st.message()).find("unsupported instruction 'wmma.load.a.sync.aligned.row.m8n8k32.s4'"),
            std::string::npos) << st;
  EXPECT_NE(std::string(st.message()).find("k.ptx:"), std::string::npos) << st;
  st = runIn(b, "mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32 {%f1,%f2,%f3,%f4,%f5,%f6,%f7,%f8}, {%r2,%r3}, {%r4,%r5}, "
                "{%f1,%f2,%f3,%f4,%f5,%f6,%f7,%f8};", sink);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(std::string(st.message()).find("unsupported instruction 'mma.sync.aligned.m8n8k4"), std::string::npos) << st;
  st = runIn(b, "cp.async.wait_group;", sink);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(std::string(st.message()).find("wrong operand count for 'cp.async.wait_group'"), std::string::npos) << st;
}

TEST(MatrixPtx, WmmaFragmentsMustHoldTheMatrix) {
  Buffer b(32 * 4);
  NullSink sink;
  // An m16n16k16 f32 accumulator needs 8 registers.
  auto st = runIn(b, "wmma.load.c.sync.aligned.row.m16n16k16.global.f32 {%f1,%f2}, [%rd1], 16;", sink);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(std::string(st.message()).find("does not hold a 16x16 matrix"), std::string::npos) << st;
}

}  // namespace
}  // namespace predatar::sim::testing
