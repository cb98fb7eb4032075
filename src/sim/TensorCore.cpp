// Warp matrix multiply-accumulate by exact emulation: wmma.load.{a,b,c},
// wmma.store.d and wmma.mma for every shape and the f16, bf16, tf32, f64 and
// u8/s8 types (sub-byte and fp8 fragments are refused by name).
//
// Fragment layout. CUDA leaves the mapping of matrix elements to the
// registers of a fragment unspecified ("subject to change"), so correct
// programs only rely on load, mma and store agreeing, and on element-wise
// operations on fragments. The emulator's layout: a lane holding E elements
// holds the slots lane*E .. lane*E+E-1, and slot s is the element
// s mod (rows*cols) of the matrix in row-major order (the memory layout .row
// or .col only changes the addresses). When 32*E exceeds rows*cols (an f16
// A/B fragment of m16n16k16: 16 halves per lane for 256 elements) every
// element is held by several lanes, as on the hardware; the mma reads the
// first copy. Registers pack their elements from the low bits up.
//
// Arithmetic. Integer products accumulate exactly (wrapping to 32 bits, or
// clamping with .satfinite); f64 is a chain of fused multiply-adds in k
// order (.rn); f16/bf16/tf32 products are exact in double and their sum is
// rounded once to the accumulator type (tf32 reads a 32-bit value with its
// low 13 mantissa bits cleared).
//
// Memory: every lane's element accesses are memory events like ld/st, one
// event per fragment slot (the lanes' addresses of that slot).
#include <cmath>
#include <limits>

#include "sim/Exec.h"
#include "sim/HalfFloat.h"

namespace predatar::sim {

using ptx::Instr;
using ptx::MatrixOperands;
using ptx::Op;
using ptx::Type;

namespace {

struct Fragment {
  char which = 'a';
  uint8_t m = 0, n = 0, k = 0;
  bool mma = false;      // mma.sync: the PTX ISA's per-shape layout; wmma: the emulator's
  bool tf32 = false;
  uint32_t rows = 0, cols = 0;
  uint32_t elemBytes = 0;
  uint32_t perReg = 0;   // elements per register
  uint32_t perLane = 0;  // elements per lane
  uint32_t elements() const { return rows * cols; }
};

uint32_t elementBytes(Type t) {
  switch (t) {
    case Type::U8: case Type::S8: return 1;
    case Type::F16: case Type::BF16: return 2;
    case Type::F64: return 8;
    default: return 4;
  }
}

Fragment fragmentOf(const MatrixOperands& mo, char which, Type t, size_t regs) {
  Fragment f;
  f.which = which;
  f.m = mo.m;
  f.n = mo.n;
  f.k = mo.k;
  f.mma = mo.fragment == 'm';
  f.tf32 = t == Type::B32;
  switch (which) {
    case 'a': f.rows = mo.m; f.cols = mo.k; break;
    case 'b': f.rows = mo.k; f.cols = mo.n; break;
    default: f.rows = mo.m; f.cols = mo.n; break;
  }
  f.elemBytes = elementBytes(t);
  f.perReg = f.elemBytes >= 4 ? 1 : 4 / f.elemBytes;
  f.perLane = uint32_t(regs) * f.perReg;
  return f;
}

std::string checkFragment(const Fragment& f, char which) {
  uint32_t slots = 32 * f.perLane;
  if (f.elements() == 0 || slots < f.elements() || slots % f.elements() != 0 || (f.mma && slots != f.elements()))
    return std::string("fragment ") + which + " of " + std::to_string(f.perLane) + " elements per lane does not hold a " +
           std::to_string(f.rows) + "x" + std::to_string(f.cols) + " matrix";
  return "";
}

// mma.sync fragments (PTX ISA, "Matrix fragments for mma.m16n8kK" and
// mma.m8n8k4 .f64): row and column of element i of `lane`, with
// g = lane / 4 and t = lane % 4.
std::pair<uint32_t, uint32_t> mmaElement(const Fragment& f, uint32_t lane, uint32_t i) {
  uint32_t g = lane >> 2, t = lane & 3;
  if (f.which == 'c' || f.which == 'd') {
    if (f.m == 8) return {g, t * 2 + i};                     // m8n8k4 f64
    return {g + 8 * (i >> 1), t * 2 + (i & 1)};
  }
  bool a = f.which == 'a';
  if (f.m == 8) return a ? std::pair{g, t} : std::pair{t, g};  // m8n8k4 f64
  if (f.elemBytes == 1) {                                     // s8/u8: k = 16 or 32
    uint32_t kk = t * 4 + (i & 3) + 16 * (a ? (i >> 3) : (i >> 2));
    return a ? std::pair{g + 8 * ((i >> 2) & 1), kk} : std::pair{kk, g};
  }
  if (f.tf32) {                                                // k = 4 or 8
    if (a) return f.k == 4 ? std::pair{g + 8 * i, t} : std::pair{g + 8 * (i & 1), t + 4 * (i >> 1)};
    return {t + 4 * i, g};
  }
  uint32_t kk = t * 2 + (i & 1) + 8 * (a ? (i >> 2) : (i >> 1));  // f16/bf16: k = 8 or 16
  return a ? std::pair{g + 8 * ((i >> 1) & 1), kk} : std::pair{kk, g};
}

// The matrix element (row-major index) held in slot i of `lane`.
inline uint32_t elementOf(const Fragment& f, uint32_t lane, uint32_t i) {
  if (f.mma) {
    auto [r, c] = mmaElement(f, lane, i);
    return r * f.cols + c;
  }
  return (lane * f.perLane + i) % f.elements();
}

inline uint64_t regBits(uint64_t reg, const Fragment& f, uint32_t i) {
  uint32_t shift = (i % f.perReg) * 8 * f.elemBytes;
  return f.elemBytes == 8 ? reg : (reg >> shift) & ((1ull << (8 * f.elemBytes)) - 1);
}

inline void setRegBits(uint64_t& reg, const Fragment& f, uint32_t i, uint64_t bits) {
  if (f.elemBytes == 8) { reg = bits; return; }
  uint32_t shift = (i % f.perReg) * 8 * f.elemBytes;
  uint64_t mask = ((1ull << (8 * f.elemBytes)) - 1) << shift;
  reg = (reg & ~mask) | ((bits << shift) & mask);
}

// Each lane's address of the element of slot i, from the lanes' matrix
// addresses `base` (laneBases: once per instruction, not once per slot).
void slotAddresses(Ctx& x, const Instr& in, const Fragment& f, bool rowMajor, uint32_t m, uint32_t i,
                   const uint64_t (&base)[32], uint64_t (&addr)[32]) {
  const uint64_t* stride = in.nsrc > 0 ? S(x, in.src[0]) : nullptr;
  forLanes(m, [&](uint32_t l) {
    uint32_t e = elementOf(f, l, i);
    uint64_t r = e / f.cols, c = e % f.cols;
    uint64_t ld = stride ? uint32_t(stride[l]) : (rowMajor ? f.cols : f.rows);
    uint64_t off = rowMajor ? r * ld + c : c * ld + r;
    addr[l] = base[l] + off * f.elemBytes;
  });
}

void laneBases(Ctx& x, const Instr& in, uint32_t m, uint64_t (&base)[32]) {
  forLanes(m, [&](uint32_t l) { base[l] = laneAddressOf(x, in.addr, l); });
}

void wmmaLoad(Ctx& x, const Instr& in, uint32_t m) {
  const MatrixOperands& mo = x.L->M.ir.matrixOps[in.target];
  Fragment f = fragmentOf(mo, mo.fragment, mo.aType, mo.d.size());
  uint64_t base[32];
  laneBases(x, in, m, base);
  for (uint32_t i = 0; i < f.perLane; ++i) {
    uint64_t addr[32];
    slotAddresses(x, in, f, mo.rowA, m, i, base, addr);
    LaneAccess acc;
    if (!resolveLanes(x, in.space, addr, m, f.elemBytes, acc, "wmma.load")) return;
    uint64_t* d = D(x, mo.d[i / f.perReg]);
    forLanes(m, [&](uint32_t l) {
      uint64_t bits = 0;
      std::memcpy(&bits, acc.ptr[l], f.elemBytes);
      if (i % f.perReg == 0) d[l] = 0;
      setRegBits(d[l], f, i, bits);
    });
    emitLaneAccess(x, acc, AccessType::Read, f.elemBytes, x.pc);
  }
}

void wmmaStore(Ctx& x, const Instr& in, uint32_t m) {
  const MatrixOperands& mo = x.L->M.ir.matrixOps[in.target];
  Fragment f = fragmentOf(mo, 'd', mo.aType, mo.c.size());
  uint64_t base[32];
  laneBases(x, in, m, base);
  for (uint32_t i = 0; i < f.perLane; ++i) {
    uint64_t addr[32];
    slotAddresses(x, in, f, mo.rowA, m, i, base, addr);
    LaneAccess acc;
    if (!resolveLanes(x, in.space, addr, m, f.elemBytes, acc, "wmma.store")) return;
    const uint64_t* s = S(x, mo.c[i / f.perReg]);
    forLanes(m, [&](uint32_t l) {
      uint64_t bits = regBits(s[l], f, i);
      if (std::memcmp(acc.ptr[l], &bits, f.elemBytes) != 0) ++x.L->memoryChanges;
      std::memcpy(acc.ptr[l], &bits, f.elemBytes);
    });
    emitLaneAccess(x, acc, AccessType::Write, f.elemBytes, x.pc);
  }
}

double toReal(uint64_t bits, Type t) {
  switch (t) {
    case Type::F16: return f16ToFloat(uint16_t(bits));
    case Type::BF16: return bf16ToFloat(uint16_t(bits));
    case Type::B32: return std::bit_cast<float>(uint32_t(bits) & 0xFFFFE000u);  // tf32
    case Type::F32: return std::bit_cast<float>(uint32_t(bits));
    case Type::F64: return std::bit_cast<double>(bits);
    case Type::S32: return int32_t(uint32_t(bits));
    case Type::S8: return int8_t(uint8_t(bits));
    default: return double(bits);
  }
}

int64_t toInteger(uint64_t bits, Type t) {
  switch (t) {
    case Type::S32: return int32_t(uint32_t(bits));
    case Type::S8: return int8_t(uint8_t(bits));
    case Type::U8: return uint8_t(bits);
    default: return int64_t(bits);
  }
}

uint64_t fromReal(double v, Type t) {
  switch (t) {
    case Type::F16: return floatToF16(float(v));
    case Type::F32: return std::bit_cast<uint32_t>(float(v));
    default: return std::bit_cast<uint64_t>(v);
  }
}

// One fragment gathered into its matrix (row-major), as raw bits, into
// `mat`. Slot s of the emulator's wmma layout holds element s mod
// elements(), so an element's first copy is slot e itself (lane e / perLane,
// index e % perLane); an mma.sync fragment holds each element once.
void gather(Ctx& x, const std::vector<ptx::Ref>& regs, const Fragment& f, std::vector<uint64_t>& mat) {
  mat.resize(f.elements());
  for (uint32_t reg = 0; reg < regs.size(); ++reg) {
    const uint64_t* bits = S(x, regs[reg]);
    for (uint32_t l = 0; l < 32; ++l)
      for (uint32_t j = 0, i = reg * f.perReg; j < f.perReg; ++j, ++i) {
        uint32_t slot = l * f.perLane + i;
        if (!f.mma && slot >= f.elements()) break;  // (a later copy)
        mat[f.mma ? elementOf(f, l, i) : slot] = regBits(bits[l], f, i);
      }
  }
}

// What one wmma.mma works in, kept from one to the next: allocating it per
// instruction (nine vectors) cost as much as the products.
struct MmaScratch {
  std::vector<uint64_t> a, b, c, d;
  std::vector<int64_t> aInt, bInt;
  std::vector<double> aReal, bReal;
};

// `v` (rows x cols, row-major) converted element by element into `out`, by
// columns when `byColumns`: each element of a and b is converted once, b by
// columns, not once per product (a 16x16x16 product converted 8192 values:
// a third of a tensor GEMM's emulation). The sums are the same, in the same order.
template <class Out, class Convert>
void convertMatrix(const std::vector<uint64_t>& v, Type t, uint32_t rows, uint32_t cols, bool byColumns,
                   std::vector<Out>& out, Convert convert) {
  out.resize(size_t(rows) * cols);
  for (uint32_t i = 0; i < rows; ++i)
    for (uint32_t j = 0; j < cols; ++j) out[byColumns ? j * rows + i : i * cols + j] = convert(v[i * cols + j], t);
}

void wmmaMma(Ctx& x, const Instr& in, uint32_t m) {
  const MatrixOperands& mo = x.L->M.ir.matrixOps[in.target];
  Fragment fa = fragmentOf(mo, 'a', mo.aType, mo.a.size()), fb = fragmentOf(mo, 'b', mo.bType, mo.b.size());
  Fragment fc = fragmentOf(mo, 'c', mo.cType, mo.c.size()), fd = fragmentOf(mo, 'd', mo.dType, mo.d.size());
  thread_local MmaScratch scratch;
  auto& [a, b, c, d, aInt, bInt, aReal, bReal] = scratch;
  gather(x, mo.a, fa, a);
  gather(x, mo.b, fb, b);
  gather(x, mo.c, fc, c);
  d.resize(fd.elements());
  if (mo.dType == Type::S32) {
    convertMatrix(a, mo.aType, mo.m, mo.k, false, aInt, toInteger);
    convertMatrix(b, mo.bType, mo.k, mo.n, true, bInt, toInteger);
    for (uint32_t r = 0; r < mo.m; ++r)
      for (uint32_t col = 0; col < mo.n; ++col) {
        const int64_t* row = &aInt[r * mo.k];
        const int64_t* column = &bInt[col * mo.k];
        int64_t sum = toInteger(c[r * mo.n + col], mo.cType);
        for (uint32_t k = 0; k < mo.k; ++k) sum += row[k] * column[k];
        if (in.sat) sum = std::clamp<int64_t>(sum, INT32_MIN, INT32_MAX);
        d[r * mo.n + col] = uint32_t(sum);
      }
  } else {
    convertMatrix(a, mo.aType, mo.m, mo.k, false, aReal, toReal);
    convertMatrix(b, mo.bType, mo.k, mo.n, true, bReal, toReal);
    bool fused = mo.dType == Type::F64;
    for (uint32_t r = 0; r < mo.m; ++r)
      for (uint32_t col = 0; col < mo.n; ++col) {
        const double* row = &aReal[r * mo.k];
        const double* column = &bReal[col * mo.k];
        double sum = toReal(c[r * mo.n + col], mo.cType);
        if (fused)
          for (uint32_t k = 0; k < mo.k; ++k) sum = std::fma(row[k], column[k], sum);
        else
          for (uint32_t k = 0; k < mo.k; ++k) sum += row[k] * column[k];
        d[r * mo.n + col] = fromReal(sum, mo.dType);
      }
  }
  // Written after every source was read: d may name the registers of c.
  forLanes(m, [&](uint32_t l) {
    for (uint32_t i = 0; i < fd.perLane; ++i) {
      uint64_t* reg = D(x, mo.d[i / fd.perReg]) + l;
      if (i % fd.perReg == 0) *reg = 0;
      setRegBits(*reg, fd, i, d[elementOf(fd, l, i)]);
    }
  });
}

// ldmatrix.sync.aligned.m8n8.{x1,x2,x4}{.trans}.shared.b16: lanes 8j..8j+7
// give the row addresses of matrix j (16 bytes each); lane l receives, in
// register j, row l/4 columns 2(l%4), 2(l%4)+1 of matrix j (.trans: column
// l/4 rows 2(l%4), 2(l%4)+1).
void ldmatrix(Ctx& x, const Instr& in, uint32_t m) {
  const MatrixOperands& mo = x.L->M.ir.matrixOps[in.target];
  uint32_t matrices = uint32_t(mo.d.size());
  uint64_t rowAddr[32] = {};
  forLanes(m, [&](uint32_t l) { rowAddr[l] = laneAddressOf(x, in.addr, l); });
  uint8_t* rowPtr[32] = {};
  for (uint32_t j = 0; j < matrices; ++j) {
    uint32_t providers = (0xFFu << (8 * j)) & m;
    LaneAccess acc;
    if (!resolveLanes(x, in.space, rowAddr, providers, 16, acc, "ldmatrix")) return;
    forLanes(providers, [&](uint32_t l) { rowPtr[l] = acc.ptr[l]; });
    emitLaneAccess(x, acc, AccessType::Read, 16, x.pc);
  }
  bool trans = mo.rowB;
  for (uint32_t j = 0; j < matrices; ++j) {
    uint64_t* d = D(x, mo.d[j]);
    forLanes(m, [&](uint32_t l) {
      uint16_t lo, hi;
      if (!trans) {
        const uint8_t* row = rowPtr[8 * j + l / 4];
        if (!row) return;
        std::memcpy(&lo, row + (l % 4) * 4, 2);
        std::memcpy(&hi, row + (l % 4) * 4 + 2, 2);
      } else {
        const uint8_t* r0 = rowPtr[8 * j + 2 * (l % 4)];
        const uint8_t* r1 = rowPtr[8 * j + 2 * (l % 4) + 1];
        if (!r0 || !r1) return;
        std::memcpy(&lo, r0 + (l / 4) * 2, 2);
        std::memcpy(&hi, r1 + (l / 4) * 2, 2);
      }
      d[l] = uint32_t(lo) | uint32_t(hi) << 16;
    });
  }
}

bool multiplicandsSupported(Type a, Type b, Type c, Type d) {
  switch (a) {
    case Type::F16: return b == Type::F16 && (c == Type::F16 || c == Type::F32) && (d == Type::F16 || d == Type::F32);
    case Type::BF16: case Type::B32: return b == a && c == Type::F32 && d == Type::F32;
    case Type::U8: case Type::S8: return (b == Type::U8 || b == Type::S8) && c == Type::S32 && d == Type::S32;
    case Type::F64: return b == Type::F64 && c == Type::F64 && d == Type::F64;
    default: return false;
  }
}

}  // namespace

std::string checkWarpMatrix(const ptx::Module& ir, const Instr& in) {
  const MatrixOperands& mo = ir.matrixOps.at(in.target);
  switch (in.op) {
    case Op::WmmaLoad:
      if (mo.fragment == 'l') return mo.d.size() == 1 || mo.d.size() == 2 || mo.d.size() == 4 ? "" : "ldmatrix needs .x1, .x2 or .x4";
      return checkFragment(fragmentOf(mo, mo.fragment, mo.aType, mo.d.size()), mo.fragment);
    case Op::WmmaStore: return checkFragment(fragmentOf(mo, 'd', mo.aType, mo.c.size()), 'd');
    case Op::WmmaMma: {
      if (!multiplicandsSupported(mo.aType, mo.bType, mo.cType, mo.dType)) return "unsupported wmma.mma type combination";
      for (auto [which, t, n] : {std::tuple{'a', mo.aType, mo.a.size()}, std::tuple{'b', mo.bType, mo.b.size()},
                                 std::tuple{'c', mo.cType, mo.c.size()}, std::tuple{'d', mo.dType, mo.d.size()}})
        if (std::string e = checkFragment(fragmentOf(mo, which, t, n), which); !e.empty()) return e;
      return "";
    }
    default: return "not a warp matrix instruction";
  }
}

// A float rounded to tf32 (10 mantissa bits), kept in a 32-bit container with
// the low 13 bits cleared: .rna rounds to nearest with ties away from zero,
// .rn to nearest even, .rz towards zero. NaN and infinity pass unchanged.
void execCvtTf32(Ctx& x, const Instr& in, uint32_t m) {
  uint64_t* d = D(x, in.dst[0]);
  const uint64_t* a = S(x, in.src[0]);
  forLanes(m, [&](uint32_t l) {
    uint32_t u = uint32_t(a[l]);
    if ((u & 0x7F800000u) != 0x7F800000u) {
      uint32_t dropped = u & 0x1FFFu, kept = u & ~0x1FFFu;
      bool up = in.round == ptx::Round::Rna ? dropped >= 0x1000u
                : in.round == ptx::Round::Rn ? (dropped > 0x1000u || (dropped == 0x1000u && (kept & 0x2000u)))
                                             : false;
      u = kept + (up ? 0x2000u : 0);  // a carry into the exponent rounds up to the next binade (or infinity)
    }
    d[l] = u;
  });
}

static const MatrixOperands& operandsOf(Ctx& x, const Instr& in) { return x.L->M.ir.matrixOps[in.target]; }

void execWarpMatrix(Ctx& x, const Instr& in, uint32_t m) {
  switch (in.op) {
    case Op::WmmaLoad: operandsOf(x, in).fragment == 'l' ? ldmatrix(x, in, m) : wmmaLoad(x, in, m); break;
    case Op::WmmaStore: wmmaStore(x, in, m); break;
    case Op::WmmaMma: wmmaMma(x, in, m); break;
    default: break;
  }
}

}  // namespace predatar::sim
