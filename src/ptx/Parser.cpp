#include "ptx/Parser.h"
#include "ptx/MatrixDecode.h"

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
    case Type::B32: case Type::U32: case Type::S32: case Type::F32: case Type::F16x2: case Type::BF16x2: return 4;
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
                                   "s16", "s32", "s64", "f16", "f16x2", "bf16", "bf16x2", "f32", "f64", "pred"};
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
      "add(carry)", "sub(carry)", "mad(carry)", "mul24", "mad24", "dp4a", "dp2a", "vabsdiff4", "tex", "suld", "sust",
      "wmma.load", "wmma.store", "wmma.mma", "cp.async", "cp.async.commit_group", "cp.async.wait",
      "cp.async.mbarrier.arrive", "mbarrier.init", "mbarrier.inval", "mbarrier.arrive", "mbarrier.tx",
      "mbarrier.test_wait", "mbarrier.pending_count", "cvt.tf32"};
  return names[static_cast<int>(op)];
}

int32_t Module::findFunction(std::string_view name) const {
  for (size_t i = 0; i < functions.size(); ++i)
    if (functions[i].name == name) return int32_t(i);
  return -1;
}
std::string Module::fileName(uint32_t index) const {
  for (auto& [i, n] : files)
    if (i == index) return n;
  return "file" + std::to_string(index);
}

// ---------------------------------------------------------------- lexer

namespace {

enum class Tok : uint8_t { Ident, Int, Float, String, Punct, End };

struct Token {
  Tok kind;
  std::string_view text;
  uint32_t line;
  uint64_t bits = 0;  // Int: value; Float: raw bits
  bool f64 = false;   // Float: 0d / decimal
};

bool identStart(char c) { return std::isalpha(uint8_t(c)) || c == '_' || c == '$' || c == '%' || c == '.'; }
bool identChar(char c) { return std::isalnum(uint8_t(c)) || c == '_' || c == '$' || c == '%' || c == '.'; }

// Whole-text unsigned integer in `base`; false on junk, empty or overflow.
bool parseUnsigned(std::string_view t, int base, uint64_t& out) {
  if (t.empty()) return false;
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), out, base);
  return ec == std::errc() && p == t.data() + t.size();
}

// Fills tok.kind/bits/f64 from tok.text as ptxas reads numbers: 0fXXXXXXXX and
// 0dXXXXXXXXXXXXXXXX raw floats, decimal floats, hex/binary/octal/decimal
// integers with an optional U suffix. False when the text is not a valid number
// (a malformed literal, `09`, an out-of-range value): never throws.
bool numberToken(Token& tok) {
  std::string_view t = tok.text;
  bool prefixed = t.size() > 1 && t[0] == '0';
  char p = prefixed ? char(std::tolower(uint8_t(t[1]))) : 0;
  if (p == 'f' || p == 'd') {  // raw IEEE bits: exactly 8 or 16 hex digits
    tok.kind = Tok::Float;
    tok.f64 = p == 'd';
    std::string_view hex = t.substr(2);
    return hex.size() == (tok.f64 ? 16u : 8u) && parseUnsigned(hex, 16, tok.bits);
  }
  if (p != 'x' && t.find_first_of(".eE") != std::string_view::npos) {
    tok.kind = Tok::Float;
    tok.f64 = true;
    std::string text(t);
    char* end = nullptr;
    double d = std::strtod(text.c_str(), &end);
    // Underflow to a denormal or zero is what ptxas does too; overflow is an error.
    if (end != text.c_str() + text.size() || !std::isfinite(d)) return false;
    std::memcpy(&tok.bits, &d, 8);
    return true;
  }
  if (!t.empty() && (t.back() == 'U' || t.back() == 'u')) t.remove_suffix(1);
  if (p == 'x') return parseUnsigned(t.substr(2), 16, tok.bits);
  if (p == 'b') return parseUnsigned(t.substr(2), 2, tok.bits);
  if (t.size() > 1 && t[0] == '0') return parseUnsigned(t.substr(1), 8, tok.bits);
  return parseUnsigned(t, 10, tok.bits);
}

absl::Status lex(std::string_view s, const std::string& src, std::vector<Token>& out) {
  uint32_t line = 1;
  size_t i = 0, n = s.size();
  while (i < n) {
    char c = s[i];
    if (c == '\n') { ++line; ++i; continue; }
    if (std::isspace(uint8_t(c))) { ++i; continue; }
    if (c == '/' && i + 1 < n && s[i + 1] == '/') {
      while (i < n && s[i] != '\n') ++i;
      continue;
    }
    if (c == '/' && i + 1 < n && s[i + 1] == '*') {
      i += 2;
      while (i + 1 < n && !(s[i] == '*' && s[i + 1] == '/')) { if (s[i] == '\n') ++line; ++i; }
      i += 2;
      continue;
    }
    size_t b = i;
    if (c == '"') {
      ++i;
      while (i < n && s[i] != '"') ++i;
      out.push_back({Tok::String, s.substr(b + 1, i - b - 1), line});
      ++i;
      continue;
    }
    if (c == '@' && i + 1 < n && s[i + 1] == '@') {  // @@DWARF line: skip
      while (i < n && s[i] != '\n') ++i;
      continue;
    }
    if (std::isdigit(uint8_t(c))) {
      while (i < n && (std::isalnum(uint8_t(s[i])) || s[i] == '.' ||
                       ((s[i] == '+' || s[i] == '-') && (s[i - 1] == 'e' || s[i - 1] == 'E') &&
                        !(s[b] == '0' && b + 1 < n && (s[b + 1] == 'x' || s[b + 1] == 'X' || s[b + 1] == 'f' ||
                                                         s[b + 1] == 'F' || s[b + 1] == 'd' || s[b + 1] == 'D')))))
        ++i;
      Token tok{Tok::Int, s.substr(b, i - b), line};
      if (!numberToken(tok))
        return absl::InvalidArgumentError(src + ":" + std::to_string(line) + ": bad number '" +
                                          std::string(tok.text) + "'");
      out.push_back(tok);
      continue;
    }
    if (identStart(c)) {
      while (i < n && identChar(s[i])) ++i;
      // PTX modifiers such as .L1::evict_last or .L2::cache_hint contain "::".
      while (i + 2 < n && s[i] == ':' && s[i + 1] == ':' && identChar(s[i + 2])) {
        i += 2;
        while (i < n && identChar(s[i])) ++i;
      }
      out.push_back({Tok::Ident, s.substr(b, i - b), line});
      continue;
    }
    out.push_back({Tok::Punct, s.substr(i, 1), line});
    ++i;
  }
  out.push_back({Tok::End, {}, line});
  return absl::OkStatus();
}

// ---------------------------------------------------------------- parser

// Bounds on what a PTX text may ask the emulator to allocate: well above what
// ptxas accepts (a local/shared array is limited by the device's memory, a
// function by 255 registers per thread after allocation) and small enough that
// a hostile or corrupt file gets a clear error instead of bad_alloc.
constexpr uint64_t kMaxVariableBytes = 1ull << 30;
constexpr uint64_t kMaxRegisters = 1u << 20;

struct POp {
  enum K : uint8_t { Name, Int, Float, Addr, Vec, List, Pipe, Sink } k = Name;
  std::string_view name;
  uint64_t bits = 0;
  bool f64 = false;
  bool neg = false;      // !%p
  int64_t offset = 0;    // Addr
  bool addrHasName = false;
  std::vector<POp> elems;  // Vec / List / Pipe
};

struct Sym {
  enum K : uint8_t { Reg, Frame, Var, KernelParam } k;
  uint32_t index = 0;   // Reg: register; Var: module variable
  uint64_t offset = 0;  // Frame / KernelParam
  uint64_t bytes = 0;
};

struct Mods {
  std::vector<Type> types;
  Space space = Space::Generic;
  bool hasCmp = false;
  Cmp cmp = Cmp::Eq;
  BoolOp boolOp = BoolOp::None;
  Round round = Round::None;
  Sem sem = Sem::Weak;
  Scope scope = Scope::None;
  AtomOp atom = AtomOp::None;
  uint8_t mode = 0;
  uint8_t vec = 1;
  bool ftz = false, sat = false, nc = false, uni = false, to = false;
  bool hasMode = false;
};

const std::map<std::string_view, Type>& typeTable() {
  static const std::map<std::string_view, Type> t = {
      {"b8", Type::B8}, {"b16", Type::B16}, {"b32", Type::B32}, {"b64", Type::B64}, {"b128", Type::B128},
      {"u8", Type::U8}, {"u16", Type::U16}, {"u32", Type::U32}, {"u64", Type::U64}, {"s8", Type::S8},
      {"s16", Type::S16}, {"s32", Type::S32}, {"s64", Type::S64}, {"f16", Type::F16}, {"f16x2", Type::F16x2},
      {"bf16", Type::BF16}, {"bf16x2", Type::BF16x2}, {"f32", Type::F32}, {"f64", Type::F64}, {"pred", Type::Pred}};
  return t;
}

class Parser {
 public:
  Parser(std::string_view text, std::string sourceName) : text_(text) { m_.sourceName = std::move(sourceName); }

  absl::StatusOr<Module> run() {
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
        if (name == "vprintf") in.mode = kVprintf;
        else if (name == "__assertfail") in.mode = kAssertFail;
        else
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
    return std::move(m_);
  }

 private:
  // --- token helpers
  const Token& peek(size_t k = 0) const { return toks_[std::min(pos_ + k, toks_.size() - 1)]; }
  const Token& next() { const Token& t = toks_[pos_]; if (pos_ + 1 < toks_.size()) ++pos_; return t; }
  bool isPunct(char c, size_t k = 0) const { return peek(k).kind == Tok::Punct && peek(k).text[0] == c; }
  bool accept(char c) { if (isPunct(c)) { next(); return true; } return false; }
  bool acceptIdent(std::string_view s) { if (peek().kind == Tok::Ident && peek().text == s) { next(); return true; } return false; }

  absl::Status err(uint32_t line, const std::string& msg) const {
    std::string where = m_.sourceName + ":" + std::to_string(line) + ": ";
    if (!curFuncName_.empty()) where += "in function '" + curFuncName_ + "': ";
    return absl::InvalidArgumentError(where + msg);
  }
  absl::Status expect(char c) {
    if (accept(c)) return absl::OkStatus();
    return err(peek().line, std::string("expected '") + c + "' but found '" + std::string(peek().text) + "'");
  }
  absl::StatusOr<uint64_t> expectInt() {
    bool neg = accept('-');
    if (peek().kind != Tok::Int) return err(peek().line, "expected a number, found '" + std::string(peek().text) + "'");
    uint64_t v = next().bits;
    return neg ? uint64_t(-int64_t(v)) : v;
  }
  void skipStatement() {
    while (peek().kind != Tok::End && !isPunct(';')) next();
    accept(';');
  }

  // --- module level
  absl::Status topLevel() {
    const Token& t = peek();
    if (t.kind != Tok::Ident) return err(t.line, "unexpected '" + std::string(t.text) + "' at module level");
    std::string_view d = t.text;
    if (d == ".version") { next(); m_.version = std::string(next().text); return absl::OkStatus(); }
    if (d == ".target") {
      next();
      m_.target = std::string(next().text);
      while (accept(',')) next();
      return absl::OkStatus();
    }
    if (d == ".address_size") {
      next();
      auto v = expectInt();
      if (!v.ok()) return v.status();
      m_.addressSize = uint32_t(*v);
      if (m_.addressSize != 64) return err(t.line, "only .address_size 64 is supported");
      return absl::OkStatus();
    }
    if (d == ".file") {
      next();
      auto v = expectInt();
      if (!v.ok()) return v.status();
      if (peek().kind != Tok::String) return err(peek().line, "expected a file name after .file");
      m_.files.emplace_back(uint32_t(*v), std::string(next().text));
      while (accept(',')) next();
      return absl::OkStatus();
    }
    if (d == ".section") {
      next();
      while (peek().kind != Tok::End && !isPunct('{')) next();
      int depth = 0;
      std::string* text = nullptr;  // `$L__info_stringN: .b8 95,90,...,0` (names of inlined functions)
      do {
        if (isPunct('{')) ++depth;
        if (isPunct('}')) --depth;
        if (peek().kind == Tok::Ident && peek().text[0] == '$' && isPunct(':', 1))
          text = &m_.debugStrings[std::string(peek().text)];
        else if (text && peek().kind == Tok::Int && peek().bits != 0 && peek().bits < 256 && text->size() < 4096)
          text->push_back(char(peek().bits));
        next();
      } while (depth > 0 && peek().kind != Tok::End);
      return absl::OkStatus();
    }
    if (d == ".pragma") { skipStatement(); return absl::OkStatus(); }
    bool external = false;
    while (peek().kind == Tok::Ident &&
           (peek().text == ".visible" || peek().text == ".extern" || peek().text == ".weak" ||
            peek().text == ".common")) {
      if (peek().text == ".extern") external = true;
      next();
    }
    d = peek().text;
    if (d == ".entry" || d == ".func") return function(external);
    if (d == ".global" || d == ".const" || d == ".shared") {
      auto v = variable(-1, external);
      return v.ok() ? absl::OkStatus() : v.status();
    }
    return err(peek().line, "unsupported directive '" + std::string(d) + "'");
  }

  // `.global .align 4 .b8 name[16] = {...};` (the space token is next)
  absl::StatusOr<uint32_t> variable(int32_t func, bool external) {
    const Token& spaceTok = next();
    Variable v;
    v.line = spaceTok.line;
    v.function = func;
    v.external = external;
    std::string_view sp = spaceTok.text;
    v.space = sp == ".global" ? Space::Global : sp == ".const" ? Space::Const : sp == ".shared" ? Space::Shared
              : sp == ".local" ? Space::Local : Space::Param;
    uint32_t vecw = 1;
    while (peek().kind == Tok::Ident && peek().text[0] == '.') {
      std::string_view m = next().text;
      if (m == ".align") {
        auto a = expectInt();
        if (!a.ok()) return a.status();
        v.align = uint32_t(*a);
      } else if (m == ".v2") vecw = 2;
      else if (m == ".v4") vecw = 4;
      else if (m == ".attribute") {  // .attribute(.managed)
        while (!isPunct(')') && peek().kind != Tok::End) next();
        if (auto st = expect(')'); !st.ok()) return st;
      } else if (m == ".ptr" || m == ".global" || m == ".shared" || m == ".const" || m == ".local") {
      } else {
        auto it = typeTable().find(m.substr(1));
        if (it == typeTable().end()) return err(spaceTok.line, "unsupported variable attribute '" + std::string(m) + "'");
        v.type = it->second;
      }
    }
    if (peek().kind != Tok::Ident) return err(peek().line, "expected a variable name");
    v.name = std::string(next().text);
    v.elementBytes = typeBytes(v.type) * vecw;
    uint64_t count = 1;
    bool unsized = false;
    while (accept('[')) {
      if (accept(']')) { unsized = true; continue; }
      auto n = expectInt();
      if (!n.ok()) return n.status();
      if (*n != 0 && count > kMaxVariableBytes / *n)
        return err(v.line, "variable '" + v.name + "' is too large (limit " + std::to_string(kMaxVariableBytes) +
                               " bytes)");
      count *= *n;
      if (auto st = expect(']'); !st.ok()) return st;
    }
    if (v.elementBytes != 0 && count > kMaxVariableBytes / v.elementBytes)
      return err(v.line, "variable '" + v.name + "' is too large (limit " + std::to_string(kMaxVariableBytes) +
                             " bytes)");
    v.bytes = count * v.elementBytes;
    if (unsized) {
      v.bytes = 0;
      if (v.space == Space::Shared) v.externDynamic = true;
    }
    if (v.align < v.elementBytes && v.elementBytes <= 16 && (v.elementBytes & (v.elementBytes - 1)) == 0)
      v.align = std::max<uint32_t>(v.align, v.elementBytes);
    if (accept('=')) {
      std::vector<uint64_t> values;
      std::vector<bool> isF64, isFloatLit;
      std::function<absl::Status()> parseInit = [&]() -> absl::Status {
        if (accept('{')) {
          if (!isPunct('}')) {
            do {
              if (auto st = parseInit(); !st.ok()) return st;
            } while (accept(','));
          }
          return expect('}');
        }
        bool neg = accept('-');
        const Token& t = next();
        if (t.kind == Tok::Int) {
          values.push_back(neg ? uint64_t(-int64_t(t.bits)) : t.bits);
          isFloatLit.push_back(false);
          isF64.push_back(false);
        } else if (t.kind == Tok::Float) {
          uint64_t b = t.bits;
          if (neg) b ^= t.f64 ? (1ull << 63) : (1ull << 31);
          values.push_back(b);
          isFloatLit.push_back(true);
          isF64.push_back(t.f64);
        } else {
          return err(t.line, "unsupported initializer '" + std::string(t.text) + "' for variable '" + v.name +
                                 "' (symbol addresses in initializers are not supported)");
        }
        return absl::OkStatus();
      };
      if (auto st = parseInit(); !st.ok()) return st;
      uint32_t eb = typeBytes(v.type);
      if (unsized) v.bytes = values.size() * eb;
      v.init.assign(v.bytes, 0);
      for (size_t i = 0; i < values.size() && (i + 1) * eb <= v.bytes; ++i) {
        uint64_t val = values[i];
        if (isFloatLit[i]) {
          if (v.type == Type::F32 && isF64[i]) {
            double d; std::memcpy(&d, &val, 8); float f = float(d); uint32_t u; std::memcpy(&u, &f, 4); val = u;
          } else if (v.type == Type::F64 && !isF64[i]) {
            uint32_t u = uint32_t(val); float f; std::memcpy(&f, &u, 4); double d = f; std::memcpy(&val, &d, 8);
          }
        } else if (v.type == Type::F32) {
          float f = float(int64_t(val)); uint32_t u; std::memcpy(&u, &f, 4); val = u;
        } else if (v.type == Type::F64) {
          double d = double(int64_t(val)); std::memcpy(&val, &d, 8);
        }
        std::memcpy(v.init.data() + i * eb, &val, eb);
      }
    }
    if (auto st = expect(';'); !st.ok()) return st;
    if (v.space == Space::Local || v.space == Space::Param) {
      // function-scope frame variable: handled by caller
      pendingFrameVar_ = v;
      return UINT32_MAX;
    }
    m_.variables.push_back(std::move(v));
    uint32_t idx = uint32_t(m_.variables.size() - 1);
    if (func < 0) moduleSyms_[m_.variables[idx].name] = Sym{Sym::Var, idx, 0, m_.variables[idx].bytes};
    return idx;
  }

  absl::StatusOr<ParamDecl> paramDecl() {
    if (!acceptIdent(".param") && !acceptIdent(".reg"))
      return err(peek().line, "expected .param, found '" + std::string(peek().text) + "'");
    ParamDecl p;
    uint32_t count = 1;
    while (peek().kind == Tok::Ident && peek().text[0] == '.') {
      std::string_view m = next().text;
      if (m == ".align") {
        auto a = expectInt();
        if (!a.ok()) return a.status();
        p.align = uint32_t(*a);
      } else if (m == ".ptr" || m == ".global" || m == ".shared" || m == ".const" || m == ".local") {
      } else {
        auto it = typeTable().find(m.substr(1));
        if (it == typeTable().end()) return err(peek().line, "unsupported parameter attribute '" + std::string(m) + "'");
        p.type = it->second;
      }
    }
    if (peek().kind != Tok::Ident) return err(peek().line, "expected a parameter name");
    p.name = std::string(next().text);
    while (accept('[')) {
      auto n = expectInt();
      if (!n.ok()) return n.status();
      if (*n != 0 && count > kMaxVariableBytes / *n)
        return err(peek().line, "parameter '" + p.name + "' is too large");
      count *= uint32_t(*n);
      if (auto st = expect(']'); !st.ok()) return st;
    }
    if (uint64_t(count) * std::max<uint32_t>(typeBytes(p.type), 1) > kMaxVariableBytes)
      return err(peek().line, "parameter '" + p.name + "' is too large");
    p.bytes = typeBytes(p.type) * count;
    if (p.type == Type::Pred) p.bytes = 4;
    p.align = std::max<uint32_t>(p.align, std::min<uint32_t>(typeBytes(p.type), 8));
    if (p.align == 0) p.align = 1;
    return p;
  }

  absl::Status paramList(std::vector<ParamDecl>& out) {
    if (auto st = expect('('); !st.ok()) return st;
    if (accept(')')) return absl::OkStatus();
    do {
      auto p = paramDecl();
      if (!p.ok()) return p.status();
      out.push_back(std::move(*p));
    } while (accept(','));
    return expect(')');
  }

  static uint64_t alignUp(uint64_t v, uint64_t a) { return a <= 1 ? v : (v + a - 1) / a * a; }

  uint64_t allocFrame(uint64_t bytes, uint32_t align) {
    Function& f = m_.functions[curFunc_];
    uint64_t off = alignUp(f.frameBytes, std::max<uint32_t>(align, 1));
    f.frameBytes = off + bytes;
    return off;
  }

  absl::Status function(bool external) {
    const Token& kw = next();
    bool entry = kw.text == ".entry";
    std::vector<ParamDecl> rets, params;
    if (!entry && isPunct('(')) {
      if (auto st = paramList(rets); !st.ok()) return st;
    }
    if (peek().kind != Tok::Ident) return err(peek().line, "expected a function name");
    std::string name(next().text);
    curFuncName_ = name;
    if (isPunct('(')) {
      if (auto st = paramList(params); !st.ok()) return st;
    }
    // performance directives
    while (peek().kind != Tok::End && !isPunct('{') && !isPunct(';')) {
      if (peek().kind == Tok::Ident && peek().text == ".pragma") { next(); if (peek().kind == Tok::String) next(); continue; }
      next();
    }
    int32_t existing = m_.findFunction(name);
    uint32_t fi;
    if (existing >= 0) {
      fi = uint32_t(existing);
      if (m_.functions[fi].defined && isPunct('{')) return err(kw.line, "function '" + name + "' defined twice");
    } else {
      m_.functions.emplace_back();
      fi = uint32_t(m_.functions.size() - 1);
    }
    if (accept(';') || external) {
      Function& f = m_.functions[fi];
      if (!f.defined) { f.name = name; f.entry = entry; f.params = params; f.rets = rets; f.line = kw.line; }
      if (external && isPunct('{')) return err(kw.line, "extern function with a body");
      curFuncName_.clear();
      return absl::OkStatus();
    }
    {
      Function& f = m_.functions[fi];
      f = Function{};
      f.name = name;
      f.entry = entry;
      f.defined = true;
      f.line = kw.line;
      f.params = std::move(params);
      f.rets = std::move(rets);
    }
    curFunc_ = fi;
    scopes_.clear();
    scopes_.emplace_back();
    labels_.clear();
    labelFixups_.clear();
    tableFixups_.clear();
    branchTableNames_.clear();
    constIndex_.clear();
    curSource_ = UINT32_MAX;
    Function& f = m_.functions[fi];
    // parameters
    if (entry) {
      uint64_t off = 0;
      for (auto& p : f.params) {
        off = alignUp(off, p.align);
        p.offset = off;
        off += p.bytes;
        scopes_.back()[p.name] = Sym{Sym::KernelParam, 0, p.offset, p.bytes};
      }
      f.paramBytes = uint32_t(off);
    } else {
      for (auto* list : {&f.params, &f.rets})
        for (auto& p : *list) {
          p.offset = allocFrame(p.bytes, p.align);
          scopes_.back()[p.name] = Sym{Sym::Frame, 0, p.offset, p.bytes};
        }
    }
    m_.functions[fi].begin = uint32_t(m_.code.size());
    if (auto st = expect('{'); !st.ok()) return st;
    if (auto st = body(); !st.ok()) return st;
    Function& g = m_.functions[fi];
    g.end = uint32_t(m_.code.size());
    // A function falling off its end returns.
    if (g.end == g.begin || (m_.code.back().op != Op::Ret && m_.code.back().op != Op::Exit)) {
      Instr in;
      in.op = g.entry ? Op::Exit : Op::Ret;
      in.func = fi;
      in.line = peek().line;
      in.source = curSource_;
      m_.code.push_back(in);
      g.end = uint32_t(m_.code.size());
    }
    for (auto& [pc, label, line] : labelFixups_) {
      auto it = labels_.find(label);
      if (it == labels_.end()) return err(line, "unknown label '" + std::string(label) + "'");
      m_.code[pc].target = it->second;
    }
    if (auto st = resolveBranchTables(); !st.ok()) return st;
    curFuncName_.clear();
    return absl::OkStatus();
  }

  // Each brx.idx gets its table (Module::branchTables) of instruction indices.
  absl::Status resolveBranchTables() {
    for (auto& [pc, name, line] : tableFixups_) {
      auto table = branchTableNames_.find(name);
      if (table == branchTableNames_.end())
        return err(line, "unknown .branchtargets list '" + std::string(name) + "'");
      std::vector<uint32_t> targets;
      for (std::string_view label : table->second) {
        auto it = labels_.find(label);
        if (it == labels_.end()) return err(line, "unknown label '" + std::string(label) + "' in .branchtargets");
        targets.push_back(it->second);
      }
      m_.branchTables.push_back(std::move(targets));
      m_.code[pc].target = uint32_t(m_.branchTables.size() - 1);
    }
    return absl::OkStatus();
  }

  std::optional<Sym> lookup(std::string_view name) const {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
      auto f = it->find(std::string(name));
      if (f != it->end()) return f->second;
    }
    auto g = moduleSyms_.find(name);
    if (g != moduleSyms_.end()) return g->second;
    return std::nullopt;
  }

  absl::Status declareReg() {
    uint32_t line = next().line;  // .reg
    while (peek().kind == Tok::Ident && peek().text[0] == '.') next();  // type, .v2 ...
    Function& f = m_.functions[curFunc_];
    do {
      if (peek().kind != Tok::Ident) return err(line, "expected a register name");
      std::string base(next().text);
      if (accept('<')) {
        auto n = expectInt();
        if (!n.ok()) return n.status();
        if (auto st = expect('>'); !st.ok()) return st;
        if (*n > kMaxRegisters || f.numRegs + *n > kMaxRegisters)
          return err(line, "too many registers: " + base + "<" + std::to_string(*n) + "> (limit " +
                               std::to_string(kMaxRegisters) + " per function)");
        for (uint64_t i = 0; i < *n; ++i) {
          std::string nm = base + std::to_string(i);
          scopes_.back()[nm] = Sym{Sym::Reg, f.numRegs++, 0, 8};
          f.regNames.push_back(nm);
        }
      } else {
        scopes_.back()[base] = Sym{Sym::Reg, f.numRegs++, 0, 8};
        f.regNames.push_back(base);
      }
    } while (accept(','));
    return expect(';');
  }

  static std::tuple<uint32_t, uint32_t, uint32_t> positionKey(const SourceLoc& l) { return {l.file, l.line, l.column}; }
  // A position with its inlining chain (one entry per distinct chain).
  uint32_t inlinedSource(const SourceLoc& loc) {
    auto key = std::make_tuple(loc.file, loc.line, loc.column, loc.inlinedAt, loc.function, loc.enclosing);
    auto it = inlinedIdx_.find(key);
    if (it != inlinedIdx_.end()) return it->second;
    m_.sources.push_back(loc);
    return inlinedIdx_[key] = uint32_t(m_.sources.size() - 1);
  }

  uint32_t sourceIndex(uint32_t file, uint32_t line, uint32_t col) {
    SourceLoc loc{file, line, col};
    uint64_t key = (uint64_t(file) << 48) ^ (uint64_t(line) << 16) ^ col;
    auto it = sourceIdx_.find(key);
    if (it != sourceIdx_.end() && m_.sources[it->second] == loc) return it->second;
    m_.sources.push_back(loc);
    sourceIdx_[key] = uint32_t(m_.sources.size() - 1);
    return uint32_t(m_.sources.size() - 1);
  }

  absl::Status body() {
    int depth = 1;
    while (true) {
      const Token& t = peek();
      if (t.kind == Tok::End) return err(t.line, "unexpected end of file in function body");
      if (isPunct('{')) { next(); ++depth; scopes_.emplace_back(); continue; }
      if (isPunct('}')) {
        next();
        if (--depth == 0) return absl::OkStatus();
        scopes_.pop_back();
        continue;
      }
      if (isPunct(';')) { next(); continue; }
      if (t.kind == Tok::Ident && t.text == ".reg") {
        if (auto st = declareReg(); !st.ok()) return st;
        continue;
      }
      if (t.kind == Tok::Ident && t.text == ".loc") {
        next();
        std::vector<uint64_t> nums;
        while (peek().kind == Tok::Int && nums.size() < 3) nums.push_back(next().bits);
        uint32_t file = nums.size() > 0 ? uint32_t(nums[0]) : 0, line = nums.size() > 1 ? uint32_t(nums[1]) : 0,
                 col = nums.size() > 2 ? uint32_t(nums[2]) : 0;
        // `, function_name X, inlined_at F L C`: the inlined function's own
        // position, with the call site (the latest .loc at F L C) as its chain.
        SourceLoc loc{file, line, col};
        while (accept(',')) {
          if (acceptIdent("inlined_at")) {
            std::vector<uint64_t> at;
            while (peek().kind == Tok::Int && at.size() < 3) at.push_back(next().bits);
            if (at.size() >= 2) {
              SourceLoc site{uint32_t(at[0]), uint32_t(at[1]), at.size() > 2 ? uint32_t(at[2]) : 0};
              auto latest = latestAt_.find(positionKey(site));
              loc.inlinedAt = latest != latestAt_.end() ? latest->second : inlinedSource(site);
              loc.enclosing = curFunc_;
            }
          } else if (acceptIdent("function_name")) {
            if (peek().kind == Tok::Ident && peek().line == t.line) loc.function = std::string(next().text);
          } else {
            next();
            if (peek().kind == Tok::Ident && peek().line == t.line && !isPunct(',')) next();
          }
        }
        curSource_ = loc.inlinedAt == UINT32_MAX ? sourceIndex(file, line, col) : inlinedSource(loc);
        latestAt_[positionKey(loc)] = curSource_;
        continue;
      }
      if (t.kind == Tok::Ident && (t.text == ".pragma" || t.text == ".maxnreg")) { skipStatement(); continue; }
      if (t.kind == Tok::Ident &&
          (t.text == ".local" || t.text == ".shared" || t.text == ".param" || t.text == ".global" || t.text == ".const")) {
        if (auto st = localVariable(); !st.ok()) return st;
        continue;
      }
      if (t.kind == Tok::Ident && peek(1).kind == Tok::Punct && peek(1).text[0] == ':' ) {
        std::string_view label = t.text;
        uint32_t labelLine = t.line;
        labels_[label] = uint32_t(m_.code.size());
        next();
        next();
        if (peek().kind == Tok::Ident && peek().text == ".branchtargets") {
          if (auto st = branchTargets(label, labelLine); !st.ok()) return st;
        }
        continue;
      }
      if (auto st = instruction(); !st.ok()) return st;
    }
  }

  absl::Status localVariable() {
    uint32_t line = peek().line;
    std::string_view sp = peek().text;
    if (sp == ".param") {
      // call-site parameter: `.param .b32 param0;` or `.param .align 8 .b8 p[16];`
      auto p = paramDecl();
      if (!p.ok()) return p.status();
      uint64_t off = allocFrame(p->bytes, p->align);
      scopes_.back()[p->name] = Sym{Sym::Frame, 0, off, p->bytes};
      return expect(';');
    }
    auto v = variable(int32_t(curFunc_), false);
    if (!v.ok()) return v.status();
    if (*v == UINT32_MAX) {  // .local
      Variable lv = std::move(*pendingFrameVar_);
      pendingFrameVar_.reset();
      if (!lv.init.empty()) return err(line, "initialized .local variables are not supported");
      uint64_t off = allocFrame(lv.bytes, lv.align);
      scopes_.back()[lv.name] = Sym{Sym::Frame, 0, off, lv.bytes};
      return absl::OkStatus();
    }
    scopes_.back()[m_.variables[*v].name] = Sym{Sym::Var, *v, 0, m_.variables[*v].bytes};
    return absl::OkStatus();
  }

  // --- operands
  absl::StatusOr<POp> operand() {
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

  // --- modifiers
  absl::Status parseMods(std::string_view base, const std::vector<std::string_view>& parts, Mods& m,
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
      if (base == "vabsdiff4" && p == "add") { m.hasMode = true; continue; }
      if ((base == "tex" || base == "suld" || base == "sust") && (p == "1d" || p == "2d" || p == "3d")) continue;
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

  // --- operand decoding
  uint32_t addConst(Constant c) {
    Function& f = m_.functions[curFunc_];
    auto key = std::make_tuple(uint8_t(c.kind), c.value, c.symbol);
    auto it = constIndex_.find(key);
    if (it != constIndex_.end()) return it->second;
    f.consts.push_back(c);
    uint32_t idx = uint32_t(f.consts.size() - 1);
    constIndex_[key] = idx;
    return idx;
  }

  void noteVariable(uint32_t v) {
    auto& vars = m_.functions[curFunc_].variables;
    if (std::find(vars.begin(), vars.end(), v) == vars.end()) vars.push_back(v);
  }

  static int specialIndex(std::string_view n) {
    static const std::map<std::string_view, int> sp = {
        {"%tid.x", kTidX}, {"%tid.y", kTidY}, {"%tid.z", kTidZ}, {"%ntid.x", kNtidX}, {"%ntid.y", kNtidY},
        {"%ntid.z", kNtidZ}, {"%ctaid.x", kCtaidX}, {"%ctaid.y", kCtaidY}, {"%ctaid.z", kCtaidZ},
        {"%nctaid.x", kNctaidX}, {"%nctaid.y", kNctaidY}, {"%nctaid.z", kNctaidZ}, {"%laneid", kLaneId},
        {"%warpid", kWarpId}, {"%nwarpid", kNWarpId}, {"%lanemask_eq", kLanemaskEq},
        {"%lanemask_lt", kLanemaskLt}, {"%lanemask_le", kLanemaskLe}, {"%lanemask_gt", kLanemaskGt},
        {"%lanemask_ge", kLanemaskGe}, {"%smid", kSmId}, {"%nsmid", kNSmId}, {"%gridid", kGridId},
        {"%dynamic_smem_size", kDynSmem}, {"%total_smem_size", kTotalSmem}};
    auto it = sp.find(n);
    if (it != sp.end()) return it->second;
    if (n.substr(0, 7) == "%envreg" || n.substr(0, 3) == "%pm") return kZero;
    return -1;
  }

  // Encodes an immediate for an operand of type `t`.
  uint64_t immBits(const POp& o, Type t) {
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
  absl::Status pairDestination(const POp& o, Instr& in, uint32_t line) {
    bool pair = o.k == POp::Pipe;
    for (uint32_t i = 0; i < (pair ? 2u : 1u); ++i) {
      auto r = dstRef(pair ? o.elems[i] : o, line);
      if (!r.ok()) return r.status();
      in.dst[i] = *r;
    }
    in.ndst = pair ? 2 : 1;
    return absl::OkStatus();
  }

  absl::StatusOr<Ref> dstRef(const POp& o, uint32_t line) {
    if (o.k == POp::Sink) return kNoRef;
    if (o.k != POp::Name) return err(line, "expected a register as destination of '" + opcodeText_ + "'");
    auto s = lookup(o.name);
    if (!s || s->k != Sym::Reg) return err(line, "unknown register '" + std::string(o.name) + "' in '" + opcodeText_ + "'");
    return regRef(s->index);
  }

  // A source operand: register, immediate, special register or symbol address.
  absl::StatusOr<Ref> srcRef(const POp& o, Type t, uint32_t line, Instr* in = nullptr) {
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

  absl::Status addrOperand(const POp& o, Instr& in, uint32_t line) {
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

  absl::Status frameSymOffset(const POp& o, int64_t& out, uint32_t line) {
    if (o.k != POp::Name) return err(line, "expected a .param name in call");
    auto s = lookup(o.name);
    if (!s || s->k != Sym::Frame)
      return err(line, "call argument '" + std::string(o.name) + "' is not a .param variable (unsupported)");
    out = int64_t(s->offset);
    return absl::OkStatus();
  }

  absl::Status instruction() {
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
        "prefetch", "prefetchu", "discard", "addc", "subc", "madc", "mul24", "mad24", "dp4a", "dp2a", "tex", "suld", "sust", "vabsdiff4",
        "wmma", "mma", "ldmatrix", "cp", "mbarrier"};
    if (!known.count(base)) {  // kept, so that kernels that do not execute it still run
      in.op = Op::Unsupported;
      m_.unsupported[uint32_t(m_.code.size())] = opcodeText_;
      m_.code.push_back(in);
      return absl::OkStatus();
    }
    Mods m;
    if (isMatrixFamily(base) || (base == "cvt" && hasPart(parts, "tf32"))) return matrixInstruction(parts, ops, in, line);
    if (base != "call" && base != "brx") {
      if (auto st = parseMods(base, parts, m, line); !st.ok()) return st;
    }
    if (auto st = decode(base, parts, m, ops, in, line); !st.ok()) return st;
    m_.code.push_back(in);
    return absl::OkStatus();
  }

  // wmma / cp.async / mbarrier: the opcode is decoded by ptx/MatrixDecode.cpp, the operands here.
  absl::Status matrixInstruction(const std::vector<std::string_view>& parts, const std::vector<POp>& ops, Instr& in,
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

  absl::Status unsupported(uint32_t line) {
    return err(line, "unsupported instruction '" + opcodeText_ + "'");
  }

  absl::Status needOps(const std::vector<POp>& ops, size_t n, uint32_t line) {
    if (ops.size() != n)
      return err(line, "'" + opcodeText_ + "' expects " + std::to_string(n) + " operands, got " + std::to_string(ops.size()));
    return absl::OkStatus();
  }

  // d, a[, b[, c[, e]]] with all sources of type `t` unless overridden
  absl::Status simple(Instr& in, const std::vector<POp>& ops, size_t nsrc, uint32_t line,
                      std::initializer_list<Type> srcTypes = {}) {
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

  static bool hasPart(const std::vector<std::string_view>& parts, std::string_view p) {
    return std::find(parts.begin() + 1, parts.end(), p) != parts.end();
  }

  // add.cc / addc / sub.cc / subc / mad.cc / madc: `carry` says whether the
  // carry flag is read (kCarryIn) and written (kCarryOut, the .cc suffix).
  absl::Status carryArithmetic(Instr& in, const std::vector<POp>& ops, uint32_t line, Op op, uint8_t carry) {
    in.op = op;
    in.carry = carry;
    if (typeBytes(in.type) < 4 || ptx::isFloat(in.type)) return unsupported(line);
    return simple(in, ops, op == Op::MadCarry ? 3 : 2, line);
  }

  // addc/subc/madc, mul24/mad24, dp4a/dp2a (executed by sim/IntegerExtended.cpp).
  absl::Status extendedInteger(std::string_view base, const std::vector<std::string_view>& parts,
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
  absl::Status branchIndexed(const std::vector<std::string_view>& parts, const std::vector<POp>& ops, Instr& in,
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

  // tex.{1d,2d,3d}.v4.dtype.ctype {d0..d3}, [texobj, {coordinates}]
  absl::Status textureFetch(const std::vector<std::string_view>& parts, const std::vector<POp>& ops, Instr& in,
                            uint32_t line) {
    std::string_view geometry = parts.size() > 1 ? parts[1] : "";
    in.mode = geometry == "1d" ? 1 : geometry == "2d" ? 2 : geometry == "3d" ? 3 : 0;
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
    in.src[in.nsrc++] = *h;
    const POp& coords = ops[1].elems[0];
    std::vector<const POp*> cs;
    if (coords.k == POp::Vec) for (auto& e : coords.elems) cs.push_back(&e);
    else cs.push_back(&coords);
    if (cs.size() < in.mode) return err(line, "too few texture coordinates in '" + opcodeText_ + "'");
    for (uint32_t i = 0; i < in.mode; ++i) {
      auto c = srcRef(*cs[i], in.type2, line);
      if (!c.ok()) return c.status();
      in.src[in.nsrc++] = *c;
    }
    return absl::OkStatus();
  }

  // suld.b.{1d,2d,3d}{.v2,.v4}.bN.{trap,clamp,zero} {d...}, [surf, {x, y, z}] (x in bytes); sust likewise
  // with the operands swapped. Formatted (.p) access is refused.
  absl::Status surfaceAccess(std::string_view base, const std::vector<std::string_view>& parts,
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
  absl::Status branchTargets(std::string_view name, uint32_t line) {
    next();  // .branchtargets
    std::vector<std::string_view> targets;
    do {
      if (peek().kind != Tok::Ident) return err(line, "expected a label in .branchtargets");
      targets.push_back(next().text);
    } while (accept(','));
    branchTableNames_[name] = targets;
    return expect(';');
  }

  absl::Status decode(std::string_view base, const std::vector<std::string_view>& parts, Mods& m,
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
    if (base == "vabsdiff4") {  // only the reducing form: d = c + sum of |a.byte - b.byte|
      if (!m.hasMode || m.sat || m.types.size() != 3) return unsupported(line);
      in.op = Op::Vabsdiff4;
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
      if (in.op == Op::Atom) {
        auto d = dstRef(ops.at(0), line);
        if (!d.ok()) return d.status();
        in.dst[0] = *d;
        in.ndst = 1;
        i = 1;
      }
      size_t nsrc = in.atom == AtomOp::Cas ? 2 : 1;
      if (ops.size() != i + 1 + nsrc) return err(line, "wrong operand count for '" + opcodeText_ + "'");
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
      if (parts.size() < 2 || parts[1] != "sync") return err(line, "only shfl.sync is supported ('" + opcodeText_ + "')");
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
      if (parts.size() < 2 || parts[1] != "sync") return err(line, "only vote.sync is supported ('" + opcodeText_ + "')");
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
      if (callee[0] == '%' || (lookup(callee) && lookup(callee)->k == Sym::Reg))
        return err(line, "indirect call through '" + std::string(callee) + "' is unsupported");
      ++i;
      if (i < ops.size() && ops[i].k == POp::List) { for (auto& e : ops[i].elems) args.push_back(&e); ++i; }
      if (i != ops.size()) return err(line, "unsupported call form (prototype / extra operands)");
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
      pendingCalls_.emplace_back(uint32_t(m_.code.size()), callee, line);
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
    if (base == "prefetch" || base == "prefetchu" || base == "discard" || base == "createpolicy") {
      if (base == "createpolicy") return unsupported(line);
      in.op = Op::Nop;
      return absl::OkStatus();
    }
    return unsupported(line);
  }

  std::string_view text_;
  std::vector<Token> toks_;
  size_t pos_ = 0;
  Module m_;
  uint32_t curFunc_ = 0;
  std::string curFuncName_;
  std::string opcodeText_;
  uint32_t curSource_ = UINT32_MAX;
  std::vector<std::unordered_map<std::string, Sym>> scopes_;
  std::map<std::string, Sym, std::less<>> moduleSyms_;
  std::unordered_map<std::string_view, uint32_t> labels_;
  std::vector<std::tuple<uint32_t, std::string_view, uint32_t>> labelFixups_;
  std::vector<std::tuple<uint32_t, std::string_view, uint32_t>> pendingCalls_;
  std::vector<std::tuple<uint32_t, std::string_view, uint32_t>> tableFixups_;  // brx.idx pc, table, line
  std::unordered_map<std::string_view, std::vector<std::string_view>> branchTableNames_;
  std::map<std::tuple<uint8_t, uint64_t, uint32_t>, uint32_t> constIndex_;
  std::unordered_map<uint64_t, uint32_t> sourceIdx_;
  std::map<std::tuple<uint32_t, uint32_t, uint32_t>, uint32_t> latestAt_;  // position -> latest .loc there
  std::map<std::tuple<uint32_t, uint32_t, uint32_t, uint32_t, std::string, uint32_t>, uint32_t> inlinedIdx_;
  std::optional<Variable> pendingFrameVar_;
};

}  // namespace

absl::StatusOr<Module> parse(std::string_view text, std::string sourceName) {
  Parser p(text, std::move(sourceName));
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
