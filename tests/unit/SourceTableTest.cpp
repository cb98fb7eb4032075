// SourceTable: a module's source positions, made when first read and shared
// by every copy (KernelInfo::sources).
#include "events/SourceTable.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

namespace predatar {
namespace {

SourceTable countingTable(uint32_t size, std::atomic<int>& calls) {
  return SourceTable::resolvedOnUse(size, [&calls](uint32_t i) {
    ++calls;
    return SourcePosition{"k.cu", i + 1, 0, {InlinedCall{"caller", "k.cu", 100 + i, 1}}};
  });
}

TEST(SourceTable, APositionIsMadeOnceWhenFirstReadAndCopiesShareIt) {
  std::atomic<int> calls = 0;
  SourceTable table = countingTable(1000, calls);
  EXPECT_EQ(table.size(), 1000u);
  EXPECT_EQ(calls, 0);
  SourceTable copy = table;
  EXPECT_EQ(copy[7].line, 8u);
  EXPECT_EQ(table[7].inlinedInto.at(0).line, 107u);
  EXPECT_EQ(&copy[7], &table[7]);
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(table.made(), 1u);
}

TEST(SourceTable, PositionsAppendedToACopyAreItsOwn) {
  std::atomic<int> calls = 0;
  SourceTable table = countingTable(3, calls);
  SourceTable copy = table;
  copy.push_back(SourcePosition{"other.cu", 42, 3});
  EXPECT_EQ(table.size(), 3u);
  ASSERT_EQ(copy.size(), 4u);
  EXPECT_EQ(copy[3].file, "other.cu");
  EXPECT_EQ(copy[2].line, 3u);
  EXPECT_THROW((void)table.at(3), std::out_of_range);
  EXPECT_EQ(copy.at(3).line, 42u);
}

TEST(SourceTable, AListIsATableToo) {
  SourceTable list = {{"a.cu", 1, 2}, {"b.cu", 3, 4}};
  ASSERT_EQ(list.size(), 2u);
  EXPECT_EQ(list[1].file, "b.cu");
  EXPECT_EQ(list.made(), 0u);
  EXPECT_TRUE(SourceTable().empty());
}

// Detector threads and the runtime may read one module's table at once.
TEST(SourceTable, ReadersOnSeveralThreadsGetTheSamePositions) {
  std::atomic<int> calls = 0;
  SourceTable table = countingTable(5000, calls);
  std::vector<const SourcePosition*> seen[2];
  auto read = [&](int r) {
    SourceTable mine = table;
    for (uint32_t i = 0; i < mine.size(); ++i) seen[r].push_back(&mine[i]);
  };
  std::thread a(read, 0), b(read, 1);
  a.join();
  b.join();
  EXPECT_EQ(seen[0], seen[1]);
  EXPECT_EQ(calls, 5000);
}

}  // namespace
}  // namespace predatar
