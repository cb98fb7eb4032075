// Device memory: memory the program owns, adopted into the device's address space
// (cudaHostRegister): reachable while adopted, never freed by DeviceMemory;
// and the arena behind cudaMalloc.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "sim/Device.h"
#include "sim/DeviceArena.h"
#include "sim/InitShadow.h"

namespace predatar::sim {
namespace {

uint64_t address(const std::vector<int>& v, size_t index = 0) { return reinterpret_cast<uint64_t>(&v[index]); }

TEST(DeviceMemory, AdoptedMemoryIsFoundUntilDisowned) {
  std::vector<int> host(100);
  DeviceMemory memory;
  ASSERT_TRUE(memory.adopt(address(host), host.size() * sizeof(int), "registered"));
  auto found = memory.find(address(host, 50), sizeof(int));
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->base, address(host));
  EXPECT_FALSE(memory.find(address(host, 99), 2 * sizeof(int)).has_value());  // runs past the end
  EXPECT_TRUE(memory.disown(address(host)).ok());
  EXPECT_FALSE(memory.find(address(host, 50)).has_value());
  EXPECT_FALSE(memory.disown(address(host)).ok());
}

TEST(DeviceMemory, AdoptRefusesOverlapsAndEmptyRanges) {
  std::vector<int> host(100);
  DeviceMemory memory;
  ASSERT_TRUE(memory.adopt(address(host, 10), 10 * sizeof(int), "middle"));
  EXPECT_FALSE(memory.adopt(address(host), 11 * sizeof(int), "overlaps the start"));
  EXPECT_FALSE(memory.adopt(address(host, 19), sizeof(int), "inside"));
  EXPECT_FALSE(memory.adopt(address(host, 30), 0, "empty"));
  EXPECT_TRUE(memory.adopt(address(host, 20), sizeof(int), "adjacent"));
  uint64_t own = memory.allocate(64);
  EXPECT_FALSE(memory.adopt(own + 8, 8, "inside an allocation"));
}

TEST(DeviceMemory, AdoptedMemoryIsNotFreed) {
  std::vector<int> host(16);
  {
    DeviceMemory memory;
    ASSERT_TRUE(memory.adopt(address(host), host.size() * sizeof(int), "registered"));
    EXPECT_FALSE(memory.free(address(host)).ok());  // cudaFreeHost of registered memory
  }  // the destructor leaves it alone (ASan would report a bad free)
  host[0] = 1;
  EXPECT_EQ(host[0], 1);
}

// The arena behind cudaMalloc (sim/DeviceArena.h): closed, host code cannot
// touch it; protection changes in whole 2 MiB granules (huge pages), so
// allocations that cross a granule, and blocks reused after a free, still
// read as zero and are reachable while open.
TEST(DeviceArena, OpensAndClosesInWholeGranules) {
  auto arena = DeviceArena::reserve(uint64_t(1) << 30);
  ASSERT_NE(arena, nullptr);
  uint64_t small = arena->allocate(1000);
  uint64_t large = arena->allocate(uint64_t(3) << 20);  // crosses granules
  ASSERT_NE(small, 0u);
  ASSERT_NE(large, 0u);
  arena->open();
  auto* bytes = reinterpret_cast<uint8_t*>(large);
  EXPECT_EQ(bytes[(uint64_t(3) << 20) - 1], 0);
  bytes[(uint64_t(3) << 20) - 1] = 7;
  arena->open();  // nested: the inner close leaves it open
  arena->close();
  EXPECT_EQ(bytes[(uint64_t(3) << 20) - 1], 7);
  arena->close();
  EXPECT_FALSE(arena->isOpen());
  EXPECT_DEATH(static_cast<void>(*reinterpret_cast<volatile uint8_t*>(small)), "");
  arena->free(large);
  uint64_t again = arena->allocate(uint64_t(3) << 20);  // the freed block, zero again
  ASSERT_EQ(again, large);
  arena->open();
  EXPECT_EQ(reinterpret_cast<uint8_t*>(again)[(uint64_t(3) << 20) - 1], 0);
  uint64_t base = 0, size = 0;
  EXPECT_TRUE(arena->blockOf(again + 5, base, size));
  EXPECT_EQ(base, again);
  arena->close();
}

// --initcheck's bits (sim/InitShadow.h): ranges across 64-byte words, copies
// that carry written and unwritten bytes over, untracked memory as written.
TEST(InitShadow, TracksWrittenBytesAcrossWords) {
  InitShadow shadow;
  const uint64_t base = 0x10000, other = 0x20000;
  shadow.track(base, 200);
  EXPECT_EQ(shadow.firstUnwritten(base, 4), 0u);
  shadow.markWritten(base + 60, 70);  // bytes 60..129: parts of three words
  EXPECT_FALSE(shadow.firstUnwritten(base + 60, 70));
  EXPECT_EQ(shadow.firstUnwritten(base + 56, 8), 0u);
  shadow.markWritten(base, 4);
  EXPECT_EQ(shadow.firstUnwritten(base, 8), 4u);
  EXPECT_EQ(shadow.firstUnwritten(base + 128, 4), 2u);
  EXPECT_FALSE(shadow.firstUnwritten(base + 500, 4));  // not tracked
  shadow.markWritten(base + 190, 100);                   // clamped at the end
  EXPECT_FALSE(shadow.firstUnwritten(base + 190, 10));
  shadow.track(other, 64);
  shadow.copy(other, base + 56, 64);  // source bytes 56..59 unwritten, 60..119 written
  EXPECT_EQ(shadow.firstUnwritten(other, 64), 0u);
  EXPECT_FALSE(shadow.firstUnwritten(other + 4, 60));
  shadow.copy(other, 0x90000, 4);  // an untracked source counts as written
  EXPECT_FALSE(shadow.firstUnwritten(other, 64));
  shadow.untrack(base);
  shadow.track(base, 200);  // allocated again: unwritten again
  EXPECT_EQ(shadow.firstUnwritten(base + 60, 4), 0u);
}

}  // namespace
}  // namespace predatar::sim
