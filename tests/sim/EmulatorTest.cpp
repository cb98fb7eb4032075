// Test kernels (tests/cuda/*.cu, PTX from nvcc) run on the emulator and
// checked against CPU reference results.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <random>

#include "SimTestUtil.h"

namespace predatar::sim::testing {
namespace {

TEST(Emulator, SharedTreeReduction) {
  Fixture f("reduce");
  const int n = 1000, threads = 256, blocks = (n + threads - 1) / threads;
  std::vector<float> in(n);
  for (int i = 0; i < n; ++i) in[i] = float(i % 17) * 0.5f;
  float* din = f.buffer(in);
  float* dout = f.zeros<float>(blocks);
  NullSink sink;
  ASSERT_TRUE(f.run("reduceShared", {blocks, 1, 1}, {threads, 1, 1}, f.args(din, dout, n), sink).ok());
  for (int b = 0; b < blocks; ++b) {
    float ref = 0;
    for (int i = b * threads; i < std::min(n, (b + 1) * threads); ++i) ref += in[i];
    EXPECT_FLOAT_EQ(dout[b], ref) << "block " << b;
  }
}

TEST(Emulator, WarpShuffleReduction) {
  Fixture f("reduce");
  const int n = 3000, threads = 128, blocks = (n + threads - 1) / threads;
  std::vector<int> in(n);
  for (int i = 0; i < n; ++i) in[i] = (i * 7919) % 1000 - 300;
  int* din = f.buffer(in);
  int* dout = f.zeros<int>(1);
  NullSink sink;
  auto st = f.run("reduceShuffle", {blocks, 1, 1}, {threads, 1, 1}, f.args(din, dout, n), sink, threads / 32 * 4);
  ASSERT_TRUE(st.ok()) << st;
  EXPECT_EQ(*dout, std::accumulate(in.begin(), in.end(), 0));
}

TEST(Emulator, TiledMatrixMultiply) {
  Fixture f("matmul");
  const int n = 48;
  std::vector<float> a(n * n), b(n * n);
  for (int i = 0; i < n * n; ++i) { a[i] = float((i * 3) % 7) - 2.0f; b[i] = float((i * 5) % 11) * 0.25f; }
  float* da = f.buffer(a);
  float* db = f.buffer(b);
  float* dc = f.zeros<float>(n * n);
  NullSink sink;
  auto st = f.run("matmulTiled", {n / 16, n / 16, 1}, {16, 16, 1}, f.args(da, db, dc, n), sink);
  ASSERT_TRUE(st.ok()) << st;
  for (int r = 0; r < n; ++r)
    for (int c = 0; c < n; ++c) {
      float ref = 0;
      for (int k = 0; k < n; ++k) ref += a[r * n + k] * b[k * n + c];
      ASSERT_NEAR(dc[r * n + c], ref, 1e-3) << r << "," << c;
    }
}

TEST(Emulator, DemangledKernelName) {
  Fixture f("matmul");
  NullSink sink;
  float* d = f.zeros<float>(256);
  RecordingSink rec;
  auto st = f.run("matmulTiled", {1, 1, 1}, {16, 16, 1}, f.args(d, d, d, 16), rec);
  ASSERT_TRUE(st.ok()) << st;
  EXPECT_EQ(rec.kernel.name, "matmulTiled(float const*, float const*, float*, int)");
}

TEST(Emulator, HistogramWithAtomics) {
  Fixture f("histogram");
  const int n = 5000;
  std::vector<unsigned char> data(n);
  std::mt19937 rng(7);
  for (auto& d : data) d = uint8_t(rng());
  auto* dd = f.buffer(data);
  unsigned* bins = f.zeros<unsigned>(64);
  NullSink sink;
  auto st = f.run("histogram", {4, 1, 1}, {96, 1, 1}, f.args(dd, n, bins), sink);
  ASSERT_TRUE(st.ok()) << st;
  std::vector<unsigned> ref(64);
  for (auto d : data) ref[d % 64]++;
  for (int i = 0; i < 64; ++i) EXPECT_EQ(bins[i], ref[i]) << i;
}

TEST(Emulator, LimitedResidentBlocks) {
  Fixture f("histogram");
  const int n = 3000;
  std::vector<unsigned char> data(n);
  for (int i = 0; i < n; ++i) data[i] = uint8_t(i * 7);
  auto* dd = f.buffer(data);
  unsigned* bins = f.zeros<unsigned>(64);
  ScheduleOptions s;
  s.maxResidentBlocks = 2;
  RecordingSink rec;
  auto st = f.run("histogram", {7, 1, 1}, {64, 1, 1}, f.args(dd, n, bins), rec, 0, s);
  ASSERT_TRUE(st.ok()) << st;
  std::vector<unsigned> ref(64);
  for (auto d : data) ref[d % 64]++;
  for (int i = 0; i < 64; ++i) EXPECT_EQ(bins[i], ref[i]) << i;
  // block 6 starts only after blocks 0 and 1 are done: its first event follows their exits
  size_t firstOfLast = 0, exitsBefore = 0;
  for (size_t i = 0; i < rec.memoryEvents.size(); ++i)
    if (rec.memoryEvents[i].lanes.block == 6) { firstOfLast = rec.memoryEvents[i].origin.seq; break; }
  for (auto& e : rec.exits)
    if (e.origin.seq < firstOfLast) ++exitsBefore;
  EXPECT_GE(exitsBefore, 2u);
}

TEST(Emulator, BlockScan) {
  Fixture f("scan");
  const int n = 500, threads = 512;
  std::vector<int> in(n);
  for (int i = 0; i < n; ++i) in[i] = (i % 13) - 4;
  int* din = f.buffer(in);
  int* dout = f.zeros<int>(n);
  NullSink sink;
  auto st = f.run("scanBlock", {1, 1, 1}, {threads, 1, 1}, f.args(din, dout, n), sink, 2 * threads * 4);
  ASSERT_TRUE(st.ok()) << st;
  int acc = 0;
  for (int i = 0; i < n; ++i) {
    acc += in[i];
    ASSERT_EQ(dout[i], acc) << i;
  }
}

TEST(Emulator, GlobalLockProtectedUpdate) {
  Fixture f("lock");
  int* lock = f.zeros<int>(1);
  int* counter = f.zeros<int>(1);
  float* sum = f.zeros<float>(1);
  RecordingSink rec;
  auto st = f.run("lockedCounter", {3, 1, 1}, {64, 1, 1}, f.args(lock, counter, sum), rec);
  ASSERT_TRUE(st.ok()) << st;
  EXPECT_EQ(*counter, 3 * 64);
  EXPECT_FLOAT_EQ(*sum, 3 * 64 * 0.5f);
  EXPECT_EQ(*lock, 0);
  // every thread acquires and releases the inferred lock once
  size_t acq = 0, rel = 0;
  for (auto& e : rec.acquires) acq += std::popcount(e.lanes.mask);
  for (auto& e : rec.releases) rel += std::popcount(e.lanes.mask);
  EXPECT_EQ(acq, 3u * 64);
  EXPECT_EQ(rel, 3u * 64);
  for (auto& e : rec.acquires) {
    EXPECT_EQ(e.scope, Scope::Device);
    for (uint32_t l = 0; l < 32; ++l)
      if (e.lanes.mask >> l & 1) {
        EXPECT_EQ(e.lock[l], reinterpret_cast<uint64_t>(lock));
      }
  }
}

TEST(Emulator, SharedLockBlockScope) {
  Fixture f("lock");
  int* out = f.zeros<int>(2);
  RecordingSink rec;
  auto st = f.run("sharedLock", {2, 1, 1}, {96, 1, 1}, f.args(out), rec);
  ASSERT_TRUE(st.ok()) << st;
  EXPECT_EQ(out[0], 192);
  EXPECT_EQ(out[1], 192);
  ASSERT_FALSE(rec.acquires.empty());
  for (auto& e : rec.acquires) EXPECT_EQ(e.scope, Scope::Block);
}

TEST(Emulator, RandomScheduleIsReproducibleAndCorrect) {
  for (uint64_t seed : {1u, 2u, 3u}) {
    Fixture f("lock");
    int* lock = f.zeros<int>(1);
    int* counter = f.zeros<int>(1);
    float* sum = f.zeros<float>(1);
    ScheduleOptions s;
    s.policy = ScheduleOptions::Policy::Random;
    s.seed = seed;
    s.quantum = 7;
    RecordingSink a, b;
    ASSERT_TRUE(f.run("lockedCounter", {2, 1, 1}, {40, 1, 1}, f.args(lock, counter, sum), a, 0, s).ok());
    EXPECT_EQ(*counter, 80);
    ASSERT_TRUE(f.run("lockedCounter", {2, 1, 1}, {40, 1, 1}, f.args(lock, counter, sum), b, 0, s).ok());
    EXPECT_EQ(*counter, 160);
    EXPECT_EQ(a.order, b.order);
  }
}

TEST(Emulator, DivergentBranches) {
  Fixture f("control");
  const int n = 256;
  std::vector<int> in(n);
  for (int i = 0; i < n; ++i) in[i] = (i * 37) % 101 + 1;
  int* din = f.buffer(in);
  int* dout = f.zeros<int>(n);
  NullSink sink;
  auto st = f.run("divergent", {4, 1, 1}, {64, 1, 1}, f.args(din, dout), sink);
  ASSERT_TRUE(st.ok()) << st;
  for (int i = 0; i < n; ++i) {
    int v = in[i], r;
    if (v % 3 == 0) {
      int x = v + 1, steps = 0;
      while (x != 1 && steps < 1000) { x = (x & 1) ? 3 * x + 1 : x / 2; ++steps; }
      r = steps;
    } else if (v % 3 == 1) r = -v * 7;
    else { r = 0; for (int k = 0; k < (v & 15); ++k) r += k * v; }
    ASSERT_EQ(dout[i], r) << i;
  }
}

TEST(Emulator, DeviceFunctionCalls) {
  Fixture f("control");
  const int n = 100;
  std::vector<float> a(n), b(n);
  for (int i = 0; i < n; ++i) { a[i] = float(i) * 0.5f; b[i] = float(n - i); }
  float* da = f.buffer(a);
  float* db = f.buffer(b);
  float* dout = f.zeros<float>(n);
  NullSink sink;
  auto st = f.run("calls", {2, 1, 1}, {64, 1, 1}, f.args(da, db, dout, n), sink);
  ASSERT_TRUE(st.ok()) << st;
  auto mix = [](float x, float y, int sel) { return sel > 0 ? x * 2.0f + y : x - y * 0.5f; };
  for (int i = 0; i < n; ++i) EXPECT_FLOAT_EQ(dout[i], mix(a[i], b[i], i % 2) + mix(b[i], a[i], (i % 4) - 1)) << i;
}

TEST(Emulator, LocalArrays) {
  Fixture f("control");
  const int n = 96;
  std::vector<int> in(n);
  for (int i = 0; i < n; ++i) in[i] = (i * 13) % 29;
  int* din = f.buffer(in);
  int* dout = f.zeros<int>(n);
  NullSink sink;
  auto st = f.run("localArray", {3, 1, 1}, {32, 1, 1}, f.args(din, dout), sink);
  ASSERT_TRUE(st.ok()) << st;
  for (int i = 0; i < n; ++i) {
    int tmp[16];
    for (int k = 0; k < 16; ++k) tmp[k] = in[i] * k + (k ^ i);
    int s = 0;
    for (int k = 0; k <= (in[i] & 15); ++k) s += tmp[(k * 7 + i) & 15];
    ASSERT_EQ(dout[i], s) << i;
  }
}

TEST(Emulator, ThreeDimensionalIndexing) {
  Fixture f("misc");
  Dim3 grid{2, 3, 2}, block{4, 3, 5};
  int total = int(grid.count() * block.count());
  int* out = f.zeros<int>(total);
  NullSink sink;
  auto st = f.run("index3d", grid, block, f.args(out), sink);
  ASSERT_TRUE(st.ok()) << st;
  for (uint32_t bz = 0; bz < 2; ++bz)
    for (uint32_t by = 0; by < 3; ++by)
      for (uint32_t bx = 0; bx < 2; ++bx)
        for (uint32_t tz = 0; tz < 5; ++tz)
          for (uint32_t ty = 0; ty < 3; ++ty)
            for (uint32_t tx = 0; tx < 4; ++tx) {
              int b = bx + 2 * (by + 3 * bz), t = tx + 4 * (ty + 3 * tz);
              ASSERT_EQ(out[b * 60 + t], int(tx * 10000 + ty * 1000 + tz * 100 + bx * 10 + by + bz * 7));
            }
}

// Each warp's special registers come from a per-launch copy made for the
// warp's index in its block (Scheduler.cpp, materialize): two launches of
// different block shapes, whose warps reuse the first one's register files,
// each see their own.
constexpr std::string_view kSpecialsPtx = R"(
.version 8.0
.target sm_75
.address_size 64
.visible .entry specials(.param .u64 out) {
  .reg .b32 %r<12>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %tid.y;
  mov.u32 %r3, %ntid.x;
  mad.lo.s32 %r4, %r2, %r3, %r1;
  mov.u32 %r5, %ctaid.x;
  mov.u32 %r6, %ntid.y;
  mul.lo.s32 %r6, %r6, %r3;
  mad.lo.s32 %r4, %r5, %r6, %r4;
  mul.wide.u32 %rd2, %r4, 16;
  add.s64 %rd3, %rd1, %rd2;
  mov.u32 %r7, %warpid;
  mov.u32 %r8, %laneid;
  mov.u32 %r9, %lanemask_lt;
  mov.u32 %r10, %nwarpid;
  st.global.v4.u32 [%rd3], {%r7, %r8, %r9, %r10};
  ret;
}
)";

TEST(Emulator, SpecialRegistersOfEveryWarpInEachLaunch) {
  Fixture f(PtxText{kSpecialsPtx, "specials.ptx"});
  NullSink sink;
  for (Dim3 block : {Dim3{16, 6, 1}, Dim3{40, 2, 1}}) {  // 96 and 80 threads: 3 warps, the last partial
    uint32_t threads = block.count(), warps = (threads + 31) / 32;
    uint32_t* out = f.zeros<uint32_t>(4 * 3 * threads);
    ASSERT_TRUE(f.run("specials", {3, 1, 1}, block, f.args(out), sink).ok());
    for (uint32_t i = 0; i < 3 * threads; ++i) {
      uint32_t t = i % threads, lane = t % 32;
      SCOPED_TRACE(::testing::Message() << "block " << block.x << "x" << block.y << ", thread " << i);
      EXPECT_EQ(out[4 * i], t / 32);
      EXPECT_EQ(out[4 * i + 1], lane);
      EXPECT_EQ(out[4 * i + 2], (1u << lane) - 1);
      EXPECT_EQ(out[4 * i + 3], warps);
    }
  }
}

// A warp's register file gets only the special registers the launch's
// functions read (Executor.cpp, specialsReadByFunction): ones read only in a
// called function count, and a launch after one that read others (whose
// warps' register files it reuses) still sees its own.
constexpr std::string_view kSpecialsInCalleePtx = R"(
.version 8.0
.target sm_75
.address_size 64
.func (.param .b32 r) position()
{
  .reg .b32 %p<4>;
  mov.u32 %p1, %ctaid.x;
  mov.u32 %p2, %laneid;
  mad.lo.s32 %p3, %p1, 100, %p2;
  st.param.b32 [r], %p3;
  ret;
}
.visible .entry tidOnly(.param .u64 out) {
  .reg .b32 %r<2>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r1;
  ret;
}
.visible .entry inCallee(.param .u64 out) {
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  {
  .param .b32 ret0;
  call.uni (ret0), position, ();
  ld.param.b32 %r1, [ret0];
  }
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %tid.y;
  mad.lo.s32 %r2, %r2, 32, %r3;
  mul.wide.u32 %rd2, %r2, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r1;
  ret;
}
)";

TEST(Emulator, SpecialRegistersReadOnlyInACalleeAfterALaunchThatReadOthers) {
  Fixture f(PtxText{kSpecialsInCalleePtx, "specials_callee.ptx"});
  NullSink sink;
  uint32_t* tids = f.zeros<uint32_t>(64);
  ASSERT_TRUE(f.run("tidOnly", {1, 1, 1}, {64, 1, 1}, f.args(tids), sink).ok());
  for (uint32_t t = 0; t < 64; ++t) ASSERT_EQ(tids[t], t);
  // One warp a block, its threads along y: lane l of block b writes b * 100 + l at b * 32 + l.
  uint32_t* out = f.zeros<uint32_t>(4 * 32);
  ASSERT_TRUE(f.run("inCallee", {4, 1, 1}, {1, 32, 1}, f.args(out), sink).ok());
  for (uint32_t b = 0; b < 4; ++b)
    for (uint32_t l = 0; l < 32; ++l) EXPECT_EQ(out[b * 32 + l], b * 100 + l) << "block " << b << " lane " << l;
}

TEST(Emulator, WarpVotesAndMatch) {
  Fixture f("misc");
  const int n = 64;
  std::vector<int> in(n);
  for (int i = 0; i < n; ++i) in[i] = (i * 11) % 23;
  in[40] = 42;
  int* din = f.buffer(in);
  unsigned* out = f.zeros<unsigned>(n * 4);
  NullSink sink;
  auto st = f.run("votes", {1, 1, 1}, {n, 1, 1}, f.args(din, out), sink);
  ASSERT_TRUE(st.ok()) << st;
  for (int w = 0; w < 2; ++w) {
    unsigned ballot = 0;
    bool any = false;
    for (int l = 0; l < 32; ++l) {
      ballot |= unsigned(in[w * 32 + l] > 10) << l;
      any = any || in[w * 32 + l] == 42;
    }
    for (int l = 0; l < 32; ++l) {
      int i = w * 32 + l;
      EXPECT_EQ(out[i * 4 + 0], ballot);
      EXPECT_EQ(out[i * 4 + 1], 1u);
      EXPECT_EQ(out[i * 4 + 2], unsigned(any));
      unsigned same = 0;
      for (int k = 0; k < 32; ++k) same |= unsigned((in[w * 32 + k] & 3) == (in[i] & 3)) << k;
      EXPECT_EQ(out[i * 4 + 3], same) << i;
    }
  }
}

TEST(Emulator, MathAndConversions) {
  Fixture f("misc");
  const int n = 32;
  std::vector<double> in(n);
  for (int i = 0; i < n; ++i) in[i] = (i - 10) * 0.37;
  double* din = f.buffer(in);
  double* out = f.zeros<double>(n * 6);
  int* iout = f.zeros<int>(n * 4);
  NullSink sink;
  auto st = f.run("mathOps", {1, 1, 1}, {n, 1, 1}, f.args(din, out, iout), sink);
  ASSERT_TRUE(st.ok()) << st;
  for (int i = 0; i < n; ++i) {
    double x = in[i];
    float fl = float(x);
    EXPECT_DOUBLE_EQ(out[i * 6 + 0], std::sqrt(x * x + 1.0));
    EXPECT_DOUBLE_EQ(out[i * 6 + 1], x / 3.0);
    EXPECT_DOUBLE_EQ(out[i * 6 + 2], double(fl * 0.25f + 1.5f));
    EXPECT_DOUBLE_EQ(out[i * 6 + 3], std::fmin(x, 2.0) + std::fmax(x, -1.0));
    EXPECT_NEAR(out[i * 6 + 4], fl, std::fabs(fl) / 1000 + 1e-3);
    EXPECT_DOUBLE_EQ(out[i * 6 + 5], std::floor(x) + double(int64_t(x * 1000.0)));
    EXPECT_EQ(iout[i * 4 + 0], int(x));
    EXPECT_EQ(iout[i * 4 + 1], int(std::nearbyint(fl)));
    EXPECT_EQ(iout[i * 4 + 2], int((unsigned char)(i * 37)));
    unsigned u = unsigned(i) * 2654435761u, br = 0;
    for (int k = 0; k < 32; ++k) br |= ((unsigned(i) >> k) & 1u) << (31 - k);
    EXPECT_EQ(iout[i * 4 + 3], __builtin_popcount(u) + __builtin_clz(unsigned(i + 1)) + int(br >> 28)) << i;
  }
}

TEST(Emulator, HalfPrecision) {
  Fixture f("misc");
  const int n = 32;
  std::vector<float> in(n);
  for (int i = 0; i < n; ++i) in[i] = (i - 12) * 0.25f;
  float* din = f.buffer(in);
  float* out = f.zeros<float>(n * 5);
  NullSink sink;
  auto st = f.run("halfOps", {1, 1, 1}, {n, 1, 1}, f.args(din, out), sink);
  ASSERT_TRUE(st.ok()) << st;
  auto near = [](float a, float b) { return std::fabs(a - b) <= 0.01f * std::max(1.0f, std::fabs(b)); };
  for (int i = 0; i < n; ++i) {
    float x = in[i];  // exact in half
    float y = (x + 1.5f) * x;
    y = y * x + y;
    float lo = (x + x) * y, hi = (y + y) * x;
    EXPECT_PRED2(near, out[i * 5 + 0], y) << i;
    EXPECT_PRED2(near, out[i * 5 + 1], lo) << i;
    EXPECT_PRED2(near, out[i * 5 + 2], hi) << i;
    EXPECT_PRED2(near, out[i * 5 + 3], -std::max(x, out[i * 5 + 0])) << i;
    EXPECT_EQ(out[i * 5 + 4], x < out[i * 5 + 0] ? 1.f : 0.f) << i;
  }
}

// ---------------------------------------------------------------- errors

TEST(EmulatorErrors, OutOfBoundsAccess) {
  Fixture f("errors");
  int* data = f.zeros<int>(64);
  NullSink sink;
  auto st = f.run("outOfBounds", {1, 1, 1}, {32, 1, 1}, f.args(data, 40), sink);
  ASSERT_FALSE(st.ok());
  std::string msg(st.message());
  EXPECT_NE(msg.find("out-of-bounds store"), std::string::npos) << msg;
  EXPECT_NE(msg.find("outOfBounds"), std::string::npos) << msg;
  EXPECT_NE(msg.find("errors.cu:3"), std::string::npos) << msg;
  EXPECT_NE(msg.find("thread (24,0,0)"), std::string::npos) << msg;
}

TEST(EmulatorErrors, BarrierDeadlock) {
  Fixture f("errors");
  int* data = f.zeros<int>(64);
  NullSink sink;
  auto st = f.run("barrierDeadlock", {1, 1, 1}, {64, 1, 1}, f.args(data), sink);
  ASSERT_FALSE(st.ok());
  std::string msg(st.message());
  EXPECT_NE(msg.find("deadlock"), std::string::npos) << msg;
  EXPECT_NE(msg.find("waiting at barrier 1 (32 of 64"), std::string::npos) << msg;
}

TEST(EmulatorErrors, StepLimit) {
  Fixture f("errors");
  int* flag = f.zeros<int>(1);
  NullSink sink;
  ScheduleOptions s;
  s.stepLimit = 100000;
  s.policy = ScheduleOptions::Policy::Random;  // the livelock detector is off: only the limit stops it
  auto st = f.run("spinForever", {1, 1, 1}, {32, 1, 1}, f.args(flag), sink, 0, s);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(std::string(st.message()).find("step limit"), std::string::npos) << st;
}

TEST(EmulatorErrors, SpinOnUnchangingMemoryIsADeadlock) {
  Fixture f("errors");
  int* flag = f.zeros<int>(1);
  NullSink sink;
  auto st = f.run("spinForever", {1, 1, 1}, {32, 1, 1}, f.args(flag), sink);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(std::string(st.message()).find("deadlock: the running warps spin"), std::string::npos) << st;
}

// UnifiedMemoryPerf: a kernel spins on pinned host memory that the host sets
// after the launch. Launches run when issued, so the report says why it
// cannot finish here; device memory gets no such note.
TEST(EmulatorErrors, SpinOnHostMemoryNamesTheHandOff) {
  Fixture f("errors");
  uint64_t pinned = f.memory.allocate(sizeof(int), "cudaMallocHost #7", DeviceMemory::Placement::HostShared);
  NullSink sink;
  auto st = f.run("spinForever", {1, 1, 1}, {32, 1, 1}, f.args(reinterpret_cast<int*>(pinned)), sink);
  ASSERT_FALSE(st.ok());
  std::string msg(st.message());
  EXPECT_NE(msg.find("deadlock: the running warps spin"), std::string::npos) << msg;
  EXPECT_NE(msg.find("host memory the host may write while a kernel runs (cudaMallocHost #7)"), std::string::npos)
      << msg;
  EXPECT_NE(msg.find("runs each launch to completion when it is issued"), std::string::npos) << msg;

  Fixture g("errors");
  auto device = g.run("spinForever", {1, 1, 1}, {32, 1, 1}, g.args(g.zeros<int>(1)), sink);
  ASSERT_FALSE(device.ok());
  EXPECT_EQ(std::string(device.message()).find("host may write"), std::string::npos) << device;
}

TEST(EmulatorErrors, UnsupportedInstruction) {
  DeviceMemory mem;
  std::string ptx = R"(
.version 8.0
.target sm_75
.address_size 64
.visible .entry k(.param .u64 p)
{
  .reg .b32 %r<4>;
  mov.u32 %r1, 1;
  frobnicate.b32 %r2, %r1;
  ret;
}
)";
  // Loaded (other kernels of the module run); refused by name when executed.
  auto m = loadPtx(ptx, "bad.ptx", mem);
  ASSERT_TRUE(m.ok()) << m.status();
  NullSink sink;
  LaunchConfig cfg;
  cfg.grid = {1, 1, 1};
  cfg.block = {32, 1, 1};
  uint64_t p = 0;
  cfg.args = {&p};
  LaunchStats stats;
  auto st = launch(**m, "k", cfg, mem, sink, &stats);
  ASSERT_FALSE(st.ok());
  std::string msg(st.message());
  EXPECT_NE(msg.find("bad.ptx:9"), std::string::npos) << msg;
  EXPECT_NE(msg.find("unsupported instruction 'frobnicate.b32'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("'k'"), std::string::npos) << msg;
  ASSERT_TRUE(stats.fault.has_value());
  EXPECT_EQ(stats.fault->ptxLine, 9u);
  EXPECT_EQ(stats.fault->threadIdx.x, 0u);
  EXPECT_STREQ(cudaErrorNameOf(st), "cudaErrorLaunchFailure");
}

TEST(EmulatorErrors, TrapAndArgumentCount) {
  DeviceMemory mem;
  std::string ptx = R"(
.version 8.0
.target sm_75
.address_size 64
.visible .entry k(.param .u32 p)
{
  trap;
  ret;
}
)";
  auto m = loadPtx(ptx, "trap.ptx", mem);
  ASSERT_TRUE(m.ok()) << m.status();
  NullSink sink;
  LaunchConfig cfg;
  cfg.grid = {1, 1, 1};
  cfg.block = {32, 1, 1};
  EXPECT_FALSE(launch(**m, "k", cfg, mem, sink).ok());  // missing argument
  int p = 0;
  cfg.args = {&p};
  auto st = launch(**m, "k", cfg, mem, sink);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(std::string(st.message()).find("trap"), std::string::npos) << st;
}

}  // namespace
}  // namespace predatar::sim::testing
