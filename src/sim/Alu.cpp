// Arithmetic, logic, conversion and comparison handlers: one function per
// (operation, type), each a loop over the active lanes.
#include <cfenv>
#include <cmath>
#include <limits>
#include <type_traits>

#include "sim/Exec.h"
#include "sim/HalfFloat.h"

namespace predatar::sim {

using ptx::Instr;
using ptx::Op;
using ptx::Type;

namespace {

// ---------------------------------------------------------------- values

struct Half { uint16_t bits; };
struct BHalf { uint16_t bits; };

template <class T> inline T get(uint64_t v) {
  if constexpr (std::is_same_v<T, float>) return std::bit_cast<float>(uint32_t(v));
  else if constexpr (std::is_same_v<T, double>) return std::bit_cast<double>(v);
  else if constexpr (std::is_same_v<T, bool>) return v != 0;
  else return T(v);
}
template <class T> inline uint64_t put(T v) {
  if constexpr (std::is_same_v<T, float>) return std::bit_cast<uint32_t>(v);
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

// ---------------------------------------------------------------- integer ops

template <class T> void iAdd(Ctx& x, const Instr& in, uint32_t m) {
  if constexpr (std::is_same_v<T, int32_t>)
    if (in.sat) return binaryLoop<T>(x, in, m, [](T a, T b) {
      int64_t r = int64_t(a) + b; return T(std::clamp<int64_t>(r, INT32_MIN, INT32_MAX)); });
  binaryLoop<T>(x, in, m, [](T a, T b) { return T(U<T>(a) + U<T>(b)); });
}
template <class T> void iSub(Ctx& x, const Instr& in, uint32_t m) {
  if constexpr (std::is_same_v<T, int32_t>)
    if (in.sat) return binaryLoop<T>(x, in, m, [](T a, T b) {
      int64_t r = int64_t(a) - b; return T(std::clamp<int64_t>(r, INT32_MIN, INT32_MAX)); });
  binaryLoop<T>(x, in, m, [](T a, T b) { return T(U<T>(a) - U<T>(b)); });
}
template <class T> struct Wider;
template <> struct Wider<int8_t> { using type = int16_t; };
template <> struct Wider<uint8_t> { using type = uint16_t; };
template <> struct Wider<int16_t> { using type = int32_t; };
template <> struct Wider<uint16_t> { using type = uint32_t; };
template <> struct Wider<int32_t> { using type = int64_t; };
template <> struct Wider<uint32_t> { using type = uint64_t; };
template <> struct Wider<int64_t> { using type = __int128; };
template <> struct Wider<uint64_t> { using type = unsigned __int128; };

template <class T> inline T mulHi(T a, T b) {
  using W = typename Wider<T>::type;
  return T((W(a) * W(b)) >> (8 * sizeof(T)));
}
template <class T> void iMul(Ctx& x, const Instr& in, uint32_t m) {
  switch (ptx::MulMode(in.mode)) {
    case ptx::MulMode::Lo: return binaryLoop<T>(x, in, m, [](T a, T b) { return T(U<T>(a) * U<T>(b)); });
    case ptx::MulMode::Hi: return binaryLoop<T>(x, in, m, [](T a, T b) { return mulHi(a, b); });
    case ptx::MulMode::Wide:
      if constexpr (sizeof(T) <= 4) {
        using W = typename Wider<T>::type;
        uint64_t* d = D(x, in.dst[0]);
        const uint64_t* a = S(x, in.src[0]);
        const uint64_t* b = S(x, in.src[1]);
        forLanes(m, [&](uint32_t l) { d[l] = put<W>(W(get<T>(a[l])) * W(get<T>(b[l]))); });
      }
      return;
  }
}
template <class T> void iMad(Ctx& x, const Instr& in, uint32_t m) {
  const uint64_t* a = S(x, in.src[0]);
  const uint64_t* b = S(x, in.src[1]);
  const uint64_t* c = S(x, in.src[2]);
  uint64_t* d = D(x, in.dst[0]);
  switch (ptx::MulMode(in.mode)) {
    case ptx::MulMode::Lo:
      forLanes(m, [&](uint32_t l) {
        d[l] = put<T>(T(U<T>(get<T>(a[l])) * U<T>(get<T>(b[l])) + U<T>(get<T>(c[l]))));
      });
      return;
    case ptx::MulMode::Hi:
      forLanes(m, [&](uint32_t l) {
        d[l] = put<T>(T(U<T>(mulHi(get<T>(a[l]), get<T>(b[l]))) + U<T>(get<T>(c[l]))));
      });
      return;
    case ptx::MulMode::Wide:
      if constexpr (sizeof(T) <= 4) {
        using W = typename Wider<T>::type;
        forLanes(m, [&](uint32_t l) {
          d[l] = put<W>(W(U<W>(W(get<T>(a[l])) * W(get<T>(b[l]))) + U<W>(get<W>(c[l]))));
        });
      }
      return;
  }
}
template <class T> void iDiv(Ctx& x, const Instr& in, uint32_t m) {
  binaryLoop<T>(x, in, m, [](T a, T b) -> T {
    if (b == 0) return T(-1);
    if constexpr (std::is_signed_v<T>) if (a == std::numeric_limits<T>::min() && b == -1) return a;
    return T(a / b);
  });
}
template <class T> void iRem(Ctx& x, const Instr& in, uint32_t m) {
  binaryLoop<T>(x, in, m, [](T a, T b) -> T {
    if (b == 0) return a;
    if constexpr (std::is_signed_v<T>) if (b == -1) return 0;
    return T(a % b);
  });
}
template <class T> void iAbs(Ctx& x, const Instr& in, uint32_t m) {
  unaryLoop<T>(x, in, m, [](T a) { return a < 0 ? T(U<T>(0) - U<T>(a)) : a; });
}
template <class T> void iNeg(Ctx& x, const Instr& in, uint32_t m) {
  unaryLoop<T>(x, in, m, [](T a) { return T(U<T>(0) - U<T>(a)); });
}
template <class T> void iMin(Ctx& x, const Instr& in, uint32_t m) { binaryLoop<T>(x, in, m, [](T a, T b) { return a < b ? a : b; }); }
template <class T> void iMax(Ctx& x, const Instr& in, uint32_t m) { binaryLoop<T>(x, in, m, [](T a, T b) { return a > b ? a : b; }); }
template <class T> void bAnd(Ctx& x, const Instr& in, uint32_t m) { binaryLoop<T>(x, in, m, [](T a, T b) { return T(a & b); }); }
template <class T> void bOr(Ctx& x, const Instr& in, uint32_t m) { binaryLoop<T>(x, in, m, [](T a, T b) { return T(a | b); }); }
template <class T> void bXor(Ctx& x, const Instr& in, uint32_t m) { binaryLoop<T>(x, in, m, [](T a, T b) { return T(a ^ b); }); }
template <class T> void bNot(Ctx& x, const Instr& in, uint32_t m) {
  if constexpr (std::is_same_v<T, bool>) unaryLoop<T>(x, in, m, [](T a) { return !a; });
  else unaryLoop<T>(x, in, m, [](T a) { return T(~a); });
}
template <class T> void bCnot(Ctx& x, const Instr& in, uint32_t m) { unaryLoop<T>(x, in, m, [](T a) { return T(a == 0 ? 1 : 0); }); }
template <class T> void iShl(Ctx& x, const Instr& in, uint32_t m) {
  uint64_t* d = D(x, in.dst[0]);
  const uint64_t* a = S(x, in.src[0]);
  const uint64_t* b = S(x, in.src[1]);
  forLanes(m, [&](uint32_t l) {
    uint32_t s = uint32_t(b[l]);
    d[l] = put<T>(s >= 8 * sizeof(T) ? T(0) : T(U<T>(get<T>(a[l])) << s));
  });
}
template <class T> void iShr(Ctx& x, const Instr& in, uint32_t m) {
  uint64_t* d = D(x, in.dst[0]);
  const uint64_t* a = S(x, in.src[0]);
  const uint64_t* b = S(x, in.src[1]);
  forLanes(m, [&](uint32_t l) {
    uint32_t s = uint32_t(b[l]);
    T v = get<T>(a[l]);
    if (s >= 8 * sizeof(T)) d[l] = put<T>(std::is_signed_v<T> && v < 0 ? T(-1) : T(0));
    else d[l] = put<T>(T(v >> s));
  });
}
template <class T> void iPopc(Ctx& x, const Instr& in, uint32_t m) {
  uint64_t* d = D(x, in.dst[0]);
  const uint64_t* a = S(x, in.src[0]);
  forLanes(m, [&](uint32_t l) { d[l] = uint32_t(std::popcount(U<T>(get<T>(a[l])))); });
}
template <class T> void iClz(Ctx& x, const Instr& in, uint32_t m) {
  uint64_t* d = D(x, in.dst[0]);
  const uint64_t* a = S(x, in.src[0]);
  forLanes(m, [&](uint32_t l) { d[l] = uint32_t(std::countl_zero(U<T>(get<T>(a[l])))); });
}
template <class T> void iBrev(Ctx& x, const Instr& in, uint32_t m) {
  unaryLoop<T>(x, in, m, [](T a) {
    U<T> v = U<T>(a), r = 0;
    for (unsigned i = 0; i < 8 * sizeof(T); ++i) { r = U<T>((r << 1) | (v & 1)); v >>= 1; }
    return T(r);
  });
}
template <class T> void iBfe(Ctx& x, const Instr& in, uint32_t m) {
  uint64_t* d = D(x, in.dst[0]);
  const uint64_t* a = S(x, in.src[0]);
  const uint64_t* b = S(x, in.src[1]);
  const uint64_t* c = S(x, in.src[2]);
  constexpr uint32_t bits = 8 * sizeof(T);
  forLanes(m, [&](uint32_t l) {
    U<T> v = U<T>(get<T>(a[l]));
    uint32_t pos = uint32_t(b[l]) & 0xFF, len = uint32_t(c[l]) & 0xFF;
    bool sbit;
    if constexpr (std::is_signed_v<T>) {
      uint32_t top = std::min(pos + len, bits) - 1;
      sbit = len == 0 ? false : ((v >> std::min(top, bits - 1)) & 1);
      if (pos >= bits) sbit = (v >> (bits - 1)) & 1;
    } else {
      sbit = false;
    }
    U<T> r = 0;
    for (uint32_t i = 0; i < bits; ++i) {
      bool bit = (i < len && pos + i < bits) ? ((v >> (pos + i)) & 1) : sbit;
      if (i >= len) bit = sbit;
      r |= U<T>(bit) << i;
    }
    d[l] = put<T>(T(r));
  });
}
template <class T> void iBfi(Ctx& x, const Instr& in, uint32_t m) {
  uint64_t* d = D(x, in.dst[0]);
  const uint64_t* a = S(x, in.src[0]);
  const uint64_t* b = S(x, in.src[1]);
  const uint64_t* c = S(x, in.src[2]);
  const uint64_t* e = S(x, in.src[3]);
  constexpr uint32_t bits = 8 * sizeof(T);
  forLanes(m, [&](uint32_t l) {
    U<T> av = U<T>(get<T>(a[l])), r = U<T>(get<T>(b[l]));
    uint32_t pos = uint32_t(c[l]) & 0xFF, len = uint32_t(e[l]) & 0xFF;
    for (uint32_t i = 0; i < len && pos + i < bits; ++i) {
      r = U<T>(r & ~(U<T>(1) << (pos + i)));
      r = U<T>(r | (((av >> i) & 1) << (pos + i)));
    }
    d[l] = put<T>(T(r));
  });
}
void iPrmt(Ctx& x, const Instr& in, uint32_t m) {
  uint64_t* d = D(x, in.dst[0]);
  const uint64_t* a = S(x, in.src[0]);
  const uint64_t* b = S(x, in.src[1]);
  const uint64_t* c = S(x, in.src[2]);
  uint8_t mode = in.mode;
  forLanes(m, [&](uint32_t l) {
    uint64_t bytes = (uint64_t(uint32_t(b[l])) << 32) | uint32_t(a[l]);
    uint32_t sel = uint32_t(c[l]), r = 0;
    auto byte = [&](uint32_t i) { return uint32_t((bytes >> (8 * (i & 7))) & 0xFF); };
    if (mode == 0) {
      for (int i = 0; i < 4; ++i) {
        uint32_t s = (sel >> (4 * i)) & 0xF;
        uint32_t v = byte(s & 7);
        if (s & 8) v = (v & 0x80) ? 0xFF : 0;
        r |= v << (8 * i);
      }
    } else {
      uint32_t s = sel & 3;
      uint32_t idx[4];
      switch (mode) {
        case 1: for (int i = 0; i < 4; ++i) idx[i] = (s + i) & 7; break;                       // f4e
        case 2: for (int i = 0; i < 4; ++i) idx[i] = (s - i) & 7; break;                       // b4e
        case 3: for (int i = 0; i < 4; ++i) idx[i] = s; break;                                 // rc8
        case 4: for (int i = 0; i < 4; ++i) idx[i] = uint32_t(i) <= s ? uint32_t(i) : s; break; // ecl
        case 5: for (int i = 0; i < 4; ++i) idx[i] = uint32_t(i) >= s ? uint32_t(i) : s; break; // ecr
        default: for (int i = 0; i < 4; ++i) idx[i] = ((s & 1) * 2) + (i & 1); break;          // rc16
      }
      for (int i = 0; i < 4; ++i) r |= byte(idx[i]) << (8 * i);
    }
    d[l] = r;
  });
}
template <class T> void iLop3(Ctx& x, const Instr& in, uint32_t m) {
  uint64_t* d = D(x, in.dst[0]);
  const uint64_t* a = S(x, in.src[0]);
  const uint64_t* b = S(x, in.src[1]);
  const uint64_t* c = S(x, in.src[2]);
  const uint64_t* lut = S(x, in.src[3]);
  forLanes(m, [&](uint32_t l) {
    T av = get<T>(a[l]), bv = get<T>(b[l]), cv = get<T>(c[l]), r = 0;
    uint32_t L = uint32_t(lut[l]) & 0xFF;
    for (int i = 0; i < 8; ++i)
      if (L & (1u << i)) r |= T((i & 4 ? av : T(~av)) & (i & 2 ? bv : T(~bv)) & (i & 1 ? cv : T(~cv)));
    d[l] = put<T>(r);
  });
}
template <class T> void iSad(Ctx& x, const Instr& in, uint32_t m) {
  ternaryLoop<T>(x, in, m, [](T a, T b, T c) { return T(U<T>(c) + U<T>(a > b ? U<T>(a) - U<T>(b) : U<T>(b) - U<T>(a))); });
}

void iShf(Ctx& x, const Instr& in, uint32_t m) {
  uint64_t* d = D(x, in.dst[0]);
  const uint64_t* a = S(x, in.src[0]);
  const uint64_t* b = S(x, in.src[1]);
  const uint64_t* c = S(x, in.src[2]);
  bool right = in.mode & 1, clamp = in.mode & 2;
  forLanes(m, [&](uint32_t l) {
    uint64_t v = (uint64_t(uint32_t(b[l])) << 32) | uint32_t(a[l]);
    uint32_t n = uint32_t(c[l]);
    n = clamp ? std::min<uint32_t>(n, 32) : (n & 31);
    d[l] = right ? uint32_t(v >> n) : uint32_t((v << n) >> 32);
  });
}
template <class T> void iBfind(Ctx& x, const Instr& in, uint32_t m) {
  uint64_t* d = D(x, in.dst[0]);
  const uint64_t* a = S(x, in.src[0]);
  constexpr int bits = 8 * sizeof(T);
  bool shiftamt = in.mode == 1;
  forLanes(m, [&](uint32_t l) {
    T v = get<T>(a[l]);
    U<T> u = U<T>(v);
    if constexpr (std::is_signed_v<T>) if (v < 0) u = U<T>(~u);
    uint32_t r;
    if (u == 0) r = 0xFFFFFFFFu;
    else {
      int pos = bits - 1 - std::countl_zero(u);
      r = shiftamt ? uint32_t(bits - 1 - pos) : uint32_t(pos);
    }
    d[l] = r;
  });
}
void isspacep(Ctx& x, const Instr& in, uint32_t m) {
  uint64_t* d = D(x, in.dst[0]);
  const uint64_t* a = S(x, in.src[0]);
  uint64_t want = in.space == ptx::Space::Shared ? 1 : in.space == ptx::Space::Local ? 2
                  : in.space == ptx::Space::Param ? 3 : 0;
  bool never = in.space == ptx::Space::Const;
  forLanes(m, [&](uint32_t l) { d[l] = !never && (a[l] >> kWindowShift) == want; });
}

// ---------------------------------------------------------------- float ops

template <class T> void fAdd(Ctx& x, const Instr& in, uint32_t m) { floatBinary<T>(x, in, m, [](T a, T b) { return a + b; }); }
template <class T> void fSub(Ctx& x, const Instr& in, uint32_t m) { floatBinary<T>(x, in, m, [](T a, T b) { return a - b; }); }
template <class T> void fMul(Ctx& x, const Instr& in, uint32_t m) { floatBinary<T>(x, in, m, [](T a, T b) { return a * b; }); }
template <class T> void fDiv(Ctx& x, const Instr& in, uint32_t m) { floatBinary<T>(x, in, m, [](T a, T b) { return a / b; }); }
template <class T> void fMin(Ctx& x, const Instr& in, uint32_t m) { floatBinary<T>(x, in, m, [](T a, T b) { return std::fmin(a, b); }); }
template <class T> void fMax(Ctx& x, const Instr& in, uint32_t m) { floatBinary<T>(x, in, m, [](T a, T b) { return std::fmax(a, b); }); }
template <class T> void fCopysign(Ctx& x, const Instr& in, uint32_t m) { binaryLoop<T>(x, in, m, [](T a, T b) { return std::copysign(b, a); }); }
template <class T> void fFma(Ctx& x, const Instr& in, uint32_t m) {
  RoundScope rs(in.round);
  if (!in.ftz && !in.sat) return ternaryLoop<T>(x, in, m, [](T a, T b, T c) { return std::fma(a, b, c); });
  ternaryLoop<T>(x, in, m, [&](T a, T b, T c) {
    if (in.ftz) { a = flush(a); b = flush(b); c = flush(c); }
    T r = std::fma(a, b, c);
    if (in.ftz) r = flush(r);
    return in.sat ? saturate(r) : r;
  });
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
ExecFn halfSelect(const Instr& in) {
  switch (in.type) {
    case Type::F16: return halfOp<false, 1>(in.op);
    case Type::F16x2: return halfOp<false, 2>(in.op);
    case Type::BF16: return halfOp<true, 1>(in.op);
    case Type::BF16x2: return halfOp<true, 2>(in.op);
    default: return nullptr;
  }
}
template <bool BF, int N> void halfSetp(Ctx& x, const Instr& in, uint32_t m) {
  uint64_t* p = D(x, in.dst[0]);
  uint64_t* q = in.ndst > 1 ? D(x, in.dst[1]) : nullptr;
  const uint64_t* a = S(x, in.src[0]);
  const uint64_t* b = S(x, in.src[1]);
  const uint64_t* c = in.nsrc > 2 ? S(x, in.src[2]) : nullptr;
  forLanes(m, [&](uint32_t l) {
    bool r[2] = {false, false};
    for (int k = 0; k < N; ++k) {
      double av = hget<BF>(uint16_t(a[l] >> (16 * k))), bv = hget<BF>(uint16_t(b[l] >> (16 * k)));
      bool t = compare<double>(in.cmp, av, bv);
      if (c) {
        bool cv = (c[l] != 0) != in.negC;
        if (in.boolOp == ptx::BoolOp::And) t = t && cv;
        else if (in.boolOp == ptx::BoolOp::Or) t = t || cv;
        else if (in.boolOp == ptx::BoolOp::Xor) t = t != cv;
      }
      r[k] = t;
    }
    if (N == 1) {
      p[l] = r[0];
      if (q) q[l] = !r[0];
    } else {
      p[l] = r[0];
      if (q) q[l] = r[1];
    }
  });
}

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
    bool f = !t;
    if (c) {
      bool cv = (c[l] != 0) != in.negC;
      switch (in.boolOp) {
        case ptx::BoolOp::And: t = t && cv; f = f && cv; break;
        case ptx::BoolOp::Or: t = t || cv; f = f || cv; break;
        case ptx::BoolOp::Xor: t = t != cv; f = f != cv; break;
        default: break;
      }
    }
    p[l] = t;
    if (q) q[l] = f;
  });
}

template <class T> void setInstr(Ctx& x, const Instr& in, uint32_t m) {
  uint64_t* d = D(x, in.dst[0]);
  const uint64_t* a = S(x, in.src[0]);
  const uint64_t* b = S(x, in.src[1]);
  const uint64_t* c = in.nsrc > 2 ? S(x, in.src[2]) : nullptr;
  bool fdst = in.type2 == Type::F32;
  forLanes(m, [&](uint32_t l) {
    bool t = compare<T>(in.cmp, get<T>(a[l]), get<T>(b[l]));
    if (c) {
      bool cv = (c[l] != 0) != in.negC;
      if (in.boolOp == ptx::BoolOp::And) t = t && cv;
      else if (in.boolOp == ptx::BoolOp::Or) t = t || cv;
      else if (in.boolOp == ptx::BoolOp::Xor) t = t != cv;
    }
    d[l] = fdst ? (t ? 0x3F800000u : 0u) : (t ? 0xFFFFFFFFu : 0u);
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
WRAP(HFFma, fFma) WRAP(HFAbs, fAbs) WRAP(HFNeg, fNeg) WRAP(HFRcp, fRcp) WRAP(HFSqrt, fSqrt)
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

}  // namespace

ExecFn selectAlu(const Instr& in, std::string& error) {
  auto pick = [&](ExecFn intFn, ExecFn floatFn) -> ExecFn {
    ExecFn f = ptx::isFloat(in.type) ? floatFn : intFn;
    if (!f) error = std::string("unsupported type .") + ptx::toString(in.type) + " for " + ptx::toString(in.op);
    return f;
  };
  bool isPred = in.type == Type::Pred;
  bool isHalf = in.type == Type::F16 || in.type == Type::F16x2 || in.type == Type::BF16 || in.type == Type::BF16x2;
  if (isHalf && in.op != Op::Cvt && in.op != Op::Setp && in.op != Op::Mov && in.op != Op::Selp) {
    ExecFn f = halfSelect(in);
    if (!f) error = std::string("unsupported instruction ") + ptx::toString(in.op) + "." + ptx::toString(in.type);
    return f;
  }
  switch (in.op) {
    case Op::Add: return pick(byInt<HAdd>(in.type), byFloat<HFAdd>(in.type));
    case Op::Sub: return pick(byInt<HSub>(in.type), byFloat<HFSub>(in.type));
    case Op::Mul: return pick(byInt<HMul>(in.type), byFloat<HFMul>(in.type));
    case Op::Mad: return pick(byInt<HMad>(in.type), byFloat<HFFma>(in.type));
    case Op::Fma: return pick(nullptr, byFloat<HFFma>(in.type));
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
      if (!f) error = std::string("unsupported conversion cvt.") + ptx::toString(in.type) + "." + ptx::toString(in.type2);
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
