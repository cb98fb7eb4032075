// Device memory: memory the program owns, adopted into the device's address space
// (cudaHostRegister): reachable while adopted, never freed by DeviceMemory;
// and the arena behind cudaMalloc.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "sim/Device.h"
#include "sim/DeviceArena.h"

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

}  // namespace
}  // namespace predatar::sim
