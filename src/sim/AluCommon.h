// Building blocks of the ALU handlers (private to sim/Alu.cpp): typed access
// to 64-bit register slots, rounding and flushing, the per-lane loops every
// handler is made of, and the comparison of setp/set.
#pragma once

#include <cfenv>
#include <cmath>
#include <limits>
#include <type_traits>

#include "sim/Exec.h"
#include "sim/HalfFloat.h"

namespace predatar::sim::alu {

using ptx::Instr;
using ptx::Op;
using ptx::Type;

// ---------------------------------------------------------------- values

struct Half { uint16_t bits; };
struct BHalf { uint16_t bits; };

template <class T> inline T get(uint64_t v) {
  if constexpr (std::is_same_v<T, float>) return std::bit_cast<float>(uint32_t(v));
  else if constexpr (std::is_same_v<T, double>) return std::bit_cast<double>(v);
  else if constexpr (std::is_same_v<T, bool>) return v != 0;
  else return T(v);
}
// An f32 NaN that arithmetic produces is the canonical 0x7FFFFFFF, whatever
// the NaN it came from (measured on an H200: 0/0, inf-inf, sqrt(-1), a NaN
// operand's payload, neg, abs, a cvt from f64; bench/native/RESULTS.md, round
// 48). The host's would be 0xFFC00000 or the operand's payload. f64 and f16
// NaNs are left as the host makes them (not measured).
constexpr uint32_t kCanonicalNanF32 = 0x7FFFFFFFu;

template <class T> inline uint64_t put(T v) {
  if constexpr (std::is_same_v<T, float>) return v != v ? kCanonicalNanF32 : std::bit_cast<uint32_t>(v);
  else if constexpr (std::is_same_v<T, double>) return std::bit_cast<uint64_t>(v);
  else if constexpr (std::is_same_v<T, bool>) return v ? 1 : 0;
  else return uint64_t(std::make_unsigned_t<T>(v));
}

template <class T> using U = std::make_unsigned_t<T>;

inline float flush(float v) { return std::fpclassify(v) == FP_SUBNORMAL ? std::copysign(0.0f, v) : v; }
inline double flush(double v) { return v; }
template <class T> inline T saturate(T v) {
  if (std::isnan(v)) return T(0);
  return v < T(0) ? T(0) : v > T(1) ? T(1) : v;
}

struct RoundScope {
  int saved = -1;
  explicit RoundScope(ptx::Round r) {
    int mode = -1;
    if (r == ptx::Round::Rz) mode = FE_TOWARDZERO;
    else if (r == ptx::Round::Rm) mode = FE_DOWNWARD;
    else if (r == ptx::Round::Rp) mode = FE_UPWARD;
    if (mode >= 0) { saved = std::fegetround(); std::fesetround(mode); }
  }
  ~RoundScope() { if (saved >= 0) std::fesetround(saved); }
};

// ---------------------------------------------------------------- generic loops

template <class T, class F>
void unaryLoop(Ctx& x, const Instr& in, uint32_t m, F f) {
  uint64_t* d = D(x, in.dst[0]);
  const uint64_t* a = S(x, in.src[0]);
  forLanes(m, [&](uint32_t l) { d[l] = put<T>(f(get<T>(a[l]))); });
}
template <class T, class F>
void binaryLoop(Ctx& x, const Instr& in, uint32_t m, F f) {
  uint64_t* d = D(x, in.dst[0]);
  const uint64_t* a = S(x, in.src[0]);
  const uint64_t* b = S(x, in.src[1]);
  forLanes(m, [&](uint32_t l) { d[l] = put<T>(f(get<T>(a[l]), get<T>(b[l]))); });
}
template <class T, class F>
void ternaryLoop(Ctx& x, const Instr& in, uint32_t m, F f) {
  uint64_t* d = D(x, in.dst[0]);
  const uint64_t* a = S(x, in.src[0]);
  const uint64_t* b = S(x, in.src[1]);
  const uint64_t* c = S(x, in.src[2]);
  forLanes(m, [&](uint32_t l) { d[l] = put<T>(f(get<T>(a[l]), get<T>(b[l]), get<T>(c[l]))); });
}

// Float ops honour .ftz/.sat and non-default rounding.
template <class T, class F>
void floatBinary(Ctx& x, const Instr& in, uint32_t m, F f) {
  RoundScope rs(in.round);
  if (!in.ftz && !in.sat) return binaryLoop<T>(x, in, m, f);
  binaryLoop<T>(x, in, m, [&](T a, T b) {
    if (in.ftz) { a = flush(a); b = flush(b); }
    T r = f(a, b);
    if (in.ftz) r = flush(r);
    return in.sat ? saturate(r) : r;
  });
}
template <class T, class F>
void floatUnary(Ctx& x, const Instr& in, uint32_t m, F f) {
  RoundScope rs(in.round);
  if (!in.ftz && !in.sat) return unaryLoop<T>(x, in, m, f);
  unaryLoop<T>(x, in, m, [&](T a) {
    if (in.ftz) a = flush(a);
    T r = f(a);
    if (in.ftz) r = flush(r);
    return in.sat ? saturate(r) : r;
  });
}

// ---------------------------------------------------------------- comparison

template <class T> inline bool compare(ptx::Cmp c, T a, T b) {
  using ptx::Cmp;
  if constexpr (std::is_floating_point_v<T>) {
    bool un = std::isnan(a) || std::isnan(b);
    switch (c) {
      case Cmp::Eq: return !un && a == b;
      case Cmp::Ne: return !un && a != b;
      case Cmp::Lt: case Cmp::Lo: return !un && a < b;
      case Cmp::Le: case Cmp::Ls: return !un && a <= b;
      case Cmp::Gt: case Cmp::Hi: return !un && a > b;
      case Cmp::Ge: case Cmp::Hs: return !un && a >= b;
      case Cmp::Equ: return un || a == b;
      case Cmp::Neu: return un || a != b;
      case Cmp::Ltu: return un || a < b;
      case Cmp::Leu: return un || a <= b;
      case Cmp::Gtu: return un || a > b;
      case Cmp::Geu: return un || a >= b;
      case Cmp::Num: return !un;
      case Cmp::Nan: return un;
    }
    return false;
  } else {
    using UT = std::make_unsigned_t<T>;
    switch (c) {
      case Cmp::Eq: case Cmp::Equ: return a == b;
      case Cmp::Ne: case Cmp::Neu: return a != b;
      case Cmp::Lt: case Cmp::Ltu: return a < b;
      case Cmp::Le: case Cmp::Leu: return a <= b;
      case Cmp::Gt: case Cmp::Gtu: return a > b;
      case Cmp::Ge: case Cmp::Geu: return a >= b;
      case Cmp::Lo: return UT(a) < UT(b);
      case Cmp::Ls: return UT(a) <= UT(b);
      case Cmp::Hi: return UT(a) > UT(b);
      case Cmp::Hs: return UT(a) >= UT(b);
      case Cmp::Num: return true;
      case Cmp::Nan: return false;
    }
    return false;
  }
}

}  // namespace predatar::sim::alu
