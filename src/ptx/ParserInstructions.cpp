// Parser, instruction statements: predicate guard, opcode and operands, and the
// operand handling of the instruction families with their own layout.
#include "ptx/ParserImpl.h"

namespace predatar::ptx::detail {

absl::Status Parser::instruction() {
  Instr in;
  in.func = curFunc_;
  in.source = curSource_;
  uint32_t line = peek().line;
  in.line = line;
  if (accept('@')) {
    bool neg = accept('!');
    if (peek().kind != Tok::Ident) return err(line, "expected a predicate after '@'");
    auto s = lookup(next().text);
    if (!s || s->k != Sym::Reg) return err(line, "unknown guard predicate");
    in.guard = regRef(s->index);
    in.guardNeg = neg;
  }
  if (peek().kind != Tok::Ident) return err(line, "expected an instruction, found '" + std::string(peek().text) + "'");
  std::string_view opText = next().text;
  opcodeText_ = std::string(opText);
  std::vector<std::string_view> parts;
  {
    size_t b = 0;
    for (size_t i = 0; i <= opText.size(); ++i)
      if (i == opText.size() || opText[i] == '.') {
        parts.push_back(opText.substr(b, i - b));
        b = i + 1;
      }
  }
  std::string_view base = parts[0];
  std::vector<POp> ops;
  if (!isPunct(';')) {
    do {
      auto o = operand();
      if (!o.ok()) return o.status();
      ops.push_back(std::move(*o));
    } while (accept(','));
  }
  if (auto st = expect(';'); !st.ok()) return st;
  static const std::set<std::string_view> known = {
      "add", "sub", "mul", "mad", "fma", "div", "rem", "abs", "neg", "min", "max", "and", "or", "xor", "not",
      "cnot", "shl", "shr", "popc", "clz", "brev", "bfe", "bfi", "prmt", "lop3", "copysign", "sad", "rcp",
      "sqrt", "rsqrt", "ex2", "lg2", "sin", "cos", "tanh", "selp", "slct", "testp", "cvt", "setp", "set",
      "mov", "cvta", "ld", "ldu", "st", "atom", "red", "membar", "fence", "bar", "barrier", "shfl", "vote",
      "match", "redux", "shf", "bfind", "isspacep", "activemask", "bra", "brx", "call", "ret", "exit", "trap", "brkpt", "pmevent", "nanosleep",
      "prefetch", "prefetchu", "discard", "addc", "subc", "madc", "mul24", "mad24", "dp4a", "dp2a", "tex", "suld", "sust", "vabsdiff4", "vabsdiff2",
      "wmma", "mma", "ldmatrix", "cp", "mbarrier", "griddepcontrol"};
  bool bmskClamp = base == "bmsk" && hasPart(parts, "clamp");  // ParserDecode.cpp (.wrap is not supported)
  if (!known.count(base) && !bmskClamp) {  // kept, so that kernels that do not execute it still run
    in.op = Op::Unsupported;
    m_.unsupported[uint32_t(m_.code.size())] = opcodeText_;
    m_.code.push_back(in);
    return absl::OkStatus();
  }
  Mods m;
  if (isMatrixFamily(base) || (base == "cvt" && hasPart(parts, "tf32"))) return matrixInstruction(parts, ops, in, line);
  if (base != "call" && base != "brx" && base != "griddepcontrol" && !bmskClamp) {
    if (auto st = parseMods(base, parts, m, line); !st.ok()) return st;
  }
  if (auto st = decode(base, parts, m, ops, in, line); !st.ok()) return st;
  m_.code.push_back(in);
  return absl::OkStatus();
}

// wmma / cp.async / mbarrier: the opcode is decoded by ptx/MatrixDecode.cpp, the operands here.
absl::Status Parser::matrixInstruction(const std::vector<std::string_view>& parts, const std::vector<POp>& ops, Instr& in,
                               uint32_t line) {
  MatrixOperands mo;
  std::string sig;
  std::string why = decodeMatrixOpcode(parts, in, mo, sig);
  if (why == "unsupported") {  // kept, refused by name when executed
    in.op = Op::Unsupported;
    m_.unsupported[uint32_t(m_.code.size())] = opcodeText_;
    m_.code.push_back(in);
    return absl::OkStatus();
  }
  if (!why.empty()) return err(line, why + " in '" + opcodeText_ + "'");
  size_t required = std::min(sig.find('?'), sig.size());
  if (required < sig.size()) sig.erase(required, 1);
  if (ops.size() < required || ops.size() > sig.size()) return err(line, "wrong operand count for '" + opcodeText_ + "'");
  for (size_t i = 0; i < ops.size(); ++i) {
    if (sig[i] == 'M' || sig[i] == 'N') {
      Instr probe;
      if (auto st = addrOperand(ops[i], probe, line); !st.ok()) return st;
      if (probe.addr.base != Address::Base::Ref) return err(line, "local/param address in '" + opcodeText_ + "' is unsupported");
      (sig[i] == 'M' ? in.addr : mo.source) = probe.addr;
      continue;
    }
    std::vector<const POp*> elems;
    if (ops[i].k == POp::Vec) for (auto& e : ops[i].elems) elems.push_back(&e);
    else elems.push_back(&ops[i]);
    for (const POp* e : elems) {
      bool written = sig[i] == 'D' || sig[i] == 'd';
      auto r = written ? dstRef(*e, line) : srcRef(*e, Type::U64, line);
      if (!r.ok()) return r.status();
      if ((sig[i] == 'd' && in.ndst == 4) || (sig[i] == 's' && in.nsrc == 4)) return err(line, "too many operands");
      switch (sig[i]) {
        case 'D': mo.d.push_back(*r); break;
        case 'A': mo.a.push_back(*r); break;
        case 'B': mo.b.push_back(*r); break;
        case 'C': mo.c.push_back(*r); break;
        case 'd': in.dst[in.ndst++] = *r; break;
        default: in.src[in.nsrc++] = *r; break;
      }
    }
  }
  // wmma is warp-collective (sim: Ctrl::WarpSync): its member mask is every lane.
  if (in.op == Op::WmmaLoad || in.op == Op::WmmaStore || in.op == Op::WmmaMma)
    in.src[1] = constRef(addConst({Constant::Kind::Value, 0xFFFFFFFFu, 0}));
  in.target = uint32_t(m_.matrixOps.size());
  m_.matrixOps.push_back(std::move(mo));
  m_.code.push_back(in);
  return absl::OkStatus();
}

absl::Status Parser::unsupported(uint32_t line) {
  return err(line, "unsupported instruction '" + opcodeText_ + "'");
}

absl::Status Parser::needOps(const std::vector<POp>& ops, size_t n, uint32_t line) {
  if (ops.size() != n)
    return err(line, "'" + opcodeText_ + "' expects " + std::to_string(n) + " operands, got " + std::to_string(ops.size()));
  return absl::OkStatus();
}

// d, a[, b[, c[, e]]] with all sources of type `t` unless overridden
absl::Status Parser::simple(Instr& in, const std::vector<POp>& ops, size_t nsrc, uint32_t line,
                    std::initializer_list<Type> srcTypes) {
  if (auto st = needOps(ops, nsrc + 1, line); !st.ok()) return st;
  auto d = dstRef(ops[0], line);
  if (!d.ok()) return d.status();
  in.dst[0] = *d;
  in.ndst = 1;
  auto types = std::vector<Type>(srcTypes);
  for (size_t i = 0; i < nsrc; ++i) {
    Type t = i < types.size() && types[i] != Type::None ? types[i] : in.type;
    auto s = srcRef(ops[i + 1], t, line);
    if (!s.ok()) return s.status();
    in.src[i] = *s;
  }
  in.nsrc = uint8_t(nsrc);
  return absl::OkStatus();
}

bool Parser::hasPart(const std::vector<std::string_view>& parts, std::string_view p) {
  return std::find(parts.begin() + 1, parts.end(), p) != parts.end();
}

// add.cc / addc / sub.cc / subc / mad.cc / madc: `carry` says whether the
// carry flag is read (kCarryIn) and written (kCarryOut, the .cc suffix).
absl::Status Parser::carryArithmetic(Instr& in, const std::vector<POp>& ops, uint32_t line, Op op, uint8_t carry) {
  in.op = op;
  in.carry = carry;
  if (typeBytes(in.type) < 4 || ptx::isFloat(in.type)) return unsupported(line);
  return simple(in, ops, op == Op::MadCarry ? 3 : 2, line);
}

// addc/subc/madc, mul24/mad24, dp4a/dp2a (executed by sim/IntegerExtended.cpp).
absl::Status Parser::extendedInteger(std::string_view base, const std::vector<std::string_view>& parts,
                             const std::vector<POp>& ops, Instr& in, uint32_t line) {
  if (in.type == Type::None) return err(line, "missing type in '" + opcodeText_ + "'");
  uint8_t out = hasPart(parts, "cc") ? kCarryOut : 0;
  if (base == "addc") return carryArithmetic(in, ops, line, Op::AddCarry, kCarryIn | out);
  if (base == "subc") return carryArithmetic(in, ops, line, Op::SubCarry, kCarryIn | out);
  if (base == "madc") return carryArithmetic(in, ops, line, Op::MadCarry, kCarryIn | out);
  if (base == "mul24" || base == "mad24") {
    in.op = base == "mul24" ? Op::Mul24 : Op::Mad24;
    if (in.type != Type::U32 && in.type != Type::S32) return unsupported(line);
    return simple(in, ops, in.op == Op::Mul24 ? 2 : 3, line);
  }
  // dp4a.atype.btype / dp2a.mode.atype.btype: d and c are s32 when either source is signed.
  in.op = base == "dp4a" ? Op::Dp4a : Op::Dp2a;
  if (in.type2 == Type::None) return err(line, "'" + opcodeText_ + "' needs two types");
  Type acc = isSigned(in.type) || isSigned(in.type2) ? Type::S32 : Type::U32;
  return simple(in, ops, 3, line, {in.type, in.type2, acc});
}

// brx.idx{.uni} index, table: the table is a `.branchtargets` list of this function.
absl::Status Parser::branchIndexed(const std::vector<std::string_view>& parts, const std::vector<POp>& ops, Instr& in,
                           uint32_t line) {
  if (parts.size() < 2 || parts[1] != "idx") return unsupported(line);
  for (size_t i = 2; i < parts.size(); ++i)
    if (parts[i] == "uni") in.uni = true;
    else return err(line, "unsupported modifier '." + std::string(parts[i]) + "' in '" + opcodeText_ + "'");
  if (auto st = needOps(ops, 2, line); !st.ok()) return st;
  if (ops[1].k != POp::Name) return err(line, "brx.idx needs a .branchtargets label");
  in.op = Op::BrxIdx;
  auto index = srcRef(ops[0], Type::U32, line);
  if (!index.ok()) return index.status();
  in.src[0] = *index;
  in.nsrc = 1;
  tableFixups_.emplace_back(uint32_t(m_.code.size()), ops[1].name, line);
  return absl::OkStatus();
}

// The Instr::mode of a tex geometry (ptx::kTex* flags | coordinate count); 0: unknown.
static uint8_t textureGeometry(std::string_view g) {
  if (g == "1d" || g == "2d" || g == "3d") return uint8_t(g[0] - '0');
  if (g == "a1d" || g == "a2d") return uint8_t(kTexLayered | (g[1] - '0'));
  if (g == "cube") return kTexCube | 3;
  if (g == "acube") return kTexCube | kTexLayered | 3;
  return 0;
}

// tex.{1d,2d,3d,a1d,a2d,cube,acube}.v4.dtype.ctype {d0..d3}, [texobj, {coordinates}]: an array
// geometry's first coordinate is the layer, an integer whatever ctype says.
absl::Status Parser::textureFetch(const std::vector<std::string_view>& parts, const std::vector<POp>& ops, Instr& in,
                          uint32_t line) {
  in.mode = textureGeometry(parts.size() > 1 ? parts[1] : "");
  if (in.mode == 0 || in.vec != 4 || in.type2 == Type::None) return unsupported(line);
  if (auto st = needOps(ops, 2, line); !st.ok()) return st;
  if (ops[0].k != POp::Vec || ops[0].elems.size() != 4 || ops[1].k != POp::Addr || ops[1].elems.size() != 1)
    return err(line, "expected '{d0, d1, d2, d3}, [texture, {coordinates}]' in '" + opcodeText_ + "'");
  in.op = Op::Tex;
  for (const POp& d : ops[0].elems) {
    auto r = dstRef(d, line);
    if (!r.ok()) return r.status();
    in.dst[in.ndst++] = *r;
  }
  POp handle;
  handle.k = POp::Name;
  handle.name = ops[1].name;
  auto h = srcRef(handle, Type::U64, line);
  if (!h.ok()) return h.status();
  // The handle rides in addr.ref: a layered cube fetch has four coordinates.
  in.addr.base = Address::Base::Ref;
  in.addr.ref = *h;
  const POp& coords = ops[1].elems[0];
  std::vector<const POp*> cs;
  if (coords.k == POp::Vec) for (auto& e : coords.elems) cs.push_back(&e);
  else cs.push_back(&coords);
  uint32_t count = (in.mode & kTexDims) + ((in.mode & kTexLayered) ? 1 : 0);
  if (cs.size() < count) return err(line, "too few texture coordinates in '" + opcodeText_ + "'");
  if (count > 4) return unsupported(line);
  for (uint32_t i = 0; i < count; ++i) {
    bool layer = i == 0 && (in.mode & kTexLayered);
    auto c = srcRef(*cs[i], layer ? Type::U32 : in.type2, line);
    if (!c.ok()) return c.status();
    in.src[in.nsrc++] = *c;
  }
  return absl::OkStatus();
}

// suld.b.{1d,2d,3d}{.v2,.v4}.bN.{trap,clamp,zero} {d...}, [surf, {x, y, z}] (x in bytes); sust likewise
// with the operands swapped. Formatted (.p) access is refused.
absl::Status Parser::surfaceAccess(std::string_view base, const std::vector<std::string_view>& parts,
                           const std::vector<POp>& ops, Instr& in, uint32_t line) {
  if (!hasPart(parts, "b")) return unsupported(line);
  uint8_t dims = hasPart(parts, "1d") ? 1 : hasPart(parts, "2d") ? 2 : hasPart(parts, "3d") ? 3 : 0;
  uint8_t range = hasPart(parts, "clamp") ? 1 : hasPart(parts, "zero") ? 2 : 0;
  if (dims == 0 || in.type == Type::None || typeBytes(in.type) > 8) return unsupported(line);
  in.mode = uint8_t(dims | range << 4);
  in.op = base == "suld" ? Op::SurfLoad : Op::SurfStore;
  if (auto st = needOps(ops, 2, line); !st.ok()) return st;
  const POp& addr = in.op == Op::SurfLoad ? ops[1] : ops[0];
  const POp& vals = in.op == Op::SurfLoad ? ops[0] : ops[1];
  if (addr.k != POp::Addr || addr.elems.size() != 1)
    return err(line, "expected '[surface, {coordinates}]' in '" + opcodeText_ + "'");
  std::vector<const POp*> vs;
  if (vals.k == POp::Vec) for (auto& e : vals.elems) vs.push_back(&e);
  else vs.push_back(&vals);
  if (vs.size() != in.vec) return err(line, "vector width mismatch in '" + opcodeText_ + "'");
  POp handle;
  handle.k = POp::Name;
  handle.name = addr.name;
  auto h = srcRef(handle, Type::U64, line);
  if (!h.ok()) return h.status();
  in.src[in.nsrc++] = *h;
  const POp& coords = addr.elems[0];
  std::vector<const POp*> cs;
  if (coords.k == POp::Vec) for (auto& e : coords.elems) cs.push_back(&e);
  else cs.push_back(&coords);
  if (cs.size() < dims) return err(line, "too few surface coordinates in '" + opcodeText_ + "'");
  for (uint32_t i = 0; i < dims; ++i) {
    auto c = srcRef(*cs[i], Type::S32, line);
    if (!c.ok()) return c.status();
    in.src[in.nsrc++] = *c;
  }
  // Values: loads write dst[0..vec), stores read them from dst[] slots as sources (src holds the coordinates).
  for (const POp* v : vs) {
    auto r = in.op == Op::SurfLoad ? dstRef(*v, line) : srcRef(*v, in.type, line);
    if (!r.ok()) return r.status();
    in.dst[in.ndst++] = *r;
  }
  return absl::OkStatus();
}

// `name: .branchtargets L1, L2, ...;` (the label and colon are consumed).
absl::Status Parser::branchTargets(std::string_view name, uint32_t line) {
  next();  // .branchtargets
  std::vector<std::string_view> targets;
  do {
    if (peek().kind != Tok::Ident) return err(line, "expected a label in .branchtargets");
    targets.push_back(next().text);
  } while (accept(','));
  branchTableNames_[name] = targets;
  return expect(';');
}

}  // namespace predatar::ptx::detail
