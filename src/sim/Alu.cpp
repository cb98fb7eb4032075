// Arithmetic, logic, conversion and comparison handlers: one function per
// (operation, type), each a loop over the active lanes.
// The operation families are in AluCommon.h, AluInteger.h and AluFloat.h.
#include <cfenv>
#include <cmath>
#include <limits>
#include <type_traits>

#include "sim/AluCommon.h"
#include "sim/AluFloat.h"
#include "sim/AluInteger.h"
#include "sim/Exec.h"
#include "sim/Fp8.h"
#include "sim/HalfFloat.h"

namespace predatar::sim {

using ptx::Instr;
using ptx::Op;
using ptx::Type;
using namespace alu;

namespace {

// ---------------------------------------------------------------- mov / selp / setp

void movAny(Ctx& x, const Instr& in, uint32_t m) {
  uint64_t* d = D(x, in.dst[0]);
  const uint64_t* a = S(x, in.src[0]);
  if (m == 0xFFFFFFFFu) std::memcpy(d, a, 32 * 8);
  else forLanes(m, [&](uint32_t l) { d[l] = a[l]; });
}
template <class T> void movT(Ctx& x, const Instr& in, uint32_t m) {
  unaryLoop<T>(x, in, m, [](T a) { return a; });
}
void movPack(Ctx& x, const Instr& in, uint32_t m) {
  uint64_t* d = D(x, in.dst[0]);
  uint32_t total = ptx::typeBytes(in.type);
  uint32_t part = total / in.nsrc;
  const uint64_t* s[4];
  for (int i = 0; i < in.nsrc; ++i) s[i] = S(x, in.src[i]);
  uint64_t partMask = part >= 8 ? ~0ull : ((1ull << (8 * part)) - 1);
  forLanes(m, [&](uint32_t l) {
    uint64_t v = 0;
    for (int i = 0; i < in.nsrc; ++i) v |= (s[i][l] & partMask) << (8 * part * i);
    d[l] = v;
  });
}
void movUnpack(Ctx& x, const Instr& in, uint32_t m) {
  uint32_t total = ptx::typeBytes(in.type);
  uint32_t part = total / in.ndst;
  const uint64_t* a = S(x, in.src[0]);
  uint64_t partMask = part >= 8 ? ~0ull : ((1ull << (8 * part)) - 1);
  uint64_t tmp[32];
  forLanes(m, [&](uint32_t l) { tmp[l] = a[l]; });
  for (int i = 0; i < in.ndst; ++i) {
    if (in.dst[i] == ptx::kNoRef) continue;
    uint64_t* d = D(x, in.dst[i]);
    forLanes(m, [&](uint32_t l) { d[l] = (tmp[l] >> (8 * part * i)) & partMask; });
  }
}
void movFrameAddr(Ctx& x, const Instr& in, uint32_t m) {
  uint64_t* d = D(x, in.dst[0]);
  Warp& w = *x.W;
  forLanes(m, [&](uint32_t l) { d[l] = w.frameBase[l] + uint64_t(in.addr.offset); });
}
void cvtaFrame(Ctx& x, const Instr& in, uint32_t m) {  // cvta.local of a frame variable: generic
  uint64_t* d = D(x, in.dst[0]);
  Warp& w = *x.W;
  forLanes(m, [&](uint32_t l) { d[l] = kLocalWindow + w.frameBase[l] + uint64_t(in.addr.offset); });
}
void readClock(Ctx& x, const Instr& in, uint32_t m) {
  uint64_t* d = D(x, in.dst[0]);
  uint64_t v = x.L->steps + x.L->clockBase;
  if (in.mode == ptx::kGlobalTimer || in.mode == ptx::kGlobalTimerLo || in.mode == ptx::kGlobalTimerHi) v *= 1;
  if (in.mode == ptx::kClock || in.mode == ptx::kGlobalTimerLo) v = uint32_t(v);
  if (in.mode == ptx::kGlobalTimerHi) v >>= 32;
  forLanes(m, [&](uint32_t l) { d[l] = v; });
}
void activemask(Ctx& x, const Instr& in, uint32_t m) {
  uint64_t* d = D(x, in.dst[0]);
  forLanes(m, [&](uint32_t l) { d[l] = x.groupMask; });
}
void cvta(Ctx& x, const Instr& in, uint32_t m) {
  uint64_t* d = D(x, in.dst[0]);
  const uint64_t* a = S(x, in.src[0]);
  uint64_t window = 0;
  switch (in.space) {
    case ptx::Space::Shared: window = kSharedWindow; break;
    case ptx::Space::Local: window = kLocalWindow; break;
    case ptx::Space::Param: window = kParamWindow; break;
    default: window = 0;
  }
  bool is32 = ptx::typeBytes(in.type) == 4;
  // Shared and local window addresses are 32 bits wide on the hardware, in
  // both directions (a wrapped 32-bit offset stays in the window).
  bool narrow = is32 || in.space == ptx::Space::Shared || in.space == ptx::Space::Local;
  if (in.toGeneric) {
    forLanes(m, [&](uint32_t l) { d[l] = window + (narrow ? uint32_t(a[l]) : a[l]); });
  } else {
    forLanes(m, [&](uint32_t l) {
      uint64_t v = window ? (a[l] & kWindowMask) : a[l];
      d[l] = narrow ? uint32_t(v) : v;
    });
  }
}
template <class T> void selp(Ctx& x, const Instr& in, uint32_t m) {
  uint64_t* d = D(x, in.dst[0]);
  const uint64_t* a = S(x, in.src[0]);
  const uint64_t* b = S(x, in.src[1]);
  const uint64_t* c = S(x, in.src[2]);
  forLanes(m, [&](uint32_t l) { d[l] = c[l] ? a[l] : b[l]; });
}
template <class T, class C> void slct(Ctx& x, const Instr& in, uint32_t m) {
  uint64_t* d = D(x, in.dst[0]);
  const uint64_t* a = S(x, in.src[0]);
  const uint64_t* b = S(x, in.src[1]);
  const uint64_t* c = S(x, in.src[2]);
  forLanes(m, [&](uint32_t l) { d[l] = get<C>(c[l]) >= C(0) ? a[l] : b[l]; });
}

template <class T, ptx::Cmp C> void setpFast(Ctx& x, const Instr& in, uint32_t m) {
  uint64_t* d = D(x, in.dst[0]);
  const uint64_t* a = S(x, in.src[0]);
  const uint64_t* b = S(x, in.src[1]);
  forLanes(m, [&](uint32_t l) { d[l] = compare<T>(C, get<T>(a[l]), get<T>(b[l])); });
}

template <class T> void setpGeneral(Ctx& x, const Instr& in, uint32_t m) {
  uint64_t* p = D(x, in.dst[0]);
  uint64_t* q = in.ndst > 1 ? D(x, in.dst[1]) : nullptr;
  const uint64_t* a = S(x, in.src[0]);
  const uint64_t* b = S(x, in.src[1]);
  const uint64_t* c = in.nsrc > 2 ? S(x, in.src[2]) : nullptr;
  forLanes(m, [&](uint32_t l) {
    bool t = compare<T>(in.cmp, get<T>(a[l]), get<T>(b[l]));
    p[l] = c ? withPredicate(in, t, c[l]) : t;
    if (q) q[l] = c ? withPredicate(in, !t, c[l]) : !t;
  });
}

template <class T> void setInstr(Ctx& x, const Instr& in, uint32_t m) {
  uint64_t* d = D(x, in.dst[0]);
  const uint64_t* a = S(x, in.src[0]);
  const uint64_t* b = S(x, in.src[1]);
  const uint64_t* c = in.nsrc > 2 ? S(x, in.src[2]) : nullptr;
  uint32_t truth = setTrueBits(in.type2);
  forLanes(m, [&](uint32_t l) {
    bool t = compare<T>(in.cmp, get<T>(a[l]), get<T>(b[l]));
    if (c) t = withPredicate(in, t, c[l]);
    d[l] = t ? truth : 0u;
  });
}

// ---------------------------------------------------------------- cvt

template <class T> inline double roundInt(T v, ptx::Round r) {
  switch (r) {
    case ptx::Round::Rni: return std::nearbyint(double(v));
    case ptx::Round::Rzi: return std::trunc(double(v));
    case ptx::Round::Rmi: return std::floor(double(v));
    case ptx::Round::Rpi: return std::ceil(double(v));
    default: return std::nearbyint(double(v));
  }
}
template <class T> inline T roundFloat(T v, ptx::Round r) {
  switch (r) {
    case ptx::Round::Rni: return std::nearbyint(v);
    case ptx::Round::Rzi: return std::trunc(v);
    case ptx::Round::Rmi: return std::floor(v);
    case ptx::Round::Rpi: return std::ceil(v);
    default: return v;
  }
}

// Source reading: f16/bf16 as float.
template <class S> struct SrcT { using type = S; };
template <> struct SrcT<Half> { using type = float; };
template <> struct SrcT<BHalf> { using type = float; };
template <class S> inline typename SrcT<S>::type readSrc(uint64_t v) {
  if constexpr (std::is_same_v<S, Half>) return f16ToFloat(uint16_t(v));
  else if constexpr (std::is_same_v<S, BHalf>) return bf16ToFloat(uint16_t(v));
  else return get<S>(v);
}

template <class Dt, class St> uint64_t convert(St s, const Instr& in) {
  using ptx::Round;
  if constexpr (std::is_same_v<Dt, Half> || std::is_same_v<Dt, BHalf>) {
    float f;
    if constexpr (std::is_floating_point_v<St>) {
      f = float(roundFloat(s, in.round));
      if (in.ftz) f = flush(f);
      if (in.sat) f = saturate(f);
    } else {
      f = float(s);
    }
    return std::is_same_v<Dt, Half> ? floatToF16(f) : floatToBf16(f);
  } else if constexpr (std::is_floating_point_v<Dt>) {
    Dt r;
    if constexpr (std::is_floating_point_v<St>) {
      St v = s;
      if (in.ftz) v = flush(v);
      r = Dt(roundFloat(v, in.round));
      if (in.ftz) r = flush(r);
      if (in.sat) r = saturate(r);
    } else {
      r = Dt(s);
      if (in.sat) r = saturate(r);
    }
    return put<Dt>(r);
  } else {
    if constexpr (std::is_floating_point_v<St>) {
      St v = s;
      if (in.ftz) v = flush(v);
      if (std::isnan(v)) return 0;
      double rd = roundInt(v, in.round);
      if (rd <= double(std::numeric_limits<Dt>::min())) return put<Dt>(std::numeric_limits<Dt>::min());
      if (rd >= double(std::numeric_limits<Dt>::max())) return put<Dt>(std::numeric_limits<Dt>::max());
      return put<Dt>(Dt(rd));
    } else {
      if (in.sat) {
        if constexpr (std::is_signed_v<St>) {
          if (int64_t(s) < int64_t(std::numeric_limits<Dt>::min())) return put<Dt>(std::numeric_limits<Dt>::min());
          if (s > 0 && uint64_t(s) > uint64_t(std::numeric_limits<Dt>::max())) return put<Dt>(std::numeric_limits<Dt>::max());
        } else {
          if (uint64_t(s) > uint64_t(std::numeric_limits<Dt>::max())) return put<Dt>(std::numeric_limits<Dt>::max());
        }
      }
      return put<Dt>(Dt(s));
    }
  }
}

template <class Dt, class St> void cvtHandler(Ctx& x, const Instr& in, uint32_t m) {
  RoundScope rs(in.round);
  uint64_t* d = D(x, in.dst[0]);
  const uint64_t* a = S(x, in.src[0]);
  forLanes(m, [&](uint32_t l) {
    uint64_t v = convert<Dt>(readSrc<St>(a[l]), in);
    // signed integer destinations are kept sign-extended in their register
    if constexpr (std::is_integral_v<Dt> && std::is_signed_v<Dt>) v = uint64_t(int64_t(Dt(v)));
    d[l] = v;
  });
}

// cvt.{rn,rz}{.relu}{.satfinite}.{f16,bf16}.f32 (N = 1) and the packed
// .{f16,bf16}x2.f32 d, a, b (N = 2: a to the upper half, b to the lower).
template <bool BF> uint16_t toHalfBits(float v, const Instr& in) {
  uint16_t h = BF ? floatToBf16(v) : floatToF16(v);  // (to nearest even)
  const uint16_t maxFinite = BF ? 0x7F7F : 0x7BFF, canonicalNan = 0x7FFF;
  if (std::isnan(v)) return in.mode & (ptx::kCvtRelu | ptx::kCvtSatfinite) ? canonicalNan : h;
  // toward zero: one step back in magnitude where rounding went past v (infinity included)
  if (in.round == ptx::Round::Rz && (h & 0x7FFF) != 0 && std::fabs(hget<BF>(h)) > std::fabs(v)) --h;
  if ((in.mode & ptx::kCvtSatfinite) && (h & 0x7FFF) > maxFinite) h = uint16_t((h & 0x8000) | maxFinite);
  if ((in.mode & ptx::kCvtRelu) && (h & 0x8000)) h = 0;
  return h;
}
template <bool BF, int N> void cvtToHalves(Ctx& x, const Instr& in, uint32_t m) {
  uint64_t* d = D(x, in.dst[0]);
  const uint64_t* a = S(x, in.src[0]);
  const uint64_t* b = N == 2 ? S(x, in.src[1]) : a;
  forLanes(m, [&](uint32_t l) {
    uint64_t hi = toHalfBits<BF>(get<float>(a[l]), in);
    d[l] = N == 2 ? (hi << 16) | toHalfBits<BF>(get<float>(b[l]), in) : hi;
  });
}

// cvt.rn.satfinite{.relu}.{e4m3x2,e5m2x2}.f32 d, a, b (a to the upper byte),
// the same from one f16x2 (its upper half to the upper byte), and back:
// cvt.rn{.relu}.f16x2.{e4m3x2,e5m2x2} d, a.
template <bool E4M3, bool FromHalves> void cvtToFp8Pair(Ctx& x, const Instr& in, uint32_t m) {
  uint64_t* d = D(x, in.dst[0]);
  const uint64_t* a = S(x, in.src[0]);
  const uint64_t* b = FromHalves ? a : S(x, in.src[1]);
  bool relu = in.mode & ptx::kCvtRelu;
  forLanes(m, [&](uint32_t l) {
    float hi = FromHalves ? f16ToFloat(uint16_t(a[l] >> 16)) : get<float>(a[l]);
    float lo = FromHalves ? f16ToFloat(uint16_t(a[l])) : get<float>(b[l]);
    d[l] = uint64_t(floatToFp8(hi, E4M3, relu)) << 8 | floatToFp8(lo, E4M3, relu);
  });
}
template <bool E4M3> void cvtFromFp8Pair(Ctx& x, const Instr& in, uint32_t m) {
  uint64_t* d = D(x, in.dst[0]);
  const uint64_t* a = S(x, in.src[0]);
  bool relu = in.mode & ptx::kCvtRelu;
  auto half = [&](uint8_t bits) -> uint64_t {
    float v = fp8ToFloat(bits, E4M3);
    if (relu && std::isnan(v)) return 0x7FFF;
    if (relu && v < 0) return 0;
    return floatToF16(v);
  };
  forLanes(m, [&](uint32_t l) { d[l] = half(uint8_t(a[l] >> 8)) << 16 | half(uint8_t(a[l])); });
}
ExecFn fp8Select(const Instr& in) {
  bool toNearest = in.round == ptx::Round::Rn;
  if (in.type == Type::E4M3x2 || in.type == Type::E5M2x2) {
    bool e4 = in.type == Type::E4M3x2;
    if (!toNearest || !(in.mode & ptx::kCvtSatfinite)) return nullptr;  // (PTX has no other form)
    if (in.type2 == Type::F32) return e4 ? &cvtToFp8Pair<true, false> : &cvtToFp8Pair<false, false>;
    if (in.type2 == Type::F16x2) return e4 ? &cvtToFp8Pair<true, true> : &cvtToFp8Pair<false, true>;
    return nullptr;
  }
  if (in.type != Type::F16x2 || !toNearest || (in.mode & ptx::kCvtSatfinite)) return nullptr;
  return in.type2 == Type::E4M3x2 ? &cvtFromFp8Pair<true> : &cvtFromFp8Pair<false>;
}

// ---------------------------------------------------------------- selection

template <template <class> class H>
ExecFn byInt(Type t) {
  switch (t) {
    case Type::S8: return &H<int8_t>::f;
    case Type::U8: case Type::B8: return &H<uint8_t>::f;
    case Type::S16: return &H<int16_t>::f;
    case Type::U16: case Type::B16: return &H<uint16_t>::f;
    case Type::S32: return &H<int32_t>::f;
    case Type::U32: case Type::B32: return &H<uint32_t>::f;
    case Type::S64: return &H<int64_t>::f;
    case Type::U64: case Type::B64: return &H<uint64_t>::f;
    default: return nullptr;
  }
}
template <template <class> class H>
ExecFn byFloat(Type t) {
  switch (t) {
    case Type::F32: return &H<float>::f;
    case Type::F64: return &H<double>::f;
    default: return nullptr;
  }
}

#define WRAP(name, fn) \
  template <class T> struct name { static void f(Ctx& x, const Instr& in, uint32_t m) { fn<T>(x, in, m); } };
WRAP(HAdd, iAdd) WRAP(HSub, iSub) WRAP(HMul, iMul) WRAP(HMad, iMad) WRAP(HDiv, iDiv) WRAP(HRem, iRem)
WRAP(HAbs, iAbs) WRAP(HNeg, iNeg) WRAP(HMin, iMin) WRAP(HMax, iMax) WRAP(HAnd, bAnd) WRAP(HOr, bOr)
WRAP(HXor, bXor) WRAP(HNot, bNot) WRAP(HCnot, bCnot) WRAP(HShl, iShl) WRAP(HShr, iShr) WRAP(HPopc, iPopc)
WRAP(HBfind, iBfind) WRAP(HClz, iClz) WRAP(HBrev, iBrev) WRAP(HBfe, iBfe) WRAP(HBfi, iBfi) WRAP(HLop3, iLop3) WRAP(HSad, iSad)
WRAP(HFAdd, fAdd) WRAP(HFSub, fSub) WRAP(HFMul, fMul) WRAP(HFDiv, fDiv) WRAP(HFMin, fMin) WRAP(HFMax, fMax)
WRAP(HFFma, fFma) WRAP(HFFmaHw, fFmaHw)
WRAP(HFFmaHwNegProduct, fFmaHwNegProduct) WRAP(HFFmaHwNegAddend, fFmaHwNegAddend)
WRAP(HFAbs, fAbs) WRAP(HFNeg, fNeg) WRAP(HFRcp, fRcp) WRAP(HFSqrt, fSqrt)
WRAP(HFRsqrt, fRsqrt) WRAP(HFEx2, fEx2) WRAP(HFLg2, fLg2) WRAP(HFSin, fSin) WRAP(HFCos, fCos)
WRAP(HFTanh, fTanh) WRAP(HFCopysign, fCopysign) WRAP(HFTestp, fTestp) WRAP(HSetpG, setpGeneral)
WRAP(HSet, setInstr) WRAP(HMov, movT)
#undef WRAP

template <class T> ExecFn setpFor(ptx::Cmp c) {
  using ptx::Cmp;
  switch (c) {
    case Cmp::Eq: return &setpFast<T, Cmp::Eq>;
    case Cmp::Ne: return &setpFast<T, Cmp::Ne>;
    case Cmp::Lt: return &setpFast<T, Cmp::Lt>;
    case Cmp::Le: return &setpFast<T, Cmp::Le>;
    case Cmp::Gt: return &setpFast<T, Cmp::Gt>;
    case Cmp::Ge: return &setpFast<T, Cmp::Ge>;
    case Cmp::Lo: return &setpFast<T, Cmp::Lo>;
    case Cmp::Ls: return &setpFast<T, Cmp::Ls>;
    case Cmp::Hi: return &setpFast<T, Cmp::Hi>;
    case Cmp::Hs: return &setpFast<T, Cmp::Hs>;
    default: return &setpGeneral<T>;
  }
}
ExecFn setpSelect(const Instr& in) {
  switch (in.type) {
    case Type::F16: return &halfSetp<false, 1>;
    case Type::F16x2: return &halfSetp<false, 2>;
    case Type::BF16: return &halfSetp<true, 1>;
    case Type::BF16x2: return &halfSetp<true, 2>;
    default: break;
  }
  bool fast = in.ndst == 1 && in.nsrc == 2;
  switch (in.type) {
    case Type::S16: return fast ? setpFor<int16_t>(in.cmp) : &setpGeneral<int16_t>;
    case Type::U16: case Type::B16: return fast ? setpFor<uint16_t>(in.cmp) : &setpGeneral<uint16_t>;
    case Type::S32: return fast ? setpFor<int32_t>(in.cmp) : &setpGeneral<int32_t>;
    case Type::U32: case Type::B32: return fast ? setpFor<uint32_t>(in.cmp) : &setpGeneral<uint32_t>;
    case Type::S64: return fast ? setpFor<int64_t>(in.cmp) : &setpGeneral<int64_t>;
    case Type::U64: case Type::B64: return fast ? setpFor<uint64_t>(in.cmp) : &setpGeneral<uint64_t>;
    case Type::F32: return fast ? setpFor<float>(in.cmp) : &setpGeneral<float>;
    case Type::F64: return fast ? setpFor<double>(in.cmp) : &setpGeneral<double>;
    default: return nullptr;
  }
}

template <class Dt> ExecFn cvtFromSrc(Type s) {
  switch (s) {
    case Type::S8: return &cvtHandler<Dt, int8_t>;
    case Type::U8: case Type::B8: return &cvtHandler<Dt, uint8_t>;
    case Type::S16: return &cvtHandler<Dt, int16_t>;
    case Type::U16: case Type::B16: return &cvtHandler<Dt, uint16_t>;
    case Type::S32: return &cvtHandler<Dt, int32_t>;
    case Type::U32: case Type::B32: return &cvtHandler<Dt, uint32_t>;
    case Type::S64: return &cvtHandler<Dt, int64_t>;
    case Type::U64: case Type::B64: return &cvtHandler<Dt, uint64_t>;
    case Type::F16: return &cvtHandler<Dt, Half>;
    case Type::BF16: return &cvtHandler<Dt, BHalf>;
    case Type::F32: return &cvtHandler<Dt, float>;
    case Type::F64: return &cvtHandler<Dt, double>;
    default: return nullptr;
  }
}
ExecFn cvtSelect(const Instr& in) {
  for (Type t : {in.type, in.type2})
    if (t == Type::E4M3x2 || t == Type::E5M2x2) return fp8Select(in);
  bool fromF32 = in.type2 == Type::F32 && !in.ftz && !in.sat &&
                 (in.round == ptx::Round::Rn || in.round == ptx::Round::Rz);
  if (in.type == Type::F16x2) return fromF32 ? &cvtToHalves<false, 2> : nullptr;
  if (in.type == Type::BF16x2) return fromF32 ? &cvtToHalves<true, 2> : nullptr;
  if (in.mode != 0) {  // .relu / .satfinite: f32 to f16 or bf16 only
    if (in.type == Type::F16 && fromF32) return &cvtToHalves<false, 1>;
    if (in.type == Type::BF16 && fromF32) return &cvtToHalves<true, 1>;
    return nullptr;
  }
  switch (in.type) {
    case Type::S8: return cvtFromSrc<int8_t>(in.type2);
    case Type::U8: case Type::B8: return cvtFromSrc<uint8_t>(in.type2);
    case Type::S16: return cvtFromSrc<int16_t>(in.type2);
    case Type::U16: case Type::B16: return cvtFromSrc<uint16_t>(in.type2);
    case Type::S32: return cvtFromSrc<int32_t>(in.type2);
    case Type::U32: case Type::B32: return cvtFromSrc<uint32_t>(in.type2);
    case Type::S64: return cvtFromSrc<int64_t>(in.type2);
    case Type::U64: case Type::B64: return cvtFromSrc<uint64_t>(in.type2);
    case Type::F16: return cvtFromSrc<Half>(in.type2);
    case Type::BF16: return cvtFromSrc<BHalf>(in.type2);
    case Type::F32: return cvtFromSrc<float>(in.type2);
    case Type::F64: return cvtFromSrc<double>(in.type2);
    default: return nullptr;
  }
}

void predAnd(Ctx& x, const Instr& in, uint32_t m) { binaryLoop<uint64_t>(x, in, m, [](uint64_t a, uint64_t b) { return uint64_t((a != 0) & (b != 0)); }); }
void predOr(Ctx& x, const Instr& in, uint32_t m) { binaryLoop<uint64_t>(x, in, m, [](uint64_t a, uint64_t b) { return uint64_t((a != 0) | (b != 0)); }); }
void predXor(Ctx& x, const Instr& in, uint32_t m) { binaryLoop<uint64_t>(x, in, m, [](uint64_t a, uint64_t b) { return uint64_t((a != 0) ^ (b != 0)); }); }
void predNot(Ctx& x, const Instr& in, uint32_t m) { unaryLoop<uint64_t>(x, in, m, [](uint64_t a) { return uint64_t(a == 0); }); }

// fma's handler: the CPU's FMA instruction for the plain forms where it has
// one, else std::fma (which also does .ftz/.sat).
ExecFn floatFma(const Instr& in) {
  if (!cpuHasFma() || in.ftz || in.sat) return byFloat<HFFma>(in.type);
  if (in.mode == ptx::kFmaNegateProduct) return byFloat<HFFmaHwNegProduct>(in.type);
  if (in.mode == ptx::kFmaNegateAddend) return byFloat<HFFmaHwNegAddend>(in.type);
  return byFloat<HFFmaHw>(in.type);
}

}  // namespace

ExecFn selectAlu(const Instr& in, std::string& error) {
  auto pick = [&](ExecFn intFn, ExecFn floatFn) -> ExecFn {
    ExecFn f = ptx::isFloat(in.type) ? floatFn : intFn;
    if (!f) error = std::string("unsupported type .") + ptx::toString(in.type) + " for " + ptx::toString(in.op);
    return f;
  };
  bool isPred = in.type == Type::Pred;
  bool isHalf = in.type == Type::F16 || in.type == Type::F16x2 || in.type == Type::BF16 || in.type == Type::BF16x2;
  if (isHalf && in.op != Op::Cvt && in.op != Op::Setp && in.op != Op::Set && in.op != Op::Mov &&
      in.op != Op::Selp) {
    ExecFn f = halfSelect(in);
    if (!f) error = std::string("unsupported instruction ") + ptx::toString(in.op) + "." + ptx::toString(in.type);
    return f;
  }
  if (isPackedOrRelu(in)) {
    ExecFn f = selectPackedOrRelu(in);
    if (!f) error = std::string("unsupported instruction ") + ptx::toString(in.op) + "." + ptx::toString(in.type);
    return f;
  }
  switch (in.op) {
    case Op::Add: return pick(byInt<HAdd>(in.type), byFloat<HFAdd>(in.type));
    case Op::Sub: return pick(byInt<HSub>(in.type), byFloat<HFSub>(in.type));
    case Op::Mul: return pick(byInt<HMul>(in.type), byFloat<HFMul>(in.type));
    case Op::Mad: return pick(byInt<HMad>(in.type), floatFma(in));  // mad.f32/f64 is fma
    case Op::Fma: return pick(nullptr, floatFma(in));
    case Op::Div: return pick(byInt<HDiv>(in.type), byFloat<HFDiv>(in.type));
    case Op::Rem: return pick(byInt<HRem>(in.type), nullptr);
    case Op::Abs: return pick(byInt<HAbs>(in.type), byFloat<HFAbs>(in.type));
    case Op::Neg: return pick(byInt<HNeg>(in.type), byFloat<HFNeg>(in.type));
    case Op::Min: return pick(byInt<HMin>(in.type), byFloat<HFMin>(in.type));
    case Op::Max: return pick(byInt<HMax>(in.type), byFloat<HFMax>(in.type));
    case Op::And: return isPred ? &predAnd : pick(byInt<HAnd>(in.type), nullptr);
    case Op::Or: return isPred ? &predOr : pick(byInt<HOr>(in.type), nullptr);
    case Op::Xor: return isPred ? &predXor : pick(byInt<HXor>(in.type), nullptr);
    case Op::Not: return isPred ? &predNot : pick(byInt<HNot>(in.type), nullptr);
    case Op::Cnot: return pick(byInt<HCnot>(in.type), nullptr);
    case Op::Shl: return pick(byInt<HShl>(in.type), nullptr);
    case Op::Shr: return pick(byInt<HShr>(in.type), nullptr);
    case Op::Popc: return pick(byInt<HPopc>(in.type), nullptr);
    case Op::Clz: return pick(byInt<HClz>(in.type), nullptr);
    case Op::Brev: return pick(byInt<HBrev>(in.type), nullptr);
    case Op::Bfe: return pick(byInt<HBfe>(in.type), nullptr);
    case Op::Bfi: return pick(byInt<HBfi>(in.type), nullptr);
    case Op::Prmt: return &iPrmt;
    case Op::Shf: return &iShf;
    case Op::Bfind: return pick(byInt<HBfind>(in.type), nullptr);
    case Op::Isspacep: return &isspacep;
    case Op::Lop3: return pick(byInt<HLop3>(in.type), nullptr);
    case Op::Sad: return pick(byInt<HSad>(in.type), nullptr);
    case Op::Copysign: return pick(nullptr, byFloat<HFCopysign>(in.type));
    case Op::Rcp: return pick(nullptr, byFloat<HFRcp>(in.type));
    case Op::Sqrt: return pick(nullptr, byFloat<HFSqrt>(in.type));
    case Op::Rsqrt: return pick(nullptr, byFloat<HFRsqrt>(in.type));
    case Op::Ex2: return pick(nullptr, byFloat<HFEx2>(in.type));
    case Op::Lg2: return pick(nullptr, byFloat<HFLg2>(in.type));
    case Op::Sin: return pick(nullptr, byFloat<HFSin>(in.type));
    case Op::Cos: return pick(nullptr, byFloat<HFCos>(in.type));
    case Op::Tanh: return pick(nullptr, byFloat<HFTanh>(in.type));
    case Op::Testp: return pick(nullptr, byFloat<HFTestp>(in.type));
    case Op::Cvt: {
      ExecFn f = cvtSelect(in);
      if (!f)
        error = std::string("unsupported conversion cvt") + (in.mode & ptx::kCvtRelu ? ".relu" : "") +
                (in.mode & ptx::kCvtSatfinite ? ".satfinite" : "") + "." + ptx::toString(in.type) + "." +
                ptx::toString(in.type2);
      return f;
    }
    case Op::Setp: {
      ExecFn f = setpSelect(in);
      if (!f) error = std::string("unsupported type .") + ptx::toString(in.type) + " for setp";
      return f;
    }
    case Op::Set: {
      ExecFn f = nullptr;
      switch (in.type) {
        case Type::F32: f = &setInstr<float>; break;
        case Type::F64: f = &setInstr<double>; break;
        case Type::F16: f = &halfSet<false, 1>; break;
        case Type::F16x2: f = &halfSet<false, 2>; break;
        case Type::BF16: f = &halfSet<true, 1>; break;
        case Type::BF16x2: f = &halfSet<true, 2>; break;
        default: f = byInt<HSet>(in.type);
      }
      if (!f) error = "unsupported type for set";
      return f;
    }
    case Op::Selp: return &selp<uint64_t>;
    case Op::Slct:
      if (in.type2 == Type::F32) return &slct<uint64_t, float>;
      return &slct<uint64_t, int32_t>;
    case Op::Mov: {
      if (in.type == Type::F32 || in.type == Type::B32 || in.type == Type::U32 || in.type == Type::S32)
        return &movT<uint32_t>;
      if (in.type == Type::B16 || in.type == Type::U16 || in.type == Type::S16 || in.type == Type::F16)
        return &movT<uint16_t>;
      return &movAny;
    }
    case Op::MovPack: return &movPack;
    case Op::MovUnpack: return &movUnpack;
    case Op::MovFrameAddr: return (in.toGeneric && in.space == ptx::Space::Local) ? &cvtaFrame : &movFrameAddr;
    case Op::ReadClock: return &readClock;
    case Op::Cvta: return &cvta;
    case Op::Activemask: return &activemask;
    default: break;
  }
  error = std::string("unsupported instruction ") + ptx::toString(in.op);
  return nullptr;
}

}  // namespace predatar::sim
