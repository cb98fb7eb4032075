#include "sim/LockInference.h"

#include <gtest/gtest.h>

namespace predatar::sim {
namespace {

LockInference::Addresses all(uint64_t a) {
  LockInference::Addresses r{};
  r.fill(a);
  return r;
}

TEST(LockInference, CasThenFenceAcquiresFenceThenExchReleases) {
  LockInference li;
  li.reset(64);
  LockInference::Addresses locks{};
  Scope scope;
  li.cas(0, 0b11, 0b01, all(0x100), Scope::Device);  // lane 0 wins, lane 1 fails
  EXPECT_EQ(li.fence(0, 0b11, Scope::Device, locks, scope), 0b01u);
  EXPECT_EQ(locks[0], 0x100u);
  EXPECT_EQ(scope, Scope::Device);
  EXPECT_EQ(li.held(0), std::vector<uint64_t>{0x100});
  // the critical section's accesses clear nothing that matters
  li.access(0, 0b01);
  // exch without a preceding fence does not release
  EXPECT_EQ(li.exch(0, 0b01, all(0x100), Scope::Device, locks, scope), 0u);
  li.cas(0, 0b01, 0b01, all(0x100), Scope::Device);  // (re-take to test again)
  LockInference li2;
  li2.reset(64);
  li2.cas(32, 0b100, 0b100, all(0x200), Scope::Block);
  EXPECT_EQ(li2.fence(32, 0b100, Scope::Device, locks, scope), 0b100u);
  EXPECT_EQ(scope, Scope::Block);  // narrower of CAS and fence scopes
  EXPECT_EQ(li2.fence(32, 0b100, Scope::Device, locks, scope), 0u);  // fence before release
  EXPECT_EQ(li2.exch(32, 0b100, all(0x200), Scope::Device, locks, scope), 0b100u);
  EXPECT_EQ(locks[2], 0x200u);
  EXPECT_TRUE(li2.held(34).empty());
}

TEST(LockInference, AccessBetweenCasAndFenceCancels) {
  LockInference li;
  li.reset(32);
  LockInference::Addresses locks{};
  Scope scope;
  li.cas(0, 1, 1, all(0x40), Scope::Device);
  li.access(0, 1);
  EXPECT_EQ(li.fence(0, 1, Scope::Device, locks, scope), 0u);
}

TEST(LockInference, ExchOnOtherAddressDoesNotRelease) {
  LockInference li;
  li.reset(32);
  LockInference::Addresses locks{};
  Scope scope;
  li.cas(0, 1, 1, all(0x40), Scope::Device);
  ASSERT_EQ(li.fence(0, 1, Scope::Device, locks, scope), 1u);
  li.fence(0, 1, Scope::Device, locks, scope);
  EXPECT_EQ(li.exch(0, 1, all(0x80), Scope::Device, locks, scope), 0u);
  EXPECT_EQ(li.held(0), std::vector<uint64_t>{0x40});
}

}  // namespace
}  // namespace predatar::sim
