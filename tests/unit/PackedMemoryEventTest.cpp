// events/PackedMemoryEvent: unpack(pack(e)) is e, field by field and lane by
// lane, whatever the addresses (affine or not, lanes outside the mask
// holding addresses or not), and affine warps pack small.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "events/PackedMemoryEvent.h"

namespace predatar {
namespace {

void expectSame(const MemoryEvent& a, const MemoryEvent& b) {
  EXPECT_EQ(a.lanes.block, b.lanes.block);
  EXPECT_EQ(a.lanes.warp, b.lanes.warp);
  EXPECT_EQ(a.lanes.mask, b.lanes.mask);
  EXPECT_EQ(a.type, b.type);
  EXPECT_EQ(a.strong, b.strong);
  EXPECT_EQ(a.isVolatile, b.isVolatile);
  EXPECT_EQ(a.lockLanes, b.lockLanes);
  EXPECT_EQ(a.scope, b.scope);
  EXPECT_EQ(a.op, b.op);
  EXPECT_EQ(a.space, b.space);
  EXPECT_EQ(a.size, b.size);
  EXPECT_EQ(a.address, b.address);
  EXPECT_EQ(a.origin, b.origin);
  EXPECT_EQ(a.beforeDependencyWait, b.beforeDependencyWait);
  EXPECT_EQ(a.unchangedWrites, b.unchangedWrites);
}

// Packs `e`, checks the bytes written against the bound, unpacks into an
// event full of other values.
size_t roundTrip(const MemoryEvent& e) {
  std::vector<std::byte> bytes(maxPackedMemoryEventBytes() + 8);
  std::byte* end = pack(e, bytes.data() + 1);  // (unaligned on purpose)
  size_t written = size_t(end - (bytes.data() + 1));
  EXPECT_LE(written, maxPackedMemoryEventBytes());
  MemoryEvent back;
  back.address.fill(0xdead);
  back.lanes.mask = 7;
  back.origin.seq = 99;
  EXPECT_EQ(unpack(bytes.data() + 1, back), end);
  expectSame(e, back);
  return written;
}

MemoryEvent withEveryField(LaneMask mask) {
  MemoryEvent e;
  e.lanes = WarpLanes{17, 3, mask};
  e.type = AccessType::AtomicRmw;
  e.strong = true;
  e.isVolatile = true;
  e.lockLanes = mask & 0x0f0f0f0f;
  e.scope = Scope::Block;
  e.op = AtomicOp::Cas;
  e.space = MemorySpace::Shared;
  e.size = 8;
  e.origin = Origin{123456789, 0x4a0, 7};
  e.beforeDependencyWait = mask & 0x3;
  e.unchangedWrites = mask & 0x30;
  return e;
}

TEST(PackedMemoryEvent, AFullCoalescedWarpPacksAsBaseAndStride) {
  MemoryEvent e = withEveryField(~0u);
  for (uint32_t l = 0; l < kWarpSize; ++l) e.address[l] = 0x7f0000001000 + 4 * l;
  size_t coalesced = roundTrip(e);
  for (uint32_t l = 0; l < kWarpSize; ++l) e.address[l] = 0x7f0000001000 + 4 * ((l * 7) % kWarpSize);
  size_t scattered = roundTrip(e);
  EXPECT_LT(coalesced * 3, scattered);
}

TEST(PackedMemoryEvent, AffineShapes) {
  const LaneMask masks[] = {0, 1, 0x80000000u, 0xffffu, 0xffff0000u, 0x0ff0u, 0x5555u, 0x80000001u, ~0u};
  const int64_t strides[] = {0, 4, -4, 8, 1, -1024, int64_t(1) << 40};
  for (LaneMask mask : masks)
    for (int64_t stride : strides) {
      MemoryEvent e = withEveryField(mask);
      for (uint32_t l = 0; l < kWarpSize; ++l)
        if (mask >> l & 1) e.address[l] = 0x10000000 + uint64_t(stride) * l;
      SCOPED_TRACE(::testing::Message() << "mask " << std::hex << mask << " stride " << std::dec << stride);
      roundTrip(e);
    }
}

// Not affine: a lane off the line, a step that does not divide by the
// distance between the first two lanes, an address in a lane outside the
// mask, a zero address in the mask, addresses that wrap around.
TEST(PackedMemoryEvent, AddressesThatAreNotAffine) {
  MemoryEvent e = withEveryField(~0u);
  for (uint32_t l = 0; l < kWarpSize; ++l) e.address[l] = 0x1000 + 4 * l;
  e.address[20] += 1;
  roundTrip(e);

  e = withEveryField(0b101);
  e.address[0] = 0x1000;
  e.address[2] = 0x1003;
  roundTrip(e);

  e = withEveryField(0xffu);
  for (uint32_t l = 0; l < 8; ++l) e.address[l] = 0x1000 + 4 * l;
  e.address[31] = 0x2000;
  roundTrip(e);

  e = withEveryField(0xffu);
  for (uint32_t l = 0; l < 8; ++l) e.address[l] = l == 3 ? 0 : 0x1000 + 4 * l;
  roundTrip(e);

  e = withEveryField(~0u);
  for (uint32_t l = 0; l < kWarpSize; ++l) e.address[l] = UINT64_MAX - 8 * 16 + 8 * l;
  roundTrip(e);
}

TEST(PackedMemoryEvent, RandomEvents) {
  std::mt19937_64 rng(13);
  for (int i = 0; i < 20000; ++i) {
    MemoryEvent e = withEveryField(LaneMask(rng()));
    uint64_t base = rng() % 3 == 0 ? rng() : rng() % 4096;
    uint64_t stride = rng() % 5 == 0 ? rng() : rng() % 16;
    for (uint32_t l = 0; l < kWarpSize; ++l) {
      bool inMask = e.lanes.mask >> l & 1;
      if (inMask || rng() % 8 == 0) e.address[l] = rng() % 4 == 0 ? rng() : base + stride * l;
    }
    SCOPED_TRACE(i);
    roundTrip(e);
  }
}

}  // namespace
}  // namespace predatar
