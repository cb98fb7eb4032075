// The decoded PTX intermediate representation: what the parser produces and
// the SIMT emulator (src/sim) executes. Everything is pre-resolved: registers
// are slot indices, labels are instruction indices, immediates and symbol
// addresses are entries of a per-function constant pool, callees are function
// indices. Nothing is looked up by name at run time.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace predatar::ptx {

enum class Type : uint8_t {
  None, B8, B16, B32, B64, B128, U8, U16, U32, U64, S8, S16, S32, S64,
  F16, F16x2, BF16, BF16x2, F32, F64, Pred,
  E4M3x2, E5M2x2,  // two fp8 values in 16 bits (cvt only)
  U16x2, S16x2,    // two halfwords in 32 bits (add, sub, min, max: sm_90)
};
uint32_t typeBytes(Type t);
bool isFloat(Type t);
bool isSigned(Type t);
const char* toString(Type t);

enum class Space : uint8_t { Generic, Global, Shared, Local, Param, Const };
const char* toString(Space s);

enum class Op : uint8_t {
  // integer / bit / float arithmetic
  Add, Sub, Mul, Mad, Fma, Div, Rem, Abs, Neg, Min, Max, And, Or, Xor, Not, Cnot,
  Shl, Shr, Popc, Clz, Brev, Bfe, Bfi, Prmt, Lop3, Copysign, Sad, Shf, Bfind, Isspacep,
  Rcp, Sqrt, Rsqrt, Ex2, Lg2, Sin, Cos, Tanh, Testp,
  Cvt, Setp, Selp, Set, Slct, Mov, MovPack, MovUnpack, MovFrameAddr, ReadClock, Cvta,
  // memory
  Ld, St, Atom, Red, Prefetch,
  // synchronization and control
  Membar, Bar, BarWarpSync, Shfl, Vote, Match, Redux, Activemask,
  Bra, BrxIdx, Call, Ret, Exit, Trap, Nanosleep, Nop,
  Unsupported,  // an instruction the emulator does not implement: refused when executed
  // extended-precision and packed integer arithmetic (sim/IntegerExtended.cpp)
  AddCarry, SubCarry, MadCarry, Mul24, Mad24, Dp4a, Dp2a, Vabsdiff4, Vabsdiff2,
  // texture fetch through a texture object (sim/Texture.cpp): mode = coordinate count | kTex* flags
  Tex,
  // unformatted surface load/store (sim/Texture.cpp): mode = dimensions | out-of-range mode << 4
  SurfLoad, SurfStore,
  // warp matrix multiply-accumulate (sim/TensorCore.cpp): operands in Module::matrixOps[target]
  WmmaLoad, WmmaStore, WmmaMma,
  // asynchronous copies and memory barriers (sim/AsyncCopy.cpp)
  CpAsync, CpAsyncCommit, CpAsyncWait, CpAsyncMbarrierArrive,
  MbarrierInit, MbarrierInval, MbarrierArrive, MbarrierTx, MbarrierTestWait, MbarrierPendingCount,
  // cvt.{rna,rn,rz}.tf32.f32 (sim/TensorCore.cpp): mode = rounding (ptx::Round)
  CvtTf32,
  // programmatic dependent launch (sim/Memory.cpp): griddepcontrol.wait, griddepcontrol.launch_dependents
  GridDepWait, GridDepLaunch,
};

// Instr::mode of a Tex: the coordinate count (1-3) and the geometry. A layered
// fetch has the layer index before its coordinates; a cube fetch's three
// coordinates are a direction.
constexpr uint8_t kTexDims = 0x0F, kTexLayered = 0x10, kTexCube = 0x20;

const char* toString(Op op);

enum class Cmp : uint8_t { Eq, Ne, Lt, Le, Gt, Ge, Lo, Ls, Hi, Hs, Equ, Neu, Ltu, Leu, Gtu, Geu, Num, Nan };
enum class BoolOp : uint8_t { None, And, Or, Xor };
enum class Round : uint8_t { None, Rn, Rz, Rm, Rp, Rna, Rni, Rzi, Rmi, Rpi };
enum class Sem : uint8_t { Weak, Volatile, Relaxed, Acquire, Release, AcqRel, Sc };
enum class Scope : uint8_t { None, Cta, Cluster, Gpu, Sys };
enum class AtomOp : uint8_t { None, Add, Inc, Dec, Min, Max, And, Or, Xor, Exch, Cas };
enum class ShflMode : uint8_t { Up, Down, Bfly, Idx };
enum class VoteMode : uint8_t { All, Any, Uni, Ballot };
enum class MulMode : uint8_t { Lo, Hi, Wide };
enum class BarKind : uint8_t { Sync, Arrive, RedPopc, RedAnd, RedOr };
// Calls to external functions the emulator implements (Instr::mode of a Call).
enum Builtin : uint8_t {
  kNotBuiltin = 0, kVprintf = 1, kAssertFail = 2,
  // The device runtime of dynamic parallelism (-rdc=true -lcudadevrt, CUDA 12+ "CDP2").
  kCdpGetParameterBuffer, kCdpLaunchDevice, kCdpStreamCreate, kCdpStreamDestroy, kCdpGetLastError,
  kCdpGetErrorString, kCdpMalloc, kCdpFree, kCdpMemcpyAsync, kCdpMemsetAsync,
  // The device heap (malloc/free and C++ new/delete in kernels).
  kMalloc, kFree,
  // A conditional graph node's value (cudaGraphSetConditional).
  kGraphSetConditional,
};
// The builtin an external function's name stands for (kNotBuiltin: none).
Builtin builtinFor(std::string_view name);
// Instr::carry: `.cc` writes the carry flag, addc/subc/madc read it.
enum CarryFlags : uint8_t { kCarryOut = 1, kCarryIn = 2 };
enum class TestpMode : uint8_t { Finite, Infinite, Number, NotANumber, Normal, Subnormal };

// Special registers with a per-lane value fixed for the lifetime of a warp;
// they live at the start of each warp's register file.
enum Special : uint32_t {
  kTidX, kTidY, kTidZ, kNtidX, kNtidY, kNtidZ, kCtaidX, kCtaidY, kCtaidZ,
  kNctaidX, kNctaidY, kNctaidZ, kLaneId, kWarpId, kNWarpId, kLanemaskEq, kLanemaskLt,
  kLanemaskLe, kLanemaskGt, kLanemaskGe, kSmId, kNSmId, kGridId, kDynSmem, kTotalSmem,
  kEnvReg1, kEnvReg2,  // high/low half of the cooperative grid's barrier workspace (0: none)
  kZero, kNumSpecials,
};
// Dynamic special registers read by Op::ReadClock (Instr::mode).
enum ClockKind : uint8_t { kClock, kClock64, kGlobalTimer, kGlobalTimerLo, kGlobalTimerHi };

// A value reference: a function register, a constant-pool entry or a special register.
using Ref = uint32_t;
inline constexpr Ref kNoRef = 0xFFFFFFFFu;
inline constexpr Ref kRefKindMask = 0xC0000000u;
inline constexpr Ref kRefReg = 0x00000000u;
inline constexpr Ref kRefConst = 0x40000000u;
inline constexpr Ref kRefSpecial = 0x80000000u;
inline constexpr Ref kRefIndexMask = 0x3FFFFFFFu;
inline constexpr Ref regRef(uint32_t i) { return kRefReg | i; }
inline constexpr Ref constRef(uint32_t i) { return kRefConst | i; }
inline constexpr Ref specialRef(uint32_t i) { return kRefSpecial | i; }

// A memory operand [base+offset].
struct Address {
  enum class Base : uint8_t {
    Ref,    // value of `ref` (register, immediate or symbol address) + offset
    Frame,  // the thread's current call frame (local space) + offset
    Param,  // the kernel parameter buffer + offset
  };
  Base base = Base::Ref;
  Ref ref = kNoRef;
  int64_t offset = 0;
};

struct Constant {
  enum class Kind : uint8_t {
    Value,          // `value`
    VariableAddr,   // address of Module::variables[symbol] (+ value as offset)
    KernelParamAddr, // generic address of the kernel parameter buffer + value
    FunctionAddr    // address of Module::functions[symbol] (a kernel launched from the device)
  };
  Kind kind = Kind::Value;
  uint64_t value = 0;
  uint32_t symbol = 0;
  bool operator==(const Constant&) const = default;
};

// Instr::mode of cvt: .relu (negative results are 0) and .satfinite (an
// infinite or overflowing result is the largest finite value of its sign).
inline constexpr uint8_t kCvtRelu = 1, kCvtSatfinite = 2;
// Instr::mode of an integer min/max: .relu (a negative result is 0; .s32, .s16x2).
inline constexpr uint8_t kMinMaxRelu = 1;

struct Instr {
  Op op = Op::Nop;
  Type type = Type::None;   // the instruction type (cvt: destination)
  Type type2 = Type::None;  // cvt / set: source type; mul.wide etc: unused
  Space space = Space::Generic;
  Cmp cmp = Cmp::Eq;
  BoolOp boolOp = BoolOp::None;
  Round round = Round::None;
  Sem sem = Sem::Weak;
  Scope scope = Scope::None;
  AtomOp atom = AtomOp::None;
  uint8_t mode = 0;  // MulMode / ShflMode / VoteMode / BarKind / TestpMode / ClockKind / prmt mode
  uint8_t vec = 1;   // ld/st vector width
  // uni: bra.uni; on a Bar, .aligned (bar.*, barrier.*.aligned: the threads
  // of a warp execute it together).
  bool ftz = false, sat = false, nc = false, uni = false, negC = false, toGeneric = false;
  bool guardNeg = false;
  uint8_t carry = 0;  // AddCarry/SubCarry/MadCarry: kCarryOut | kCarryIn
  uint8_t ndst = 0, nsrc = 0;
  Ref dst[4] = {kNoRef, kNoRef, kNoRef, kNoRef};
  Ref src[4] = {kNoRef, kNoRef, kNoRef, kNoRef};
  Ref guard = kNoRef;
  Address addr;
  uint32_t target = 0;  // branch target instruction, callee function, brx table
  uint32_t func = 0;    // function containing this instruction
  uint32_t line = 0;    // PTX line
  uint32_t source = UINT32_MAX;  // index into Module::sources
  uint32_t call = UINT32_MAX;    // index into Module::calls
};

// The instructions whose operands are also in Module::matrixOps[target].
inline bool hasMatrixOperands(Op op) {
  return op == Op::WmmaLoad || op == Op::WmmaStore || op == Op::WmmaMma || op == Op::CpAsync;
}

// Operands of wmma / cp.async that do not fit an Instr (ptx/MatrixDecode.h):
// Instr::target indexes Module::matrixOps.
struct MatrixOperands {
  uint8_t m = 0, n = 0, k = 0;     // shape
  char fragment = 0;               // wmma.load: 'a', 'b' or 'c'
  bool rowA = true, rowB = true;   // layouts (load/store: rowA)
  // Element types (tf32 as B32); load/store: aType.
  Type aType = Type::None, bType = Type::None, cType = Type::None, dType = Type::None;
  std::vector<Ref> d, a, b, c;     // register lists (store: its values in c)
  Address source;                  // cp.async: the global source
};

// Instr::target and CallSite::callee of an indirect call (`call %rd, (...), proto;`).
inline constexpr uint32_t kIndirectCall = UINT32_MAX;

struct CallSite {
  uint32_t callee = 0;  // kIndirectCall: the function whose address Instr::src[0] holds
  std::vector<int64_t> argOffsets;  // caller frame offsets of the argument .params
  std::vector<int64_t> retOffsets;  // caller frame offsets of the return .params
};

struct ParamDecl {
  std::string name;
  Type type = Type::B8;
  uint32_t bytes = 0;
  uint32_t align = 1;
  uint64_t offset = 0;  // kernel: offset in the parameter buffer; func: frame offset
};

struct Variable {
  std::string name;
  Space space = Space::Global;
  Type type = Type::B8;
  uint64_t bytes = 0;
  uint32_t align = 1;
  uint32_t elementBytes = 1;
  std::vector<uint8_t> init;  // empty: zero
  // 64-bit elements of the initializer that hold a symbol's address plus an
  // addend: a function's (a vtable entry) or a .global/.const variable's.
  struct Relocation {
    uint64_t offset = 0;
    bool function = false;
    uint32_t symbol = 0;  // function or variable index
    int64_t addend = 0;
  };
  std::vector<Relocation> relocations;
  bool externDynamic = false; // `.extern .shared ... x[]`
  bool external = false;      // declared .extern (defined elsewhere)
  int32_t function = -1;      // -1: module scope
  uint64_t frameOffset = 0;   // .local / .param in a function: offset in its frame
  uint32_t line = 0;
};

struct Function {
  std::string name;
  bool entry = false;
  bool defined = false;
  std::vector<ParamDecl> params;
  std::vector<ParamDecl> rets;
  uint32_t numRegs = 0;
  std::vector<std::string> regNames;
  uint32_t begin = 0, end = 0;  // [begin, end) in Module::code
  std::vector<Constant> consts;
  uint64_t frameBytes = 0;      // local variables, params, call-site params
  uint32_t paramBytes = 0;      // kernel: size of the parameter buffer
  std::vector<uint32_t> callees;  // direct ones, and every address-taken function when callsIndirectly
  bool callsIndirectly = false;
  bool addressTaken = false;      // its address is in an initializer or a mov (a possible indirect callee)
  std::vector<uint32_t> variables;  // module variables referenced (incl. shared)
  uint32_t line = 0;
};

struct SourceLoc {
  uint32_t file = 0, line = 0, column = 0;
  // Code of an inlined function (`.loc ... function_name L, inlined_at F L C`):
  // its own position above; the call site is sources[inlinedAt] (itself
  // possibly inlined: a chain); `function` is its name (debug string, mangled)
  // and `enclosing` the PTX function the code was inlined into.
  uint32_t inlinedAt = UINT32_MAX;
  std::string function = {};
  uint32_t enclosing = UINT32_MAX;
  bool operator==(const SourceLoc&) const = default;
};

struct Module {
  std::string sourceName;
  std::string version, target;
  uint32_t addressSize = 64;
  std::vector<Function> functions;
  std::vector<Instr> code;
  std::vector<Variable> variables;
  std::vector<CallSite> calls;
  std::vector<std::vector<uint32_t>> branchTables;  // brx.idx targets
  std::vector<MatrixOperands> matrixOps;              // wmma / cp.async operands
  std::vector<std::pair<uint32_t, std::string>> files;  // .file index -> name
  std::vector<SourceLoc> sources;
  std::map<std::string, std::string> debugStrings;  // `.section .debug_str` label -> string
  std::map<uint32_t, std::string> unsupported;  // code index of an Op::Unsupported -> its opcode text

  int32_t findFunction(std::string_view name) const;
  std::string fileName(uint32_t index) const;
};

// The name `.file index` gave, or "file<index>" when none did.
std::string fileName(const std::vector<std::pair<uint32_t, std::string>>& files, uint32_t index);

}  // namespace predatar::ptx
