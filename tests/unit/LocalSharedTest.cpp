#include "clock/LocalShared.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace predatar {
namespace {

TEST(LocalShared, CopiesShareAndTheLastHolderFrees) {
  auto a = LocalShared<std::vector<std::string>>::make(3, "x");
  EXPECT_EQ(a.use_count(), 1u);
  auto b = a;
  EXPECT_EQ(a.use_count(), 2u);
  EXPECT_TRUE(a == b);
  EXPECT_EQ(b->size(), 3u);
  auto c = std::move(b);
  EXPECT_FALSE(b);
  EXPECT_EQ(c.use_count(), 2u);
  a.reset();
  EXPECT_EQ(a.get(), nullptr);
  EXPECT_EQ(c.use_count(), 1u);  // (ASan: the vector is freed once, when c goes)
  c = c;  // NOLINT: self-assignment keeps the object
  EXPECT_EQ((*c)[2], "x");
  LocalShared<std::vector<std::string>> none = nullptr;
  EXPECT_EQ(none.use_count(), 0u);
  c = none;
  EXPECT_FALSE(c);
}

TEST(LocalSharedArray, OneAllocationSharedUntilTheLastHolder) {
  auto a = LocalSharedArray<uint32_t>::make(40);
  for (uint32_t i = 0; i < 40; ++i) a[i] = i * 3;
  auto b = a;
  EXPECT_EQ(b.use_count(), 2u);
  EXPECT_EQ(b.get(), a.get());
  EXPECT_EQ(b[39], 117u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a.get()) % alignof(uint64_t), 0u);
  a = LocalSharedArray<uint32_t>::make(1);
  EXPECT_EQ(b.use_count(), 1u);
  EXPECT_FALSE(a == b);
  b.reset();
  EXPECT_FALSE(b);
  EXPECT_EQ(b.use_count(), 0u);
}

// An object whose constructor throws leaves no allocation behind (the
// sanitizer build's leak check would name it).
TEST(LocalShared, AConstructorThatThrowsGivesItsMemoryBack) {
  struct Throws {
    Throws() { throw std::runtime_error("out of memory"); }
  };
  EXPECT_THROW(LocalShared<Throws>::make(), std::runtime_error);
}

// Clocks' memory is mimalloc's, not the process's malloc (ClockMemory.h), in
// every build but the sanitizer one, where the system heap keeps ASan's checks.
TEST(ClockMemory, ClocksLiveOnMimallocsHeapOutsideTheSanitizerBuild) {
  auto array = LocalSharedArray<uint32_t>::make(64);
  auto object = LocalShared<std::vector<int>>::make(3, 7);
#ifdef PREDATAR_CLOCKS_ON_SYSTEM_HEAP
  GTEST_SKIP() << "sanitizer build: clocks on the system heap";
#else
  EXPECT_TRUE(mi_is_in_heap_region(array.get()));
  EXPECT_TRUE(mi_is_in_heap_region(object.get()));
  EXPECT_EQ((*object)[2], 7);
#endif
}

}  // namespace
}  // namespace predatar
