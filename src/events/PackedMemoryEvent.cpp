#include "events/PackedMemoryEvent.h"

#include <bit>
#include <cstring>
#include <type_traits>

namespace predatar {
namespace {

enum class AddressForm : uint8_t {
  Affine,  // then a base and a stride: address[l] = base + l * stride in the mask, 0 outside it
  Listed,  // then a lane mask and the address of each lane in it, in lane order; 0 elsewhere
};

// Every field of the event but the addresses.
struct Header {
  WarpLanes lanes;
  Origin origin;
  LaneMask lockLanes;
  LaneMask beforeDependencyWait;
  LaneMask unchangedWrites;
  AccessType type;
  bool strong;
  bool isVolatile;
  Scope scope;
  AtomicOp op;
  MemorySpace space;
  uint8_t size;
  AddressForm form;
};
static_assert(std::is_trivially_copyable_v<Header>);
// A field added to MemoryEvent must be packed too (and this size updated).
static_assert(sizeof(MemoryEvent) == 312 || sizeof(void*) != 8, "MemoryEvent changed: pack its new field");

template <class T>
std::byte* put(std::byte* out, const T& value) {
  std::memcpy(out, &value, sizeof value);
  return out + sizeof value;
}

template <class T>
const std::byte* get(const std::byte* in, T& value) {
  std::memcpy(&value, in, sizeof value);
  return in + sizeof value;
}

// Whether the addresses are affine in the lane over the mask (and 0 outside
// it, as the emulator leaves them): the stride comes from the first two lanes
// of the mask, and every lane is checked against it.
bool isAffine(const MemoryEvent& e, uint64_t& base, uint64_t& stride) {
  LaneMask mask = e.lanes.mask;
  uint32_t first = mask ? uint32_t(std::countr_zero(mask)) : 0;
  uint32_t end = kWarpSize - uint32_t(std::countl_zero(mask));  // past the last lane of the mask
  base = 0;
  stride = 0;
  if (LaneMask rest = mask & (mask - 1); rest != 0) {
    uint32_t second = uint32_t(std::countr_zero(rest));
    auto step = int64_t(e.address[second] - e.address[first]);
    auto distance = int64_t(second - first);
    if (step % distance != 0) return false;
    stride = uint64_t(step / distance);
  }
  if (mask != 0) base = e.address[first] - first * stride;
  // (Differences or'ed rather than a branch a lane; a mask of consecutive
  // lanes, the common case, needs no lane's bit either.)
  uint64_t differences = 0;
  if (uint32_t(std::popcount(mask)) == end - first) {
    for (uint32_t l = 0; l < first; ++l) differences |= e.address[l];
    for (uint32_t l = first; l < end; ++l) differences |= e.address[l] ^ (base + l * stride);
    for (uint32_t l = end; l < kWarpSize; ++l) differences |= e.address[l];
  } else {
    for (uint32_t l = 0; l < kWarpSize; ++l)
      differences |= e.address[l] ^ ((base + l * stride) & -uint64_t(mask >> l & 1));
  }
  return differences == 0;
}

}  // namespace

size_t maxPackedMemoryEventBytes() { return sizeof(Header) + sizeof(LaneMask) + kWarpSize * sizeof(uint64_t); }

std::byte* pack(const MemoryEvent& e, std::byte* out) {
  Header h{e.lanes, e.origin,  e.lockLanes, e.beforeDependencyWait, e.unchangedWrites, e.type, e.strong,
           e.isVolatile, e.scope, e.op, e.space, e.size, AddressForm::Affine};
  uint64_t base = 0, stride = 0;
  if (isAffine(e, base, stride)) {
    out = put(out, h);
    out = put(out, base);
    return put(out, stride);
  }
  h.form = AddressForm::Listed;
  out = put(out, h);
  LaneMask held = 0;
  for (uint32_t l = 0; l < kWarpSize; ++l) held |= LaneMask(e.address[l] != 0) << l;
  out = put(out, held);
  for (LaneMask m = held; m != 0; m &= m - 1) out = put(out, e.address[std::countr_zero(m)]);
  return out;
}

const std::byte* unpack(const std::byte* in, MemoryEvent& e) {
  Header h;
  in = get(in, h);
  e.lanes = h.lanes;
  e.origin = h.origin;
  e.lockLanes = h.lockLanes;
  e.beforeDependencyWait = h.beforeDependencyWait;
  e.unchangedWrites = h.unchangedWrites;
  e.type = h.type;
  e.strong = h.strong;
  e.isVolatile = h.isVolatile;
  e.scope = h.scope;
  e.op = h.op;
  e.space = h.space;
  e.size = h.size;
  if (h.form == AddressForm::Affine) {
    uint64_t base = 0, stride = 0;
    in = get(in, base);
    in = get(in, stride);
    for (uint32_t l = 0; l < kWarpSize; ++l) e.address[l] = (h.lanes.mask >> l & 1) ? base + l * stride : 0;
    return in;
  }
  LaneMask held = 0;
  in = get(in, held);
  e.address.fill(0);
  for (LaneMask m = held; m != 0; m &= m - 1) in = get(in, e.address[std::countr_zero(m)]);
  return in;
}

}  // namespace predatar
