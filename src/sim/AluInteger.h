// Integer and bit-manipulation handlers: one template per operation, each a
// loop over the active lanes (private to sim/Alu.cpp).
#pragma once

#include "sim/AluCommon.h"

namespace predatar::sim::alu {

using ptx::Instr;
using ptx::Op;
using ptx::Type;

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
inline void iPrmt(Ctx& x, const Instr& in, uint32_t m) {
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

inline void iShf(Ctx& x, const Instr& in, uint32_t m) {
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
inline void isspacep(Ctx& x, const Instr& in, uint32_t m) {
  uint64_t* d = D(x, in.dst[0]);
  const uint64_t* a = S(x, in.src[0]);
  uint64_t want = in.space == ptx::Space::Shared ? 1 : in.space == ptx::Space::Local ? 2
                  : in.space == ptx::Space::Param ? 3 : 0;
  bool never = in.space == ptx::Space::Const;
  forLanes(m, [&](uint32_t l) { d[l] = !never && (a[l] >> kWindowShift) == want; });
}

}  // namespace predatar::sim::alu
