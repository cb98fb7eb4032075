// The memory of exact repeats (cudart/runtime/RepeatedLaunches.h): a launch is
// found again only when its key and the whole reachable memory repeat, and
// applying it leaves memory as the launch that ran did.
#include "cudart/runtime/RepeatedLaunches.h"

#include <gtest/gtest.h>

#include <cstring>

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
  k.kernel = &k;  // any stable pointer
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
  repeats.apply(probe);
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

}  // namespace
}  // namespace predatar::cudart
