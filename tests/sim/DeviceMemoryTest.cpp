// Memory the program owns, adopted into the device's address space
// (cudaHostRegister): reachable while adopted, never freed by DeviceMemory.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "sim/Device.h"

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

}  // namespace
}  // namespace predatar::sim
