#include "RandomTrace.h"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <map>
#include <optional>
#include <sstream>
#include <type_traits>
#include <utility>
#include <variant>

namespace predatar::testsupport {
namespace {

// splitmix64: the same stream on every platform (the <random> distributions
// are implementation-defined).
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed * 0x9E3779B97F4A7C15ull + 0x2545F4914F6CDD1Dull) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  uint32_t below(uint32_t n) { return n == 0 ? 0 : uint32_t(next() % n); }
  bool chance(uint32_t percent) { return below(100) < percent; }
  // Index chosen with the given weights.
  size_t pick(const std::vector<uint32_t>& weights) {
    uint64_t total = 0;
    for (uint32_t w : weights) total += w;
    if (total == 0) return 0;
    uint64_t x = next() % total;
    for (size_t i = 0; i < weights.size(); ++i) {
      if (x < weights[i]) return i;
      x -= weights[i];
    }
    return weights.size() - 1;
  }

 private:
  uint64_t state_;
};

constexpr uint64_t kG0 = 0x1000, kG1 = 0x2000;  // global: scalars, lane array
constexpr uint64_t kS0 = 0x100, kS1 = 0x200;    // shared offsets: scalars, lane array
constexpr uint32_t kArrayWords = 36;            // lane + k for k <= 3, plus one word for 8-byte accesses

struct Thread {
  uint32_t block = 0, tid = 0;
  auto operator<=>(const Thread&) const = default;
};

struct Held {
  uint64_t lock;
  Scope scope;
};

enum GlobalKind { kWarpAccess, kBarrier, kSyncWarp, kWarpFence, kExit, kGlobalKinds };

class Generator {
 public:
  Generator(uint64_t seed, const RandomTraceOptions& options) : rng_(seed), o_(options) {
    blocks_ = 1 + rng_.below(std::max(1u, o_.maxBlocks));
    warps_ = 1 + rng_.below(std::max(1u, o_.maxWarpsPerBlock));
    if (warps_ == 1) {
      static const uint32_t small[] = {2, 2, 3, 4, 4, 5, 8, 16, 32};
      threads_ = small[rng_.below(sizeof small / sizeof small[0])];
    } else {
      threads_ = 32 * warps_;
    }
    exited_.assign(blocks_, std::vector<bool>(threads_, false));

    auto& k = trace_.kernel;
    k.name = "random-" + std::to_string(seed);
    k.grid = {blocks_, 1, 1};
    k.block = {threads_, 1, 1};
    uint32_t scalarWords = std::max(1u, o_.scalarWords);
    k.symbols.push_back({"g0", MemorySpace::Global, kG0, 4ull * (scalarWords + 1), 4});
    k.symbols.push_back({"g1", MemorySpace::Global, kG1, 4ull * kArrayWords, 4});
    if (o_.sharedMemory) {
      k.symbols.push_back({"s0", MemorySpace::Shared, kS0, 4ull * (scalarWords + 1), 4});
      k.symbols.push_back({"s1", MemorySpace::Shared, kS1, 4ull * kArrayWords, 4});
    }
    for (uint32_t l = 0; l < std::max(1u, o_.locks); ++l) k.lockNames.push_back("m" + std::to_string(l));

    // A few threads do most single-lane work, so that they meet on locks and words.
    // Sometimes all in one block, where block-scoped locks and barriers order them.
    uint32_t actors = 2 + rng_.below(3);
    bool oneBlock = rng_.chance(40);
    uint32_t actorBlock = rng_.below(blocks_);
    for (uint32_t a = 0; a < actors; ++a) {
      uint32_t block = oneBlock ? actorBlock : rng_.below(blocks_);
      uint32_t warp = rng_.below(warps_);
      uint32_t lanes = std::min(threads_ - warp * kWarpSize, kWarpSize);
      uint32_t lane = rng_.chance(75) ? rng_.below(std::min(lanes, 4u)) : rng_.below(lanes);
      Thread t{block, warp * kWarpSize + lane};
      if (std::find(actors_.begin(), actors_.end(), t) == actors_.end()) actors_.push_back(t);
    }

    // The trace's character: how often whole warps and blocks act, how often
    // threads access memory outside critical sections, lock scopes, burst
    // lengths, and the mode: motifs (runMotif), programs (runPrograms), or
    // step by step (step), "disciplined" (critical sections touch the words
    // their lock protects) or "free".
    static const uint32_t globalPercents[] = {3, 8, 20};
    static const uint32_t bareWeights[] = {8, 25, 50};
    globalPercent_ = globalPercents[rng_.below(3)];
    bareWeight_ = bareWeights[rng_.below(3)];
    static const uint32_t blockScopePercents[] = {10, 50, 90};
    blockLockPercent_ = blockScopePercents[rng_.below(3)];
    static const uint32_t stickyPercents[] = {0, 50, 80};
    stickyPercent_ = stickyPercents[rng_.below(3)];
    uint32_t mode = rng_.below(100);
    motif_ = mode < 25;
    programs_ = mode >= 25 && mode < 65;
    disciplined_ = mode >= 65 && mode < 80;
    k.name += std::string(" (") + (motif_ ? "motif" : programs_ ? "programs" : disciplined_ ? "disciplined" : "free") +
              ", warp/block events " +
              std::to_string(globalPercent_) + "%, bare " + std::to_string(bareWeight_) + ", block locks " +
              std::to_string(blockLockPercent_) + "%, bursts " + std::to_string(stickyPercent_) + "%)";
    while (motif_ && k.lockNames.size() < 3) k.lockNames.push_back("m" + std::to_string(k.lockNames.size()));
    static const uint32_t base[kGlobalKinds] = {45, 20, 15, 10, 10};
    for (int i = 0; i < kGlobalKinds; ++i) globalWeights_.push_back(base[i] * (50 + rng_.below(151)) / 100);
    if (o_.namedBarrierPercent) globalWeights_[kBarrier] *= 6;  // arrivals and completions pair up
  }

  Trace run() {
    uint32_t minEvents = std::min(o_.minEvents, o_.maxEvents);
    uint32_t target = minEvents + rng_.below(o_.maxEvents - minEvents + 1);
    if (motif_) {
      runMotif(target);
    } else if (programs_) {
      runPrograms(target);
    } else {
      for (uint32_t attempts = 0; trace_.events.size() < target && attempts < 40 * target; ++attempts) {
        if (laneEvents_ >= o_.maxLaneEvents) break;
        if (!anyLive()) break;
        step();
      }
    }
    if (rng_.chance(50)) {
      std::vector<Thread> holders;
      for (auto& [t, h] : held_)
        if (!h.empty()) holders.push_back(t);
      for (const Thread& t : holders) releaseAll(t);
    }
    return std::move(trace_);
  }

 private:
  Rng rng_;
  const RandomTraceOptions& o_;
  Trace trace_;
  uint32_t blocks_ = 1, warps_ = 1, threads_ = 1;
  std::vector<std::vector<bool>> exited_;
  // Named barriers: (block, id) -> threads that arrived (bar.arrive) in the
  // current phase.
  std::map<std::pair<uint32_t, uint32_t>, std::vector<uint32_t>> arrived_;
  std::map<Thread, std::vector<Held>> held_;
  std::vector<Thread> actors_;
  uint32_t globalPercent_ = 10, bareWeight_ = 25, blockLockPercent_ = 50, stickyPercent_ = 50;
  std::optional<Thread> last_;
  bool disciplined_ = false;
  bool programs_ = false;
  bool motif_ = false;
  bool motifShared_ = false;

  // Program mode: every actor runs a small straight-line program of bare
  // accesses and (possibly nested) critical sections; a scheduler interleaves
  // them in bursts, respecting mutual exclusion. Critical sections mostly
  // touch the words their lock protects; bare accesses other words.
  struct Op {
    enum Kind { Acquire, Release, Access, Fence, Barrier } kind = Access;
    uint64_t lock = 0;
    Scope scope = Scope::Device;
    bool home = false;  // Access: the word the innermost held lock protects
    int word = -1;      // Access: g1[word] (s1[word] in shared motifs) when >= 0
    AccessType type = AccessType::Read;
    bool strong = false;
  };

  void programAccess(std::vector<Op>& ops, bool inCs) {
    Op op;
    op.home = inCs && rng_.chance(80);
    switch (rng_.pick({60, 28, 8, 4})) {
      case 0: op.type = AccessType::Read; break;
      case 1: op.type = AccessType::Write; break;
      case 2: op.type = AccessType::AtomicRmw; op.strong = true; break;
      default: op.type = rng_.chance(50) ? AccessType::Read : AccessType::Write; op.strong = true; break;
    }
    ops.push_back(op);
  }

  void programCs(std::vector<Op>& ops, std::vector<uint64_t>& open) {
    uint32_t locks = uint32_t(trace_.kernel.lockNames.size());
    std::vector<uint64_t> candidates;
    for (uint64_t l = 0; l < locks; ++l)
      if (std::find(open.begin(), open.end(), l) == open.end()) candidates.push_back(l);
    if (candidates.empty()) return programAccess(ops, true);
    Op acq;
    acq.kind = Op::Acquire;
    acq.lock = candidates[rng_.below(uint32_t(candidates.size()))];
    acq.scope = rng_.chance(blockLockPercent_) ? Scope::Block : Scope::Device;
    ops.push_back(acq);
    open.push_back(acq.lock);
    for (uint32_t n = rng_.below(3), i = 0; i < n; ++i) {
      if (open.size() < 2 && rng_.chance(30)) programCs(ops, open);
      else programAccess(ops, true);
    }
    open.pop_back();
    Op rel = acq;
    rel.kind = Op::Release;
    ops.push_back(rel);
  }

  bool canAcquire(const Thread& t, uint64_t lock, Scope scope) const {
    if (holds(t, lock)) return false;
    for (const auto& [holder, hs] : held_)
      for (const Held& h : hs)
        if (h.lock == lock && morallyStrong(scope, t.block, h.scope, holder.block)) return false;
    return true;
  }

  void runOp(const Thread& t, const Op& op) {
    uint32_t lane = t.tid % kWarpSize;
    if (op.kind == Op::Acquire) {
      AcquireEvent e;
      e.lanes = single(t);
      e.scope = op.scope;
      e.lock[lane] = op.lock;
      held_[t].push_back({op.lock, op.scope});
      return push(e, 1);
    }
    if (op.kind == Op::Release) return releaseTop(t);
    if (op.kind == Op::Fence) return fence(t);
    if (op.kind == Op::Barrier) return barrierOf(t.block);
    MemoryEvent e;
    e.lanes = single(t);
    e.type = op.type;
    e.strong = op.strong;
    e.op = op.type == AccessType::AtomicRmw ? AtomicOp::Add : AtomicOp::None;
    e.scope = op.strong ? randomScope(true) : Scope::Device;
    e.space = o_.sharedMemory && rng_.chance(20) ? MemorySpace::Shared : MemorySpace::Global;
    if (op.word >= 0) e.space = motifShared_ ? MemorySpace::Shared : MemorySpace::Global;
    bool shared = e.space == MemorySpace::Shared;
    const auto& held = held_[t];
    if (op.word >= 0)
      e.address[lane] = (shared ? kS1 : kG1) + 4ull * uint64_t(op.word);
    else if (op.home && !held.empty())
      e.address[lane] = (shared ? kS0 : kG0) + 4ull * (held.back().lock % std::max(1u, o_.scalarWords));
    else
      e.address[lane] = (shared ? kS1 : kG1) + 4ull * rng_.below(3);
    if (o_.wideAccessPercent && rng_.chance(o_.wideAccessPercent)) e.size = 8;
    push(e, 1);
  }

  std::vector<Op> randomProgram() {
    std::vector<Op> ops;
    std::vector<uint64_t> open;
    for (uint32_t items = 3 + rng_.below(4), i = 0; i < items; ++i) {
      if (rng_.chance(40)) {
        for (uint32_t n = 1 + rng_.below(2), j = 0; j < n; ++j) programAccess(ops, false);
        if (rng_.chance(30)) ops.push_back(Op{Op::Fence});
      } else {
        programCs(ops, open);
      }
    }
    return ops;
  }

  void runPrograms(uint32_t target) {
    std::vector<std::vector<Op>> programs;
    for (size_t a = 0; a < actors_.size(); ++a) programs.push_back(randomProgram());
    schedule(actors_, programs, target, false);
  }

  // Motif mode: the shapes where gwcp's rules matter (a WCP-style reordering,
  // rule (ii) through inverted nesting, through a barrier inside a critical
  // section, through a third thread), with random scopes, placements,
  // access types and interleavings.
  void runMotif(uint32_t target) {
    const uint64_t L = 0, M = 1 % locks(), K = 2 % locks();
    const int X = 0, Y = 1, H = 2;
    auto acc = [&](std::vector<Op>& ops, int word) {
      Op op;
      op.word = word;
      switch (rng_.pick({45, 40, 10, 5})) {
        case 0: op.type = AccessType::Read; break;
        case 1: op.type = AccessType::Write; break;
        case 2: op.type = AccessType::AtomicRmw; op.strong = true; break;
        default: op.type = rng_.chance(50) ? AccessType::Read : AccessType::Write; op.strong = true; break;
      }
      ops.push_back(op);
    };
    std::map<uint64_t, Scope> scopes;
    auto scopeOf = [&](uint64_t lock) {
      if (!scopes.count(lock)) scopes[lock] = rng_.chance(blockLockPercent_) ? Scope::Block : Scope::Device;
      // Now and then a lock's critical sections differ in scope.
      return rng_.chance(15) ? (rng_.chance(50) ? Scope::Block : Scope::Device) : scopes[lock];
    };
    auto acq = [&](std::vector<Op>& ops, uint64_t lock) {
      Op op;
      op.kind = Op::Acquire;
      op.lock = lock;
      op.scope = scopeOf(lock);
      ops.push_back(op);
    };
    auto rel = [&](std::vector<Op>& ops) { ops.push_back(Op{Op::Release}); };
    auto maybe = [&](std::vector<Op>& ops, int word, uint32_t percent) {
      if (rng_.chance(percent)) acc(ops, word);
    };

    // Message passing (hb rule 4): a strong write or RMW of the flag word H,
    // read by a strong read or RMW, with fences on either side or not.
    auto flag = [&](std::vector<Op>& ops, bool reads) {
      Op op;
      op.word = H;
      op.strong = true;
      uint32_t kind = rng_.pick({45, 45, 10});
      op.type = kind == 0 ? AccessType::AtomicRmw : reads ? AccessType::Read : AccessType::Write;
      if (kind == 2) op.strong = false;  // now and then a plain flag access
      ops.push_back(op);
    };
    auto fenced = [&](std::vector<Op>& ops, uint32_t percent) {
      if (rng_.chance(percent)) ops.push_back(Op{Op::Fence});
    };

    std::vector<std::vector<Op>> p(3);
    uint32_t motif = rng_.below(6);
    switch (motif) {
      case 0:  // WCP: t0: x; l{h} -- t1: l{h}; x
        acc(p[0], X), acq(p[0], L), maybe(p[0], H, 70), rel(p[0]);
        acq(p[1], L), maybe(p[1], H, 70), rel(p[1]), acc(p[1], X);
        p.pop_back();
        break;
      case 1:  // rule (ii), inverted nesting: t0: l{m{x}; y} -- t1: m{x; l{h}; y}
        acq(p[0], L), acq(p[0], M), acc(p[0], X), rel(p[0]), acc(p[0], Y), rel(p[0]);
        acq(p[1], M), acc(p[1], X), acq(p[1], L), maybe(p[1], H, 30), rel(p[1]);
        if (rng_.chance(50)) acc(p[1], Y), rel(p[1]);
        else rel(p[1]), acc(p[1], Y);
        p.pop_back();
        break;
      case 2:  // rule (ii) through a barrier: t0: l{bar; y} -- t1: l{h}; y
        acq(p[0], L), maybe(p[0], H, 30), p[0].push_back(Op{Op::Barrier}), acc(p[0], Y), rel(p[0]);
        acq(p[1], L), maybe(p[1], H, 30), rel(p[1]), acc(p[1], Y);
        p.pop_back();
        break;
      case 4:    // message passing: t0: x; F; W(h) -- [t1: F; RMW(h); F] -- t2: R(h); F'; x; [h]
      case 5: {  // the same with the data accessed before the flag is read too
        acc(p[0], X), maybe(p[0], Y, 40), fenced(p[0], 75), flag(p[0], false);
        bool chain = rng_.chance(50);
        if (chain) fenced(p[1], 50), flag(p[1], true), fenced(p[1], 30);
        if (motif == 5) maybe(p[2], X, 60);
        flag(p[2], true), fenced(p[2], 75), acc(p[2], X), maybe(p[2], Y, 40);
        if (rng_.chance(30)) flag(p[2], rng_.chance(50));
        if (!chain) std::swap(p[1], p[2]), p.pop_back();
        break;
      }
      default:  // rule (ii) through a third thread: t0: l{k{}; y} -- t2: k{}; m{x} -- t1: l{m{x}}; y
        acq(p[0], L), acq(p[0], K), rel(p[0]), acc(p[0], Y), rel(p[0]);
        acq(p[2], K), rel(p[2]), acq(p[2], M), acc(p[2], X), rel(p[2]);
        acq(p[1], L), acq(p[1], M), acc(p[1], X), rel(p[1]), rel(p[1]), acc(p[1], Y);
        std::swap(p[1], p[2]);  // intended order: t0, t2, t1
        break;
    }
    // Placement: often one block (block-scoped locks and barriers order),
    // sometimes one warp (lockset's per-warp rule).
    std::vector<Thread> threads;
    bool oneBlock = rng_.chance(50), oneWarp = oneBlock && rng_.chance(30);
    uint32_t block = rng_.below(blocks_), warp = rng_.below(warps_);
    for (size_t i = 0; i < p.size(); ++i) {
      for (int tries = 0; tries < 64; ++tries) {
        uint32_t b = oneBlock ? block : rng_.below(blocks_);
        uint32_t w = oneWarp ? warp : rng_.below(warps_);
        uint32_t lanes = lanesOf(w);
        Thread t{b, w * kWarpSize + (rng_.chance(75) ? rng_.below(std::min(lanes, 4u)) : rng_.below(lanes))};
        if (std::find(threads.begin(), threads.end(), t) == threads.end()) {
          threads.push_back(t);
          break;
        }
      }
      if (threads.size() != i + 1) return runPrograms(target);  // too few threads for the motif
    }
    motifShared_ = o_.sharedMemory && oneBlock && rng_.chance(30);
    trace_.kernel.name += " motif " + std::to_string(motif);
    // Sometimes other threads run random programs alongside.
    if (rng_.chance(30))
      for (const Thread& t : actors_)
        if (std::find(threads.begin(), threads.end(), t) == threads.end()) {
          threads.push_back(t);
          p.push_back(randomProgram());
        }
    schedule(threads, p, target, true);
  }

  uint64_t locks() const { return std::max<uint64_t>(1, trace_.kernel.lockNames.size()); }

  // Runs the programs in bursts, an acquire only when no overlapping holder
  // has the lock. `inOrder`: prefer the first unfinished program (the
  // motif's intended order), still interleaving now and then.
  void schedule(const std::vector<Thread>& threads, const std::vector<std::vector<Op>>& programs, uint32_t target,
                bool inOrder) {
    std::vector<size_t> pc(threads.size(), 0);
    auto enabled = [&](size_t a) {
      if (pc[a] >= programs[a].size() || !live(threads[a])) return false;
      const Op& op = programs[a][pc[a]];
      return op.kind != Op::Acquire || canAcquire(threads[a], op.lock, op.scope);
    };
    std::optional<size_t> current;
    while (trace_.events.size() < 2 * target && laneEvents_ < o_.maxLaneEvents) {
      if (rng_.chance(globalPercent_)) {
        switch (GlobalKind(rng_.pick(globalWeights_))) {
          case kWarpAccess: warpAccess(); break;
          case kBarrier: barrier(); break;
          case kSyncWarp: syncWarp(); break;
          case kWarpFence: warpFence(); break;
          case kExit: exit(); break;
          default: break;
        }
        continue;
      }
      // A barrier while an actor is inside a critical section (rule (ii) of
      // gwcp then orders releases around it).
      if (current && !held_[threads[*current]].empty() && rng_.chance(5)) {
        barrierOf(threads[*current].block);
        continue;
      }
      if (!current || !enabled(*current) || !rng_.chance(std::max(stickyPercent_, 50u))) {
        std::vector<size_t> ready;
        for (size_t a = 0; a < threads.size(); ++a)
          if (enabled(a)) ready.push_back(a);
        if (ready.empty()) break;  // all done, or blocked on each other's locks
        current = inOrder && rng_.chance(75) ? ready.front() : ready[rng_.below(uint32_t(ready.size()))];
      }
      runOp(threads[*current], programs[*current][pc[*current]]);
      ++pc[*current];
    }
  }
  std::vector<uint32_t> globalWeights_;
  uint32_t laneEvents_ = 0;

  bool live(const Thread& t) const { return !exited_[t.block][t.tid]; }
  bool anyLive() const {
    for (const auto& b : exited_)
      for (bool e : b)
        if (!e) return true;
    return false;
  }
  uint32_t lanesOf(uint32_t warp) const { return std::min(threads_ - warp * kWarpSize, kWarpSize); }
  LaneMask liveMask(uint32_t block, uint32_t warp) const {
    LaneMask m = 0;
    for (uint32_t lane = 0; lane < lanesOf(warp); ++lane)
      if (!exited_[block][warp * kWarpSize + lane]) m |= LaneMask(1) << lane;
    return m;
  }
  static WarpLanes single(const Thread& t) {
    return {t.block, t.tid / kWarpSize, LaneMask(1) << (t.tid % kWarpSize)};
  }
  bool affordable(uint32_t lanes) const { return laneEvents_ + lanes <= o_.maxLaneEvents; }

  template <typename E>
  void push(E event, uint32_t lanes) {
    uint64_t index = trace_.events.size();
    event.origin.seq = index;
    event.origin.pc = index + 1;
    trace_.events.push_back(std::move(event));
    laneEvents_ += lanes;
  }

  std::optional<Thread> pickLiveThread() {
    std::vector<Thread> liveActors;
    for (const Thread& t : actors_)
      if (live(t)) liveActors.push_back(t);
    if (!liveActors.empty() && rng_.chance(80)) return liveActors[rng_.below(uint32_t(liveActors.size()))];
    for (int tries = 0; tries < 64; ++tries) {
      Thread t{rng_.below(blocks_), rng_.below(threads_)};
      if (live(t)) return t;
    }
    return std::nullopt;
  }

  // A warp with live lanes and a non-empty mask of them.
  std::optional<WarpLanes> pickWarpLanes(uint32_t fullPercent) {
    for (int tries = 0; tries < 16; ++tries) {
      uint32_t block = rng_.below(blocks_), warp = rng_.below(warps_);
      LaneMask liveLanes = liveMask(block, warp);
      if (!liveLanes) continue;
      LaneMask mask = liveLanes;
      if (!rng_.chance(fullPercent)) {
        // A random subset, biased to small ones sometimes.
        mask = liveLanes & LaneMask(rng_.next());
        if (rng_.chance(40)) mask &= LaneMask(rng_.next());
        if (!mask) mask = liveLanes & (~liveLanes + 1);  // lowest live lane
      }
      return WarpLanes{block, warp, mask};
    }
    return std::nullopt;
  }

  Scope randomScope(bool allowSystem) {
    uint32_t x = rng_.below(100);
    if (allowSystem && o_.systemScope && x < 10) return Scope::System;
    return x < 55 ? Scope::Block : Scope::Device;
  }

  // Type, strength and scope of an access; `uniformWarp` lowers plain writes.
  void randomAccessKind(MemoryEvent& e, bool uniformWarp) {
    std::vector<uint32_t> w{35, uniformWarp ? 8u : 30u, 8, 8, 19};
    if (disciplined_) w = {45, uniformWarp ? 8u : 40u, 3, 3, 9};
    switch (rng_.pick(w)) {
      case 0: e.type = AccessType::Read; break;
      case 1: e.type = AccessType::Write; break;
      case 2: e.type = AccessType::Read; e.strong = true; break;
      case 3: e.type = AccessType::Write; e.strong = true; break;
      default:
        e.type = AccessType::AtomicRmw;
        e.strong = true;
        e.op = rng_.chance(50) ? AtomicOp::Add : AtomicOp::Exch;
        break;
    }
    e.scope = e.strong ? randomScope(true) : Scope::Device;
    if (o_.wideAccessPercent && rng_.chance(o_.wideAccessPercent)) e.size = 8;
  }

  // Either a warp or block acts, or one thread does what its state allows:
  // inside critical sections mostly accesses and releases, outside them
  // acquires and (per the trace's character) bare accesses.
  void step() {
    if (rng_.chance(globalPercent_)) {
      switch (GlobalKind(rng_.pick(globalWeights_))) {
        case kWarpAccess: return warpAccess();
        case kBarrier: return barrier();
        case kSyncWarp: return syncWarp();
        case kWarpFence: return warpFence();
        case kExit: return exit();
        default: return;
      }
    }
    // Threads run in bursts (of a profile-dependent length), as schedulers do.
    std::optional<Thread> t;
    if (last_ && live(*last_) && rng_.chance(stickyPercent_)) t = last_;
    else t = pickLiveThread();
    if (!t) return;
    last_ = t;
    bool holding = !held_[*t].empty();
    std::vector<uint32_t> w = holding ? std::vector<uint32_t>{60, 8, 25, 4} : std::vector<uint32_t>{bareWeight_, 45, 0, 8};
    switch (rng_.pick(w)) {
      case 0: return access(*t);
      case 1: return acquire(*t);
      case 2: return releaseTop(*t);
      default: return fence(*t);
    }
  }

  void access(const Thread& thread) {
    const Thread* t = &thread;
    if (!affordable(1)) return;
    MemoryEvent e;
    e.lanes = single(*t);
    e.space = o_.sharedMemory && rng_.chance(20) ? MemorySpace::Shared : MemorySpace::Global;
    bool shared = e.space == MemorySpace::Shared;
    uint32_t lane = t->tid % kWarpSize;
    uint32_t scalarWords = std::max(1u, o_.scalarWords);
    const auto& held = held_[*t];
    if (disciplined_) {
      // Lock discipline: inside critical sections mostly the words the
      // innermost lock protects (g0/s0), outside them other words (g1/s1).
      if (!held.empty() && rng_.chance(85))
        e.address[lane] = (shared ? kS0 : kG0) + 4ull * (held.back().lock % scalarWords);
      else
        e.address[lane] = (shared ? kS1 : kG1) + 4ull * rng_.below(3);
    } else if (!held.empty() && rng_.chance(35)) {
      e.address[lane] = (shared ? kS0 : kG0) + 4ull * (held.back().lock % scalarWords);
    } else if (rng_.chance(70)) {
      e.address[lane] = (shared ? kS0 : kG0) + 4ull * rng_.below(scalarWords);
    } else {
      e.address[lane] = (shared ? kS1 : kG1) + 4ull * (lane + rng_.below(4));
    }
    randomAccessKind(e, false);
    push(e, 1);
  }

  void warpAccess() {
    auto lanes = pickWarpLanes(50);
    if (!lanes || !affordable(uint32_t(std::popcount(lanes->mask)))) return;
    MemoryEvent e;
    e.lanes = *lanes;
    e.space = o_.sharedMemory && rng_.chance(30) ? MemorySpace::Shared : MemorySpace::Global;
    bool shared = e.space == MemorySpace::Shared;
    bool uniform = rng_.chance(35);
    uint64_t word = 0;
    int64_t k = 0;
    if (uniform) {
      word = rng_.chance(60) ? (shared ? kS0 : kG0) + 4ull * rng_.below(std::max(1u, o_.scalarWords))
                             : (shared ? kS1 : kG1) + 4ull * rng_.below(8);
    } else {
      k = int64_t(rng_.below(4));
      if (!(lanes->mask & 1) && rng_.chance(25)) k = -1;  // name[lane-1]
    }
    for (uint32_t lane = 0; lane < kWarpSize; ++lane)
      if (lanes->mask & (LaneMask(1) << lane))
        e.address[lane] = uniform ? word : (shared ? kS1 : kG1) + uint64_t(4 * (int64_t(lane) + k));
    randomAccessKind(e, uniform);
    push(e, uint32_t(std::popcount(lanes->mask)));
  }

  bool holds(const Thread& t, uint64_t lock) const {
    auto it = held_.find(t);
    if (it == held_.end()) return false;
    return std::any_of(it->second.begin(), it->second.end(), [&](const Held& h) { return h.lock == lock; });
  }

  void acquire(const Thread& thread) {
    const Thread* t = &thread;
    if (!affordable(1)) return;
    if (held_[*t].size() >= 3) return;
    uint32_t locks = uint32_t(trace_.kernel.lockNames.size());
    uint64_t first = rng_.below(locks);
    for (uint32_t i = 0; i < locks; ++i) {
      uint64_t lock = (first + i) % locks;
      if (holds(*t, lock)) continue;
      Scope scope = rng_.chance(blockLockPercent_) ? Scope::Block : Scope::Device;
      // Mutual exclusion between overlapping holders.
      bool free = true;
      for (const auto& [holder, hs] : held_)
        for (const Held& h : hs)
          if (h.lock == lock && morallyStrong(scope, t->block, h.scope, holder.block)) free = false;
      if (!free) continue;
      AcquireEvent e;
      e.lanes = single(*t);
      e.scope = scope;
      e.lock[t->tid % kWarpSize] = lock;
      held_[*t].push_back({lock, scope});
      push(e, 1);
      return;
    }
  }

  void releaseTop(const Thread& t) {
    auto& hs = held_[t];
    if (hs.empty()) return;
    Held h = hs.back();
    hs.pop_back();
    ReleaseEvent e;
    e.lanes = single(t);
    e.scope = h.scope;
    e.lock[t.tid % kWarpSize] = h.lock;
    push(e, 1);
  }

  void releaseAll(const Thread& t) {
    while (!held_[t].empty()) releaseTop(t);
  }

  void fence(const Thread& t) {
    if (!affordable(1)) return;
    FenceEvent e;
    e.lanes = single(t);
    e.scope = randomScope(true);
    push(e, 1);
  }

  void warpFence() {
    auto lanes = pickWarpLanes(60);
    if (!lanes) return;
    uint32_t n = uint32_t(std::popcount(lanes->mask));
    if (!affordable(n)) return;
    FenceEvent e;
    e.lanes = *lanes;
    e.scope = randomScope(true);
    push(e, n);
  }

  void barrier() { barrierOf(rng_.below(blocks_)); }

  void barrierOf(uint32_t block) {
    if (o_.namedBarrierPercent && rng_.chance(o_.namedBarrierPercent)) return namedBarrierOf(block);
    BarrierEvent e;
    e.block = block;
    for (uint32_t tid = 0; tid < threads_; ++tid)
      if (!exited_[block][tid]) e.threads.push_back(tid);
    if (e.threads.empty() || !affordable(uint32_t(e.threads.size()))) return;
    uint32_t n = uint32_t(e.threads.size());
    push(e, n);
  }

  // Named barrier 0 or 1 of `block`: some live threads arrive (bar.arrive)
  // and go on, or the barrier completes with some waiters, listing every
  // thread that arrived in the phase.
  void namedBarrierOf(uint32_t block) {
    BarrierEvent e;
    e.block = block;
    e.id = rng_.chance(80) ? 0 : 1;
    std::vector<uint32_t>& arrived = arrived_[{block, e.id}];
    e.complete = rng_.chance(50);
    // Mostly the actors, whose single-lane accesses meet on words.
    for (uint32_t tid = 0; tid < threads_; ++tid) {
      if (exited_[block][tid] || std::find(arrived.begin(), arrived.end(), tid) != arrived.end()) continue;
      bool actor = std::find(actors_.begin(), actors_.end(), Thread{block, tid}) != actors_.end();
      if (rng_.chance(actor ? 70 : 10)) (e.complete ? e.threads : e.arrivers).push_back(tid);
    }
    if (e.complete) {
      for (uint32_t tid : arrived)
        if (!exited_[block][tid]) e.arrivers.push_back(tid);
      std::sort(e.arrivers.begin(), e.arrivers.end());
    }
    uint32_t n = uint32_t(e.threads.size() + e.arrivers.size());
    if ((!e.complete && e.arrivers.empty()) || !affordable(n)) return;
    if (e.complete) arrived.clear();
    else arrived.insert(arrived.end(), e.arrivers.begin(), e.arrivers.end());
    push(e, n);
  }

  void syncWarp() {
    auto lanes = pickWarpLanes(60);
    if (!lanes || !affordable(uint32_t(std::popcount(lanes->mask)))) return;
    SyncWarpEvent e;
    e.lanes = *lanes;
    push(e, uint32_t(std::popcount(lanes->mask)));
  }

  void exit() {
    ExitEvent e;
    if (rng_.chance(70)) {
      auto t = pickLiveThread();
      if (!t) return;
      e.lanes = single(*t);
    } else {
      auto lanes = pickWarpLanes(30);
      if (!lanes) return;
      e.lanes = *lanes;
    }
    // Every lock a thread holds is released before it exits.
    for (uint32_t lane = 0; lane < kWarpSize; ++lane)
      if (e.lanes.mask & (LaneMask(1) << lane)) releaseAll({e.lanes.block, e.lanes.warp * kWarpSize + lane});
    uint32_t n = uint32_t(std::popcount(e.lanes.mask));
    push(e, n);
    for (uint32_t lane = 0; lane < kWarpSize; ++lane)
      if (e.lanes.mask & (LaneMask(1) << lane)) exited_[e.lanes.block][e.lanes.warp * kWarpSize + lane] = true;
  }
};

}  // namespace

Trace randomTrace(uint64_t seed, const RandomTraceOptions& options) { return Generator(seed, options).run(); }

}  // namespace predatar::testsupport
