// printf, assert, intrinsics, barrier reductions and atomics.
#include <gtest/gtest.h>

#include <cmath>

#include "SimTestUtil.h"

namespace predatar::sim::testing {
namespace {

TEST(Builtins, Printf) {
  Fixture f("builtins");
  std::vector<std::string> lines;
  LaunchConfig cfg;
  cfg.grid = {1, 1, 1};
  cfg.block = {32, 1, 1};
  cfg.args = f.args(7, 1.5f);
  cfg.printfOutput = [&](std::string_view s) { lines.emplace_back(s); };
  NullSink sink;
  auto st = launch(*f.module, "printing", cfg, f.memory, sink);
  ASSERT_TRUE(st.ok()) << st;
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0], "thread 0 of 7: 1.50 ok -5 z|   42|\n");
  EXPECT_EQ(lines[1], "thread 1 of 7: 1.50 ok -5 z|   42|\n");
}

TEST(Builtins, AssertFailureIsAnError) {
  Fixture f("builtins");
  std::vector<int> data(32, 1);
  data[5] = data[9] = -1;
  int* d = f.buffer(data);
  NullSink sink;
  ASSERT_TRUE(f.run("asserting", {1, 1, 1}, {4, 1, 1}, f.args(d), sink).ok());
  ::testing::internal::CaptureStderr();
  auto st = f.run("asserting", {1, 1, 1}, {32, 1, 1}, f.args(d), sink);
  std::string printed = ::testing::internal::GetCapturedStderr();
  ASSERT_FALSE(st.ok());
  std::string msg(st.message());
  EXPECT_NE(msg.find("assertion 'data[threadIdx.x] >= 0' failed"), std::string::npos) << msg;
  EXPECT_NE(msg.find("thread (5,0,0)"), std::string::npos) << msg;
  // Each failing thread prints CUDA's line, as on a GPU (NVIDIA's simpleAssert, bench/native).
  for (const char* t : {"[5,0,0]", "[9,0,0]"})
    EXPECT_NE(printed.find(std::string("asserting(const int *): block: [0,0,0], thread: ") + t +
                           " Assertion `data[threadIdx.x] >= 0` failed.\n"), std::string::npos) << printed;
}

uint32_t prmt(uint32_t a, uint32_t b, uint32_t sel) {
  uint64_t bytes = (uint64_t(b) << 32) | a;
  uint32_t r = 0;
  for (int i = 0; i < 4; ++i) {
    uint32_t s = (sel >> (4 * i)) & 0xF;
    uint32_t v = (bytes >> (8 * (s & 7))) & 0xFF;
    if (s & 8) v = (v & 0x80) ? 0xFF : 0;
    r |= v << (8 * i);
  }
  return r;
}

TEST(Builtins, IntrinsicsAndBarrierReductions) {
  Fixture f("builtins");
  const unsigned n = 64;
  std::vector<unsigned> in(n);
  for (unsigned i = 0; i < n; ++i) in[i] = i * 2654435761u + (i == 9 ? 0 : 0);
  in[3] = 0;
  in[10] = 7;
  unsigned* din = f.buffer(in);
  unsigned* out = f.zeros<unsigned>(n * 8);
  NullSink sink;
  auto st = f.run("intrinsics", {1, 1, 1}, {n, 1, 1}, f.args(din, out), sink);
  ASSERT_TRUE(st.ok()) << st;
  unsigned count = 0, allNot7 = 1, any7 = 0;
  for (unsigned i = 0; i < n; ++i) {
    count += in[i] & 1;
    allNot7 &= in[i] != 7;
    any7 |= in[i] == 7;
  }
  for (unsigned i = 0; i < n; ++i) {
    unsigned a = in[i], b = in[(i + 1) % n];
    uint64_t v = (uint64_t(b) << 32) | a;
    EXPECT_EQ(out[i * 8 + 0], a ? unsigned(__builtin_ctz(a) + 1) : 0u) << i;
    EXPECT_EQ(out[i * 8 + 1], uint32_t((v << (i & 31)) >> 32)) << i;
    EXPECT_EQ(out[i * 8 + 2], uint32_t(v >> (i & 31))) << i;
    EXPECT_EQ(out[i * 8 + 3], prmt(a, b, (0x5140 + i) & 0x7777)) << i;  // __byte_perm ignores selector bit 3
    EXPECT_EQ(out[i * 8 + 4], count);
    EXPECT_EQ(out[i * 8 + 5], allNot7);
    EXPECT_EQ(out[i * 8 + 6], any7);
    unsigned hi = unsigned((uint64_t(a) * b) >> 32), sad = (a > b ? a - b : b - a) + 3;
    EXPECT_EQ(out[i * 8 + 7], hi ^ sad) << i;
  }
}

TEST(Builtins, AtomicsOfEveryKind) {
  Fixture f("builtins");
  unsigned* u = f.buffer(std::vector<unsigned>{0, 3, 0xFFFFFFFFu, 0, 0});
  int* s = f.buffer(std::vector<int>{-1000, 1000, -1});
  double* d = f.zeros<double>(1);
  auto* ull = f.zeros<unsigned long long>(2);
  RecordingSink rec;
  auto st = f.run("atomics", {1, 1, 1}, {64, 1, 1}, f.args(u, s, d, ull), rec);
  ASSERT_TRUE(st.ok()) << st;
  unsigned inc = 0, dec = 3;
  for (int i = 0; i < 64; ++i) {
    inc = inc >= 16 ? 0 : inc + 1;
    dec = (dec == 0 || dec > 5) ? 5 : dec - 1;
  }
  EXPECT_EQ(u[0], inc);
  EXPECT_EQ(u[1], dec);
  EXPECT_EQ(s[0], 23);
  EXPECT_EQ(s[1], 37);
  EXPECT_EQ(u[2], 0u);
  EXPECT_EQ(u[3], 0xFFFFFFFFu);
  EXPECT_EQ(u[4], 0u);
  EXPECT_DOUBLE_EQ(d[0], 1008.0);
  EXPECT_EQ(ull[0], 64u);  // lanes in order, warp 0 before warp 1 (round robin)
  EXPECT_EQ(s[2], 63);
  EXPECT_EQ(ull[1], 64ull << 33);
  std::vector<AtomicOp> ops;
  for (auto& e : rec.memoryEvents)
    if (e.lanes.warp == 0) ops.push_back(e.op);
  std::vector<AtomicOp> expected = {AtomicOp::Inc, AtomicOp::Dec, AtomicOp::Max, AtomicOp::Min, AtomicOp::And,
                                    AtomicOp::Or,  AtomicOp::Xor, AtomicOp::Add, AtomicOp::Cas, AtomicOp::Exch,
                                    AtomicOp::Add};
  EXPECT_EQ(ops, expected);
}

TEST(Builtins, SyncWarpInDivergentBranches) {
  Fixture f("builtins");
  int* out = f.zeros<int>(64);
  RecordingSink rec;
  auto st = f.run("warpSyncDivergent", {1, 1, 1}, {64, 1, 1}, f.args(out), rec);
  ASSERT_TRUE(st.ok()) << st;
  for (int t = 0; t < 64; ++t) {
    int lane = t & 31;
    auto v = [](int l) { return l + (l < 16 ? 100 : 200); };
    // +1 when __activemask() saw a partial warp: lanes need not have reconverged (with -G they do not)
    int expected = v(lane) + v((lane + 1) & 31) * 1000;
    EXPECT_TRUE(out[t] == expected || out[t] == expected + 1) << t << ": " << out[t];
  }
  ASSERT_EQ(rec.syncWarps.size(), 2u);  // one per warp, both branches together
  EXPECT_EQ(rec.syncWarps[0].lanes.mask, 0xFFFFFFFFu);
}

TEST(Builtins, ReduxAndBarArrive) {
  DeviceMemory mem;
  std::string ptx = R"(
.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 p)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  .reg .pred %p<2>;
  ld.param.u64 %rd1, [p];
  mov.u32 %r1, %tid.x;
  redux.sync.add.u32 %r2, %r1, -1;
  redux.sync.max.s32 %r3, %r1, -1;
  setp.lt.u32 %p1, %r1, 32;
  @%p1 bar.arrive 1, 64;
  @!%p1 bar.sync 1, 64;
  mul.wide.u32 %rd2, %r1, 8;
  add.s64 %rd3, %rd1, %rd2;
  st.global.v2.u32 [%rd3], {%r2, %r3};
  ret;
}
)";
  auto m = loadPtx(ptx, "redux.ptx", mem);
  ASSERT_TRUE(m.ok()) << m.status();
  uint64_t buf = mem.allocate(64 * 8);
  LaunchConfig cfg;
  cfg.grid = {1, 1, 1};
  cfg.block = {64, 1, 1};
  cfg.args = {&buf};
  RecordingSink rec;
  auto st = launch(**m, "k", cfg, mem, rec);
  ASSERT_TRUE(st.ok()) << st;
  auto* out = reinterpret_cast<uint32_t*>(buf);
  for (int t = 0; t < 64; ++t) {
    int w = t / 32;
    EXPECT_EQ(out[2 * t], uint32_t(32 * 31 / 2 + 32 * 32 * w));
    EXPECT_EQ(out[2 * t + 1], uint32_t(31 + 32 * w));
  }
  // Warp 0 arrived (bar.arrive, an event when it arrives) and went on; warp
  // 1 waited, and its arrival completed barrier 1.
  ASSERT_EQ(rec.barriers.size(), 2u);
  EXPECT_FALSE(rec.barriers[0].complete);
  EXPECT_EQ(rec.barriers[0].id, 1u);
  EXPECT_TRUE(rec.barriers[0].threads.empty());
  ASSERT_EQ(rec.barriers[0].arrivers.size(), 32u);
  EXPECT_EQ(rec.barriers[0].arrivers.back(), 31u);
  EXPECT_TRUE(rec.barriers[1].complete);
  EXPECT_EQ(rec.barriers[1].id, 1u);
  ASSERT_EQ(rec.barriers[1].threads.size(), 32u);
  EXPECT_EQ(rec.barriers[1].threads.front(), 32u);
  EXPECT_EQ(rec.barriers[1].arrivers, rec.barriers[0].arrivers);
}

}  // namespace
}  // namespace predatar::sim::testing
