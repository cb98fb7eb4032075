// Floating-point handlers: f32/f64 and f16/bf16 (scalar and x2), each a loop
// over the active lanes (private to sim/Alu.cpp).
#pragma once

#include "ptx/Contraction.h"
#include "sim/AluCommon.h"

namespace predatar::sim::alu {

using ptx::Instr;
using ptx::Op;
using ptx::Type;

// ---------------------------------------------------------------- float ops

template <class T> void fAdd(Ctx& x, const Instr& in, uint32_t m) { floatBinary<T>(x, in, m, [](T a, T b) { return a + b; }); }
template <class T> void fSub(Ctx& x, const Instr& in, uint32_t m) { floatBinary<T>(x, in, m, [](T a, T b) { return a - b; }); }
template <class T> void fMul(Ctx& x, const Instr& in, uint32_t m) { floatBinary<T>(x, in, m, [](T a, T b) { return a * b; }); }
template <class T> void fDiv(Ctx& x, const Instr& in, uint32_t m) { floatBinary<T>(x, in, m, [](T a, T b) { return a / b; }); }
template <class T> void fMin(Ctx& x, const Instr& in, uint32_t m) { floatBinary<T>(x, in, m, [](T a, T b) { return std::fmin(a, b); }); }
template <class T> void fMax(Ctx& x, const Instr& in, uint32_t m) { floatBinary<T>(x, in, m, [](T a, T b) { return std::fmax(a, b); }); }
// Bitwise, as the hardware does it: a NaN keeps its payload.
template <class T> void fCopysign(Ctx& x, const Instr& in, uint32_t m) {
  using Bits = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
  constexpr Bits kSign = Bits(1) << (8 * sizeof(T) - 1);
  binaryLoop<Bits>(x, in, m, [](Bits a, Bits b) { return Bits((b & ~kSign) | (a & kSign)); });
}
// (in.mode: a term negated, as ptx/Contraction.h makes of a mul and a sub)
template <class T> void fFma(Ctx& x, const Instr& in, uint32_t m) {
  RoundScope rs(in.round);
  if (!in.ftz && !in.sat && !in.mode) return ternaryLoop<T>(x, in, m, [](T a, T b, T c) { return std::fma(a, b, c); });
  ternaryLoop<T>(x, in, m, [&](T a, T b, T c) {
    if (in.ftz) { a = flush(a); b = flush(b); c = flush(c); }
    if (in.mode & ptx::kFmaNegateProduct) a = -a;
    if (in.mode & ptx::kFmaNegateAddend) c = -c;
    T r = std::fma(a, b, c);
    if (in.ftz) r = flush(r);
    return in.sat ? saturate(r) : r;
  });
}
// fma with the CPU's FMA instruction, for the plain (no .ftz/.sat) forms:
// std::fma is otherwise a call into libm for every lane, as the build
// targets x86-64 without FMA, and nvcc's PTX is full of fused pairs
// (ptx/Contraction.h). Chosen only when the CPU has the instruction
// (cpuHasFma). Negate: 0 or a ptx::kFmaNegate* term.
#if defined(__x86_64__) && defined(__GNUC__)
inline bool cpuHasFma() {
  static const bool has = __builtin_cpu_supports("fma");
  return has;
}
template <class T, uint8_t Negate>
__attribute__((target("fma"))) void fFmaHardware(Ctx& x, const Instr& in, uint32_t m) {
  RoundScope rs(in.round);
  uint64_t* d = D(x, in.dst[0]);
  const uint64_t* a = S(x, in.src[0]);
  const uint64_t* b = S(x, in.src[1]);
  const uint64_t* c = S(x, in.src[2]);
  for (uint32_t lanes = m; lanes; lanes &= lanes - 1) {
    uint32_t l = uint32_t(std::countr_zero(lanes));
    T av = get<T>(a[l]), bv = get<T>(b[l]), cv = get<T>(c[l]);
    if constexpr (Negate == ptx::kFmaNegateProduct) av = -av;
    if constexpr (Negate == ptx::kFmaNegateAddend) cv = -cv;
    if constexpr (std::is_same_v<T, float>) d[l] = put<T>(__builtin_fmaf(av, bv, cv));
    else d[l] = put<T>(__builtin_fma(av, bv, cv));
  }
}
#else
inline bool cpuHasFma() { return false; }
template <class T, uint8_t Negate> void fFmaHardware(Ctx& x, const Instr& in, uint32_t m) { fFma<T>(x, in, m); }
#endif
template <class T> void fFmaHw(Ctx& x, const Instr& in, uint32_t m) { fFmaHardware<T, 0>(x, in, m); }
template <class T> void fFmaHwNegProduct(Ctx& x, const Instr& in, uint32_t m) {
  fFmaHardware<T, ptx::kFmaNegateProduct>(x, in, m);
}
template <class T> void fFmaHwNegAddend(Ctx& x, const Instr& in, uint32_t m) {
  fFmaHardware<T, ptx::kFmaNegateAddend>(x, in, m);
}
template <class T> void fAbs(Ctx& x, const Instr& in, uint32_t m) { floatUnary<T>(x, in, m, [](T a) { return std::fabs(a); }); }
template <class T> void fNeg(Ctx& x, const Instr& in, uint32_t m) { floatUnary<T>(x, in, m, [](T a) { return -a; }); }
template <class T> void fRcp(Ctx& x, const Instr& in, uint32_t m) { floatUnary<T>(x, in, m, [](T a) { return T(1) / a; }); }
template <class T> void fSqrt(Ctx& x, const Instr& in, uint32_t m) { floatUnary<T>(x, in, m, [](T a) { return std::sqrt(a); }); }
template <class T> void fRsqrt(Ctx& x, const Instr& in, uint32_t m) { floatUnary<T>(x, in, m, [](T a) { return T(1) / std::sqrt(a); }); }
template <class T> void fEx2(Ctx& x, const Instr& in, uint32_t m) { floatUnary<T>(x, in, m, [](T a) { return std::exp2(a); }); }
template <class T> void fLg2(Ctx& x, const Instr& in, uint32_t m) { floatUnary<T>(x, in, m, [](T a) { return std::log2(a); }); }
template <class T> void fSin(Ctx& x, const Instr& in, uint32_t m) { floatUnary<T>(x, in, m, [](T a) { return std::sin(a); }); }
template <class T> void fCos(Ctx& x, const Instr& in, uint32_t m) { floatUnary<T>(x, in, m, [](T a) { return std::cos(a); }); }
template <class T> void fTanh(Ctx& x, const Instr& in, uint32_t m) { floatUnary<T>(x, in, m, [](T a) { return std::tanh(a); }); }
template <class T> void fTestp(Ctx& x, const Instr& in, uint32_t m) {
  uint64_t* d = D(x, in.dst[0]);
  const uint64_t* a = S(x, in.src[0]);
  auto mode = ptx::TestpMode(in.mode);
  forLanes(m, [&](uint32_t l) {
    T v = get<T>(a[l]);
    bool r = false;
    switch (mode) {
      case ptx::TestpMode::Finite: r = std::isfinite(v); break;
      case ptx::TestpMode::Infinite: r = std::isinf(v); break;
      case ptx::TestpMode::Number: r = !std::isnan(v); break;
      case ptx::TestpMode::NotANumber: r = std::isnan(v); break;
      case ptx::TestpMode::Normal: r = std::isnormal(v); break;
      case ptx::TestpMode::Subnormal: r = std::fpclassify(v) == FP_SUBNORMAL; break;
    }
    d[l] = r;
  });
}

// ---------------------------------------------------------------- f16 / bf16 (scalar and x2)

template <class T> inline bool compare(ptx::Cmp c, T a, T b);
template <bool BF> inline double hget(uint16_t h) { return BF ? bf16ToFloat(h) : f16ToFloat(h); }
template <bool BF> inline uint16_t hput(double v) { return BF ? floatToBf16(float(v)) : floatToF16(float(v)); }

template <bool BF, int N, class F>
void halfLoop(Ctx& x, const Instr& in, uint32_t m, int nsrc, F f) {
  uint64_t* d = D(x, in.dst[0]);
  const uint64_t* a = S(x, in.src[0]);
  const uint64_t* b = nsrc > 1 ? S(x, in.src[1]) : a;
  const uint64_t* c = nsrc > 2 ? S(x, in.src[2]) : a;
  forLanes(m, [&](uint32_t l) {
    uint64_t r = 0;
    for (int k = 0; k < N; ++k) {
      double av = hget<BF>(uint16_t(a[l] >> (16 * k))), bv = hget<BF>(uint16_t(b[l] >> (16 * k))),
             cv = hget<BF>(uint16_t(c[l] >> (16 * k)));
      double v = f(av, bv, cv);
      if (in.sat) v = std::isnan(v) ? 0.0 : std::clamp(v, 0.0, 1.0);
      r |= uint64_t(hput<BF>(v)) << (16 * k);
    }
    d[l] = r;
  });
}
template <bool BF, int N> ExecFn halfOp(Op op) {
  switch (op) {
    case Op::Add: return [](Ctx& x, const Instr& in, uint32_t m) { halfLoop<BF, N>(x, in, m, 2, [](double a, double b, double) { return a + b; }); };
    case Op::Sub: return [](Ctx& x, const Instr& in, uint32_t m) { halfLoop<BF, N>(x, in, m, 2, [](double a, double b, double) { return a - b; }); };
    case Op::Mul: return [](Ctx& x, const Instr& in, uint32_t m) { halfLoop<BF, N>(x, in, m, 2, [](double a, double b, double) { return a * b; }); };
    case Op::Fma: case Op::Mad:
      return [](Ctx& x, const Instr& in, uint32_t m) { halfLoop<BF, N>(x, in, m, 3, [](double a, double b, double c) { return std::fma(a, b, c); }); };
    case Op::Min: return [](Ctx& x, const Instr& in, uint32_t m) { halfLoop<BF, N>(x, in, m, 2, [](double a, double b, double) { return std::fmin(a, b); }); };
    case Op::Max: return [](Ctx& x, const Instr& in, uint32_t m) { halfLoop<BF, N>(x, in, m, 2, [](double a, double b, double) { return std::fmax(a, b); }); };
    case Op::Neg: return [](Ctx& x, const Instr& in, uint32_t m) { halfLoop<BF, N>(x, in, m, 1, [](double a, double, double) { return -a; }); };
    case Op::Abs: return [](Ctx& x, const Instr& in, uint32_t m) { halfLoop<BF, N>(x, in, m, 1, [](double a, double, double) { return std::fabs(a); }); };
    default: return nullptr;
  }
}
inline ExecFn halfSelect(const Instr& in) {
  switch (in.type) {
    case Type::F16: return halfOp<false, 1>(in.op);
    case Type::F16x2: return halfOp<false, 2>(in.op);
    case Type::BF16: return halfOp<true, 1>(in.op);
    case Type::BF16x2: return halfOp<true, 2>(in.op);
    default: return nullptr;
  }
}
// A comparison's result `t` combined with setp's or set's predicate operand
// ({!}c, by .and, .or or .xor).
inline bool withPredicate(const Instr& in, bool t, uint64_t c) {
  bool cv = (c != 0) != in.negC;
  if (in.boolOp == ptx::BoolOp::And) return t && cv;
  if (in.boolOp == ptx::BoolOp::Or) return t || cv;
  if (in.boolOp == ptx::BoolOp::Xor) return t != cv;
  return t;
}

template <bool BF, int N> void halfSetp(Ctx& x, const Instr& in, uint32_t m) {
  uint64_t* p = D(x, in.dst[0]);
  uint64_t* q = in.ndst > 1 ? D(x, in.dst[1]) : nullptr;
  const uint64_t* a = S(x, in.src[0]);
  const uint64_t* b = S(x, in.src[1]);
  const uint64_t* c = in.nsrc > 2 ? S(x, in.src[2]) : nullptr;
  // (one half: p and q are the comparison and its negation, each combined
  // with c; a pair: p and q are the two halves' comparisons, each combined)
  auto combined = [&](bool t, uint32_t l) { return c ? withPredicate(in, t, c[l]) : t; };
  forLanes(m, [&](uint32_t l) {
    bool r[2] = {false, false};
    for (int k = 0; k < N; ++k) {
      double av = hget<BF>(uint16_t(a[l] >> (16 * k))), bv = hget<BF>(uint16_t(b[l] >> (16 * k)));
      r[k] = compare<double>(in.cmp, av, bv);
    }
    p[l] = combined(r[0], l);
    if (q) q[l] = combined(N == 1 ? !r[0] : r[1], l);
  });
}

// What `set` writes for true into a destination of type `dtype`: 1.0 in a
// floating-point one, all ones in an integer one; for a pair compare (f16x2,
// bf16x2 sources) the bits of one half, each half set apart.
inline uint32_t setTrueBits(ptx::Type dtype) {
  using ptx::Type;
  switch (dtype) {
    case Type::F32: return 0x3F800000u;
    case Type::F16: case Type::F16x2: return 0x3C00u;
    case Type::BF16: case Type::BF16x2: return 0x3F80u;
    case Type::U16: case Type::S16: case Type::B16: return 0xFFFFu;
    default: return 0xFFFFFFFFu;
  }
}

// set.CmpOp.dtype.{f16,bf16,f16x2,bf16x2}: the comparison of halfSetp,
// written as setTrueBits (per half for a pair: 0xFFFF in a .u32/.s32).
template <bool BF, int N> void halfSet(Ctx& x, const Instr& in, uint32_t m) {
  uint64_t* d = D(x, in.dst[0]);
  const uint64_t* a = S(x, in.src[0]);
  const uint64_t* b = S(x, in.src[1]);
  const uint64_t* c = in.nsrc > 2 ? S(x, in.src[2]) : nullptr;
  uint32_t truth = setTrueBits(in.type2);
  if (N == 2) truth &= 0xFFFFu;
  forLanes(m, [&](uint32_t l) {
    uint64_t bits = 0;
    for (int k = 0; k < N; ++k) {
      double av = hget<BF>(uint16_t(a[l] >> (16 * k))), bv = hget<BF>(uint16_t(b[l] >> (16 * k)));
      bool t = compare<double>(in.cmp, av, bv);
      if (c) t = withPredicate(in, t, c[l]);
      if (t) bits |= uint64_t(truth) << (16 * k);
    }
    d[l] = bits;
  });
}

}  // namespace predatar::sim::alu
