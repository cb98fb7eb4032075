// Parser, operands: operand syntax, instruction modifiers and the decoding of
// operands into register/immediate/address references.
#include "ptx/ParserImpl.h"

namespace predatar::ptx::detail {

absl::StatusOr<POp> Parser::operand() {
  POp o;
  if (accept('[')) {
    o.k = POp::Addr;
    if (peek().kind == Tok::Ident) {
      o.name = next().text;
      o.addrHasName = true;
    }
    if (o.addrHasName && accept(',')) {  // [texture, {coordinates}]
      auto coords = operand();
      if (!coords.ok()) return coords.status();
      o.elems.push_back(std::move(*coords));
      if (auto st = expect(']'); !st.ok()) return st;
      return o;
    }
    while (!isPunct(']')) {
      bool neg = false;
      if (accept('+')) {}
      else if (accept('-')) neg = true;
      else if (!o.addrHasName && o.offset == 0) {}
      else return err(peek().line, "unsupported address expression near '" + std::string(peek().text) + "'");
      if (accept('-')) neg = !neg;
      if (peek().kind != Tok::Int) return err(peek().line, "unsupported address expression near '" + std::string(peek().text) + "'");
      int64_t v = int64_t(next().bits);
      o.offset += neg ? -v : v;
    }
    next();
    return o;
  }
  // {a, b} vector operands and (a, b) call argument lists.
  for (auto [open, close, kind] : {std::tuple{'{', '}', POp::Vec}, std::tuple{'(', ')', POp::List}}) {
    if (!accept(open)) continue;
    o.k = kind;
    if (!isPunct(close)) {
      do {
        auto e = operand();
        if (!e.ok()) return e.status();
        o.elems.push_back(std::move(*e));
      } while (accept(','));
    }
    if (auto st = expect(close); !st.ok()) return st;
    return o;
  }
  if (accept('!')) {
    auto e = operand();
    if (!e.ok()) return e.status();
    e->neg = true;
    return e;
  }
  bool neg = accept('-');
  const Token& t = next();
  if (t.kind == Tok::Int) {
    o.k = POp::Int;
    o.bits = neg ? uint64_t(-int64_t(t.bits)) : t.bits;
  } else if (t.kind == Tok::Float) {
    o.k = POp::Float;
    o.bits = t.bits;
    o.f64 = t.f64;
    if (neg) o.bits ^= t.f64 ? (1ull << 63) : (1ull << 31);
  } else if (t.kind == Tok::Ident) {
    o.k = t.text == "_" ? POp::Sink : POp::Name;
    o.name = t.text;
    if (neg) return err(t.line, "unsupported negated operand '-" + std::string(t.text) + "'");
  } else {
    return err(t.line, "unexpected '" + std::string(t.text) + "' in operand");
  }
  if (accept('|')) {
    auto e = operand();
    if (!e.ok()) return e.status();
    POp p;
    p.k = POp::Pipe;
    p.elems.push_back(std::move(o));
    p.elems.push_back(std::move(*e));
    return p;
  }
  return o;
}

absl::Status Parser::parseMods(std::string_view base, const std::vector<std::string_view>& parts, Mods& m,
                       uint32_t line) {
  static const std::map<std::string_view, Cmp> cmps = {
      {"eq", Cmp::Eq}, {"ne", Cmp::Ne}, {"lt", Cmp::Lt}, {"le", Cmp::Le}, {"gt", Cmp::Gt}, {"ge", Cmp::Ge},
      {"lo", Cmp::Lo}, {"ls", Cmp::Ls}, {"hi", Cmp::Hi}, {"hs", Cmp::Hs}, {"equ", Cmp::Equ}, {"neu", Cmp::Neu},
      {"ltu", Cmp::Ltu}, {"leu", Cmp::Leu}, {"gtu", Cmp::Gtu}, {"geu", Cmp::Geu}, {"num", Cmp::Num},
      {"nan", Cmp::Nan}};
  static const std::map<std::string_view, Round> rounds = {
      {"rn", Round::Rn}, {"rz", Round::Rz}, {"rm", Round::Rm}, {"rp", Round::Rp}, {"rna", Round::Rna},
      {"rni", Round::Rni}, {"rzi", Round::Rzi}, {"rmi", Round::Rmi}, {"rpi", Round::Rpi}};
  static const std::map<std::string_view, AtomOp> atoms = {
      {"add", AtomOp::Add}, {"inc", AtomOp::Inc}, {"dec", AtomOp::Dec}, {"min", AtomOp::Min},
      {"max", AtomOp::Max}, {"and", AtomOp::And}, {"or", AtomOp::Or}, {"xor", AtomOp::Xor},
      {"exch", AtomOp::Exch}, {"cas", AtomOp::Cas}};
  bool isCmpOp = base == "setp" || base == "set" || base == "slct";
  for (size_t i = 1; i < parts.size(); ++i) {
    std::string_view p = parts[i];
    if (auto it = typeTable().find(p); it != typeTable().end()) { m.types.push_back(it->second); continue; }
    if (isCmpOp) {
      if (auto it = cmps.find(p); it != cmps.end() && !m.hasCmp) { m.hasCmp = true; m.cmp = it->second; continue; }
      if (p == "and") { m.boolOp = BoolOp::And; continue; }
      if (p == "or") { m.boolOp = BoolOp::Or; continue; }
      if (p == "xor") { m.boolOp = BoolOp::Xor; continue; }
    }
    if (base == "shf") {
      if (p == "l") continue;
      if (p == "r") { m.mode |= 1; continue; }
      if (p == "wrap") continue;
      if (p == "clamp") { m.mode |= 2; continue; }
    }
    if (base == "bfind" && p == "shiftamt") { m.mode = 1; continue; }
    if ((base == "vabsdiff4" || base == "vabsdiff2") && p == "add") { m.hasMode = true; continue; }
    if ((base == "tex" || base == "suld" || base == "sust") && (p == "1d" || p == "2d" || p == "3d")) continue;
    if (base == "tex" && (p == "a1d" || p == "a2d" || p == "cube" || p == "acube")) continue;
    if ((base == "suld" || base == "sust") && (p == "b" || p == "trap" || p == "clamp" || p == "zero")) continue;
    if ((base == "atom" || base == "red" || base == "redux") && atoms.count(p) && m.atom == AtomOp::None) {
      m.atom = atoms.at(p);
      continue;
    }
    if (base == "mul" || base == "mad" || base == "mul24" || base == "mad24" || base == "madc" || base == "dp2a") {
      if (p == "lo") { m.mode = uint8_t(MulMode::Lo); continue; }
      if (p == "hi") { m.mode = uint8_t(MulMode::Hi); continue; }
      if (p == "wide") { m.mode = uint8_t(MulMode::Wide); continue; }
    }
    if (base == "shfl") {
      if (p == "up") { m.mode = uint8_t(ShflMode::Up); m.hasMode = true; continue; }
      if (p == "down") { m.mode = uint8_t(ShflMode::Down); m.hasMode = true; continue; }
      if (p == "bfly") { m.mode = uint8_t(ShflMode::Bfly); m.hasMode = true; continue; }
      if (p == "idx") { m.mode = uint8_t(ShflMode::Idx); m.hasMode = true; continue; }
    }
    if (base == "vote") {
      if (p == "all") { m.mode = uint8_t(VoteMode::All); m.hasMode = true; continue; }
      if (p == "any") { m.mode = uint8_t(VoteMode::Any); m.hasMode = true; continue; }
      if (p == "uni") { m.mode = uint8_t(VoteMode::Uni); m.hasMode = true; continue; }
      if (p == "ballot") { m.mode = uint8_t(VoteMode::Ballot); m.hasMode = true; continue; }
    }
    if (base == "match") {
      if (p == "any") { m.mode = 0; m.hasMode = true; continue; }
      if (p == "all") { m.mode = 1; m.hasMode = true; continue; }
    }
    if (base == "bar" || base == "barrier") {
      if (p == "sync") { m.mode = uint8_t(BarKind::Sync); continue; }
      if (p == "arrive") { m.mode = uint8_t(BarKind::Arrive); continue; }
      if (p == "red") { m.hasMode = true; continue; }
      if (p == "popc") { m.mode = uint8_t(BarKind::RedPopc); continue; }
      if (p == "and") { m.mode = uint8_t(BarKind::RedAnd); continue; }
      if (p == "or") { m.mode = uint8_t(BarKind::RedOr); continue; }
      if (p == "aligned" || p == "cta") continue;
      if (p == "warp") { m.uni = true; continue; }  // bar.warp.sync
    }
    if ((base == "min" || base == "max") && p == "relu") { m.mode |= kMinMaxRelu; continue; }
    if (base == "cvt") {
      if (p == "relu") { m.mode |= kCvtRelu; continue; }
      if (p == "satfinite") { m.mode |= kCvtSatfinite; continue; }
    }
    if (base == "testp") {
      static const std::map<std::string_view, TestpMode> tm = {
          {"finite", TestpMode::Finite}, {"infinite", TestpMode::Infinite}, {"number", TestpMode::Number},
          {"notanumber", TestpMode::NotANumber}, {"normal", TestpMode::Normal}, {"subnormal", TestpMode::Subnormal}};
      if (auto it = tm.find(p); it != tm.end()) { m.mode = uint8_t(it->second); continue; }
    }
    if (base == "prmt") {
      static const std::map<std::string_view, uint8_t> pm = {{"f4e", 1}, {"b4e", 2}, {"rc8", 3}, {"ecl", 4}, {"ecr", 5}, {"rc16", 6}};
      if (auto it = pm.find(p); it != pm.end()) { m.mode = it->second; continue; }
    }
    if (base == "membar") {
      if (p == "cta") { m.scope = Scope::Cta; continue; }
      if (p == "gl") { m.scope = Scope::Gpu; continue; }
      if (p == "sys") { m.scope = Scope::Sys; continue; }
    }
    if (auto it = rounds.find(p); it != rounds.end()) { m.round = it->second; continue; }
    if (p == "global") { m.space = Space::Global; continue; }
    if (p == "shared" || p == "shared::cta") { m.space = Space::Shared; continue; }
    if (p == "local") { m.space = Space::Local; continue; }
    if (p == "param" || p == "param::entry" || p == "param::func") { m.space = Space::Param; continue; }
    if (p == "const") { m.space = Space::Const; continue; }
    if (p == "volatile") { m.sem = Sem::Volatile; continue; }
    if (p == "relaxed") { m.sem = Sem::Relaxed; continue; }
    if (p == "acquire") { m.sem = Sem::Acquire; continue; }
    if (p == "release") { m.sem = Sem::Release; continue; }
    if (p == "acq_rel") { m.sem = Sem::AcqRel; continue; }
    if (p == "sc") { m.sem = Sem::Sc; continue; }
    if (p == "weak") { m.sem = Sem::Weak; continue; }
    if (p == "cta") { m.scope = Scope::Cta; continue; }
    if (p == "cluster") { m.scope = Scope::Cluster; continue; }
    if (p == "gpu") { m.scope = Scope::Gpu; continue; }
    if (p == "sys") { m.scope = Scope::Sys; continue; }
    if (p == "ftz") { m.ftz = true; continue; }
    if (p == "sat") { m.sat = true; continue; }
    if (p == "nc") { m.nc = true; continue; }
    if (p == "uni") { m.uni = true; continue; }
    if (p == "to") { m.to = true; continue; }
    if (p == "v2") { m.vec = 2; continue; }
    if (p == "v4") { m.vec = 4; continue; }
    if (p == "cc" && (base == "add" || base == "sub" || base == "addc" || base == "subc" || base == "mad" ||
                      base == "madc"))
      continue;
    if (p == "approx" || p == "full" || p == "sync" || p == "aligned" || p == "ca" || p == "cg" || p == "cs" ||
        p == "lu" || p == "cv" || p == "wb" || p == "wt" || p == "noftz" || p == "L1" || p == "L2" ||
        p.find("::") != std::string_view::npos)
      continue;
    return err(line, "unsupported modifier '." + std::string(p) + "' in '" + opcodeText_ + "'");
  }
  return absl::OkStatus();
}

uint32_t Parser::addConst(Constant c) {
  Function& f = m_.functions[curFunc_];
  auto key = std::make_tuple(uint8_t(c.kind), c.value, c.symbol);
  auto it = constIndex_.find(key);
  if (it != constIndex_.end()) return it->second;
  f.consts.push_back(c);
  uint32_t idx = uint32_t(f.consts.size() - 1);
  constIndex_[key] = idx;
  return idx;
}

void Parser::noteVariable(uint32_t v) {
  auto& vars = m_.functions[curFunc_].variables;
  if (std::find(vars.begin(), vars.end(), v) == vars.end()) vars.push_back(v);
}

int Parser::specialIndex(std::string_view n) {
  static const std::map<std::string_view, int> sp = {
      {"%tid.x", kTidX}, {"%tid.y", kTidY}, {"%tid.z", kTidZ}, {"%ntid.x", kNtidX}, {"%ntid.y", kNtidY},
      {"%ntid.z", kNtidZ}, {"%ctaid.x", kCtaidX}, {"%ctaid.y", kCtaidY}, {"%ctaid.z", kCtaidZ},
      {"%nctaid.x", kNctaidX}, {"%nctaid.y", kNctaidY}, {"%nctaid.z", kNctaidZ}, {"%laneid", kLaneId},
      {"%warpid", kWarpId}, {"%nwarpid", kNWarpId}, {"%lanemask_eq", kLanemaskEq},
      {"%lanemask_lt", kLanemaskLt}, {"%lanemask_le", kLanemaskLe}, {"%lanemask_gt", kLanemaskGt},
      {"%lanemask_ge", kLanemaskGe}, {"%smid", kSmId}, {"%nsmid", kNSmId}, {"%gridid", kGridId},
      {"%dynamic_smem_size", kDynSmem}, {"%total_smem_size", kTotalSmem}, {"%envreg1", kEnvReg1},
      {"%envreg2", kEnvReg2}};
  auto it = sp.find(n);
  if (it != sp.end()) return it->second;
  if (n.substr(0, 7) == "%envreg" || n.substr(0, 3) == "%pm") return kZero;
  return -1;
}

// Encodes an immediate for an operand of type `t`.
uint64_t Parser::immBits(const POp& o, Type t) {
  if (o.k == POp::Int) {
    if (t == Type::F32) { float f = float(int64_t(o.bits)); uint32_t u; std::memcpy(&u, &f, 4); return u; }
    if (t == Type::F64) { double d = double(int64_t(o.bits)); uint64_t u; std::memcpy(&u, &d, 8); return u; }
    return o.bits;
  }
  uint64_t b = o.bits;
  if (t == Type::F64 && !o.f64) {
    uint32_t u = uint32_t(b); float f; std::memcpy(&f, &u, 4); double d = f; std::memcpy(&b, &d, 8);
  } else if (t != Type::F64 && o.f64 && (t == Type::F32 || typeBytes(t) == 4)) {
    double d; std::memcpy(&d, &b, 8); float f = float(d); uint32_t u; std::memcpy(&u, &f, 4); b = u;
  }
  return b;
}

// A destination that may be a pair `a|b` (setp, shfl.sync, match.sync).
absl::Status Parser::pairDestination(const POp& o, Instr& in, uint32_t line) {
  bool pair = o.k == POp::Pipe;
  for (uint32_t i = 0; i < (pair ? 2u : 1u); ++i) {
    auto r = dstRef(pair ? o.elems[i] : o, line);
    if (!r.ok()) return r.status();
    in.dst[i] = *r;
  }
  in.ndst = pair ? 2 : 1;
  return absl::OkStatus();
}

absl::StatusOr<Ref> Parser::dstRef(const POp& o, uint32_t line) {
  if (o.k == POp::Sink) return kNoRef;
  if (o.k != POp::Name) return err(line, "expected a register as destination of '" + opcodeText_ + "'");
  auto s = lookup(o.name);
  if (!s || s->k != Sym::Reg) return err(line, "unknown register '" + std::string(o.name) + "' in '" + opcodeText_ + "'");
  return regRef(s->index);
}

// A source operand: register, immediate, special register or symbol address.
absl::StatusOr<Ref> Parser::srcRef(const POp& o, Type t, uint32_t line, Instr* in) {
  if (o.k == POp::Int || o.k == POp::Float) return constRef(addConst({Constant::Kind::Value, immBits(o, t), 0}));
  if (o.k != POp::Name) return err(line, "unsupported operand in '" + opcodeText_ + "'");
  if (o.name == "WARP_SZ") return constRef(addConst({Constant::Kind::Value, 32, 0}));
  if (o.name[0] == '%') {
    int sp = specialIndex(o.name);
    if (sp >= 0) return specialRef(uint32_t(sp));
    if (o.name == "%clock" || o.name == "%clock64" || o.name.substr(0, 12) == "%globaltimer")
      return err(line, "special register '" + std::string(o.name) + "' is only supported as the source of mov");
  }
  auto s = lookup(o.name);
  if (int32_t f = s ? -1 : m_.findFunction(o.name); f >= 0)  // a kernel's address (device-side launch)
    return constRef(addConst({Constant::Kind::FunctionAddr, 0, uint32_t(f)}));
  if (!s)
    return err(line, std::string(o.name[0] == '%' ? "unknown register '" : "unknown symbol '") +
                         std::string(o.name) + "' in '" + opcodeText_ + "'");
  switch (s->k) {
    case Sym::Reg: return regRef(s->index);
    case Sym::Var:
      noteVariable(s->index);
      return constRef(addConst({Constant::Kind::VariableAddr, 0, s->index}));
    case Sym::KernelParam:
      return constRef(addConst({Constant::Kind::KernelParamAddr, s->offset, 0}));
    case Sym::Frame:
      if (in) { in->addr.base = Address::Base::Frame; in->addr.offset = int64_t(s->offset); return kNoRef; }
      return err(line, "address of a local/param variable '" + std::string(o.name) + "' is only supported in mov");
  }
  return kNoRef;
}

absl::Status Parser::addrOperand(const POp& o, Instr& in, uint32_t line) {
  if (o.k != POp::Addr) return err(line, "expected an address operand in '" + opcodeText_ + "'");
  in.addr.offset = o.offset;
  if (!o.addrHasName) {
    in.addr.base = Address::Base::Ref;
    in.addr.ref = constRef(addConst({Constant::Kind::Value, 0, 0}));
    return absl::OkStatus();
  }
  auto s = lookup(o.name);
  if (!s) return err(line, "unknown symbol '" + std::string(o.name) + "' in address of '" + opcodeText_ + "'");
  switch (s->k) {
    case Sym::Reg: in.addr.base = Address::Base::Ref; in.addr.ref = regRef(s->index); break;
    case Sym::Var:
      noteVariable(s->index);
      in.addr.base = Address::Base::Ref;
      in.addr.ref = constRef(addConst({Constant::Kind::VariableAddr, 0, s->index}));
      break;
    case Sym::KernelParam: in.addr.base = Address::Base::Param; in.addr.offset += int64_t(s->offset); break;
    case Sym::Frame: in.addr.base = Address::Base::Frame; in.addr.offset += int64_t(s->offset); break;
  }
  return absl::OkStatus();
}

absl::Status Parser::frameSymOffset(const POp& o, int64_t& out, uint32_t line) {
  if (o.k != POp::Name) return err(line, "expected a .param name in call");
  auto s = lookup(o.name);
  if (!s || s->k != Sym::Frame)
    return err(line, "call argument '" + std::string(o.name) + "' is not a .param variable (unsupported)");
  out = int64_t(s->offset);
  return absl::OkStatus();
}

}  // namespace predatar::ptx::detail
