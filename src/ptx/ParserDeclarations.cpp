// Parser, module level: directives, variables, functions and their parameters,
// register declarations, source positions and function bodies.
#include "ptx/ParserImpl.h"

namespace predatar::ptx::detail {

absl::Status Parser::err(uint32_t line, const std::string& msg) const {
  std::string where = m_.sourceName + ":" + std::to_string(line) + ": ";
  if (!curFuncName_.empty()) where += "in function '" + curFuncName_ + "': ";
  return absl::InvalidArgumentError(where + msg);
}

absl::Status Parser::expect(char c) {
  if (accept(c)) return absl::OkStatus();
  return err(peek().line, std::string("expected '") + c + "' but found '" + std::string(peek().text) + "'");
}

absl::StatusOr<uint64_t> Parser::expectInt() {
  bool neg = accept('-');
  if (peek().kind != Tok::Int) return err(peek().line, "expected a number, found '" + std::string(peek().text) + "'");
  uint64_t v = next().bits;
  return neg ? uint64_t(-int64_t(v)) : v;
}

void Parser::skipStatement() {
  while (peek().kind != Tok::End && !isPunct(';')) next();
  accept(';');
}

absl::Status Parser::topLevel() {
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
absl::StatusOr<uint32_t> Parser::variable(int32_t func, bool external) {
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
    std::vector<std::pair<size_t, std::string_view>> symbols;  // element index, symbol name
    initSymbols_.clear();
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
      } else if (t.kind == Tok::Ident && !neg) {
        // A symbol's address (vtables: functions; pointers: variables), as
        // `name`, `generic(name)` or either `+ offset`; resolved at the end.
        std::string_view name = t.text;
        if (name == "generic" && accept('(')) {
          if (peek().kind != Tok::Ident) return err(t.line, "expected a symbol in generic() in '" + v.name + "'");
          name = next().text;
          if (auto st = expect(')'); !st.ok()) return st;
        }
        uint64_t addend = 0;
        if (accept('+')) {
          auto n = expectInt();
          if (!n.ok()) return n.status();
          addend = *n;
        }
        symbols.emplace_back(values.size(), name);
        values.push_back(addend);
        isFloatLit.push_back(false);
        isF64.push_back(false);
      } else {
        return err(t.line, "unsupported initializer '" + std::string(t.text) + "' for variable '" + v.name + "'");
      }
      return absl::OkStatus();
    };
    if (auto st = parseInit(); !st.ok()) return st;
    uint32_t eb = typeBytes(v.type);
    if (unsized) v.bytes = values.size() * eb;
    for (const auto& [element, name] : symbols) {
      if (eb != 8 || (element + 1) * eb > v.bytes)
        return err(v.line, "the address of '" + std::string(name) + "' initializes a " + std::to_string(eb) +
                               "-byte element of '" + v.name + "' (64-bit elements only)");
      Variable::Relocation r;
      r.offset = element * eb;
      r.addend = int64_t(values[element]);
      v.relocations.push_back(r);
      initSymbols_.emplace_back(std::string(name), v.line);
    }
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
  for (size_t i = 0; i < m_.variables[idx].relocations.size(); ++i) {
    pendingRelocations_.emplace_back(idx, i);
    pendingSymbolInits_.push_back(initSymbols_[i]);
  }
  if (func < 0) moduleSyms_[m_.variables[idx].name] = Sym{Sym::Var, idx, 0, m_.variables[idx].bytes};
  return idx;
}

absl::StatusOr<ParamDecl> Parser::paramDecl() {
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

absl::Status Parser::paramList(std::vector<ParamDecl>& out) {
  if (auto st = expect('('); !st.ok()) return st;
  if (accept(')')) return absl::OkStatus();
  do {
    auto p = paramDecl();
    if (!p.ok()) return p.status();
    out.push_back(std::move(*p));
  } while (accept(','));
  return expect(')');
}

uint64_t Parser::allocFrame(uint64_t bytes, uint32_t align) {
  Function& f = m_.functions[curFunc_];
  uint64_t off = alignUp(f.frameBytes, std::max<uint32_t>(align, 1));
  f.frameBytes = off + bytes;
  return off;
}

absl::Status Parser::function(bool external) {
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
absl::Status Parser::resolveBranchTables() {
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

std::optional<Sym> Parser::lookup(std::string_view name) const {
  for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
    auto f = it->find(std::string(name));
    if (f != it->end()) return f->second;
  }
  auto g = moduleSyms_.find(name);
  if (g != moduleSyms_.end()) return g->second;
  return std::nullopt;
}

absl::Status Parser::declareReg() {
  uint32_t line = next().line;  // .reg (or .reg.TYPE)
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

// A position with its inlining chain (one entry per distinct chain).
uint32_t Parser::inlinedSource(const SourceLoc& loc) {
  auto key = std::make_tuple(loc.file, loc.line, loc.column, loc.inlinedAt, loc.function, loc.enclosing);
  auto it = inlinedIdx_.find(key);
  if (it != inlinedIdx_.end()) return it->second;
  m_.sources.push_back(loc);
  return inlinedIdx_[key] = uint32_t(m_.sources.size() - 1);
}

uint32_t Parser::sourceIndex(uint32_t file, uint32_t line, uint32_t col) {
  SourceLoc loc{file, line, col};
  uint64_t key = (uint64_t(file) << 48) ^ (uint64_t(line) << 16) ^ col;
  auto it = sourceIdx_.find(key);
  if (it != sourceIdx_.end() && m_.sources[it->second] == loc) return it->second;
  m_.sources.push_back(loc);
  sourceIdx_[key] = uint32_t(m_.sources.size() - 1);
  return uint32_t(m_.sources.size() - 1);
}

absl::Status Parser::body() {
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
    // (`.reg.b16 h;`, as cuda_fp16.hpp's inline asm writes it, is one token)
    if (t.kind == Tok::Ident && (t.text == ".reg" || t.text.starts_with(".reg."))) {
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
      } else if (peek().kind == Tok::Ident && peek().text == ".callprototype") {
        skipStatement();  // an indirect call's signature: its call site's lists say the same
      }
      continue;
    }
    if (auto st = instruction(); !st.ok()) return st;
  }
}

absl::Status Parser::localVariable() {
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

}  // namespace predatar::ptx::detail
