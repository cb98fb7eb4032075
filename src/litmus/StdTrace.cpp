#include "litmus/StdTrace.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <functional>
#include <optional>
#include <vector>

#include "absl/container/flat_hash_map.h"

namespace predatar::litmus {
namespace {

// Thrown inside the reader and turned into a Status naming file and line.
struct StdError {
  std::string message;
};

[[noreturn]] void fail(std::string message) { throw StdError{std::move(message)}; }

enum class StdOp { Read, Write, Acquire, Release, Fork, Join, Begin, End };

struct StdEvent {
  std::string_view thread;
  StdOp op = StdOp::Read;
  std::string_view operand;  // variable, lock or thread
  uint32_t location = 0;
};

constexpr uint32_t kMaxThreads = (1u << 24) / kWarpSize;

bool hasSpace(std::string_view s) {
  return std::any_of(s.begin(), s.end(), [](char c) { return std::isspace(static_cast<unsigned char>(c)); });
}

uint32_t parseLocation(std::string_view text) {
  if (text.empty() || text.size() > 9 ||
      !std::all_of(text.begin(), text.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
    fail(fmt::format("expected a program location (a number of at most 9 digits) after the second '|' but found '{}'",
                     text));
  uint32_t v = 0;
  for (char c : text) v = v * 10 + uint32_t(c - '0');
  return v;
}

StdOp parseOp(std::string_view name, bool hasOperand) {
  static constexpr std::pair<std::string_view, StdOp> kOps[] = {
      {"r", StdOp::Read},     {"w", StdOp::Write}, {"acq", StdOp::Acquire}, {"rel", StdOp::Release},
      {"fork", StdOp::Fork},  {"join", StdOp::Join}, {"begin", StdOp::Begin}, {"end", StdOp::End}};
  for (const auto& [text, op] : kOps) {
    if (name != text) continue;
    bool marker = op == StdOp::Begin || op == StdOp::End;
    if (!marker && !hasOperand) fail(fmt::format("'{}' needs an operand: {}(NAME)", name, name));
    return op;
  }
  fail(fmt::format("unknown operation '{}' (expected r, w, acq, rel, fork, join, begin or end)", name));
}

// T0|w(V2)|12
StdEvent parseLine(std::string_view line) {
  size_t bar1 = line.find('|');
  size_t bar2 = bar1 == std::string_view::npos ? bar1 : line.find('|', bar1 + 1);
  if (bar2 == std::string_view::npos || line.find('|', bar2 + 1) != std::string_view::npos)
    fail("expected three fields 'thread|op(operand)|location', such as 'T0|w(V2)|12'");
  StdEvent e;
  e.thread = line.substr(0, bar1);
  if (e.thread.empty() || hasSpace(e.thread)) fail(fmt::format("expected a thread name but found '{}'", e.thread));
  std::string_view op = line.substr(bar1 + 1, bar2 - bar1 - 1);
  size_t paren = op.find('(');
  std::string_view name = op.substr(0, paren);
  if (paren != std::string_view::npos) {
    if (op.back() != ')') fail(fmt::format("expected ')' at the end of '{}'", op));
    e.operand = op.substr(paren + 1, op.size() - paren - 2);
    if (e.operand.empty() || hasSpace(e.operand) || e.operand.find_first_of("()") != std::string_view::npos)
      fail(fmt::format("expected a name without spaces or parentheses in '{}'", op));
  }
  e.op = parseOp(name, paren != std::string_view::npos);
  e.location = parseLocation(line.substr(bar2 + 1));
  return e;
}

bool blank(std::string_view line) {
  return std::all_of(line.begin(), line.end(), [](char c) { return std::isspace(static_cast<unsigned char>(c)); });
}

// Looks up std::string keys by std::string_view (no string built per line).
struct NameHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

// Names in order of first appearance, with ids.
class Interner {
 public:
  uint32_t id(std::string_view name) {
    auto [it, added] = ids_.try_emplace(name, uint32_t(names_.size()));
    if (added) names_.emplace_back(name);
    return it->second;
  }
  std::optional<uint32_t> find(std::string_view name) const {
    auto it = ids_.find(name);
    return it == ids_.end() ? std::nullopt : std::optional<uint32_t>(it->second);
  }
  size_t size() const { return names_.size(); }
  const std::vector<std::string>& names() const { return names_; }

 private:
  absl::flat_hash_map<std::string, uint32_t, NameHash, std::equal_to<>> ids_;
  std::vector<std::string> names_;
};

// One lock a thread holds, with how many times it re-entered it.
struct Held {
  uint32_t lock;
  uint32_t depth;
};

class StdBuilder {
 public:
  StdBuilder(LitmusSummary& out, EventSink& sink, Interner threads, StdThreads mapping)
      : out_(out), sink_(sink), threads_(std::move(threads)), stride_(mapping == StdThreads::Warps ? kWarpSize : 1) {
    KernelInfo& k = out_.kernel;
    k.name = out_.path;
    k.grid = Dim3{1, 1, 1};
    k.block = Dim3{uint32_t(std::max<size_t>(threads_.size(), 1)) * stride_, 1, 1};
    held_.assign(threads_.size(), {});
    k.blockScopedAcquires = false;  // (STD locks are device scoped)
    sink_.kernelBegin(k);
  }

  void add(const StdEvent& e) {
    if (e.op == StdOp::Begin || e.op == StdOp::End) return;  // atomicity markers: no synchronization
    uint32_t thread = *threads_.find(e.thread);
    uint32_t position = source(e.location);
    Origin origin{out_.events, kPositionPc | position, position};
    switch (e.op) {
      case StdOp::Read:
      case StdOp::Write: return access(e, thread, origin);
      case StdOp::Acquire: return acquire(e, thread, origin);
      case StdOp::Release: return release(e, thread, origin);
      case StdOp::Fork:
      case StdOp::Join: return forkJoin(e, thread, origin);
      case StdOp::Begin:
      case StdOp::End: return;
    }
  }

  void finish() {
    KernelInfo& k = out_.kernel;
    const auto& vars = variables_.names();
    k.symbols.reserve(vars.size());
    for (size_t v = 0; v < vars.size(); ++v) k.symbols.push_back(MemorySymbol{vars[v], MemorySpace::Global, address(v), 4, 4});
    k.lockNames = locks_.names();
    sink_.kernelEnd();
  }

 private:
  static uint64_t address(size_t variable) { return (uint64_t(1) << 34) + 4 * uint64_t(variable); }
  // The GPU thread of CPU thread k: 32k (its own warp) or k (lanes of warps).
  WarpLanes lanes(uint32_t thread) const {
    uint32_t gpu = thread * stride_;
    return WarpLanes{0, gpu / kWarpSize, LaneMask(1) << (gpu % kWarpSize)};
  }

  uint32_t source(uint32_t location) {
    auto [it, added] = sources_.try_emplace(location, uint32_t(out_.kernel.sources.size()));
    if (added) out_.kernel.sources.push_back(SourcePosition{"loc", location, 0});
    return it->second;
  }

  void access(const StdEvent& e, uint32_t thread, const Origin& origin) {
    MemoryEvent m;
    m.lanes = lanes(thread);
    m.type = e.op == StdOp::Read ? AccessType::Read : AccessType::Write;
    m.address[(thread * stride_) % kWarpSize] = address(variables_.id(e.operand));
    m.origin = origin;
    ++out_.events;
    sink_.memory(m);
  }

  LockEvent lockEvent(uint32_t thread, uint32_t lock, const Origin& origin) {
    LockEvent l{lanes(thread), Scope::Device, {}, origin};
    l.lock[(thread * stride_) % kWarpSize] = lock;
    ++out_.events;
    return l;
  }

  void acquire(const StdEvent& e, uint32_t thread, const Origin& origin) {
    uint32_t lock = locks_.id(e.operand);
    auto& held = held_[thread];
    for (Held& h : held)
      if (h.lock == lock) return void(++h.depth);  // re-entrant: the outer pair orders
    held.push_back({lock, 1});
    sink_.acquire(lockEvent(thread, lock, origin));
  }

  void release(const StdEvent& e, uint32_t thread, const Origin& origin) {
    std::optional<uint32_t> lock = locks_.find(e.operand);
    auto& held = held_[thread];
    auto it = std::find_if(held.begin(), held.end(), [&](const Held& h) { return lock && h.lock == *lock; });
    if (it == held.end()) fail(fmt::format("{} releases lock {} which it does not hold", e.thread, e.operand));
    if (--it->depth > 0) return;
    if (it + 1 != held.end())
      fail(fmt::format("{} releases lock {} but acquired {} later: acquires and releases must be well nested",
                       e.thread, e.operand, locks_.names()[held.back().lock]));
    held.pop_back();
    sink_.release(lockEvent(thread, *lock, origin));
  }

  // Both directions at once: a fork orders the parent's past before the child's
  // future (the child has no past); a join the child's past before the parent's
  // future (the child has no future).
  void forkJoin(const StdEvent& e, uint32_t thread, const Origin& origin) {
    uint32_t other = *threads_.find(e.operand);
    if (other == thread) fail(fmt::format("thread {} cannot fork or join itself", e.thread));
    BarrierEvent b{0, {thread * stride_, other * stride_}, {}, origin};
    std::sort(b.threads.begin(), b.threads.end());
    ++out_.events;
    sink_.barrier(b);
  }

  LitmusSummary& out_;
  EventSink& sink_;
  Interner threads_, variables_, locks_;
  uint32_t stride_;
  std::vector<std::vector<Held>> held_;
  absl::flat_hash_map<uint32_t, uint32_t> sources_;  // program location -> kernel.sources index
};

}  // namespace

bool looksLikeStd(std::string_view line) {
  size_t bar1 = line.find('|');
  return bar1 != std::string_view::npos && line.find('|', bar1 + 1) != std::string_view::npos;
}

absl::StatusOr<LitmusSummary> streamStd(io::LineReader& in, EventSink& sink, StdThreads mapping) {
  LitmusSummary out;
  out.path = in.path();
  uint64_t lineNo = 0;
  std::string_view line;
  try {
    // First pass: the threads, named by events and by fork/join (the launch geometry).
    Interner threads;
    while (in.next(line)) {
      lineNo = in.lineNumber();
      if (blank(line)) continue;
      StdEvent e = parseLine(line);
      threads.id(e.thread);
      if (e.op == StdOp::Fork || e.op == StdOp::Join) threads.id(e.operand);
      if (threads.size() > kMaxThreads) fail(fmt::format("more than {} threads", kMaxThreads));
    }
    if (!in.status().ok()) return in.status();
    lineNo = 0;
    if (!in.rewindable()) fail("an STD trace is read twice (first for its threads): give a file, not a pipe");
    if (absl::Status rewound = in.rewind(); !rewound.ok()) return rewound;
    StdBuilder builder(out, sink, std::move(threads), mapping);
    while (in.next(line)) {
      lineNo = in.lineNumber();
      if (!blank(line)) builder.add(parseLine(line));
    }
    if (!in.status().ok()) return in.status();
    lineNo = 0;
    builder.finish();
  } catch (const StdError& e) {
    if (lineNo == 0) return absl::InvalidArgumentError(fmt::format("{}: {}", out.path, e.message));
    return absl::InvalidArgumentError(fmt::format("{}:{}: {}", out.path, lineNo, e.message));
  }
  return out;
}

absl::StatusOr<LitmusSummary> streamStdText(std::string_view text, const std::string& path, EventSink& sink,
                                            StdThreads mapping) {
  auto in = io::LineReader::fromText(text, path);
  return streamStd(*in, sink, mapping);
}

}  // namespace predatar::litmus
