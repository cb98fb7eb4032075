// IEEE half (f16) and bfloat16 (bf16) conversions to and from float, rounding
// to nearest even, and the f16/bf16 atomic value types (scalar and x2) that
// Memory.cpp's atomics apply.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>

#include "ptx/Ir.h"

namespace predatar::sim {

inline float f16ToFloat(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000) << 16, exp = (h >> 10) & 0x1F, man = h & 0x3FF, f;
  if (exp == 0) {
    if (man == 0) f = sign;
    else {
      exp = 127 - 15 + 1;
      while (!(man & 0x400)) { man <<= 1; --exp; }
      man &= 0x3FF;
      f = sign | (exp << 23) | (man << 13);
    }
  } else if (exp == 31) f = sign | 0x7F800000 | (man << 13);
  else f = sign | ((exp + 127 - 15) << 23) | (man << 13);
  return std::bit_cast<float>(f);
}

inline uint16_t floatToF16(float v) {
  uint32_t x = std::bit_cast<uint32_t>(v);
  uint32_t sign = (x >> 16) & 0x8000;
  int32_t exp = int32_t((x >> 23) & 0xFF) - 127 + 15;
  uint32_t man = x & 0x7FFFFF;
  if (((x >> 23) & 0xFF) == 0xFF) return uint16_t(sign | 0x7C00 | (man ? 0x200 : 0));
  if (exp >= 31) return uint16_t(sign | 0x7C00);
  if (exp <= 0) {
    if (exp < -10) return uint16_t(sign);
    man |= 0x800000;
    uint32_t shift = uint32_t(14 - exp);
    uint32_t h = man >> shift, rem = man & ((1u << shift) - 1), half = 1u << (shift - 1);
    if (rem > half || (rem == half && (h & 1))) ++h;
    return uint16_t(sign | h);
  }
  uint32_t h = sign | (uint32_t(exp) << 10) | (man >> 13);
  uint32_t rem = man & 0x1FFF;
  if (rem > 0x1000 || (rem == 0x1000 && (h & 1))) ++h;
  return uint16_t(h);
}

inline float bf16ToFloat(uint16_t h) { return std::bit_cast<float>(uint32_t(h) << 16); }
inline uint16_t floatToBf16(float v) {
  uint32_t x = std::bit_cast<uint32_t>(v);
  if (std::isnan(v)) return uint16_t((x >> 16) | 0x40);
  return uint16_t((x + 0x7FFF + ((x >> 16) & 1)) >> 16);
}

// An atomic operand of N halves (f16 or bf16) packed in Bits: add, min and
// max per half (computed in double, rounded once to the half format), exch
// and cas on the bits.
template <bool BF, int N, class Bits>
struct HalfAtomic {
  Bits bits;
  bool operator==(const HalfAtomic&) const = default;
  static double get(Bits v, int i) {
    uint16_t h = uint16_t(v >> (16 * i));
    return BF ? bf16ToFloat(h) : f16ToFloat(h);
  }
  static HalfAtomic apply(ptx::AtomOp op, HalfAtomic old, HalfAtomic b, HalfAtomic c) {
    if (op == ptx::AtomOp::Exch) return b;
    if (op == ptx::AtomOp::Cas) return old == b ? c : old;
    Bits out = 0;
    for (int i = 0; i < N; ++i) {
      double x = get(old.bits, i), y = get(b.bits, i);
      double r = op == ptx::AtomOp::Add ? x + y : op == ptx::AtomOp::Min ? std::fmin(x, y)
                 : op == ptx::AtomOp::Max ? std::fmax(x, y) : x;
      uint16_t h = BF ? floatToBf16(float(r)) : floatToF16(float(r));
      out |= Bits(Bits(h) << (16 * i));
    }
    return HalfAtomic{out};
  }
};
using F16Atomic = HalfAtomic<false, 1, uint16_t>;
using BF16Atomic = HalfAtomic<true, 1, uint16_t>;
using F16x2Atomic = HalfAtomic<false, 2, uint32_t>;
using BF16x2Atomic = HalfAtomic<true, 2, uint32_t>;

}  // namespace predatar::sim
