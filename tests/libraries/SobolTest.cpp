// The Sobol direction numbers of predatar's cuRAND (src/libraries/curand/Sobol.h).
#include "libraries/curand/Sobol.h"

#include <gtest/gtest.h>

#include <set>

namespace predatar::libraries {
namespace {

// Point p of dimension d, as CurandKernels.cu computes it (Gray code order).
uint32_t point(const std::vector<uint32_t>& v, uint32_t d, uint32_t p) {
  uint32_t x = 0;
  for (uint32_t gray = p ^ (p >> 1), bit = 0; gray; gray >>= 1, ++bit)
    if (gray & 1) x ^= v[32 * d + bit];
  return x;
}

TEST(Sobol, TheFirstTwoDimensionsAreTheClassicOnes) {
  auto v = sobolDirections(2);
  const uint32_t half = 1u << 31, quarter = 1u << 30;
  EXPECT_EQ(point(v, 0, 1), half);
  EXPECT_EQ(point(v, 0, 2), half + quarter);
  EXPECT_EQ(point(v, 0, 3), quarter);
  EXPECT_EQ(point(v, 1, 1), half);
  EXPECT_EQ(point(v, 1, 2), quarter);
  EXPECT_EQ(point(v, 1, 3), half + quarter);
}

// Every dimension of a Sobol sequence is a (0,m,1)-net in base 2: its first
// 2^m points fall one in each interval [i/2^m, (i+1)/2^m): the recurrence
// must keep v_k's leading bit at position k in every dimension.
TEST(Sobol, EveryDimensionFillsEachDyadicIntervalOnce) {
  const uint32_t dims = 300, m = 10;
  auto v = sobolDirections(dims);
  ASSERT_EQ(v.size(), size_t(dims) * 32);
  for (uint32_t d = 0; d < dims; ++d) {
    std::set<uint32_t> cells;
    for (uint32_t p = 0; p < (1u << m); ++p) cells.insert(point(v, d, p) >> (32 - m));
    ASSERT_EQ(cells.size(), size_t(1) << m) << "dimension " << d;
  }
}

// Dimensions 0 and 1 together are a (0,m,2)-net: 2^m points, one in each
// elementary interval of area 2^-m, for every split of m bits into x and y.
TEST(Sobol, TheFirstTwoDimensionsTogetherAreANet) {
  auto v = sobolDirections(2);
  const uint32_t m = 8;
  for (uint32_t xBits = 0; xBits <= m; ++xBits) {
    std::set<std::pair<uint32_t, uint32_t>> cells;
    for (uint32_t p = 0; p < (1u << m); ++p) {
      uint32_t x = xBits ? point(v, 0, p) >> (32 - xBits) : 0;
      uint32_t yBits = m - xBits;
      uint32_t y = yBits ? point(v, 1, p) >> (32 - yBits) : 0;
      cells.insert({x, y});
    }
    EXPECT_EQ(cells.size(), size_t(1) << m) << xBits << " bits of x";
  }
}

// There are phi(2^d - 1) / d primitive polynomials of degree d: 1, 1, 2, 2,
// 6, 6, 18, 16 for d = 1..8; the first of degree 5 are x^5+x^2+1 and x^5+x^3+1.
TEST(Sobol, PrimitivePolynomialsInOrderOfDegree) {
  auto p = primitivePolynomials(60);
  ASSERT_EQ(p.size(), 60u);
  EXPECT_EQ(std::vector<uint64_t>(p.begin(), p.begin() + 8), (std::vector<uint64_t>{3, 7, 11, 13, 19, 25, 37, 41}));
  int perDegree[10] = {};
  for (uint64_t q : p) ++perDegree[63 - __builtin_clzll(q)];
  EXPECT_EQ(std::vector<int>(perDegree + 1, perDegree + 9), (std::vector<int>{1, 1, 2, 2, 6, 6, 18, 16}));
}

TEST(Sobol, SixtyFourBitDirectionsExtendTheThirtyTwoBitOnes) {
  auto v32 = sobolDirections(50);
  auto v64 = sobolDirections64(50);
  ASSERT_EQ(v64.size(), size_t(50) * 64);
  for (uint32_t d = 0; d < 50; ++d)
    for (uint32_t k = 0; k < 32; ++k) ASSERT_EQ(uint32_t(v64[64 * d + k] >> 32), v32[32 * d + k]) << d << " " << k;
}

TEST(Sobol, AsManyDimensionsAsCuRand) {
  auto v = sobolDirections(kMaxSobolDimensions);
  ASSERT_EQ(v.size(), size_t(kMaxSobolDimensions) * 32);
  std::set<std::vector<uint32_t>> distinct;
  for (uint32_t d = 0; d < kMaxSobolDimensions; ++d)
    distinct.insert(std::vector<uint32_t>(v.begin() + 32 * d, v.begin() + 32 * (d + 1)));
  EXPECT_EQ(distinct.size(), kMaxSobolDimensions) << "every dimension has its own directions";
}

}  // namespace
}  // namespace predatar::libraries
