// Shadow memory is per 4-byte word, but accesses to different bytes of one
// word (a char array written by neighbouring threads) do not conflict.
#include <gtest/gtest.h>

#include "analysis/Detector.h"
#include "events/Trace.h"

namespace predatar {
namespace {

Trace byteWrites(uint64_t secondAddress, uint8_t size) {
  Trace t;
  t.kernel.grid = {2, 1, 1};
  t.kernel.block = {32, 1, 1};
  for (uint32_t block : {0u, 1u}) {
    MemoryEvent e;
    e.lanes = {block, 0, 1};
    e.type = AccessType::Write;
    e.size = size;
    e.address[0] = block == 0 ? 0x1000 : secondAddress;
    e.origin = {block, block + 1, Origin::kNoSource};
    t.events.push_back(e);
  }
  return t;
}

bool racy(const std::string& detector, const Trace& t) {
  auto d = makeDetector(detector, {});
  replay(t, *d);
  return !d->races().locations().empty();
}

TEST(ByteGranularity, DifferentBytesOfOneWordDoNotRace) {
  for (const char* d : {"gwcp", "hb", "lockset"}) {
    EXPECT_FALSE(racy(d, byteWrites(0x1001, 1))) << d;
    EXPECT_FALSE(racy(d, byteWrites(0x1002, 2))) << d;
    EXPECT_TRUE(racy(d, byteWrites(0x1000, 1))) << d;
    EXPECT_TRUE(racy(d, byteWrites(0x1000, 4))) << d;
  }
}

TEST(ByteGranularity, AWordWriteRacesWithAByteInside) {
  Trace t = byteWrites(0x1002, 1);
  std::get<MemoryEvent>(t.events[0]).size = 4;
  for (const char* d : {"gwcp", "hb", "lockset"}) EXPECT_TRUE(racy(d, t)) << d;
}

}  // namespace
}  // namespace predatar
