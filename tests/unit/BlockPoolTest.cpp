// BlockPool (analysis/BlockPool.h): heap blocks given back are taken again by
// the next block of their size.
#include "analysis/BlockPool.h"

#include <gtest/gtest.h>

namespace predatar {
namespace {

TEST(BlockPool, ABlockGivenBackIsTakenAgainForItsSizeOnly) {
  BlockPool pool;
  void* a = pool.take(40);
  pool.give(a, 40);
  void* other = pool.take(64);  // another size: a new block
  EXPECT_NE(other, a);
  EXPECT_EQ(pool.take(48), a);  // (sizes are taken in steps of 16: 40 is 48)
  void* large = pool.take(5000);  // beyond the indexed sizes
  pool.give(large, 5000);
  EXPECT_EQ(pool.take(5000), large);
  pool.give(other, 64);
  pool.give(a, 48);
  pool.give(large, 5000);
}

}  // namespace
}  // namespace predatar
