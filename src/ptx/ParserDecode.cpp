// Parser, opcode dispatch: maps an opcode and its modifiers to an Instr.
#include "ptx/ParserImpl.h"

namespace predatar::ptx::detail {
namespace {

// The warp-synchronous forms that came before .sync (PTX ISA < 6.0): ptxas
// refuses them for sm_70 and later, whose threads are scheduled independently.
std::string withoutSync(const std::string& opcode, const std::string& family) {
  std::string cuda = family == "vote" ? "__any_sync, __all_sync or __ballot_sync" : "__shfl_sync and its kin";
  return "'" + opcode + "' without .sync: sm_70 and later need " + family +
         ".sync with a member mask (ptxas refuses it too); use " + family + ".sync, or " + cuda + " in CUDA";
}

}  // namespace

absl::Status Parser::decode(std::string_view base, const std::vector<std::string_view>& parts, Mods& m,
                    const std::vector<POp>& ops, Instr& in, uint32_t line) {
  in.type = m.types.empty() ? Type::None : m.types[0];
  in.type2 = m.types.size() > 1 ? m.types[1] : Type::None;
  in.space = m.space;
  in.round = m.round;
  in.sem = m.sem;
  in.scope = m.scope;
  in.ftz = m.ftz;
  in.sat = m.sat;
  in.nc = m.nc;
  in.uni = m.uni;
  in.mode = m.mode;
  in.vec = m.vec;
  in.cmp = m.cmp;
  in.boolOp = m.boolOp;
  in.atom = m.atom;
  static const std::map<std::string_view, std::pair<Op, int>> arith = {
      {"add", {Op::Add, 2}}, {"sub", {Op::Sub, 2}}, {"mul", {Op::Mul, 2}}, {"mad", {Op::Mad, 3}},
      {"fma", {Op::Fma, 3}}, {"div", {Op::Div, 2}}, {"rem", {Op::Rem, 2}}, {"abs", {Op::Abs, 1}},
      {"neg", {Op::Neg, 1}}, {"min", {Op::Min, 2}}, {"max", {Op::Max, 2}}, {"and", {Op::And, 2}},
      {"or", {Op::Or, 2}}, {"xor", {Op::Xor, 2}}, {"not", {Op::Not, 1}}, {"cnot", {Op::Cnot, 1}},
      {"shl", {Op::Shl, 2}}, {"shr", {Op::Shr, 2}}, {"popc", {Op::Popc, 1}}, {"clz", {Op::Clz, 1}},
      {"brev", {Op::Brev, 1}}, {"bfe", {Op::Bfe, 3}}, {"bfi", {Op::Bfi, 4}}, {"prmt", {Op::Prmt, 3}},
      {"lop3", {Op::Lop3, 4}}, {"copysign", {Op::Copysign, 2}}, {"sad", {Op::Sad, 3}},
      {"rcp", {Op::Rcp, 1}}, {"sqrt", {Op::Sqrt, 1}}, {"rsqrt", {Op::Rsqrt, 1}}, {"ex2", {Op::Ex2, 1}},
      {"lg2", {Op::Lg2, 1}}, {"sin", {Op::Sin, 1}}, {"cos", {Op::Cos, 1}}, {"tanh", {Op::Tanh, 1}},
      {"selp", {Op::Selp, 3}}, {"slct", {Op::Slct, 3}}, {"testp", {Op::Testp, 1}}};
  if (auto it = arith.find(base); it != arith.end()) {
    in.op = it->second.first;
    if (in.type == Type::None) return err(line, "missing type in '" + opcodeText_ + "'");
    Type u32 = Type::U32;
    switch (in.op) {
      case Op::Shl: case Op::Shr: return simple(in, ops, 2, line, {Type::None, u32});
      case Op::Bfe: return simple(in, ops, 3, line, {Type::None, u32, u32});
      case Op::Bfi: return simple(in, ops, 4, line, {Type::None, Type::None, u32, u32});
      case Op::Prmt: return simple(in, ops, 3, line, {u32, u32, u32});
      case Op::Lop3: return simple(in, ops, 4, line, {Type::None, Type::None, Type::None, u32});
      case Op::Selp: return simple(in, ops, 3, line, {Type::None, Type::None, Type::Pred});
      case Op::Slct: return simple(in, ops, 3, line, {Type::None, Type::None, in.type2});
      case Op::Mad:
        if (hasPart(parts, "cc")) return carryArithmetic(in, ops, line, Op::MadCarry, kCarryOut);
        if (MulMode(in.mode) == MulMode::Wide) {
          Type wide = in.type == Type::S32 ? Type::S64 : in.type == Type::U32 ? Type::U64
                      : in.type == Type::S16 ? Type::S32 : Type::U32;
          return simple(in, ops, 3, line, {Type::None, Type::None, wide});
        }
        return simple(in, ops, 3, line);
      case Op::Add: case Op::Sub:
        if (hasPart(parts, "cc"))
          return carryArithmetic(in, ops, line, in.op == Op::Add ? Op::AddCarry : Op::SubCarry, kCarryOut);
        return simple(in, ops, 2, line);
      default: return simple(in, ops, size_t(it->second.second), line);
    }
  }
  if (base == "bmsk" && hasPart(parts, "clamp")) {
    // bmsk.clamp.b32 d, a, b: bits [a, min(a+b, 32)) set, which is bfi of all ones into 0 at a, b
    // (bfi reads the low 8 bits of a and b: they agree while a and b are below 256).
    in.op = Op::Bfi;
    in.type = Type::B32;
    if (auto st = needOps(ops, 3, line); !st.ok()) return st;
    auto d = dstRef(ops[0], line);
    auto a = srcRef(ops[1], Type::U32, line), b = srcRef(ops[2], Type::U32, line);
    if (!d.ok()) return d.status();
    if (!a.ok()) return a.status();
    if (!b.ok()) return b.status();
    in.dst[0] = *d; in.ndst = 1;
    in.src[0] = constRef(addConst({Constant::Kind::Value, 0xFFFFFFFFu, 0}));
    in.src[1] = constRef(addConst({Constant::Kind::Value, 0, 0}));
    in.src[2] = *a; in.src[3] = *b; in.nsrc = 4;
    return absl::OkStatus();
  }
  if (base == "shf") {
    in.op = Op::Shf;
    if (in.type == Type::None) in.type = Type::B32;
    return simple(in, ops, 3, line, {Type::None, Type::None, Type::U32});
  }
  if (base == "bfind") {
    in.op = Op::Bfind;
    return simple(in, ops, 1, line);
  }
  if (base == "isspacep") {
    in.op = Op::Isspacep;
    in.type = Type::U64;
    return simple(in, ops, 1, line);
  }
  if (base == "redux") {
    in.op = Op::Redux;
    if (in.atom == AtomOp::None || in.type == Type::None) return unsupported(line);
    return simple(in, ops, 2, line, {Type::None, Type::U32});
  }
  if (base == "addc" || base == "subc" || base == "madc" || base == "mul24" || base == "mad24" || base == "dp4a" ||
      base == "dp2a")
    return extendedInteger(base, parts, ops, in, line);
  if (base == "vabsdiff4" || base == "vabsdiff2") {  // (what CUDA's __vabsdiff*, __vsad* intrinsics emit)
    // d = c + the sum of |a.elem - b.elem| (.add), or each element's |a - b| (clamped with
    // .sat) in d; the element selectors and masks other than the whole word are not accepted.
    if (m.types.size() != 3 || (m.hasMode && m.sat)) return unsupported(line);
    in.op = base == "vabsdiff4" ? Op::Vabsdiff4 : Op::Vabsdiff2;
    in.mode = uint8_t(m.hasMode) | uint8_t(ptx::isSigned(m.types[0]) ? 2 : 0);  // 1: reduce into c; 2: signed d
    in.type = m.types[1];
    in.type2 = m.types[2];
    return simple(in, ops, 3, line, {m.types[1], m.types[2], m.types[0]});
  }
  if (base == "brx") return branchIndexed(parts, ops, in, line);
  if (base == "tex") return textureFetch(parts, ops, in, line);
  if (base == "suld" || base == "sust") return surfaceAccess(base, parts, ops, in, line);
  if (base == "cvt") {
    in.op = Op::Cvt;
    if (m.types.size() != 2) return err(line, "cvt needs two types in '" + opcodeText_ + "'");
    // cvt.rn.f16x2.f32 d, a, b (bf16x2 too): two floats packed into one register
    // (and cvt.rn.satfinite.e4m3x2.f32 d, a, b: two fp8 in 16 bits)
    bool pair = in.type == Type::F16x2 || in.type == Type::BF16x2 || in.type == Type::E4M3x2 || in.type == Type::E5M2x2;
    if (pair && in.type2 == Type::F32) return simple(in, ops, 2, line, {Type::F32, Type::F32});
    return simple(in, ops, 1, line, {in.type2});
  }
  if (base == "setp" || base == "set") {
    in.op = base == "setp" ? Op::Setp : Op::Set;
    if (in.op == Op::Set) {  // set.cmp.dtype.stype
      if (m.types.size() != 2) return err(line, "set needs two types");
      std::swap(in.type, in.type2);  // type = source type, type2 = destination type
    }
    if (ops.size() < 3 || ops.size() > 4) return err(line, "wrong operand count for '" + opcodeText_ + "'");
    if (auto st = pairDestination(ops[0], in, line); !st.ok()) return st;
    for (size_t i = 1; i < ops.size(); ++i) {
      auto s = srcRef(ops[i], i == 3 ? Type::Pred : in.type, line);
      if (!s.ok()) return s.status();
      in.src[i - 1] = *s;
      if (i == 3) in.negC = ops[i].neg;
    }
    in.nsrc = uint8_t(ops.size() - 1);
    if (in.nsrc == 3 && in.boolOp == BoolOp::None) return err(line, "setp with a predicate operand needs .and/.or/.xor");
    return absl::OkStatus();
  }
  if (base == "mov") {
    in.op = Op::Mov;
    if (auto st = needOps(ops, 2, line); !st.ok()) return st;
    // (a vector of mov packs or unpacks 2 or 4 elements: Instr holds four)
    for (const POp& op : ops)
      if (op.k == POp::Vec && (op.elems.size() < 2 || op.elems.size() > 4))
        return err(line, "a vector operand of '" + opcodeText_ + "' holds 2 to 4 elements");
    if (ops[0].k == POp::Vec) {  // unpack
      in.op = Op::MovUnpack;
      for (auto& e : ops[0].elems) {
        auto d = dstRef(e, line);
        if (!d.ok()) return d.status();
        in.dst[in.ndst++] = *d;
      }
      auto s = srcRef(ops[1], in.type, line);
      if (!s.ok()) return s.status();
      in.src[0] = *s;
      in.nsrc = 1;
      return absl::OkStatus();
    }
    auto d = dstRef(ops[0], line);
    if (!d.ok()) return d.status();
    in.dst[0] = *d;
    in.ndst = 1;
    if (ops[1].k == POp::Vec) {  // pack
      in.op = Op::MovPack;
      for (auto& e : ops[1].elems) {
        auto s = srcRef(e, Type::None, line);
        if (!s.ok()) return s.status();
        in.src[in.nsrc++] = *s;
      }
      return absl::OkStatus();
    }
    if (ops[1].k == POp::Name) {
      std::string_view n = ops[1].name;
      if (n == "%clock") { in.op = Op::ReadClock; in.mode = kClock; return absl::OkStatus(); }
      if (n == "%clock64") { in.op = Op::ReadClock; in.mode = kClock64; return absl::OkStatus(); }
      if (n == "%globaltimer") { in.op = Op::ReadClock; in.mode = kGlobalTimer; return absl::OkStatus(); }
      if (n == "%globaltimer_lo") { in.op = Op::ReadClock; in.mode = kGlobalTimerLo; return absl::OkStatus(); }
      if (n == "%globaltimer_hi") { in.op = Op::ReadClock; in.mode = kGlobalTimerHi; return absl::OkStatus(); }
    }
    auto s = srcRef(ops[1], in.type, line, &in);
    if (!s.ok()) return s.status();
    if (*s == kNoRef) { in.op = Op::MovFrameAddr; return absl::OkStatus(); }
    in.src[0] = *s;
    in.nsrc = 1;
    return absl::OkStatus();
  }
  if (base == "cvta") {
    in.op = Op::Cvta;
    in.toGeneric = !m.to;
    if (in.space == Space::Generic) return err(line, "cvta needs a state space");
    if (auto st = needOps(ops, 2, line); !st.ok()) return st;
    if (ops[1].k == POp::Name) {
      auto s = lookup(ops[1].name);
      if (s && s->k == Sym::Frame) {  // cvta.local of a frame variable's address
        in.op = Op::MovFrameAddr;
        in.addr.base = Address::Base::Frame;
        in.addr.offset = int64_t(s->offset);
        auto d = dstRef(ops[0], line);
        if (!d.ok()) return d.status();
        in.dst[0] = *d;
        in.ndst = 1;
        return absl::OkStatus();
      }
    }
    return simple(in, ops, 1, line);
  }
  if (base == "ld" || base == "ldu" || base == "st") {
    in.op = base == "st" ? Op::St : Op::Ld;
    if (in.type == Type::None) return err(line, "missing type in '" + opcodeText_ + "'");
    if (auto st = needOps(ops, 2, line); !st.ok()) return st;
    const POp& addr = in.op == Op::St ? ops[0] : ops[1];
    const POp& val = in.op == Op::St ? ops[1] : ops[0];
    if (auto st = addrOperand(addr, in, line); !st.ok()) return st;
    if (in.addr.base == Address::Base::Param && in.op == Op::St)
      return err(line, "store to a kernel parameter is unsupported");
    std::vector<const POp*> vals;
    if (val.k == POp::Vec) for (auto& e : val.elems) vals.push_back(&e);
    else vals.push_back(&val);
    if (vals.size() != in.vec) return err(line, "vector width mismatch in '" + opcodeText_ + "'");
    for (auto* v : vals) {
      if (in.op == Op::Ld) {
        auto d = dstRef(*v, line);
        if (!d.ok()) return d.status();
        in.dst[in.ndst++] = *d;
      } else {
        auto s = srcRef(*v, in.type, line);
        if (!s.ok()) return s.status();
        in.src[in.nsrc++] = *s;
      }
    }
    return absl::OkStatus();
  }
  if (base == "atom" || base == "red") {
    in.op = base == "atom" ? Op::Atom : Op::Red;
    if (in.atom == AtomOp::None) return err(line, "missing operation in '" + opcodeText_ + "'");
    if (in.type == Type::None) return err(line, "missing type in '" + opcodeText_ + "'");
    if (m.vec != 1) return unsupported(line);
    size_t i = 0;
    size_t nsrc = in.atom == AtomOp::Cas ? 2 : 1;
    if (ops.size() != (in.op == Op::Atom ? 2 : 1) + nsrc) return err(line, "wrong operand count for '" + opcodeText_ + "'");
    if (in.op == Op::Atom) {
      auto d = dstRef(ops[0], line);
      if (!d.ok()) return d.status();
      in.dst[0] = *d;
      in.ndst = 1;
      i = 1;
    }
    if (auto st = addrOperand(ops[i], in, line); !st.ok()) return st;
    for (size_t k = 0; k < nsrc; ++k) {
      auto s = srcRef(ops[i + 1 + k], in.type, line);
      if (!s.ok()) return s.status();
      in.src[in.nsrc++] = *s;
    }
    if (in.addr.base != Address::Base::Ref) return err(line, "atomic on a local/param address is unsupported");
    return absl::OkStatus();
  }
  if (base == "membar") {
    in.op = Op::Membar;
    if (in.scope == Scope::None) return err(line, "membar needs .cta/.gl/.sys");
    return absl::OkStatus();
  }
  if (base == "fence") {
    if (parts.size() > 1 && parts[1].substr(0, 5) == "proxy") return unsupported(line);
    in.op = Op::Membar;
    if (in.scope == Scope::None) in.scope = Scope::Gpu;
    return absl::OkStatus();
  }
  if (base == "bar" || base == "barrier") {
    if (in.uni) {  // bar.warp.sync
      in.uni = false;
      in.op = Op::BarWarpSync;
      if (auto st = needOps(ops, 1, line); !st.ok()) return st;
      auto s = srcRef(ops[0], Type::U32, line);
      if (!s.ok()) return s.status();
      in.src[0] = *s;
      in.nsrc = 1;
      return absl::OkStatus();
    }
    in.op = Op::Bar;
    in.uni = base == "bar" || hasPart(parts, "aligned");  // every thread of a warp executes it together
    BarKind k = BarKind(in.mode);
    if (k == BarKind::RedPopc || k == BarKind::RedAnd || k == BarKind::RedOr) {
      // bar.red.popc.u32 d, a{, b}, {!}c
      if (ops.size() < 3 || ops.size() > 4) return err(line, "wrong operand count for '" + opcodeText_ + "'");
      auto d = dstRef(ops[0], line);
      if (!d.ok()) return d.status();
      in.dst[0] = *d;
      in.ndst = 1;
      for (size_t i = 1; i < ops.size(); ++i) {
        auto s = srcRef(ops[i], i + 1 == ops.size() ? Type::Pred : Type::U32, line);
        if (!s.ok()) return s.status();
        in.src[i - 1] = *s;
      }
      in.nsrc = uint8_t(ops.size() - 1);
      if (in.nsrc == 2) { in.src[2] = in.src[1]; in.src[1] = kNoRef; }
      in.negC = ops.back().neg;
      in.nsrc = 3;
      return absl::OkStatus();
    }
    if (ops.empty() || ops.size() > 2) return err(line, "wrong operand count for '" + opcodeText_ + "'");
    for (size_t i = 0; i < ops.size(); ++i) {
      auto s = srcRef(ops[i], Type::U32, line);
      if (!s.ok()) return s.status();
      in.src[i] = *s;
    }
    in.nsrc = uint8_t(ops.size());
    return absl::OkStatus();
  }
  if (base == "shfl") {
    in.op = Op::Shfl;
    if (parts.size() < 2 || parts[1] != "sync") return err(line, withoutSync(opcodeText_, "shfl"));
    if (auto st = needOps(ops, 5, line); !st.ok()) return st;
    if (auto st = pairDestination(ops[0], in, line); !st.ok()) return st;
    for (size_t i = 1; i < 5; ++i) {
      auto s = srcRef(ops[i], i == 1 ? in.type : Type::U32, line);
      if (!s.ok()) return s.status();
      in.src[i - 1] = *s;
    }
    in.nsrc = 4;
    return absl::OkStatus();
  }
  if (base == "vote") {
    in.op = Op::Vote;
    // vote.sync.ballot and vote.ballot.sync (CUB's inline asm) are the same instruction.
    if (std::find(parts.begin() + 1, parts.end(), "sync") == parts.end())
      return err(line, withoutSync(opcodeText_, "vote"));
    if (auto st = needOps(ops, 3, line); !st.ok()) return st;
    auto d = dstRef(ops[0], line);
    if (!d.ok()) return d.status();
    in.dst[0] = *d; in.ndst = 1;
    auto a = srcRef(ops[1], Type::Pred, line);
    if (!a.ok()) return a.status();
    in.src[0] = *a;
    in.negC = ops[1].neg;
    auto b = srcRef(ops[2], Type::U32, line);
    if (!b.ok()) return b.status();
    in.src[1] = *b;
    in.nsrc = 2;
    return absl::OkStatus();
  }
  if (base == "match") {
    in.op = Op::Match;
    if (auto st = needOps(ops, 3, line); !st.ok()) return st;
    if (auto st = pairDestination(ops[0], in, line); !st.ok()) return st;
    auto a = srcRef(ops[1], in.type, line), b = srcRef(ops[2], Type::U32, line);
    if (!a.ok()) return a.status();
    if (!b.ok()) return b.status();
    in.src[0] = *a; in.src[1] = *b; in.nsrc = 2;
    return absl::OkStatus();
  }
  if (base == "activemask") {
    in.op = Op::Activemask;
    if (auto st = needOps(ops, 1, line); !st.ok()) return st;
    auto d = dstRef(ops[0], line);
    if (!d.ok()) return d.status();
    in.dst[0] = *d; in.ndst = 1;
    return absl::OkStatus();
  }
  if (base == "bra") {
    in.op = Op::Bra;
    if (auto st = needOps(ops, 1, line); !st.ok()) return st;
    if (ops[0].k != POp::Name) return err(line, "bra needs a label");
    labelFixups_.emplace_back(uint32_t(m_.code.size()), ops[0].name, line);
    return absl::OkStatus();
  }
  if (base == "call") {
    in.op = Op::Call;
    for (size_t i = 1; i < parts.size(); ++i)
      if (parts[i] == "uni") in.uni = true;
      else return err(line, "unsupported modifier '." + std::string(parts[i]) + "' in '" + opcodeText_ + "'");
    CallSite cs;
    size_t i = 0;
    std::vector<const POp*> rets, args;
    if (i < ops.size() && ops[i].k == POp::List) { for (auto& e : ops[i].elems) rets.push_back(&e); ++i; }
    if (i >= ops.size() || ops[i].k != POp::Name) return err(line, "call needs a function name");
    std::string_view callee = ops[i].name;
    // An indirect call: the callee is the function whose address a register holds.
    bool indirect = callee[0] == '%' || (lookup(callee) && lookup(callee)->k == Sym::Reg);
    if (indirect) {
      auto target = srcRef(ops[i], Type::U64, line);
      if (!target.ok()) return target.status();
      in.src[0] = *target;
      in.nsrc = 1;
    }
    ++i;
    if (i < ops.size() && ops[i].k == POp::List) { for (auto& e : ops[i].elems) args.push_back(&e); ++i; }
    if (indirect && i < ops.size() && ops[i].k == POp::Name) ++i;  // the .callprototype label
    if (i != ops.size()) return err(line, "unsupported call form (extra operands)");
    for (auto* r : rets) {
      int64_t off;
      if (auto st = frameSymOffset(*r, off, line); !st.ok()) return st;
      cs.retOffsets.push_back(off);
    }
    for (auto* a : args) {
      int64_t off;
      if (auto st = frameSymOffset(*a, off, line); !st.ok()) return st;
      cs.argOffsets.push_back(off);
    }
    m_.calls.push_back(std::move(cs));
    in.call = uint32_t(m_.calls.size() - 1);
    if (indirect) {
      in.target = kIndirectCall;
      m_.calls.back().callee = kIndirectCall;
      m_.functions[curFunc_].callsIndirectly = true;
    } else {
      pendingCalls_.emplace_back(uint32_t(m_.code.size()), callee, line);
    }
    return absl::OkStatus();
  }
  if (base == "ret") { in.op = m_.functions[curFunc_].entry ? Op::Exit : Op::Ret; return absl::OkStatus(); }
  if (base == "exit") { in.op = Op::Exit; return absl::OkStatus(); }
  if (base == "trap") { in.op = Op::Trap; return absl::OkStatus(); }
  if (base == "brkpt" || base == "pmevent") { in.op = Op::Nop; return absl::OkStatus(); }
  if (base == "nanosleep") {
    in.op = Op::Nanosleep;
    return absl::OkStatus();
  }
  if (base == "griddepcontrol" && parts.size() == 2 && ops.empty()) {
    if (parts[1] == "wait") { in.op = Op::GridDepWait; return absl::OkStatus(); }
    if (parts[1] == "launch_dependents") { in.op = Op::GridDepLaunch; return absl::OkStatus(); }
  }
  if (base == "prefetch" || base == "prefetchu" || base == "discard" || base == "createpolicy") {
    if (base == "createpolicy") return unsupported(line);
    in.op = Op::Nop;
    return absl::OkStatus();
  }
  return unsupported(line);
}

}  // namespace predatar::ptx::detail
