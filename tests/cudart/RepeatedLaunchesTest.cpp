// The memory of exact repeats (cudart/runtime/RepeatedLaunches.h): a launch is
// found again only when its key and the whole reachable memory repeat, and
// applying it leaves memory as the launch that ran did.
#include "cudart/runtime/RepeatedLaunches.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>

#include "sim/DeviceArena.h"
#include "sim/Texture.h"

namespace predatar::cudart {
namespace {

struct Memory {
  sim::DeviceMemory device;
  uint64_t in = device.allocate(64 << 10, "in");
  uint64_t out = device.allocate(40 << 10, "out");
  uint32_t* word(uint64_t base, size_t i) { return reinterpret_cast<uint32_t*>(base) + i; }
};

RepeatedLaunches::Key key(uint8_t param) {
  RepeatedLaunches::Key k;
  static int kernelRecord;
  k.kernel = &kernelRecord;  // the runtime's kernel record: one address per kernel
  k.grid = {4, 1, 1};
  k.block = {64, 1, 1};
  k.params = {param, 0, 0, 0};
  return k;
}

// "Runs" a kernel: out[i] = in[i] + 1 for the first 5000 words (two chunks of out).
void run(Memory& m) {
  for (size_t i = 0; i < 5000; ++i) *m.word(m.out, i) = *m.word(m.in, i) + 1;
}

TEST(RepeatedLaunches, FirstSightingIsNotHashed) {
  Memory m;
  RepeatedLaunches repeats;
  RepeatedLaunches::Probe probe;
  EXPECT_FALSE(repeats.lookup(key(1), m.device, probe));
  EXPECT_FALSE(probe.hashed);
}

TEST(RepeatedLaunches, ReplaysTheEffectOfAnExactRepeat) {
  Memory m;
  RepeatedLaunches repeats;
  RepeatedLaunches::Probe probe;
  for (size_t i = 0; i < 16384; ++i) *m.word(m.in, i) = uint32_t(i);
  ASSERT_FALSE(repeats.lookup(key(1), m.device, probe));  // first sighting
  ASSERT_FALSE(repeats.lookup(key(1), m.device, probe));  // hashed, unknown
  ASSERT_TRUE(probe.hashed);
  run(m);
  repeats.learn(key(1), probe, m.device, RepeatedLaunches::Outcome{7, true, 100, 3200});
  // Undo the launch's effect: the state before it again.
  std::memset(reinterpret_cast<void*>(m.out), 0, 40 << 10);
  auto found = repeats.lookup(key(1), m.device, probe);
  ASSERT_TRUE(found);
  EXPECT_EQ(found->launch, 7u);
  EXPECT_EQ(found->warpInstructions, 100u);
  repeats.apply(probe, m.device);
  EXPECT_EQ(repeats.replays(), 1u);
  for (size_t i = 0; i < 5000; ++i) ASSERT_EQ(*m.word(m.out, i), i + 1) << i;
  EXPECT_EQ(*m.word(m.out, 5000), 0u);
}

TEST(RepeatedLaunches, AnyChangedByteOrParameterIsAMiss) {
  Memory m;
  RepeatedLaunches repeats;
  RepeatedLaunches::Probe probe;
  repeats.lookup(key(1), m.device, probe);
  repeats.lookup(key(1), m.device, probe);
  run(m);
  repeats.learn(key(1), probe, m.device, RepeatedLaunches::Outcome{});
  // After the launch the state differs from the one it started from.
  EXPECT_FALSE(repeats.lookup(key(1), m.device, probe));
  std::memset(reinterpret_cast<void*>(m.out), 0, 40 << 10);
  EXPECT_TRUE(repeats.lookup(key(1), m.device, probe));
  *m.word(m.in, 16383) ^= 1;  // the last byte of the input
  EXPECT_FALSE(repeats.lookup(key(1), m.device, probe));
  *m.word(m.in, 16383) ^= 1;
  EXPECT_FALSE(repeats.lookup(key(2), m.device, probe));  // another argument
  EXPECT_TRUE(repeats.lookup(key(1), m.device, probe));
  // A new allocation (zero-filled, so only its existence differs) is a new state.
  m.device.allocate(16, "new");
  EXPECT_FALSE(repeats.lookup(key(1), m.device, probe));
}

TEST(RepeatedLaunches, TextureObjectsArePartOfTheState) {
  Memory m;
  RepeatedLaunches repeats;
  RepeatedLaunches::Probe probe;
  std::vector<uint8_t> texels(256, 1);
  sim::TextureObject t;
  t.data = texels.data();
  t.channelBytes = 1;
  t.width = 256;
  t.pitch = 256;
  uint64_t handle = sim::createTexture(t);
  repeats.lookup(key(1), m.device, probe);
  repeats.lookup(key(1), m.device, probe);
  repeats.learn(key(1), probe, m.device, RepeatedLaunches::Outcome{});
  EXPECT_TRUE(repeats.lookup(key(1), m.device, probe));
  texels[255] = 2;  // a CUDA array's contents live outside device memory
  EXPECT_FALSE(repeats.lookup(key(1), m.device, probe));
  texels[255] = 1;
  EXPECT_TRUE(repeats.lookup(key(1), m.device, probe));
  sim::destroyTexture(handle);
  EXPECT_FALSE(repeats.lookup(key(1), m.device, probe));
}

TEST(RepeatedLaunches, KeysThatKeepMissingAreNoLongerHashed) {
  Memory m;
  RepeatedLaunches repeats;
  RepeatedLaunches::Probe probe;
  repeats.lookup(key(1), m.device, probe);
  for (uint32_t i = 0; i < RepeatedLaunches::kMaxMisses; ++i) {
    *m.word(m.in, 0) = i + 1;  // every launch sees a new state
    repeats.lookup(key(1), m.device, probe);
    EXPECT_TRUE(probe.hashed);
  }
  repeats.lookup(key(1), m.device, probe);
  EXPECT_FALSE(probe.hashed);
}

// A warp event of `lanes` lanes reading or writing 4-byte words from `base`.
MemoryEvent event(AccessType type, uint64_t base, uint32_t lanes = 32) {
  MemoryEvent e;
  e.type = type;
  e.lanes.mask = lanes == 32 ? ~0u : (1u << lanes) - 1;
  for (uint32_t l = 0; l < lanes; ++l) e.address[l] = base + 4 * l;
  return e;
}

// A coalesced warp access is taken as one range, a scattered one lane by lane:
// either way the footprint holds the same bytes and grains.
TEST(RepeatedLaunches, AFootprintHoldsTheBytesOfCoalescedAndScatteredAccesses) {
  FootprintRecorder footprint;
  MemoryEvent coalesced = event(AccessType::Write, 4096);
  coalesced.size = 4;  // 32 words from 4096: [4096, 4224)
  footprint.memory(coalesced);
  MemoryEvent scattered = event(AccessType::AtomicRmw, 8192, 3);  // reads and writes
  scattered.size = 4;
  scattered.address[1] = 8200, scattered.address[2] = 8704;  // a gap after lane 0, then another grain
  footprint.memory(scattered);
  footprint.compactWrites();
  std::vector<std::pair<uint64_t, uint64_t>> expected = {{4096, 4224}, {8192, 8196}, {8200, 8204}, {8704, 8708}};
  EXPECT_EQ(footprint.writes, expected);
  absl::flat_hash_set<uint64_t> grains = {8192 / 256, 8704 / 256};
  EXPECT_EQ(footprint.readChunks, grains);
}

// Writes in any order end as their disjoint runs, and the list is compacted
// while it grows (it was one entry per access until the launch ended).
TEST(RepeatedLaunches, ScatteredWritesAreCompactedWhileRecorded) {
  FootprintRecorder footprint;
  std::vector<uint64_t> words(100000);
  for (uint64_t i = 0; i < words.size(); ++i) words[i] = i;
  std::shuffle(words.begin(), words.end(), std::mt19937_64(7));
  size_t longest = 0;
  for (uint64_t w : words) {
    MemoryEvent e = event(AccessType::Write, 4 * w, 1);
    e.size = 4;
    footprint.memory(e);
    longest = std::max(longest, footprint.writes.size());
  }
  EXPECT_LT(longest, words.size() / 2);
  footprint.compactWrites();
  std::vector<std::pair<uint64_t, uint64_t>> whole = {{0, 4 * words.size()}};
  EXPECT_EQ(footprint.writes, whole);
}

TEST(RepeatedLaunches, AFootprintReplaysFromTheFirstRunWhateverElseChanged) {
  Memory m;
  RepeatedLaunches repeats;
  RepeatedLaunches::Probe probe;
  for (size_t i = 0; i < 16384; ++i) *m.word(m.in, i) = uint32_t(i);
  ASSERT_FALSE(repeats.lookup(key(1), m.device, probe));  // first sighting
  FootprintRecorder footprint;
  for (uint64_t a = m.in; a < m.in + 20000; a += 128) footprint.memory(event(AccessType::Read, a));
  run(m);
  for (uint64_t a = m.out; a < m.out + 20000; a += 128) footprint.memory(event(AccessType::Write, a));
  repeats.learnFootprint(key(1), footprint, m.device, {}, RepeatedLaunches::Outcome{3, true, 10, 320});
  // The second launch: out already holds the result; only what was read matters.
  *m.word(m.out, 9000) = 77;  // written by nobody, read by nobody
  auto found = repeats.lookup(key(1), m.device, probe);
  ASSERT_TRUE(found);
  EXPECT_EQ(found->launch, 3u);
  std::memset(reinterpret_cast<void*>(m.out), 0xFF, 20000);
  repeats.apply(probe, m.device);
  for (size_t i = 0; i < 5000; ++i) ASSERT_EQ(*m.word(m.out, i), i + 1) << i;
  EXPECT_EQ(*m.word(m.out, 9000), 77u) << "bytes the launch did not write are left alone";
  *m.word(m.in, 100) = 5;  // an input changed
  EXPECT_FALSE(repeats.lookup(key(1), m.device, probe));
  *m.word(m.in, 100) = 100;
  *m.word(m.in, 16000) = 5;  // a chunk the launch never read
  EXPECT_TRUE(repeats.lookup(key(1), m.device, probe));
}

// cudaMalloc'd memory lives in the device arena, where allocations follow
// one another with only a red zone between them: reads (and writes) of two
// neighbouring allocations are two ranges, not one across both (which no
// allocation holds, so no footprint was learned: every launch of matrixMul's
// loop ran once more).
TEST(RepeatedLaunches, AFootprintOverNeighbouringArenaAllocations) {
  sim::DeviceMemory device;
  if (!device.protectDeviceOnly()) GTEST_SKIP() << "no address space for the device arena";
  device.arena()->open();
  uint64_t a = device.allocate(4096, "A", sim::DeviceMemory::Placement::DeviceOnly);
  uint64_t b = device.allocate(4096, "B", sim::DeviceMemory::Placement::DeviceOnly);
  uint64_t c = device.allocate(4096, "C", sim::DeviceMemory::Placement::DeviceOnly);
  uint64_t d = device.allocate(4096, "D", sim::DeviceMemory::Placement::DeviceOnly);
  constexpr uint64_t kGap = sim::DeviceArena::kRedZoneBytes;
  ASSERT_EQ(b, a + 4096 + kGap) << "arena allocations follow one another";
  ASSERT_EQ(d, c + 4096 + kGap);
  RepeatedLaunches repeats;
  RepeatedLaunches::Probe probe;
  ASSERT_FALSE(repeats.lookup(key(1), device, probe));  // first sighting
  FootprintRecorder footprint;
  auto both = [&](uint64_t first, uint64_t second, AccessType type) {  // every 128 bytes of two neighbours
    for (uint64_t x = first; x < second + 4096; x += 128)
      if (x < first + 4096 || x >= second) footprint.memory(event(type, x));
  };
  both(a, b, AccessType::Read);
  std::memset(reinterpret_cast<void*>(c), 1, 4096);
  std::memset(reinterpret_cast<void*>(d), 1, 4096);
  both(c, d, AccessType::Write);
  repeats.learnFootprint(key(1), footprint, device, {}, RepeatedLaunches::Outcome{0, true, 10, 320});
  auto found = repeats.lookup(key(1), device, probe);
  ASSERT_TRUE(found) << "the second launch repeats the first";
  std::memset(reinterpret_cast<void*>(c), 0, 4096);
  std::memset(reinterpret_cast<void*>(d), 0, 4096);
  repeats.apply(probe, device);
  EXPECT_EQ(*reinterpret_cast<uint8_t*>(c), 1);
  EXPECT_EQ(*reinterpret_cast<uint8_t*>(d + 4095), 1);
  device.arena()->close();
}

// A warp's lanes read across a table's grains, in turns that repeat grains
// and pass 256 grains apart (the recorder's filter of recent grains): every
// grain read is in the footprint, and no other.
TEST(RepeatedLaunches, AFootprintHoldsEveryGrainLanesRead) {
  FootprintRecorder footprint;
  for (uint64_t turn = 0; turn < 3; ++turn) {
    MemoryEvent e = event(AccessType::Read, 0);
    for (uint32_t l = 0; l < 32; ++l) e.address[l] = (l % 2 ? 256 * 256 : 0) + 256 * ((l + turn) % 8);
    footprint.memory(e);
  }
  absl::flat_hash_set<uint64_t> expected;
  for (uint64_t g = 0; g < 8; ++g) expected.insert({g, 256 + g});
  EXPECT_EQ(footprint.readChunks, expected);
}

TEST(RepeatedLaunches, ALaunchThatReadsWhatItWroteHasNoFootprint) {
  Memory m;
  RepeatedLaunches repeats;
  RepeatedLaunches::Probe probe;
  repeats.lookup(key(1), m.device, probe);
  FootprintRecorder footprint;
  footprint.memory(event(AccessType::Read, m.out + 64));
  footprint.memory(event(AccessType::Write, m.out));
  repeats.learnFootprint(key(1), footprint, m.device, {}, RepeatedLaunches::Outcome{});
  EXPECT_FALSE(repeats.lookup(key(1), m.device, probe));
  FootprintRecorder atomics;  // an atomic reads and writes its word
  atomics.memory(event(AccessType::AtomicRmw, m.out, 1));
  repeats.learnFootprint(key(2), atomics, m.device, {}, RepeatedLaunches::Outcome{});
  repeats.lookup(key(2), m.device, probe);
  EXPECT_FALSE(repeats.lookup(key(2), m.device, probe));
}

// simpleStreams launches `g_data[idx] += *factor` 501 times: each reads what
// it wrote, so no footprint can be kept, and recording them was 4% of the run.
TEST(RepeatedLaunches, KeysWhoseLaunchesReadWhatTheyWroteStopRecordingFootprints) {
  Memory m;
  RepeatedLaunches repeats;
  RepeatedLaunches::Probe probe;
  auto launch = [&] {
    repeats.lookup(key(1), m.device, probe);
    if (!repeats.wantsFootprint(probe.keyHash)) return false;
    FootprintRecorder footprint;
    footprint.memory(event(AccessType::Read, m.out));
    footprint.memory(event(AccessType::Write, m.out));
    repeats.learnFootprint(key(1), footprint, m.device, {}, RepeatedLaunches::Outcome{});
    return true;
  };
  uint32_t recorded = 0;
  for (uint32_t i = 0; i < 2 * RepeatedLaunches::kFootprintRetryEvery; ++i) recorded += launch();
  EXPECT_EQ(recorded, RepeatedLaunches::kMaxFootprintRefusals + 2) << "the first ones, then a try every 32nd";
  // Another key is recorded still, and a kept footprint starts the count again.
  repeats.lookup(key(2), m.device, probe);
  EXPECT_TRUE(repeats.wantsFootprint(probe.keyHash));
  for (uint32_t i = 0; i < 3; ++i) {
    repeats.lookup(key(2), m.device, probe);
    ASSERT_TRUE(repeats.wantsFootprint(probe.keyHash));
    FootprintRecorder footprint;
    footprint.memory(event(AccessType::Read, m.in));
    footprint.memory(event(AccessType::Write, m.out));
    repeats.learnFootprint(key(2), footprint, m.device, {}, RepeatedLaunches::Outcome{});
  }
}

TEST(RepeatedLaunches, LargeWritesAreReplayedOnlyWhereMemoryHoldsThem) {
  Memory m;
  RepeatedLaunches repeats;
  RepeatedLaunches::Probe probe;
  uint64_t big = m.device.allocate(RepeatedLaunches::kMaxFootprintWriteBytes + 4096, "big");
  FootprintRecorder footprint;
  footprint.memory(event(AccessType::Read, m.in));
  for (uint64_t a = big; a < big + RepeatedLaunches::kMaxFootprintWriteBytes + 4096; a += 128)
    footprint.memory(event(AccessType::Write, a));
  std::memset(reinterpret_cast<void*>(big), 7, RepeatedLaunches::kMaxFootprintWriteBytes + 4096);
  repeats.learnFootprint(key(1), footprint, m.device, {}, RepeatedLaunches::Outcome{});
  EXPECT_TRUE(repeats.lookup(key(1), m.device, probe)) << "memory holds what the launch wrote";
  *reinterpret_cast<uint8_t*>(big + 100) = 8;
  EXPECT_FALSE(repeats.lookup(key(1), m.device, probe)) << "the bytes were not kept: cannot restore them";
}

// scan's large-array launches write 27 MB that the next launch (uniformUpdate)
// rewrites: with only the hash of those bytes kept, every later repeat ran
// again (4 s each, 9 times). Outputs of that size keep their bytes.
TEST(RepeatedLaunches, ATensOfMegabytesOutputIsRestoredByTheReplay) {
  Memory m;
  RepeatedLaunches repeats;
  RepeatedLaunches::Probe probe;
  const uint64_t bytes = 27 << 20;
  static_assert(27 << 20 <= RepeatedLaunches::kMaxFootprintWriteBytes);
  uint64_t big = m.device.allocate(bytes, "big");
  FootprintRecorder footprint;
  footprint.memory(event(AccessType::Read, m.in));
  for (uint64_t a = big; a < big + bytes; a += 128) footprint.memory(event(AccessType::Write, a));
  std::memset(reinterpret_cast<void*>(big), 7, bytes);
  repeats.learnFootprint(key(1), footprint, m.device, {}, RepeatedLaunches::Outcome{4, true, 10, 320});
  std::memset(reinterpret_cast<void*>(big), 9, bytes);  // the next kernel rewrote the output
  auto found = repeats.lookup(key(1), m.device, probe);
  ASSERT_TRUE(found) << "the bytes were kept: the replay restores them";
  EXPECT_EQ(found->launch, 4u);
  repeats.apply(probe, m.device);
  EXPECT_EQ(*reinterpret_cast<uint8_t*>(big), 7);
  EXPECT_EQ(*reinterpret_cast<uint8_t*>(big + bytes - 1), 7);
}

// An effect of more than kMaxEagerEffectBytes is kept only when the state it
// came from comes again (FDTD3d's ping-pong launches never repeat, and kept
// 0.6 GB of effects): the first repeat runs, the next ones replay.
TEST(RepeatedLaunches, ALargeEffectIsKeptOnlyWhenItsStateComesAgain) {
  Memory m;
  RepeatedLaunches repeats;
  RepeatedLaunches::Probe probe;
  const uint64_t bytes = RepeatedLaunches::kMaxEagerEffectBytes + (1 << 20);
  uint64_t big = m.device.allocate(bytes, "big");
  ASSERT_FALSE(repeats.lookup(key(1), m.device, probe));  // first sighting
  for (uint64_t run = 0; run < 2; ++run) {
    ASSERT_FALSE(repeats.lookup(key(1), m.device, probe)) << "run " << run << ": no effect stored yet";
    ASSERT_TRUE(probe.hashed);
    std::memset(reinterpret_cast<void*>(big), 7, bytes);  // the launch
    repeats.learn(key(1), probe, m.device, RepeatedLaunches::Outcome{run, true, 1, 32});
    std::memset(reinterpret_cast<void*>(big), 0, bytes);  // the state before it again
  }
  auto found = repeats.lookup(key(1), m.device, probe);
  ASSERT_TRUE(found) << "its state came twice: the second run's effect was kept";
  EXPECT_EQ(found->launch, 1u);
  repeats.apply(probe, m.device);
  EXPECT_EQ(*reinterpret_cast<uint8_t*>(big), 7);
  EXPECT_EQ(*reinterpret_cast<uint8_t*>(big + bytes - 1), 7);
}

TEST(RepeatedLaunches, FootprintsOfInputsThatKeepChangingAreDropped) {
  Memory m;
  RepeatedLaunches repeats;
  RepeatedLaunches::Probe probe;
  FootprintRecorder footprint;
  footprint.memory(event(AccessType::Read, m.in));
  footprint.memory(event(AccessType::Write, m.out));
  repeats.learnFootprint(key(1), footprint, m.device, {}, RepeatedLaunches::Outcome{});
  for (uint32_t i = 0; i < RepeatedLaunches::kMaxMisses; ++i) {
    *m.word(m.in, 0) = i + 1;  // a new input every launch (an iterative solver)
    EXPECT_FALSE(repeats.lookup(key(1), m.device, probe));
  }
  *m.word(m.in, 0) = 0;  // the first input again: its footprint is gone
  EXPECT_FALSE(repeats.lookup(key(1), m.device, probe));
}

TEST(RepeatedLaunches, ConstantsReadWithoutEventsAreInputs) {
  Memory m;
  RepeatedLaunches repeats;
  RepeatedLaunches::Probe probe;
  uint64_t constant = m.device.allocate(64, "const");
  FootprintRecorder footprint;
  footprint.memory(event(AccessType::Write, m.out));
  repeats.learnFootprint(key(1), footprint, m.device, {sim::DeviceMemory::Range{constant, 64}},
                         RepeatedLaunches::Outcome{});
  EXPECT_TRUE(repeats.lookup(key(1), m.device, probe));
  *m.word(constant, 3) = 9;  // cudaMemcpyToSymbol
  EXPECT_FALSE(repeats.lookup(key(1), m.device, probe));
}

}  // namespace
}  // namespace predatar::cudart
