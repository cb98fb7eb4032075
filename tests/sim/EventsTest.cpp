// The event stream the emulator produces.
#include <gtest/gtest.h>

#include "SimTestUtil.h"

namespace predatar::sim::testing {
namespace {

TEST(Events, ItsFigureEmitsTwoStoresPerWarp) {
  Fixture f("errors");
  int* data = f.zeros<int>(64);
  RecordingSink rec;
  auto st = f.run("itsFigure", {1, 1, 1}, {2, 1, 1}, f.args(data), rec);
  ASSERT_TRUE(st.ok()) << st;
  EXPECT_EQ(rec.begins, 1);
  EXPECT_EQ(rec.ends, 1);
  ASSERT_EQ(rec.memoryEvents.size(), 2u);
  auto base = reinterpret_cast<uint64_t>(data);
  const MemoryEvent& a = rec.memoryEvents[0];
  const MemoryEvent& b = rec.memoryEvents[1];
  EXPECT_EQ(a.type, AccessType::Write);
  EXPECT_EQ(a.lanes.mask, 0b11u);
  EXPECT_EQ(a.space, MemorySpace::Global);
  EXPECT_EQ(a.size, 4);
  EXPECT_FALSE(a.strong);
  EXPECT_EQ(a.address[0], base);
  EXPECT_EQ(a.address[1], base + 4);
  EXPECT_EQ(b.address[0], base + 4);
  EXPECT_EQ(b.address[1], base);
  EXPECT_LT(a.origin.seq, b.origin.seq);
  EXPECT_NE(a.origin.pc, b.origin.pc);
  ASSERT_NE(a.origin.source, Origin::kNoSource);
  const SourcePosition& sa = rec.kernel.sources[a.origin.source];
  const SourcePosition& sb = rec.kernel.sources[b.origin.source];
  EXPECT_NE(sa.file.find("errors.cu"), std::string::npos);
  EXPECT_EQ(sa.line, 16u);
  EXPECT_EQ(sb.line, 17u);
  EXPECT_EQ(data[0], 1);
  EXPECT_EQ(data[1], 1);
  ASSERT_EQ(rec.exits.size(), 1u);
  EXPECT_EQ(rec.exits[0].lanes.mask, 0b11u);
  EXPECT_EQ(rec.order, "MMX");
}

TEST(Events, SharedReductionBarriersAndSymbols) {
  Fixture f("reduce");
  std::vector<float> in(64, 1.0f);
  float* din = f.buffer(in);
  float* dout = f.zeros<float>(1);
  RecordingSink rec;
  ASSERT_TRUE(f.run("reduceShared", {1, 1, 1}, {64, 1, 1}, f.args(din, dout, 64), rec).ok());
  EXPECT_FLOAT_EQ(*dout, 64.0f);
  // one initial barrier + log2(64) loop barriers
  ASSERT_EQ(rec.barriers.size(), 7u);
  for (auto& b : rec.barriers) {
    EXPECT_EQ(b.block, 0u);
    ASSERT_EQ(b.threads.size(), 64u);
    EXPECT_EQ(b.threads.front(), 0u);
    EXPECT_EQ(b.threads.back(), 63u);
  }
  bool sawShared = false;
  for (auto& e : rec.memoryEvents)
    if (e.space == MemorySpace::Shared) {
      sawShared = true;
      for (uint32_t l = 0; l < 32; ++l)
        if (e.lanes.mask >> l & 1) {
          EXPECT_LT(e.address[l], 256 * 4u);
        }
    }
  EXPECT_TRUE(sawShared);
  bool named = false;
  for (auto& s : rec.kernel.symbols)
    if (s.space == MemorySpace::Shared && s.bytes == 1024) named = true;
  EXPECT_TRUE(named);
  EXPECT_EQ(rec.kernel.grid, (Dim3{1, 1, 1}));
  EXPECT_EQ(rec.kernel.block, (Dim3{64, 1, 1}));
}

TEST(Events, AtomicsAreStrongWithScope) {
  Fixture f("histogram");
  std::vector<unsigned char> data(64, 3);
  auto* dd = f.buffer(data);
  unsigned* bins = f.zeros<unsigned>(64);
  RecordingSink rec;
  ASSERT_TRUE(f.run("histogram", {1, 1, 1}, {32, 1, 1}, f.args(dd, 64, bins), rec).ok());
  EXPECT_EQ(bins[3], 64u);
  int atomics = 0;
  for (auto& e : rec.memoryEvents)
    if (e.type == AccessType::AtomicRmw) {
      ++atomics;
      EXPECT_TRUE(e.strong);
      EXPECT_EQ(e.op, AtomicOp::Add);
      EXPECT_EQ(e.scope, Scope::Device);
    }
  EXPECT_GT(atomics, 0);
}

// A module with a .cta CAS or fence may give lock inference a block-scoped
// acquire (lock.cu's sharedLock: atom.shared.cta.cas, membar.cta), and its
// launches say so; a module with neither acquires no lock at block scope
// (KernelInfo::blockScopedAcquires, which lets gwcp trim its rule (ii) log sooner).
TEST(Events, KernelInfoSaysWhetherALockMayBeAcquiredAtBlockScope) {
  Fixture locks("lock");
  RecordingSink rec;
  ASSERT_TRUE(locks.run("lockedCounter", {2, 1, 1}, {32, 1, 1},
                        locks.args(locks.zeros<int>(1), locks.zeros<int>(1), locks.zeros<float>(1)), rec)
                  .ok());
  EXPECT_TRUE(rec.kernel.blockScopedAcquires);
  Fixture plain("errors");
  ASSERT_TRUE(plain.run("itsFigure", {1, 1, 1}, {2, 1, 1}, plain.args(plain.zeros<int>(64)), rec).ok());
  EXPECT_FALSE(rec.kernel.blockScopedAcquires);
}

TEST(Events, ShuffleReductionSyncWarp) {
  DeviceMemory mem;
  std::string ptx = R"(
.version 8.0
.target sm_75
.address_size 64
.visible .entry k(.param .u64 p)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [p];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, %laneid;
  bar.warp.sync -1;
  membar.cta;
  fence.sc.gpu;
  shl.b32 %r2, %r1, 2;
  cvt.u64.u32 %rd3, %r2;
  add.s64 %rd3, %rd2, %rd3;
  st.relaxed.gpu.global.u32 [%rd3], %r1;
  ld.volatile.global.u32 %r3, [%rd3];
  ret;
}
)";
  auto m = loadPtx(ptx, "k.ptx", mem);
  ASSERT_TRUE(m.ok()) << m.status();
  uint64_t buf = mem.allocate(128);
  LaunchConfig cfg;
  cfg.grid = {1, 1, 1};
  cfg.block = {32, 1, 1};
  cfg.args = {&buf};
  RecordingSink rec;
  ASSERT_TRUE(launch(**m, "k", cfg, mem, rec).ok());
  EXPECT_EQ(rec.order, "WFFMMX");
  EXPECT_EQ(rec.syncWarps[0].lanes.mask, 0xFFFFFFFFu);
  EXPECT_EQ(rec.fences[0].scope, Scope::Block);
  EXPECT_EQ(rec.fences[1].scope, Scope::Device);
  EXPECT_TRUE(rec.memoryEvents[0].strong);
  EXPECT_EQ(rec.memoryEvents[0].scope, Scope::Device);
  EXPECT_TRUE(rec.memoryEvents[1].strong);
  EXPECT_EQ(rec.memoryEvents[1].scope, Scope::System);
  for (uint32_t l = 0; l < 32; ++l) EXPECT_EQ(reinterpret_cast<uint32_t*>(buf)[l], l);
}

TEST(Events, IntraWarpDivergenceInterleaves) {
  // Lanes spin-wait on a flag that another lane of the same warp sets later:
  // completes only with fair scheduling of divergent lane groups.
  DeviceMemory mem;
  std::string ptx = R"(
.version 8.0
.target sm_75
.address_size 64
.visible .entry k(.param .u64 p)
{
  .reg .pred %p<3>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [p];
  mov.u32 %r1, %laneid;
  setp.eq.s32 %p1, %r1, 31;
  @%p1 bra $SET;
$WAIT:
  ld.volatile.global.u32 %r2, [%rd1];
  setp.eq.s32 %p2, %r2, 0;
  @%p2 bra $WAIT;
  bra.uni $DONE;
$SET:
  add.s32 %r3, %r1, 0;
  add.s32 %r3, %r3, 0;
  st.volatile.global.u32 [%rd1], 1;
$DONE:
  ret;
}
)";
  auto m = loadPtx(ptx, "spin.ptx", mem);
  ASSERT_TRUE(m.ok()) << m.status();
  uint64_t buf = mem.allocate(4);
  LaunchConfig cfg;
  cfg.grid = {1, 1, 1};
  cfg.block = {32, 1, 1};
  cfg.args = {&buf};
  cfg.schedule.stepLimit = 1000000;
  RecordingSink rec;
  auto st = launch(**m, "k", cfg, mem, rec);
  ASSERT_TRUE(st.ok()) << st;
  // every lane exits exactly once
  uint32_t exited = 0;
  for (auto& e : rec.exits) {
    EXPECT_EQ(exited & e.lanes.mask, 0u);
    exited |= e.lanes.mask;
  }
  EXPECT_EQ(exited, 0xFFFFFFFFu);
}

// Every thread stores its word of a shared tile, waits at a barrier, then
// reads its neighbour's word, twice (ld, bar, ld: the reads of one warp come
// before and after a second barrier).
constexpr std::string_view kTilePtx = R"(
.version 8.0
.target sm_75
.address_size 64
.visible .entry tile(.param .u64 out) {
  .reg .b32 %r<10>;
  .reg .b64 %rd<6>;
  .shared .align 4 .b8 buf[512];
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 2;
  mov.u32 %r3, buf;
  add.s32 %r4, %r3, %r2;
  st.shared.u32 [%r4], %r1;
  bar.sync 0;
  add.s32 %r5, %r1, 1;
  and.b32 %r5, %r5, 127;
  shl.b32 %r5, %r5, 2;
  add.s32 %r6, %r3, %r5;
  ld.shared.u32 %r7, [%r6];
  bar.sync 0;
  ld.shared.u32 %r8, [%r6];
  add.s32 %r9, %r7, %r8;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.global.u32 [%rd4], %r9;
  ret;
}
)";

// After a barrier the block's warps go on in warp order (Runner::run): the
// warp whose arrival released the others does not go first. The detectors'
// access history keeps a word's reads of a launch in warp order, and a tile
// that every warp reads after a barrier then meets its readers in that order.
TEST(Events, WarpsGoOnInWarpOrderAfterABarrier) {
  Fixture f(PtxText{kTilePtx, "tile.ptx"});
  uint32_t* out = f.zeros<uint32_t>(128);
  RecordingSink rec;
  ASSERT_TRUE(f.run("tile", {1, 1, 1}, {128, 1, 1}, f.args(out), rec).ok());
  for (uint32_t t = 0; t < 128; ++t) EXPECT_EQ(out[t], 2 * ((t + 1) % 128)) << t;
  ASSERT_EQ(rec.barriers.size(), 2u);
  // The barriers (B) and the warps of the shared reads, in stream order.
  constexpr uint32_t B = UINT32_MAX;
  std::vector<uint32_t> seen;
  size_t event = 0;
  for (char c : rec.order) {
    if (c == 'B') seen.push_back(B);
    if (c != 'M') continue;
    const MemoryEvent& e = rec.memoryEvents[event++];
    if (e.space == MemorySpace::Shared && e.type == AccessType::Read) seen.push_back(e.lanes.warp);
  }
  EXPECT_EQ(seen, (std::vector<uint32_t>{B, 0, 1, 2, 3, B, 0, 1, 2, 3}));
}

}  // namespace
}  // namespace predatar::sim::testing
