#include "litmus/Litmus.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <unordered_map>

#include "io/LineReader.h"
#include "report/Report.h"

namespace predatar::litmus {
namespace {

// ---------------------------------------------------------------- tokens

enum class Tok { Ident, Number, Punct, End };

struct Token {
  Tok kind = Tok::End;
  std::string text;
  uint64_t value = 0;
  size_t column = 0;
};

// Thrown inside the parser and turned into a Status naming file and line.
struct ParseError {
  std::string message;
};

[[noreturn]] void fail(std::string message) { throw ParseError{std::move(message)}; }

std::string describe(const Token& t) {
  if (t.kind == Tok::End) return "end of line";
  return fmt::format("'{}'", t.text);
}

class Lexer {
 public:
  explicit Lexer(std::string_view line) : line_(line) { advance(); }
  const Token& peek() const { return current_; }
  Token next() {
    Token t = current_;
    advance();
    return t;
  }
  bool accept(std::string_view punct) {
    if (current_.kind != Tok::Punct || current_.text != punct) return false;
    advance();
    return true;
  }
  void expect(std::string_view punct, std::string_view what) {
    if (!accept(punct)) fail(fmt::format("expected '{}' {} but found {}", punct, what, describe(current_)));
  }
  std::string ident(std::string_view what) {
    if (current_.kind != Tok::Ident) fail(fmt::format("expected {} but found {}", what, describe(current_)));
    return next().text;
  }
  uint64_t number(std::string_view what) {
    if (current_.kind != Tok::Number) fail(fmt::format("expected {} but found {}", what, describe(current_)));
    return next().value;
  }
  // The raw text from the current token to the end of the line.
  std::string_view rest() const { return current_.kind == Tok::End ? "" : line_.substr(current_.column); }
  void skipToEnd() { pos_ = line_.size(), current_ = Token{}; }

 private:
  void advance() {
    while (pos_ < line_.size() && std::isspace(static_cast<unsigned char>(line_[pos_]))) ++pos_;
    current_ = Token{};
    current_.column = pos_;
    if (pos_ >= line_.size()) return;
    char c = line_[pos_];
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      size_t start = pos_;
      while (pos_ < line_.size() && (std::isalnum(static_cast<unsigned char>(line_[pos_])) || line_[pos_] == '_')) ++pos_;
      current_.kind = Tok::Ident;
      current_.text = std::string(line_.substr(start, pos_ - start));
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      size_t start = pos_;
      int base = 10;
      if (c == '0' && pos_ + 1 < line_.size() && (line_[pos_ + 1] == 'x' || line_[pos_ + 1] == 'X')) {
        base = 16;
        pos_ += 2;
      }
      size_t digits = pos_;
      while (pos_ < line_.size() && std::isxdigit(static_cast<unsigned char>(line_[pos_]))) {
        if (base == 10 && !std::isdigit(static_cast<unsigned char>(line_[pos_]))) break;
        ++pos_;
      }
      current_.kind = Tok::Number;
      current_.text = std::string(line_.substr(start, pos_ - start));
      if (pos_ == digits) fail(fmt::format("malformed number '{}'", current_.text));
      if (pos_ < line_.size() && (std::isalnum(static_cast<unsigned char>(line_[pos_])) || line_[pos_] == '_'))
        fail(fmt::format("malformed number starting '{}'", current_.text + line_[pos_]));
      if (pos_ - digits > (base == 16 ? 16u : 19u)) fail(fmt::format("number '{}' is too large", current_.text));
      current_.value = std::stoull(std::string(line_.substr(digits, pos_ - digits)), nullptr, base);
    } else if (std::string_view(":.[]+-@,=").find(c) != std::string_view::npos) {
      current_.kind = Tok::Punct;
      current_.text = std::string(1, c);
      ++pos_;
    } else {
      fail(fmt::format("unexpected character '{}'", c));
    }
  }

  std::string_view line_;
  size_t pos_ = 0;
  Token current_;
};

// ---------------------------------------------------------------- statements

struct Who {
  enum Kind { Thread, Warp, Block } kind = Thread;
  uint32_t block = 0;
  uint32_t index = 0;  // thread or warp
  std::optional<LaneMask> mask;
};

// "b1.t3", "b1.w0", "b1": for messages only (formatted on error, not per event).
std::string text(const Who& who) {
  return who.kind == Who::Thread ? fmt::format("b{}.t{}", who.block, who.index)
         : who.kind == Who::Warp ? fmt::format("b{}.w{}", who.block, who.index)
                                 : fmt::format("b{}", who.block);
}

enum class Op { Rd, Wr, Atom, Ard, Awr, Acq, Rel, Fence, Bar, SyncWarp, Exit };

struct IndexExpr {
  enum Base { Constant, Lane, Tid } base = Constant;
  int64_t offset = 0;
};

struct Operand {
  std::string name;
  IndexExpr index;
};

struct RawEvent {
  uint32_t line = 0;
  Who who;
  Op op = Op::Rd;
  Scope scope = Scope::Device;
  std::optional<Operand> operand;
  std::optional<SourcePosition> position;
};

constexpr uint32_t kMaxIndex = 1u << 24;

uint32_t smallNumber(Lexer& lex, std::string_view what, uint64_t limit = kMaxIndex) {
  uint64_t v = lex.number(what);
  if (v >= limit) fail(fmt::format("{} {} is too large (at most {})", what, v, limit - 1));
  return uint32_t(v);
}

// t3 | b1.t3 | b1.w0 | b1.w0[mask] | b1 | w0 | w0[mask]
Who parseWho(Lexer& lex) {
  Who who;
  size_t start = lex.peek().column;
  if (lex.peek().kind != Tok::Ident)
    fail(fmt::format("expected a thread (t3, b1.t3), a warp (b1.w0[0xff]) or a block (b1) but found {}",
                     describe(lex.peek())));
  std::string head = lex.next().text;
  auto numbered = [](const std::string& s, char letter, uint32_t& out) {
    if (s.size() < 2 || s[0] != letter) return false;
    if (!std::all_of(s.begin() + 1, s.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
      return false;
    if (s.size() > 9) fail(fmt::format("index in '{}' is too large", s));
    out = uint32_t(std::stoul(s.substr(1)));
    return true;
  };
  std::string second;
  if (numbered(head, 'b', who.block)) {
    if (!lex.accept(".")) {
      who.kind = Who::Block;
    } else {
      second = lex.ident("'t<N>' or 'w<N>' after the block");
      if (numbered(second, 't', who.index)) who.kind = Who::Thread;
      else if (numbered(second, 'w', who.index)) who.kind = Who::Warp;
      else fail(fmt::format("expected 't<N>' or 'w<N>' after '{}.' but found '{}'", head, second));
    }
  } else if (numbered(head, 't', who.index)) {
    who.kind = Who::Thread;
  } else if (numbered(head, 'w', who.index)) {
    who.kind = Who::Warp;
  } else {
    fail(fmt::format("expected a thread (t3, b1.t3), a warp (b1.w0[0xff]) or a block (b1) but found '{}'", head));
  }
  if (who.kind == Who::Warp && lex.accept("[")) {
    uint64_t mask = lex.number("a lane mask such as 0x0000000f");
    if (mask > 0xffffffffull) fail(fmt::format("lane mask {:#x} has more than 32 lanes", mask));
    if (mask == 0) fail("lane mask is empty");
    who.mask = LaneMask(mask);
    lex.expect("]", "after the lane mask");
  }
  (void)start;
  return who;
}

std::pair<Op, Scope> parseOp(Lexer& lex, bool& scoped) {
  std::string name = lex.ident("an operation (rd, wr, atom, ard, awr, acq, rel, fence, bar, syncwarp, exit)");
  static const std::map<std::string, Op> ops{{"rd", Op::Rd},       {"wr", Op::Wr},     {"atom", Op::Atom},
                                             {"ard", Op::Ard},     {"awr", Op::Awr},   {"acq", Op::Acq},
                                             {"rel", Op::Rel},     {"fence", Op::Fence}, {"bar", Op::Bar},
                                             {"syncwarp", Op::SyncWarp}, {"exit", Op::Exit}};
  auto it = ops.find(name);
  if (it == ops.end())
    fail(fmt::format("unknown operation '{}' (expected rd, wr, atom, ard, awr, acq, rel, fence, bar, syncwarp or exit)",
                     name));
  Op op = it->second;
  Scope scope = Scope::Device;
  scoped = false;
  if (lex.accept(".")) {
    std::string suffix = lex.ident("a scope (block, device or system)");
    bool takesScope = op == Op::Atom || op == Op::Ard || op == Op::Awr || op == Op::Acq || op == Op::Rel ||
                      op == Op::Fence;
    if (!takesScope) fail(fmt::format("operation '{}' takes no scope but found '.{}'", name, suffix));
    if (suffix == "block") scope = Scope::Block;
    else if (suffix == "device") scope = Scope::Device;
    else if (suffix == "system") scope = Scope::System;
    else fail(fmt::format("unknown scope '{}' (expected block, device or system)", suffix));
    scoped = true;
  }
  return {op, scope};
}

IndexExpr parseIndex(Lexer& lex) {
  IndexExpr e;
  if (lex.peek().kind == Tok::Number) {
    e.offset = smallNumber(lex, "index");
    return e;
  }
  std::string base = lex.ident("an index (a number, lane, tid, lane+1, tid-1)");
  if (base == "lane") e.base = IndexExpr::Lane;
  else if (base == "tid") e.base = IndexExpr::Tid;
  else fail(fmt::format("expected an index (a number, lane or tid) but found '{}'", base));
  if (lex.accept("+")) e.offset = smallNumber(lex, "index offset");
  else if (lex.accept("-")) e.offset = -int64_t(smallNumber(lex, "index offset"));
  return e;
}

Operand parseLocation(Lexer& lex, std::string_view what) {
  Operand o;
  o.name = lex.ident(what);
  if (lex.accept("[")) {
    o.index = parseIndex(lex);
    lex.expect("]", "after the index");
  }
  return o;
}

std::optional<SourcePosition> parsePosition(Lexer& lex) {
  if (!lex.accept("@")) return std::nullopt;
  std::string_view rest = lex.rest();
  while (!rest.empty() && std::isspace(static_cast<unsigned char>(rest.back()))) rest.remove_suffix(1);
  size_t colon = rest.rfind(':');
  if (colon == std::string_view::npos || colon == 0)
    fail(fmt::format("expected a source position '@ file:line' but found '@ {}'", rest));
  std::string_view lineText = rest.substr(colon + 1);
  if (lineText.empty() || lineText.size() > 9 ||
      !std::all_of(lineText.begin(), lineText.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
    fail(fmt::format("expected a line number after '{}:' but found '{}'", rest.substr(0, colon), lineText));
  lex.skipToEnd();
  std::string file(rest.substr(0, colon));
  while (!file.empty() && std::isspace(static_cast<unsigned char>(file.back()))) file.pop_back();
  return SourcePosition{file, uint32_t(std::stoul(std::string(lineText))), 0};
}

void expectEnd(Lexer& lex, std::string_view after) {
  if (lex.peek().kind != Tok::End) fail(fmt::format("unexpected {} after {}", describe(lex.peek()), after));
}

RawEvent parseEvent(Lexer& lex, uint32_t line) {
  RawEvent e;
  e.line = line;
  e.who = parseWho(lex);
  if (!lex.accept(":")) lex.expect(":", fmt::format("after '{}'", text(e.who)));
  bool scoped = false;
  std::tie(e.op, e.scope) = parseOp(lex, scoped);
  switch (e.op) {
    case Op::Rd: case Op::Wr: case Op::Atom: case Op::Ard: case Op::Awr:
      e.operand = parseLocation(lex, "a location (name or name[index])");
      break;
    case Op::Acq: case Op::Rel:
      e.operand = Operand{lex.ident("a lock name"), {}};
      if (lex.peek().kind == Tok::Punct && lex.peek().text == "[") fail("a lock is a plain name, without an index");
      break;
    default:
      break;
  }
  e.position = parsePosition(lex);
  expectEnd(lex, "the event");
  return e;
}

Expectation parseExpectation(Lexer& lex, uint32_t line) {
  Expectation x;
  x.line = line;
  std::string name = lex.ident("a detector name (gwcp, hb, lockset)");
  x.detector = canonicalDetectorName(name);
  if (x.detector.empty())
    fail(fmt::format("unknown detector '{}' (expected gwcp, hb, lockset, predatar, barracuda or scord)", name));
  lex.expect(":", "after the detector name");
  std::string verdict = lex.ident("'race' or 'norace'");
  if (verdict == "norace") {
    expectEnd(lex, "'norace'");
    return x;
  }
  if (verdict != "race") fail(fmt::format("expected 'race' or 'norace' but found '{}'", verdict));
  do {
    Operand loc = parseLocation(lex, "a location after 'race'");
    if (loc.index.base != IndexExpr::Constant) fail("locations in expect lines have constant indices");
    x.locations.insert(loc.index.offset == 0 ? loc.name : fmt::format("{}[{}]", loc.name, loc.index.offset));
  } while (lex.accept(","));
  expectEnd(lex, "the location list");
  return x;
}

// ---------------------------------------------------------------- building the trace

// The launch geometry a file without a complete `launch` line implies: one
// more than the largest block and thread its events name.
struct GeometryScan {
  uint32_t maxBlock = 0, maxThread = 0;
  bool blockScopedAcquire = false;  // (KernelInfo::blockScopedAcquires)
  void observe(const RawEvent& e) {
    maxBlock = std::max(maxBlock, e.who.block + 1);
    blockScopedAcquire |= e.op == Op::Acq && e.scope == Scope::Block;
    if (e.who.kind == Who::Thread) maxThread = std::max(maxThread, e.who.index + 1);
    if (e.who.kind == Who::Warp) {
      uint32_t top = e.who.mask ? 32 - std::countl_zero(*e.who.mask) : 32;
      maxThread = std::max(maxThread, e.who.index * kWarpSize + top);
    }
  }
};

// Turns parsed events into the event stream, one at a time: nothing per
// event is kept (names, locks and positions are interned; per-thread state is
// sized by the launch).
class TraceBuilder {
 public:
  TraceBuilder(LitmusSummary& out, EventSink& sink, std::set<std::string> sharedNames)
      : out_(out), sink_(sink), shared_(std::move(sharedNames)) {}

  // `blockScopedAcquires`: whether the trace may acquire a lock at block
  // scope (true unless a first pass read every event).
  void begin(uint32_t blocks, uint32_t threads, bool blockScopedAcquires = true) {
    blocks_ = blocks;
    threads_ = threads;
    if (uint64_t(blocks_) * threads_ > (1u << 24)) fail("the launch has more than 2^24 threads");
    KernelInfo& k = out_.kernel;
    k.name = out_.path;
    k.grid = Dim3{blocks_, 1, 1};
    k.block = Dim3{threads_, 1, 1};
    k.blockScopedAcquires = blockScopedAcquires;
    exited_.assign(uint64_t(blocks_) * threads_, false);
    held_.assign(uint64_t(blocks_) * threads_, {});
    sink_.kernelBegin(k);
  }

  void add(const RawEvent& e) {
    line_ = e.line;
    Origin origin{out_.events++, e.line, source(e)};
    // An event with an '@' position is that instruction: races are kept once
    // per pair of positions, as for a program (a trace of 10^7 events from a
    // few hundred sites keeps a few hundred races, not one per line pair).
    if (e.position) origin.pc = kPositionPc | origin.source;
    if (e.who.block >= blocks_)
      fail(fmt::format("block {} is outside the launch (blocks={})", e.who.block, blocks_));
    switch (e.op) {
      case Op::Bar: return barrier(e, origin);
      case Op::SyncWarp: return syncWarp(e, origin);
      default: break;
    }
    if (e.who.kind == Who::Block)
      fail(fmt::format("'{}' names a whole block, which only 'bar' takes; name a thread or a warp", text(e.who)));
    WarpLanes lanes = lanesOf(e.who, /*allowExited=*/false);
    switch (e.op) {
      case Op::Rd: case Op::Wr: case Op::Atom: case Op::Ard: case Op::Awr: return memory(e, lanes, origin);
      case Op::Acq: case Op::Rel: return lock(e, lanes, origin);
      case Op::Fence: sink_.fence(FenceEvent{lanes, e.scope, origin}); return;
      case Op::Exit:
        forEachThread(lanes, [&](uint32_t t) { exited_[index(lanes.block, t)] = true; });
        sink_.exit(ExitEvent{lanes, origin});
        return;
      default: return;
    }
  }

  // Completes the kernel description (names for reports) and ends the stream.
  void finish() {
    KernelInfo& k = out_.kernel;
    for (const auto& [name, info] : names_)
      k.symbols.push_back(MemorySymbol{name, info.space, info.base, (uint64_t(info.maxIndex) + 1) * 4, 4});
    k.lockNames = lockNames_;
    sink_.kernelEnd();
  }

 private:
  struct NameInfo {
    MemorySpace space;
    uint64_t base;
    uint32_t maxIndex;
  };

  uint64_t index(uint32_t block, uint32_t thread) const { return uint64_t(block) * threads_ + thread; }

  template <class F>
  static void forEachThread(const WarpLanes& lanes, F&& f) {
    for (LaneMask m = lanes.mask; m; m &= m - 1) f(lanes.warp * kWarpSize + uint32_t(std::countr_zero(m)));
  }

  uint32_t source(const RawEvent& e) {
    // Without '@' the position is the litmus line itself (kernel.name and
    // Origin::pc): no entry per event, so memory does not grow with the trace.
    if (!e.position) return kTraceLineSource;
    SourcePosition pos = *e.position;
    auto& sources = out_.kernel.sources;
    // A hash index, not a search (a linear search made reading quadratic).
    std::string key = fmt::format("{}\n{}:{}", pos.file, pos.line, pos.column);
    auto [it, added] = sourceIndex_.try_emplace(std::move(key), uint32_t(sources.size()));
    if (added) sources.push_back(std::move(pos));
    return it->second;
  }

  WarpLanes lanesOf(const Who& who, bool allowExited) {
    WarpLanes lanes{who.block, 0, 0};
    if (who.kind == Who::Thread) {
      if (who.index >= threads_)
        fail(fmt::format("thread {} is outside the launch (threads={})", who.index, threads_));
      lanes.warp = who.index / kWarpSize;
      lanes.mask = LaneMask(1) << (who.index % kWarpSize);
      if (!allowExited && exited_[index(who.block, who.index)])
        fail(fmt::format("{} has exited and takes part in no later event", text(who)));
      return lanes;
    }
    lanes.warp = who.index;
    if (uint64_t(who.index) * kWarpSize >= threads_)
      fail(fmt::format("warp {} is outside the launch (threads={}: warps 0..{})", who.index, threads_,
                       (threads_ - 1) / kWarpSize));
    for (uint32_t lane = 0; lane < kWarpSize; ++lane) {
      uint32_t thread = who.index * kWarpSize + lane;
      bool named = who.mask ? ((*who.mask >> lane) & 1) : true;
      if (!named) continue;
      if (thread >= threads_) {
        if (who.mask)
          fail(fmt::format("lane {} of {} is thread {}, outside the launch (threads={})", lane, text(who), thread,
                           threads_));
        continue;
      }
      if (exited_[index(who.block, thread)] && !allowExited) {
        if (who.mask) fail(fmt::format("lane {} of {} (thread {}) has exited", lane, text(who), thread));
        continue;  // the unmasked form means the lanes still running
      }
      lanes.mask |= LaneMask(1) << lane;
    }
    if (!lanes.mask) fail(fmt::format("every lane of {} has exited", text(who)));
    return lanes;
  }

  uint64_t address(const Operand& o, uint32_t thread, MemorySpace& space) {
    int64_t base = o.index.base == IndexExpr::Lane ? thread % kWarpSize
                   : o.index.base == IndexExpr::Tid ? thread
                                                    : 0;
    int64_t idx = base + o.index.offset;
    if (idx < 0) fail(fmt::format("index of {} is {} for thread {}: negative", o.name, idx, thread));
    if (idx >= kMaxIndex) fail(fmt::format("index {} of {} is too large", idx, o.name));
    auto [it, inserted] = names_.try_emplace(o.name);
    NameInfo& info = it->second;
    if (inserted) {
      bool isShared = shared_.count(o.name) > 0;
      info.space = isShared ? MemorySpace::Shared : MemorySpace::Global;
      uint64_t n = isShared ? sharedCount_++ : globalCount_++;
      info.base = isShared ? (n << 26) : ((n + 1) << 34);
      info.maxIndex = 0;
    }
    info.maxIndex = std::max(info.maxIndex, uint32_t(idx));
    space = info.space;
    return info.base + 4 * uint64_t(idx);
  }

  void memory(const RawEvent& e, const WarpLanes& lanes, const Origin& origin) {
    if (e.who.kind == Who::Thread && e.operand->index.base != IndexExpr::Constant)
      fail(fmt::format("'{}' indexes {} by lane or tid, which only a warp event may do", text(e.who), e.operand->name));
    MemoryEvent m;
    m.lanes = lanes;
    m.origin = origin;
    m.type = e.op == Op::Rd || e.op == Op::Ard ? AccessType::Read
             : e.op == Op::Atom                ? AccessType::AtomicRmw
                                               : AccessType::Write;
    m.strong = e.op == Op::Atom || e.op == Op::Ard || e.op == Op::Awr;
    m.scope = e.scope;
    m.size = 4;
    forEachThread(lanes, [&](uint32_t t) { m.address[t % kWarpSize] = address(*e.operand, t, m.space); });
    sink_.memory(m);
  }

  void lock(const RawEvent& e, const WarpLanes& lanes, const Origin& origin) {
    if (std::popcount(lanes.mask) != 1)
      fail(fmt::format("'{}' would make several lanes hold lock {} at once; write one event per thread",
                       text(e.who), e.operand->name));
    auto [it, inserted] = lockIds_.try_emplace(e.operand->name, lockNames_.size());
    if (inserted) lockNames_.push_back(e.operand->name);
    uint32_t thread = lanes.warp * kWarpSize + uint32_t(std::countr_zero(lanes.mask));
    auto& held = held_[index(lanes.block, thread)];
    auto who = [&] { return fmt::format("b{}.t{}", lanes.block, thread); };
    LockEvent l{lanes, e.scope, {}, origin};
    l.lock.fill(it->second);
    if (e.op == Op::Acq) {
      for (const auto& [name, line] : held)
        if (name == e.operand->name)
          fail(fmt::format("{} already holds lock {} (acquired on line {})", who(), name, line));
      held.emplace_back(e.operand->name, e.line);
      sink_.acquire(l);
      return;
    }
    if (held.empty() || std::none_of(held.begin(), held.end(), [&](auto& h) { return h.first == e.operand->name; }))
      fail(fmt::format("{} releases lock {} which it does not hold", who(), e.operand->name));
    if (held.back().first != e.operand->name)
      fail(fmt::format("{} releases lock {} but acquired {} later (line {}): acquires and releases must be well nested",
                       who(), e.operand->name, held.back().first, held.back().second));
    held.pop_back();
    sink_.release(l);
  }

  void barrier(const RawEvent& e, const Origin& origin) {
    if (e.who.kind != Who::Block)
      fail(fmt::format("'bar' is __syncthreads() of a whole block: write 'b{}: bar', not '{}: bar'", e.who.block,
                       text(e.who)));
    BarrierEvent b{e.who.block, {}, {}, origin};
    for (uint32_t t = 0; t < threads_; ++t)
      if (!exited_[index(e.who.block, t)]) b.threads.push_back(t);
    sink_.barrier(b);
  }

  void syncWarp(const RawEvent& e, const Origin& origin) {
    if (e.who.kind != Who::Warp)
      fail(fmt::format("'syncwarp' is __syncwarp(mask) of a warp: write 'b{}.w<N>[mask]: syncwarp', not '{}'",
                       e.who.block, text(e.who)));
    // Lanes that have exited take part in no later barrier.
    WarpLanes lanes = lanesOf(e.who, /*allowExited=*/true);
    LaneMask live = 0;
    forEachThread(lanes, [&](uint32_t t) {
      if (!exited_[index(lanes.block, t)]) live |= LaneMask(1) << (t % kWarpSize);
    });
    lanes.mask = live;
    if (live) sink_.syncWarp(SyncWarpEvent{lanes, origin});
  }

  LitmusSummary& out_;
  EventSink& sink_;
  std::set<std::string> shared_;
  uint32_t blocks_ = 1, threads_ = 1, line_ = 0;
  std::vector<bool> exited_;
  std::unordered_map<std::string, uint32_t> sourceIndex_;  // "file\nline:column" -> kernel.sources index
  std::vector<std::vector<std::pair<std::string, uint32_t>>> held_;
  std::map<std::string, NameInfo> names_;
  uint64_t globalCount_ = 0, sharedCount_ = 0;
  std::map<std::string, uint64_t> lockIds_;
  std::vector<std::string> lockNames_;
};

std::string_view stripComment(std::string_view line) {
  size_t hash = line.find('#');
  return hash == std::string_view::npos ? line : line.substr(0, hash);
}

// The statements beside the events.
struct Header {
  std::set<std::string> shared;
  std::optional<uint32_t> blocks, threads;
  uint32_t launchLine = 0;
  uint32_t firstEventLine = 0;
};

// The keyword a non-event statement starts with, or empty for an event.
std::string_view statementKeyword(const Lexer& lex) {
  if (lex.peek().kind != Tok::Ident) return {};
  for (std::string_view k : {"launch", "shared", "expect", "truth"})
    if (lex.peek().text == k) return k;
  return {};
}

void parseLaunch(Lexer& lex, Header& header, uint32_t lineNo) {
  if (header.launchLine) fail(fmt::format("a second 'launch' line (the first is line {})", header.launchLine));
  header.launchLine = lineNo;
  while (lex.peek().kind != Tok::End) {
    std::string key = lex.ident("'blocks=N' or 'threads=N'");
    lex.expect("=", fmt::format("after '{}'", key));
    uint32_t value = smallNumber(lex, key, 1u << 24);
    if (value == 0) fail(fmt::format("'{}' must be at least 1", key));
    if (key != "blocks" && key != "threads")
      fail(fmt::format("unknown launch parameter '{}' (expected blocks or threads)", key));
    auto& slot = key == "blocks" ? header.blocks : header.threads;
    if (slot) fail(fmt::format("'{}' is given twice", key));
    slot = value;
  }
}

// Handles a non-event statement (header, expect, truth) of the first pass.
void parseStatement(std::string_view keyword, Lexer& lex, Header& header, LitmusSummary& out, uint32_t lineNo) {
  if (keyword == "launch" || keyword == "shared") {
    if (header.firstEventLine)
      fail(fmt::format("'{}' must come before the first event (line {})", keyword, header.firstEventLine));
    lex.next();
    if (keyword == "launch") return parseLaunch(lex, header, lineNo);
    do {
      header.shared.insert(lex.ident("a shared memory name"));
    } while (lex.accept(",") || lex.peek().kind == Tok::Ident);
    expectEnd(lex, "the shared names");
  } else if (keyword == "expect") {
    lex.next();
    out.expectations.push_back(parseExpectation(lex, lineNo));
  } else {
    lex.next();
    lex.expect(":", "after 'truth'");
    out.truth = std::string(lex.rest());  // documentation only
  }
}

// Reads the input once, streaming events as they come when the `launch` line
// gives the geometry; otherwise the first pass only finds the geometry and a
// second pass streams the events. Expect lines are kept and compared by the
// caller after the analysis, wherever they stand in the file.
absl::StatusOr<LitmusSummary> streamLines(io::LineReader& in, EventSink& sink) {
  LitmusSummary out;
  out.path = in.path();
  Header header;
  std::optional<TraceBuilder> builder;
  GeometryScan scan;
  uint32_t lineNo = 0;
  std::string_view raw;
  try {
    while (in.next(raw)) {
      lineNo = uint32_t(in.lineNumber());
      Lexer lex(stripComment(raw));
      if (lex.peek().kind == Tok::End) continue;
      if (std::string_view keyword = statementKeyword(lex); !keyword.empty()) {
        parseStatement(keyword, lex, header, out, lineNo);
        continue;
      }
      RawEvent e = parseEvent(lex, lineNo);
      if (!header.firstEventLine) {
        header.firstEventLine = lineNo;
        if (header.blocks && header.threads) {
          builder.emplace(out, sink, header.shared);
          builder->begin(*header.blocks, *header.threads);
        }
      }
      if (builder) builder->add(e);
      else scan.observe(e);
    }
    if (!in.status().ok()) return in.status();
    if (!builder) {
      lineNo = 0;
      if (header.firstEventLine) {
        if (!in.rewindable())
          fail("has no 'launch blocks=B threads=T' line, which a trace that cannot be read twice (a pipe) needs");
        if (absl::Status rewound = in.rewind(); !rewound.ok()) return rewound;
      }
      builder.emplace(out, sink, header.shared);
      builder->begin(header.blocks.value_or(std::max(scan.maxBlock, 1u)),
                     header.threads.value_or(std::max(scan.maxThread, 1u)), scan.blockScopedAcquire);
      while (header.firstEventLine && in.next(raw)) {
        lineNo = uint32_t(in.lineNumber());
        Lexer lex(stripComment(raw));
        if (lex.peek().kind == Tok::End || !statementKeyword(lex).empty()) continue;
        builder->add(parseEvent(lex, lineNo));
      }
      if (!in.status().ok()) return in.status();
    }
    lineNo = 0;
    builder->finish();
  } catch (const ParseError& e) {
    if (lineNo == 0) return absl::InvalidArgumentError(fmt::format("{}: {}", out.path, e.message));
    return absl::InvalidArgumentError(fmt::format("{}:{}: {}", out.path, lineNo, e.message));
  }
  return out;
}

// Keeps the streamed events: the whole-trace form (tests, the differential checks).
class TraceRecorder final : public EventSink {
 public:
  explicit TraceRecorder(Trace& trace) : trace_(trace) {}
  void kernelBegin(const KernelInfo&) override {}
  void memory(const MemoryEvent& e) override { trace_.events.push_back(e); }
  void barrier(const BarrierEvent& e) override { trace_.events.push_back(e); }
  void syncWarp(const SyncWarpEvent& e) override { trace_.events.push_back(e); }
  void fence(const FenceEvent& e) override { trace_.events.push_back(e); }
  void acquire(const LockEvent& e) override { trace_.events.push_back(AcquireEvent{e}); }
  void release(const LockEvent& e) override { trace_.events.push_back(ReleaseEvent{e}); }
  void exit(const ExitEvent& e) override { trace_.events.push_back(e); }
  void kernelEnd() override {}

 private:
  Trace& trace_;
};

absl::StatusOr<LitmusFile> toFile(absl::StatusOr<LitmusSummary> summary, Trace trace) {
  if (!summary.ok()) return summary.status();
  trace.kernel = std::move(summary->kernel);
  return LitmusFile{std::move(summary->path), std::move(trace), std::move(summary->expectations),
                    std::move(summary->truth)};
}

}  // namespace

absl::StatusOr<LitmusSummary> stream(const std::string& path, EventSink& sink) {
  auto in = io::LineReader::open(path);
  if (!in.ok()) return in.status();
  return streamLines(**in, sink);
}

absl::StatusOr<LitmusSummary> streamText(std::string_view text, const std::string& path, EventSink& sink) {
  auto in = io::LineReader::fromText(text, path);
  return streamLines(*in, sink);
}

absl::StatusOr<LitmusFile> parse(std::string_view text, const std::string& path) {
  Trace trace;
  TraceRecorder recorder(trace);
  auto summary = streamText(text, path, recorder);
  return toFile(std::move(summary), std::move(trace));
}

absl::StatusOr<LitmusFile> read(const std::string& path) {
  Trace trace;
  TraceRecorder recorder(trace);
  auto summary = stream(path, recorder);
  return toFile(std::move(summary), std::move(trace));
}

absl::StatusOr<std::vector<std::string>> collect(const std::vector<std::string>& paths,
                                                  const std::vector<std::string>& extensions) {
  namespace fs = std::filesystem;
  std::vector<std::string> files;
  for (const std::string& p : paths) {
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      std::vector<std::string> found;
      for (auto it = fs::recursive_directory_iterator(p, ec); !ec && it != fs::recursive_directory_iterator();
           it.increment(ec))
        if (it->is_regular_file() && std::find(extensions.begin(), extensions.end(), it->path().extension().string()) !=
                                           extensions.end())
          found.push_back(it->path().string());
      if (ec) return absl::NotFoundError(fmt::format("{}: {}", p, ec.message()));
      if (found.empty()) {
        std::string kinds = extensions.front() + " files";
        for (size_t i = 1; i < extensions.size(); ++i) kinds += " or " + extensions[i] + " files";
        return absl::NotFoundError(fmt::format("{}: no {} in this folder", p, kinds));
      }
      std::sort(found.begin(), found.end());
      files.insert(files.end(), found.begin(), found.end());
    } else if (fs::exists(p, ec)) {
      files.push_back(p);
    } else {
      return absl::NotFoundError(fmt::format("{}: no such file or directory", p));
    }
  }
  return files;
}

std::vector<std::unique_ptr<Detector>> analyze(const LitmusFile& file, const std::vector<std::string>& detectors,
                                               const DetectorOptions& options) {
  DetectorOptions perLocation = options;
  perLocation.perLocationDedup = true;  // expectations name locations: keep a report for each
  std::vector<std::unique_ptr<Detector>> result = makeDetectors(detectors, perLocation);
  EventFanout fanout;
  for (EventSink* sink : eventSinksOf(result)) fanout.add(sink);
  replay(file.trace, fanout);
  return result;
}

std::set<std::string> racyLocations(const LitmusFile& file, const Detector& detector) {
  return racyLocations(file.trace.kernel, detector);
}

std::set<std::string> racyLocations(const KernelInfo& kernel, const Detector& detector) {
  std::set<std::string> names;
  for (const LocationKey& loc : detector.races().locations()) names.insert(nameLocation(kernel, loc.space, loc.address));
  return names;
}

}  // namespace predatar::litmus
