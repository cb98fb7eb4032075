// Extended-precision and packed integer arithmetic: add.cc/addc, sub.cc/subc,
// mad.cc/madc (the per-lane carry flag lives in Warp::carry), mul24/mad24,
// the byte/halfword dot products dp4a/dp2a, the SIMD vabsdiff4/vabsdiff2, and
// sm_90's add/sub/min/max on .u16x2/.s16x2 and min/max .relu.
#include <algorithm>
#include <type_traits>

#include "sim/Exec.h"

namespace predatar::sim {

using ptx::Instr;
using ptx::Op;
using ptx::Type;

namespace {

template <class T> using Unsigned = std::make_unsigned_t<T>;

// d = a + b (+ CF); SUB: d = a - (b + CF). The carry out of a subtraction is
// its borrow, as PTX defines CC.CF for sub.cc.
template <class T, bool SUB> void addCarry(Ctx& x, const Instr& in, uint32_t m) {
  using UT = Unsigned<T>;
  uint64_t* d = D(x, in.dst[0]);
  const uint64_t* a = S(x, in.src[0]);
  const uint64_t* b = S(x, in.src[1]);
  uint32_t& flags = x.W->carry;
  uint32_t out = flags;
  forLanes(m, [&](uint32_t l) {
    UT av = UT(a[l]), bv = UT(b[l]);
    UT cin = (in.carry & ptx::kCarryIn) ? UT((flags >> l) & 1) : UT(0);
    UT r;
    bool c;
    if constexpr (SUB) {
      r = UT(av - bv - cin);
      c = av < bv || UT(av - bv) < cin;
    } else {
      UT s = UT(av + bv);
      r = UT(s + cin);
      c = s < av || r < s;
    }
    d[l] = uint64_t(r);
    out = (out & ~(1u << l)) | (uint32_t(c) << l);
  });
  if (in.carry & ptx::kCarryOut) flags = out;
}

template <class T> Unsigned<T> productPart(T a, T b, ptx::MulMode mode) {
  using UT = Unsigned<T>;
  if (mode != ptx::MulMode::Hi) return UT(UT(a) * UT(b));
  if constexpr (sizeof(T) == 4) {
    using Wide = std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>;
    return UT(uint64_t(Wide(a) * Wide(b)) >> 32);
  } else {
    using Wide = std::conditional_t<std::is_signed_v<T>, __int128, unsigned __int128>;
    return UT((unsigned __int128)(Wide(a) * Wide(b)) >> 64);
  }
}

// mad{c}.lo/hi{.cc}: d = (a*b).lo/hi + c (+ CF).
template <class T> void madCarry(Ctx& x, const Instr& in, uint32_t m) {
  using UT = Unsigned<T>;
  uint64_t* d = D(x, in.dst[0]);
  const uint64_t* a = S(x, in.src[0]);
  const uint64_t* b = S(x, in.src[1]);
  const uint64_t* c = S(x, in.src[2]);
  uint32_t& flags = x.W->carry;
  uint32_t out = flags;
  forLanes(m, [&](uint32_t l) {
    UT p = productPart<T>(T(a[l]), T(b[l]), ptx::MulMode(in.mode));
    UT cin = (in.carry & ptx::kCarryIn) ? UT((flags >> l) & 1) : UT(0);
    UT s = UT(p + UT(c[l]));
    UT r = UT(s + cin);
    d[l] = uint64_t(r);
    out = (out & ~(1u << l)) | (uint32_t(s < p || r < s) << l);
  });
  if (in.carry & ptx::kCarryOut) flags = out;
}

// The low 24 bits of a, sign- or zero-extended; the 48-bit product.
template <bool SIGNED> int64_t product24(uint64_t a, uint64_t b) {
  auto extend = [](uint64_t v) -> int64_t {
    if constexpr (SIGNED) return int64_t(int32_t(uint32_t(v) << 8) >> 8);
    else return int64_t(v & 0xFFFFFF);
  };
  return extend(a) * extend(b);
}

// mul24.lo: bits 31..0 of the 48-bit product; mul24.hi: bits 47..16.
template <bool SIGNED, bool MAD> void mul24(Ctx& x, const Instr& in, uint32_t m) {
  uint64_t* d = D(x, in.dst[0]);
  const uint64_t* a = S(x, in.src[0]);
  const uint64_t* b = S(x, in.src[1]);
  const uint64_t* c = MAD ? S(x, in.src[2]) : nullptr;
  bool hi = ptx::MulMode(in.mode) == ptx::MulMode::Hi;
  forLanes(m, [&](uint32_t l) {
    uint64_t p = uint64_t(product24<SIGNED>(a[l], b[l]));
    uint32_t r = hi ? uint32_t(p >> 16) : uint32_t(p);
    if constexpr (MAD) r += uint32_t(c[l]);
    d[l] = r;
  });
}

int32_t byteOf(uint64_t v, uint32_t i, bool isSigned) {
  uint32_t byte = uint32_t(v >> (8 * i)) & 0xFF;
  return isSigned ? int32_t(int8_t(byte)) : int32_t(byte);
}
int32_t halfOf(uint64_t v, uint32_t i, bool isSigned) {
  uint32_t half = uint32_t(v >> (16 * i)) & 0xFFFF;
  return isSigned ? int32_t(int16_t(half)) : int32_t(half);
}

// dp4a: c + the dot product of a's and b's four bytes; dp2a.lo/hi: c + the dot
// product of a's two halfwords with b's bytes 0-1 (lo) or 2-3 (hi). 32-bit wraparound.
void dotProduct(Ctx& x, const Instr& in, uint32_t m) {
  uint64_t* d = D(x, in.dst[0]);
  const uint64_t* a = S(x, in.src[0]);
  const uint64_t* b = S(x, in.src[1]);
  const uint64_t* c = S(x, in.src[2]);
  bool sa = ptx::isSigned(in.type), sb = ptx::isSigned(in.type2);
  bool four = in.op == Op::Dp4a;
  uint32_t firstByte = ptx::MulMode(in.mode) == ptx::MulMode::Hi ? 2 : 0;
  forLanes(m, [&](uint32_t l) {
    uint32_t sum = uint32_t(c[l]);
    if (four) {
      for (uint32_t i = 0; i < 4; ++i) sum += uint32_t(byteOf(a[l], i, sa) * byteOf(b[l], i, sb));
    } else {
      for (uint32_t i = 0; i < 2; ++i) sum += uint32_t(halfOf(a[l], i, sa) * byteOf(b[l], firstByte + i, sb));
    }
    d[l] = sum;
  });
}

// vabsdiff4 / vabsdiff2 (SIMD over bytes / halfwords): with .add, c + the sum
// over the elements of |a.elem - b.elem|; else d holds each element's
// difference, cut to the element's width (with .sat, clamped to the range of
// d's element type, signed when d is .s32).
void absoluteDifference(Ctx& x, const Instr& in, uint32_t m) {
  uint64_t* d = D(x, in.dst[0]);
  const uint64_t* a = S(x, in.src[0]);
  const uint64_t* b = S(x, in.src[1]);
  const uint64_t* c = S(x, in.src[2]);
  bool sa = ptx::isSigned(in.type), sb = ptx::isSigned(in.type2);
  bool reduce = in.mode & 1, signedResult = in.mode & 2;
  bool bytes = in.op == Op::Vabsdiff4;
  uint32_t elements = bytes ? 4 : 2, bits = bytes ? 8 : 16;
  int32_t most = signedResult ? (1 << (bits - 1)) - 1 : (1 << bits) - 1;
  auto element = [&](uint64_t v, uint32_t i, bool isSigned) {
    return bytes ? byteOf(v, i, isSigned) : halfOf(v, i, isSigned);
  };
  forLanes(m, [&](uint32_t l) {
    uint32_t result = reduce ? uint32_t(c[l]) : 0;
    for (uint32_t i = 0; i < elements; ++i) {
      int32_t diff = element(a[l], i, sa) - element(b[l], i, sb);
      int32_t magnitude = diff < 0 ? -diff : diff;
      if (reduce) {
        result += uint32_t(magnitude);
      } else {
        if (in.sat) magnitude = std::min(magnitude, most);
        result |= (uint32_t(magnitude) & ((1u << bits) - 1)) << (bits * i);
      }
    }
    d[l] = result;
  });
}

enum class PackedOp { Add, Sub, Min, Max };

// add/sub/min/max .u16x2/.s16x2: each halfword on its own (add and sub wrap);
// min/max .relu makes a negative result 0.
template <PackedOp OP, bool SIGNED> void packedHalfwords(Ctx& x, const Instr& in, uint32_t m) {
  uint64_t* d = D(x, in.dst[0]);
  const uint64_t* a = S(x, in.src[0]);
  const uint64_t* b = S(x, in.src[1]);
  bool relu = in.mode & ptx::kMinMaxRelu;
  forLanes(m, [&](uint32_t l) {
    uint32_t result = 0;
    for (uint32_t i = 0; i < 2; ++i) {
      int32_t va = halfOf(a[l], i, SIGNED), vb = halfOf(b[l], i, SIGNED), r;
      if constexpr (OP == PackedOp::Add) r = va + vb;
      else if constexpr (OP == PackedOp::Sub) r = va - vb;
      else if constexpr (OP == PackedOp::Min) r = std::min(va, vb);
      else r = std::max(va, vb);
      if (relu && r < 0) r = 0;
      result |= (uint32_t(r) & 0xFFFFu) << (16 * i);
    }
    d[l] = result;
  });
}

// min/max .relu .s32: the signed minimum or maximum, 0 when negative.
template <bool MAX> void minMaxRelu(Ctx& x, const Instr& in, uint32_t m) {
  uint64_t* d = D(x, in.dst[0]);
  const uint64_t* a = S(x, in.src[0]);
  const uint64_t* b = S(x, in.src[1]);
  forLanes(m, [&](uint32_t l) {
    int32_t va = int32_t(a[l]), vb = int32_t(b[l]);
    int32_t r = MAX ? std::max(va, vb) : std::min(va, vb);
    d[l] = uint32_t(std::max(r, 0));
  });
}

template <PackedOp OP> ExecFn packedFor(Type t) {
  return t == Type::S16x2 ? &packedHalfwords<OP, true> : &packedHalfwords<OP, false>;
}

template <template <class> class H> ExecFn byWidth(Type t) {
  switch (t) {
    case Type::U32: case Type::B32: return &H<uint32_t>::run;
    case Type::S32: return &H<int32_t>::run;
    case Type::U64: case Type::B64: return &H<uint64_t>::run;
    case Type::S64: return &H<int64_t>::run;
    default: return nullptr;
  }
}
template <class T> struct AddH { static void run(Ctx& x, const Instr& in, uint32_t m) { addCarry<T, false>(x, in, m); } };
template <class T> struct SubH { static void run(Ctx& x, const Instr& in, uint32_t m) { addCarry<T, true>(x, in, m); } };
template <class T> struct MadH { static void run(Ctx& x, const Instr& in, uint32_t m) { madCarry<T>(x, in, m); } };

}  // namespace

static bool isPackedHalfwords(const Instr& in) { return in.type == Type::U16x2 || in.type == Type::S16x2; }
static bool isMinMaxRelu(const Instr& in) { return (in.op == Op::Min || in.op == Op::Max) && (in.mode & ptx::kMinMaxRelu); }
bool isPackedOrRelu(const Instr& in) { return isPackedHalfwords(in) || isMinMaxRelu(in); }

ExecFn selectPackedOrRelu(const Instr& in) {
  bool relu = isMinMaxRelu(in);
  if (relu && in.type != Type::S32 && in.type != Type::S16x2) return nullptr;  // (PTX has no other)
  if (!isPackedHalfwords(in)) return !relu ? nullptr : in.op == Op::Max ? &minMaxRelu<true> : &minMaxRelu<false>;
  switch (in.op) {
    case Op::Add: return packedFor<PackedOp::Add>(in.type);
    case Op::Sub: return packedFor<PackedOp::Sub>(in.type);
    case Op::Min: return packedFor<PackedOp::Min>(in.type);
    case Op::Max: return packedFor<PackedOp::Max>(in.type);
    default: return nullptr;
  }
}

ExecFn selectIntegerExtended(const Instr& in, std::string& error) {
  ExecFn f = nullptr;
  bool s32 = in.type == Type::S32;
  switch (in.op) {
    case Op::AddCarry: f = byWidth<AddH>(in.type); break;
    case Op::SubCarry: f = byWidth<SubH>(in.type); break;
    case Op::MadCarry: f = byWidth<MadH>(in.type); break;
    case Op::Mul24: f = s32 ? &mul24<true, false> : &mul24<false, false>; break;
    case Op::Mad24: f = s32 ? &mul24<true, true> : &mul24<false, true>; break;
    case Op::Dp4a: case Op::Dp2a: f = &dotProduct; break;
    case Op::Vabsdiff4: case Op::Vabsdiff2: f = &absoluteDifference; break;
    default: break;
  }
  if (!f) error = std::string("unsupported instruction ") + ptx::toString(in.op) + "." + ptx::toString(in.type);
  return f;
}

}  // namespace predatar::sim
