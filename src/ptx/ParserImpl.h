// The PTX parser's internals: the Parser class (one recursive-descent pass
// from tokens to a Module) and the small types it works with. Private to the
// ptx module: its methods are defined in Parser.cpp (entry), ParserDeclarations.cpp
// (module level, variables, functions, registers), ParserOperands.cpp (operands,
// modifiers, operand decoding), ParserInstructions.cpp (instruction statements,
// per-family operand handling) and ParserDecode.cpp (opcode dispatch).
#pragma once

#include "ptx/Lexer.h"
#include "ptx/MatrixDecode.h"
#include "ptx/Parser.h"

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

namespace predatar::ptx::detail {

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

const std::map<std::string_view, Type>& typeTable();

class Parser {
 public:
  Parser(std::string_view text, std::string sourceName) : text_(text) { m_.sourceName = std::move(sourceName); }

  absl::StatusOr<Module> run();

 private:
  // --- token helpers
  const Token& peek(size_t k = 0) const { return toks_[std::min(pos_ + k, toks_.size() - 1)]; }
  const Token& next() { const Token& t = toks_[pos_]; if (pos_ + 1 < toks_.size()) ++pos_; return t; }
  bool isPunct(char c, size_t k = 0) const { return peek(k).kind == Tok::Punct && peek(k).text[0] == c; }
  bool accept(char c) { if (isPunct(c)) { next(); return true; } return false; }
  bool acceptIdent(std::string_view s) { if (peek().kind == Tok::Ident && peek().text == s) { next(); return true; } return false; }
  absl::Status err(uint32_t line, const std::string& msg) const;
  absl::Status expect(char c);
  absl::StatusOr<uint64_t> expectInt();
  void skipStatement();

  // --- module level
  absl::Status topLevel();
  absl::StatusOr<uint32_t> variable(int32_t func, bool external);
  absl::StatusOr<ParamDecl> paramDecl();
  absl::Status paramList(std::vector<ParamDecl>& out);
  static uint64_t alignUp(uint64_t v, uint64_t a) { return a <= 1 ? v : (v + a - 1) / a * a; }
  uint64_t allocFrame(uint64_t bytes, uint32_t align);
  absl::Status function(bool external);
  absl::Status resolveBranchTables();
  std::optional<Sym> lookup(std::string_view name) const;
  absl::Status declareReg();
  static std::tuple<uint32_t, uint32_t, uint32_t> positionKey(const SourceLoc& l) { return {l.file, l.line, l.column}; }
  uint32_t inlinedSource(const SourceLoc& loc);
  uint32_t sourceIndex(uint32_t file, uint32_t line, uint32_t col);
  absl::Status body();
  absl::Status localVariable();

  // --- operands
  absl::StatusOr<POp> operand();

  // --- modifiers
  absl::Status parseMods(std::string_view base, const std::vector<std::string_view>& parts, Mods& m,
                         uint32_t line);

  // --- operand decoding
  uint32_t addConst(Constant c);
  void noteVariable(uint32_t v);
  static int specialIndex(std::string_view n);
  uint64_t immBits(const POp& o, Type t);
  absl::Status pairDestination(const POp& o, Instr& in, uint32_t line);
  absl::StatusOr<Ref> dstRef(const POp& o, uint32_t line);
  absl::StatusOr<Ref> srcRef(const POp& o, Type t, uint32_t line, Instr* in = nullptr);
  absl::Status addrOperand(const POp& o, Instr& in, uint32_t line);
  absl::Status frameSymOffset(const POp& o, int64_t& out, uint32_t line);
  absl::Status instruction();
  absl::Status matrixInstruction(const std::vector<std::string_view>& parts, const std::vector<POp>& ops, Instr& in,
                                 uint32_t line);

  absl::Status unsupported(uint32_t line);
  absl::Status needOps(const std::vector<POp>& ops, size_t n, uint32_t line);
  absl::Status simple(Instr& in, const std::vector<POp>& ops, size_t nsrc, uint32_t line,
                      std::initializer_list<Type> srcTypes = {});

  static bool hasPart(const std::vector<std::string_view>& parts, std::string_view p);
  absl::Status carryArithmetic(Instr& in, const std::vector<POp>& ops, uint32_t line, Op op, uint8_t carry);
  absl::Status extendedInteger(std::string_view base, const std::vector<std::string_view>& parts,
                               const std::vector<POp>& ops, Instr& in, uint32_t line);

  absl::Status branchIndexed(const std::vector<std::string_view>& parts, const std::vector<POp>& ops, Instr& in,
                             uint32_t line);

  absl::Status textureFetch(const std::vector<std::string_view>& parts, const std::vector<POp>& ops, Instr& in,
                            uint32_t line);

  absl::Status surfaceAccess(std::string_view base, const std::vector<std::string_view>& parts,
                             const std::vector<POp>& ops, Instr& in, uint32_t line);

  absl::Status branchTargets(std::string_view name, uint32_t line);
  absl::Status decode(std::string_view base, const std::vector<std::string_view>& parts, Mods& m,
                      const std::vector<POp>& ops, Instr& in, uint32_t line);

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
  // Symbols in initializers, resolved when the module is parsed: (name, line)
  // in the order of pendingRelocations_ (variable, relocation index).
  std::vector<std::pair<std::string, uint32_t>> pendingSymbolInits_;
  std::vector<std::pair<uint32_t, size_t>> pendingRelocations_;
  std::vector<std::pair<std::string, uint32_t>> initSymbols_;  // of the variable being parsed
  absl::Status resolveInitializerSymbols();
  void addIndirectCallees();
  std::vector<std::tuple<uint32_t, std::string_view, uint32_t>> tableFixups_;  // brx.idx pc, table, line
  std::unordered_map<std::string_view, std::vector<std::string_view>> branchTableNames_;
  std::map<std::tuple<uint8_t, uint64_t, uint32_t>, uint32_t> constIndex_;
  std::unordered_map<uint64_t, uint32_t> sourceIdx_;
  std::map<std::tuple<uint32_t, uint32_t, uint32_t>, uint32_t> latestAt_;  // position -> latest .loc there
  std::map<std::tuple<uint32_t, uint32_t, uint32_t, uint32_t, std::string, uint32_t>, uint32_t> inlinedIdx_;
  std::optional<Variable> pendingFrameVar_;
};

}  // namespace predatar::ptx::detail
