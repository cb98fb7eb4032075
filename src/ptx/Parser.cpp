#include "ptx/Parser.h"
#include "ptx/ParserImpl.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <cmath>
#include <functional>
#include <tuple>
#include <cstring>
#include <map>
#include <set>
#include <optional>
#include <unordered_map>

#include "absl/status/status.h"

namespace predatar::ptx {

// ---------------------------------------------------------------- basics

uint32_t typeBytes(Type t) {
  switch (t) {
    case Type::B8: case Type::U8: case Type::S8: return 1;
    case Type::B16: case Type::U16: case Type::S16: case Type::F16: case Type::BF16: return 2;
    case Type::E4M3x2: case Type::E5M2x2: return 2;
    case Type::B32: case Type::U32: case Type::S32: case Type::F32: case Type::F16x2: case Type::BF16x2: return 4;
    case Type::U16x2: case Type::S16x2: return 4;
    case Type::B64: case Type::U64: case Type::S64: case Type::F64: return 8;
    case Type::B128: return 16;
    case Type::Pred: return 1;
    case Type::None: return 0;
  }
  return 0;
}
bool isFloat(Type t) {
  return t == Type::F16 || t == Type::F16x2 || t == Type::BF16 || t == Type::BF16x2 || t == Type::F32 ||
         t == Type::F64;
}
bool isSigned(Type t) { return t == Type::S8 || t == Type::S16 || t == Type::S32 || t == Type::S64; }

static const char* kTypeNames[] = {"", "b8", "b16", "b32", "b64", "b128", "u8", "u16", "u32", "u64", "s8",
                                   "s16", "s32", "s64", "f16", "f16x2", "bf16", "bf16x2", "f32", "f64", "pred",
                                   "e4m3x2", "e5m2x2", "u16x2", "s16x2"};
const char* toString(Type t) { return kTypeNames[static_cast<int>(t)]; }
const char* toString(Space s) {
  static const char* names[] = {"generic", "global", "shared", "local", "param", "const"};
  return names[static_cast<int>(s)];
}
const char* toString(Op op) {
  static const char* names[] = {
      "add", "sub", "mul", "mad", "fma", "div", "rem", "abs", "neg", "min", "max", "and", "or", "xor", "not", "cnot",
      "shl", "shr", "popc", "clz", "brev", "bfe", "bfi", "prmt", "lop3", "copysign", "sad", "shf", "bfind", "isspacep",
      "rcp", "sqrt", "rsqrt", "ex2", "lg2", "sin", "cos", "tanh", "testp",
      "cvt", "setp", "selp", "set", "slct", "mov", "mov(pack)", "mov(unpack)", "mov(frame)", "mov(clock)", "cvta",
      "ld", "st", "atom", "red", "prefetch",
      "membar", "bar", "bar.warp.sync", "shfl", "vote", "match", "redux", "activemask",
      "bra", "brx.idx", "call", "ret", "exit", "trap", "nanosleep", "nop", "unsupported",
      "add(carry)", "sub(carry)", "mad(carry)", "mul24", "mad24", "dp4a", "dp2a", "vabsdiff4", "vabsdiff2",
      "tex", "suld", "sust",
      "wmma.load", "wmma.store", "wmma.mma", "cp.async", "cp.async.commit_group", "cp.async.wait",
      "cp.async.mbarrier.arrive", "mbarrier.init", "mbarrier.inval", "mbarrier.arrive", "mbarrier.tx",
      "mbarrier.test_wait", "mbarrier.pending_count", "cvt.tf32", "griddepcontrol.wait",
      "griddepcontrol.launch_dependents"};
  return names[static_cast<int>(op)];
}

int32_t Module::findFunction(std::string_view name) const {
  for (size_t i = 0; i < functions.size(); ++i)
    if (functions[i].name == name) return int32_t(i);
  return -1;
}
std::string fileName(const std::vector<std::pair<uint32_t, std::string>>& files, uint32_t index) {
  for (auto& [i, n] : files)
    if (i == index) return n;
  return "file" + std::to_string(index);
}
std::string Module::fileName(uint32_t index) const { return ptx::fileName(files, index); }

// ---------------------------------------------------------------- parser

namespace detail {

const std::map<std::string_view, Type>& typeTable() {
  static const std::map<std::string_view, Type> t = {
      {"b8", Type::B8}, {"b16", Type::B16}, {"b32", Type::B32}, {"b64", Type::B64}, {"b128", Type::B128},
      {"u8", Type::U8}, {"u16", Type::U16}, {"u32", Type::U32}, {"u64", Type::U64}, {"s8", Type::S8},
      {"s16", Type::S16}, {"s32", Type::S32}, {"s64", Type::S64}, {"f16", Type::F16}, {"f16x2", Type::F16x2},
      {"bf16", Type::BF16}, {"bf16x2", Type::BF16x2}, {"f32", Type::F32}, {"f64", Type::F64}, {"pred", Type::Pred},
      {"e4m3x2", Type::E4M3x2}, {"e5m2x2", Type::E5M2x2}, {"u16x2", Type::U16x2}, {"s16x2", Type::S16x2}};
  return t;
}

absl::StatusOr<Module> Parser::run() {
  if (auto st = lex(text_, m_.sourceName, toks_); !st.ok()) return st;
  while (peek().kind != Tok::End) {
    if (auto st = topLevel(); !st.ok()) return st;
  }
  // resolve calls
  for (auto& [instr, name, line] : pendingCalls_) {
    int32_t f = m_.findFunction(name);
    if (f < 0) return err(line, "call to unknown function '" + std::string(name) + "'");
    Instr& in = m_.code[instr];
    if (!m_.functions[f].defined) {
      in.mode = builtinFor(name);
      if (in.mode == kNotBuiltin)
        return err(line, "call to external function '" + std::string(name) +
                             "' (declared, not defined in this PTX) is unsupported");
    }
    in.target = uint32_t(f);
    m_.calls[in.call].callee = uint32_t(f);
    auto& callees = m_.functions[in.func].callees;
    if (in.mode == kNotBuiltin && std::find(callees.begin(), callees.end(), uint32_t(f)) == callees.end()) callees.push_back(uint32_t(f));
    auto& cs = m_.calls[in.call];
    const Function& callee = m_.functions[f];
    if (cs.argOffsets.size() != callee.params.size() || cs.retOffsets.size() != callee.rets.size())
      return err(line, "call to '" + std::string(name) + "' with wrong number of arguments");
  }
  if (auto st = resolveInitializerSymbols(); !st.ok()) return st;
  addIndirectCallees();
  return std::move(m_);
}

absl::Status Parser::resolveInitializerSymbols() {
  for (size_t i = 0; i < pendingRelocations_.size(); ++i) {
    auto [var, index] = pendingRelocations_[i];
    const auto& [name, line] = pendingSymbolInits_[i];
    Variable::Relocation& r = m_.variables[var].relocations[index];
    if (int32_t f = m_.findFunction(name); f >= 0) {
      r.function = true;
      r.symbol = uint32_t(f);
      m_.functions[f].addressTaken = true;
      continue;
    }
    auto it = moduleSyms_.find(name);
    if (it == moduleSyms_.end() || it->second.k != Sym::Var)
      return err(line, "unknown symbol '" + name + "' in the initializer of '" + m_.variables[var].name + "'");
    const Variable& target = m_.variables[it->second.index];
    if (target.space != Space::Global && target.space != Space::Const)
      return err(line, "the address of " + std::string(toString(target.space)) + " variable '" + name +
                           "' in the initializer of '" + m_.variables[var].name + "' is not supported");
    r.symbol = it->second.index;
  }
  return absl::OkStatus();
}

// An indirect call may reach any function whose address is taken (in an
// initializer or a mov): those are its callees for register allocation,
// stack sizes and recursion.
void Parser::addIndirectCallees() {
  for (const Function& f : m_.functions)
    for (const Constant& c : f.consts)
      if (c.kind == Constant::Kind::FunctionAddr) m_.functions[c.symbol].addressTaken = true;
  std::vector<uint32_t> taken;
  for (size_t i = 0; i < m_.functions.size(); ++i)
    if (m_.functions[i].addressTaken && m_.functions[i].defined && !m_.functions[i].entry) taken.push_back(uint32_t(i));
  for (Function& f : m_.functions) {
    if (!f.callsIndirectly) continue;
    for (uint32_t t : taken)
      if (std::find(f.callees.begin(), f.callees.end(), t) == f.callees.end()) f.callees.push_back(t);
  }
}

}  // namespace detail

absl::StatusOr<Module> parse(std::string_view text, std::string sourceName) {
  detail::Parser p(text, std::move(sourceName));
  return p.run();
}

std::string describe(const Module& module, uint32_t pc) {
  if (pc >= module.code.size()) return "<pc " + std::to_string(pc) + ">";
  const Instr& in = module.code[pc];
  std::string s = toString(in.op);
  if (in.space != Space::Generic) s += std::string(".") + toString(in.space);
  if (in.type != Type::None) s += std::string(".") + toString(in.type);
  return s;
}

}  // namespace predatar::ptx
