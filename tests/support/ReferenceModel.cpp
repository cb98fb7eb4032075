#include "ReferenceModel.h"

#include <algorithm>
#include <map>
#include <optional>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <variant>

namespace predatar::reference {
namespace {

// ---------------------------------------------------------------------------
// Small helpers shared by the three models.

struct ThreadId {
  uint32_t block = 0;
  uint32_t tid = 0;  // index in the block
  auto operator<=>(const ThreadId&) const = default;
  uint32_t warp() const { return tid / kWarpSize; }
};

ThreadId laneThread(const WarpLanes& lanes, uint32_t lane) {
  return {lanes.block, lanes.warp * kWarpSize + lane};
}

template <typename F>
void forEachLane(LaneMask mask, F&& f) {
  for (uint32_t lane = 0; lane < kWarpSize; ++lane)
    if (mask & (LaneMask(1) << lane)) f(lane);
}

// The 4-byte words a lane's access of `size` bytes at `address` touches.
std::vector<LocationKey> wordsOf(MemorySpace space, uint32_t block, uint64_t address, uint8_t size) {
  std::vector<LocationKey> words;
  uint32_t sharedBlock = space == MemorySpace::Shared ? block : 0;
  uint64_t last = (address + (size == 0 ? 1 : size) - 1) / 4 * 4;
  for (uint64_t w = address / 4 * 4; w <= last; w += 4) words.push_back({space, sharedBlock, w});
  return words;
}

// Volatile accesses are plain (race-semantics.md, the default of --volatile).
bool isStrong(const MemoryEvent& e) { return (e.strong && !e.isVolatile) || e.type == AccessType::AtomicRmw; }

// One lane's access, with what the conflict test needs.
struct AccessInfo {
  ThreadId thread;
  AccessType type = AccessType::Read;
  bool strong = false;
  Scope scope = Scope::Device;
  std::vector<LocationKey> words;
  bool lockLane = false;  // a CAS/Exch lock inference may take for a lock operation
  bool writes() const { return type != AccessType::Read; }
  bool strongRead() const { return strong && type != AccessType::Write; }
  bool strongWrite() const { return strong && type != AccessType::Read; }
  // Extends an RMW chain (race-semantics.md, hb rule 4).
  bool chainRmw() const { return strong && type == AccessType::AtomicRmw && !lockLane; }
};

bool touchesCommonWord(const AccessInfo& a, const AccessInfo& b) {
  for (const auto& w : a.words)
    if (std::find(b.words.begin(), b.words.end(), w) != b.words.end()) return true;
  return false;
}

// race-semantics.md, "Conflicts", for two accesses known to share a word.
bool conflictOnCommonWord(const AccessInfo& a, const AccessInfo& b) {
  if (a.thread == b.thread) return false;
  if (!a.writes() && !b.writes()) return false;
  if (a.strong && b.strong && morallyStrong(a.scope, a.thread.block, b.scope, b.thread.block))
    return false;
  return true;
}

bool conflict(const AccessInfo& a, const AccessInfo& b) {
  return touchesCommonWord(a, b) && conflictOnCommonWord(a, b);
}

void addWitness(DetectorResult& result, const LocationKey& loc, uint64_t pos1, ThreadId t1,
                uint64_t pos2, ThreadId t2) {
  if (!result.locations.insert(loc).second) return;
  result.witnesses.push_back({loc, pos1, pos2, t1.block, t1.tid, t2.block, t2.tid});
}

// ---------------------------------------------------------------------------
// Dense bit matrix (rows are bitsets over the same n nodes).

class BitMatrix {
 public:
  explicit BitMatrix(size_t n = 0) : n_(n), words_((n + 63) / 64), data_(n_ * words_, 0) {}
  bool get(size_t i, size_t j) const { return (row(i)[j / 64] >> (j % 64)) & 1; }
  void set(size_t i, size_t j) { row(i)[j / 64] |= uint64_t(1) << (j % 64); }
  uint64_t* row(size_t i) { return data_.data() + i * words_; }
  const uint64_t* row(size_t i) const { return data_.data() + i * words_; }
  size_t words() const { return words_; }
  size_t size() const { return n_; }
  // row(dst) |= src; returns whether row(dst) changed.
  bool orInto(size_t dst, const uint64_t* src) {
    uint64_t* d = row(dst);
    bool changed = false;
    for (size_t k = 0; k < words_; ++k) {
      uint64_t v = d[k] | src[k];
      changed |= v != d[k];
      d[k] = v;
    }
    return changed;
  }
  template <typename F>
  void forEachInRow(size_t i, F&& f) const {
    const uint64_t* r = row(i);
    for (size_t k = 0; k < words_; ++k)
      for (uint64_t bits = r[k]; bits; bits &= bits - 1)
        f(k * 64 + size_t(__builtin_ctzll(bits)));
  }
  bool operator==(const BitMatrix& o) const { return data_ == o.data_; }

 private:
  size_t n_, words_;
  std::vector<uint64_t> data_;
};

// ---------------------------------------------------------------------------
// The per-thread event graph for hb and gwcp.

enum class Kind { Access, Acquire, Release, Fence, Barrier, Exit, BarrierHub };

struct Node {
  Kind kind = Kind::Access;
  uint64_t pos = 0;  // trace position (index in Trace::events)
  ThreadId thread;   // unused for BarrierHub
  AccessInfo access; // Access
  uint64_t lock = 0; // Acquire / Release
  Scope scope = Scope::Device;  // Acquire / Release / Fence
  int acquire = -1;  // Release: the matching acquire node (-1: none)
  // Access: the locks its thread holds at it, as (lock, acquire node).
  std::vector<std::pair<uint64_t, int>> held;
};

struct Sync {  // a barrier or a syncwarp
  uint64_t pos = 0;
  std::vector<ThreadId> participants;
  std::vector<int> nodes;         // participants' barrier nodes
  std::vector<int> arrivalNodes;  // bar.arrive's arrivals at it, earlier in the trace
  int hub = -1;
};

class Graph {
 public:
  explicit Graph(const Trace& trace) {
    build(trace);
    computeCriticalSections();
    computeHb();
  }

  DetectorResult hbRaces() const {
    return races([&](int a, int b) { return reach_.get(size_t(a), size_t(b)); });
  }

  DetectorResult gwcpRaces() const {
    BitMatrix r = gwcpRelation();
    // <=GWCP is <GWCP united with TO; racing pairs are by different threads,
    // so only <GWCP matters.
    return races([&](int a, int b) { return r.get(size_t(a), size_t(b)); });
  }

 private:
  std::vector<Node> nodes_;
  std::map<ThreadId, std::vector<int>> threadNodes_;  // in thread (= trace) order
  std::vector<Sync> syncs_;
  std::vector<std::vector<int>> succ_;  // generators of <=HB (edges go to higher ids)
  BitMatrix reach_;                     // reflexive-transitive closure: <=HB
  std::vector<int> releases_, accesses_;
  std::vector<std::pair<int, int>> messages_;  // fence F -> fence F' of hb rule 4
  std::vector<std::vector<int>> csNodes_;  // per node: CS(r) for releases
  BitMatrix csBits_;                       // row r: CS(r) as a bitset (releases only)

  int add(Node n) {
    nodes_.push_back(std::move(n));
    int id = int(nodes_.size() - 1);
    if (nodes_.back().kind != Kind::BarrierHub) threadNodes_[nodes_.back().thread].push_back(id);
    return id;
  }

  // A thread's participation in a barrier (or its arrival at one).
  int addBarrierNode(uint64_t pos, const ThreadId& thread) {
    Node n;
    n.kind = Kind::Barrier;
    n.pos = pos;
    n.thread = thread;
    return add(std::move(n));
  }

  void build(const Trace& trace) {
    std::set<ThreadId> exited;
    std::map<std::pair<uint32_t, uint32_t>, std::vector<int>> arrivals;  // (block, barrier id) -> arrival nodes
    for (uint64_t pos = 0; pos < trace.events.size(); ++pos) {
      std::visit(
          [&](const auto& e) {
            using T = std::decay_t<decltype(e)>;
            if constexpr (std::is_same_v<T, MemoryEvent>) {
              forEachLane(e.lanes.mask, [&](uint32_t lane) {
                Node n;
                n.kind = Kind::Access;
                n.pos = pos;
                n.thread = laneThread(e.lanes, lane);
                n.access = {n.thread, e.type, isStrong(e), e.scope,
                            wordsOf(e.space, e.lanes.block, e.address[lane], e.size),
                            ((e.lockLanes >> lane) & 1) != 0};
                add(std::move(n));
              });
            } else if constexpr (std::is_same_v<T, AcquireEvent> || std::is_same_v<T, ReleaseEvent>) {
              forEachLane(e.lanes.mask, [&](uint32_t lane) {
                Node n;
                n.kind = std::is_same_v<T, AcquireEvent> ? Kind::Acquire : Kind::Release;
                n.pos = pos;
                n.thread = laneThread(e.lanes, lane);
                n.lock = e.lock[lane];
                n.scope = e.scope;
                add(std::move(n));
              });
            } else if constexpr (std::is_same_v<T, FenceEvent>) {
              forEachLane(e.lanes.mask, [&](uint32_t lane) {
                Node n;
                n.kind = Kind::Fence;
                n.pos = pos;
                n.thread = laneThread(e.lanes, lane);
                n.scope = e.scope;
                add(std::move(n));
              });
            } else if constexpr (std::is_same_v<T, ExitEvent>) {
              forEachLane(e.lanes.mask, [&](uint32_t lane) {
                Node n;
                n.kind = Kind::Exit;
                n.pos = pos;
                n.thread = laneThread(e.lanes, lane);
                add(std::move(n));
              });
            } else {
              // BarrierEvent or SyncWarpEvent: exited threads take part in no
              // later barrier (litmus-format.md, `exit`).
              if constexpr (std::is_same_v<T, BarrierEvent>) {
                if (!e.complete) {  // bar.arrive: a node where each arriver arrives
                  for (uint32_t tid : e.arrivers)
                    if (!exited.count({e.block, tid}))
                      arrivals[{e.block, e.id}].push_back(addBarrierNode(pos, {e.block, tid}));
                  return;
                }
              }
              Sync sync;
              sync.pos = pos;
              if constexpr (std::is_same_v<T, BarrierEvent>) {
                for (uint32_t tid : e.threads) sync.participants.push_back({e.block, tid});
                if (auto a = arrivals.find({e.block, e.id}); a != arrivals.end()) {
                  sync.arrivalNodes = std::move(a->second);
                  arrivals.erase(a);
                }
              } else {
                forEachLane(e.lanes.mask,
                            [&](uint32_t lane) { sync.participants.push_back(laneThread(e.lanes, lane)); });
              }
              std::sort(sync.participants.begin(), sync.participants.end());
              sync.participants.erase(std::unique(sync.participants.begin(), sync.participants.end()),
                                      sync.participants.end());
              std::erase_if(sync.participants, [&](const ThreadId& t) { return exited.count(t) != 0; });
              Node hub;  // before the participations: edges go to higher ids
              hub.kind = Kind::BarrierHub;
              hub.pos = pos;
              sync.hub = add(std::move(hub));
              for (const ThreadId& t : sync.participants) sync.nodes.push_back(addBarrierNode(pos, t));
              syncs_.push_back(std::move(sync));
            }
            if constexpr (std::is_same_v<T, ExitEvent>) {
              forEachLane(e.lanes.mask, [&](uint32_t lane) { exited.insert(laneThread(e.lanes, lane)); });
            }
          },
          trace.events[pos]);
    }
    for (int id = 0; id < int(nodes_.size()); ++id) {
      if (nodes_[size_t(id)].kind == Kind::Release) releases_.push_back(id);
      if (nodes_[size_t(id)].kind == Kind::Access) accesses_.push_back(id);
    }
  }

  // Matching acquires, critical sections, and the locks held at each access.
  void computeCriticalSections() {
    csNodes_.assign(nodes_.size(), {});
    csBits_ = BitMatrix(nodes_.size());
    for (auto& [thread, ids] : threadNodes_) {
      std::vector<std::pair<uint64_t, int>> held;  // (lock, acquire node), innermost last
      for (size_t k = 0; k < ids.size(); ++k) {
        int id = ids[k];
        Node& n = nodes_[size_t(id)];
        if (n.kind == Kind::Acquire) {
          held.push_back({n.lock, id});
        } else if (n.kind == Kind::Release) {
          // Well nested: the matching acquire is the innermost open one of
          // this lock (searching outwards tolerates a non-nested release).
          auto it = std::find_if(held.rbegin(), held.rend(),
                                 [&](const auto& h) { return h.first == n.lock; });
          if (it != held.rend()) {
            n.acquire = it->second;
            held.erase(std::next(it).base());
          }
          // CS(r): the thread's events from the matching acquire to r, both
          // included; a release without acquire is a critical section of itself.
          for (size_t j = 0; j <= k; ++j) {
            int other = ids[j];
            if (n.acquire >= 0 && other < n.acquire) continue;
            if (n.acquire < 0 && other != id) continue;
            csNodes_[size_t(id)].push_back(other);
            csBits_.set(size_t(id), size_t(other));
          }
        } else if (n.kind == Kind::Access) {
          n.held = held;
        }
      }
    }
  }

  const Node& node(int id) const { return nodes_[size_t(id)]; }

  void computeHb() {
    succ_.assign(nodes_.size(), {});
    // 1. thread order
    for (const auto& [thread, ids] : threadNodes_)
      for (size_t k = 0; k + 1 < ids.size(); ++k) succ_[size_t(ids[k])].push_back(ids[k + 1]);
    // 2. barriers and syncwarps: every event of a participant before the
    // barrier -> every event of a participant after it, through a hub node
    // (from each participant's last event before, to its participation).
    // A participation counts as "after" the barrier (it is where the thread
    // waits), so that a thread idle between two barriers carries what it
    // learned at the first to the second, as in PTX (arrive/wait) and the
    // paper's SYNC (the joined clock becomes every participant's clock).
    for (const Sync& s : syncs_) {
      for (int b : s.nodes) {
        const auto& ids = threadNodes_.at(node(b).thread);
        auto at = std::find(ids.begin(), ids.end(), b);
        if (at != ids.begin()) succ_[size_t(*std::prev(at))].push_back(s.hub);
        succ_[size_t(s.hub)].push_back(b);
      }
      // An arrival (bar.arrive, earlier in the trace) is a release: it and
      // its thread's events before it precede the waiters' events after.
      for (int a : s.arrivalNodes) succ_[size_t(a)].push_back(s.hub);
    }
    // 3. rel(l) before (in trace order) an overlapping acq(l)
    for (int r : releases_)
      for (int a = 0; a < int(nodes_.size()); ++a) {
        const Node& acq = node(a);
        if (acq.kind != Kind::Acquire || acq.lock != node(r).lock) continue;
        if (node(r).pos >= acq.pos) continue;
        if (!morallyStrong(node(r).scope, node(r).thread.block, acq.scope, acq.thread.block)) continue;
        succ_[size_t(r)].push_back(a);
      }
    // 4. message passing
    computeMessagePassing();
    for (auto [f, f2] : messages_) succ_[size_t(f)].push_back(f2);
    // Reflexive-transitive closure; every edge goes to a higher id.
    reach_ = BitMatrix(nodes_.size());
    for (int i = int(nodes_.size()) - 1; i >= 0; --i) {
      reach_.set(size_t(i), size_t(i));
      for (int s : succ_[size_t(i)]) {
        if (s <= i) throw std::logic_error("reference: HB edge against node order");
        reach_.orInto(size_t(i), reach_.row(size_t(s)));
      }
    }
  }

  // The words' accesses in trace order.
  std::map<LocationKey, std::vector<int>> accessesByWord() const {
    std::map<LocationKey, std::vector<int>> byWord;
    for (int id : accesses_)
      for (const LocationKey& w : node(id).access.words) byWord[w].push_back(id);
    return byWord;
  }

  // The last fence of `thread` before `pos` (after, when `after`) whose scope
  // covers `other`, or -1.
  int coveringFence(const ThreadId& thread, uint64_t pos, bool after, const ThreadId& other) const {
    const auto& ids = threadNodes_.at(thread);
    int found = -1;
    for (int id : ids) {
      const Node& f = node(id);
      if (f.kind != Kind::Fence || !coversThread(f.scope, thread.block, other.block)) continue;
      if (!after && f.pos < pos) found = id;
      if (after && f.pos > pos) return id;
    }
    return found;
  }

  // Hb rule 4: every strong read or RMW R (no lock operation) and every
  // strong write or RMW W it reads from: the last writes of the word before R,
  // or earlier ones heading an RMW chain that reaches R (writes of one trace
  // position are all "last"; a plain, non-RMW or lock-operation write ends a
  // chain). W by another thread, morally strong with R, a fence before W
  // covering R's thread and one after R covering W's thread: F -> F'.
  void computeMessagePassing() {
    for (const auto& [word, ids] : accessesByWord()) {
      for (size_t k = 0; k < ids.size(); ++k) {
        const Node& r = node(ids[k]);
        if (!r.access.strongRead() || r.access.lockLane) continue;
        size_t j = k;
        while (j > 0 && node(ids[j - 1]).pos == r.pos) --j;  // lanes of R's event are not before it
        while (j > 0) {
          uint64_t pos = node(ids[j - 1]).pos;
          bool chainGoesOn = true, anyWrite = false;
          for (; j > 0 && node(ids[j - 1]).pos == pos; --j) {
            const Node& w = node(ids[j - 1]);
            if (!w.access.writes()) continue;
            anyWrite = true;
            if (!w.access.chainRmw()) chainGoesOn = false;
            if (!w.access.strongWrite() || w.access.lockLane || w.thread == r.thread) continue;
            if (!morallyStrong(w.access.scope, w.thread.block, r.access.scope, r.thread.block)) continue;
            int f = coveringFence(w.thread, w.pos, false, r.thread);
            int f2 = coveringFence(r.thread, r.pos, true, w.thread);
            if (f >= 0 && f2 >= 0) messages_.push_back({f, f2});
          }
          if (anyWrite && !chainGoesOn) break;
        }
      }
    }
  }

  // Same-location observation: the strong write `w` does not race with `a`
  // when a's thread made, after w and at or before a, a strong read or RMW of
  // the word morally strong with w.
  bool observed(const LocationKey& word, int w, int a) const {
    const Node& wn = node(w);
    const Node& an = node(a);
    if (!wn.access.strongWrite()) return false;
    for (int id : threadNodes_.at(an.thread)) {
      const Node& r = node(id);
      if (r.kind != Kind::Access || r.pos <= wn.pos || r.pos > an.pos || !r.access.strongRead()) continue;
      if (std::find(r.access.words.begin(), r.access.words.end(), word) == r.access.words.end()) continue;
      if (morallyStrong(wn.access.scope, wn.thread.block, r.access.scope, r.thread.block)) return true;
    }
    return false;
  }

  // <GWCP: the least relation closed under rules (i)-(iv).
  BitMatrix gwcpRelation() const {
    const size_t n = nodes_.size();
    BitMatrix r(n);

    // Rule (i): release r of l, read/write e in a critical section on l with
    // r <tr e; CS(r) has an event conflicting with e; r and the acquire of
    // e's critical section overlap.
    for (int rel : releases_) {
      const Node& rn = node(rel);
      for (int e : accesses_) {
        const Node& en = node(e);
        if (en.pos <= rn.pos) continue;
        bool inOverlappingCs = false;
        for (const auto& [lock, acq] : en.held)
          if (lock == rn.lock &&
              morallyStrong(rn.scope, rn.thread.block, node(acq).scope, node(acq).thread.block))
            inOverlappingCs = true;
        if (!inOverlappingCs) continue;
        bool conflicting = false;
        for (int c : csNodes_[size_t(rel)])
          if (node(c).kind == Kind::Access && conflict(node(c).access, en.access)) conflicting = true;
        if (conflicting) r.set(size_t(rel), size_t(e));
      }
    }

    // Rule (iii): barriers, as hb item 2 (participants' events before ->
    // participants' events after, the participations themselves counting as
    // after; same thread included).
    for (const Sync& s : syncs_) {
      std::vector<uint64_t> after(r.words(), 0);
      std::vector<int> before;
      for (int b : s.nodes)
        for (int id : threadNodes_.at(node(b).thread)) {
          if (node(id).pos < s.pos) before.push_back(id);
          else after[size_t(id) / 64] |= uint64_t(1) << (size_t(id) % 64);
        }
      // Arrivers: their events up to the arrival precede (a release).
      for (int a : s.arrivalNodes)
        for (int id : threadNodes_.at(node(a).thread))
          if (id <= a) before.push_back(id);
      for (int id : before) r.orInto(size_t(id), after.data());
    }
    // Rule (iii): message passing, F <GWCP F'.
    for (auto [f, f2] : messages_) r.set(size_t(f), size_t(f2));

    // Fixpoint of rules (iv) and (ii).
    for (;;) {
      // Rule (iv): r := <=HB ; r ; <=HB (one step suffices, <=HB is
      // reflexive and transitive). First r;HB row by row, then HB;(r;HB)
      // backwards over the HB generators (reach(x) = {x} + reach(succ(x))).
      BitMatrix rh(n);
      for (size_t y = 0; y < n; ++y) r.forEachInRow(y, [&](size_t z) { rh.orInto(y, reach_.row(z)); });
      for (int x = int(n) - 1; x >= 0; --x)
        for (int s : succ_[size_t(x)]) rh.orInto(size_t(x), rh.row(size_t(s)));
      r = std::move(rh);

      // Rule (ii): releases r1 <tr r2 of l that overlap, with e1 in CS(r1),
      // e2 in CS(r2), e1 <GWCP e2  =>  r1 <GWCP r2.
      bool changed = false;
      for (int r1 : releases_)
        for (int r2 : releases_) {
          const Node& a = node(r1);
          const Node& b = node(r2);
          if (a.lock != b.lock || a.pos >= b.pos || r.get(size_t(r1), size_t(r2))) continue;
          if (!morallyStrong(a.scope, a.thread.block, b.scope, b.thread.block)) continue;
          bool ordered = false;
          for (int e1 : csNodes_[size_t(r1)]) {
            const uint64_t* row = r.row(size_t(e1));
            const uint64_t* cs = csBits_.row(size_t(r2));
            for (size_t k = 0; k < r.words() && !ordered; ++k) ordered = (row[k] & cs[k]) != 0;
            if (ordered) break;
          }
          if (ordered) {
            r.set(size_t(r1), size_t(r2));
            changed = true;
          }
        }
      if (!changed) return r;
    }
  }

  // Conflicting pairs e1 <tr e2 with not ordered(e1, e2), and conflicting
  // lanes of one warp event (same position, unordered with each other).
  template <typename Ordered>
  DetectorResult races(Ordered&& ordered) const {
    DetectorResult result;
    for (const auto& [word, ids] : accessesByWord()) {
      for (size_t i = 0; i < ids.size() && !result.locations.count(word); ++i)
        for (size_t j = i + 1; j < ids.size(); ++j) {
          const Node& a = node(ids[i]);
          const Node& b = node(ids[j]);
          if (!conflictOnCommonWord(a.access, b.access)) continue;
          if (a.pos == b.pos || (!ordered(ids[i], ids[j]) && !observed(word, ids[i], ids[j]))) {
            addWitness(result, word, a.pos, a.thread, b.pos, b.thread);
            break;
          }
        }
    }
    return result;
  }
};

// ---------------------------------------------------------------------------
// lockset (ScoRD), operationally.

struct HeldLock {
  uint64_t lock;
  Scope scope;
};

struct LocksetAccess {
  AccessInfo access;
  uint64_t pos = 0;
  std::vector<HeldLock> locks;
};

struct LocationState {
  std::vector<LocksetAccess> lastWrite;  // the lanes of the last writing event that wrote this word
  std::vector<LocksetAccess> reads;      // reads since
};

class Lockset {
 public:
  explicit Lockset(const Trace& trace) : trace_(trace) {}

  DetectorResult run() {
    for (uint64_t pos = 0; pos < trace_.events.size(); ++pos) {
      std::visit(
          [&](const auto& e) {
            using T = std::decay_t<decltype(e)>;
            if constexpr (std::is_same_v<T, MemoryEvent>) {
              memory(pos, e);
            } else if constexpr (std::is_same_v<T, AcquireEvent>) {
              forEachLane(e.lanes.mask, [&](uint32_t lane) {
                held_[laneThread(e.lanes, lane)].push_back({e.lock[lane], e.scope});
              });
            } else if constexpr (std::is_same_v<T, ReleaseEvent>) {
              forEachLane(e.lanes.mask, [&](uint32_t lane) {
                auto& h = held_[laneThread(e.lanes, lane)];
                auto it = std::find_if(h.rbegin(), h.rend(),
                                       [&](const HeldLock& l) { return l.lock == e.lock[lane]; });
                if (it != h.rend()) h.erase(std::next(it).base());
              });
            } else if constexpr (std::is_same_v<T, FenceEvent>) {
              forEachLane(e.lanes.mask, [&](uint32_t lane) {
                fences_[laneThread(e.lanes, lane)].push_back({pos, e.scope});
              });
            } else if constexpr (std::is_same_v<T, ExitEvent>) {
              forEachLane(e.lanes.mask, [&](uint32_t lane) { exited_.insert(laneThread(e.lanes, lane)); });
            } else {
              std::set<ThreadId> participants;
              if constexpr (std::is_same_v<T, BarrierEvent>) {
                if (!e.complete) return;  // the completion lists every arriver
                for (uint32_t tid : e.threads) participants.insert({e.block, tid});
                // ScoRD: an arriver (bar.arrive) took part in the barrier.
                for (uint32_t tid : e.arrivers) participants.insert({e.block, tid});
              } else {
                forEachLane(e.lanes.mask, [&](uint32_t lane) { participants.insert(laneThread(e.lanes, lane)); });
              }
              for (const ThreadId& t : exited_) participants.erase(t);
              barriers_.push_back({pos, std::move(participants)});
            }
          },
          trace_.events[pos]);
    }
    return std::move(result_);
  }

 private:
  struct FenceRecord {
    uint64_t pos;
    Scope scope;
  };
  struct BarrierRecord {
    uint64_t pos;
    std::set<ThreadId> participants;
  };

  const Trace& trace_;
  std::map<ThreadId, std::vector<HeldLock>> held_;
  std::map<ThreadId, std::vector<FenceRecord>> fences_;
  std::vector<BarrierRecord> barriers_;
  std::set<ThreadId> exited_;
  std::map<LocationKey, LocationState> state_;
  DetectorResult result_;

  // Is the earlier access `prev` racing with the access `cur` (by a later event)?
  bool racesWith(const LocksetAccess& prev, const LocksetAccess& cur) const {
    const ThreadId& t1 = prev.access.thread;
    const ThreadId& t2 = cur.access.thread;
    // Per-warp metadata: different lanes of one warp in different events are not compared.
    if (t1.block == t2.block && t1.warp() == t2.warp()) return false;
    if (!conflictOnCommonWord(prev.access, cur.access)) return false;
    // 1. separated by a barrier both threads took part in
    for (const BarrierRecord& b : barriers_)
      if (b.pos > prev.pos && b.pos < cur.pos && b.participants.count(t1) && b.participants.count(t2))
        return false;
    // 2. a lock held by either: race unless a common lock at overlapping scopes
    if (!prev.locks.empty() || !cur.locks.empty()) {
      for (const HeldLock& a : prev.locks)
        for (const HeldLock& b : cur.locks)
          if (a.lock == b.lock && morallyStrong(a.scope, t1.block, b.scope, t2.block)) return false;
      return true;
    }
    // 3. no lock: race unless t1 executed, after prev and before cur, a fence covering t2
    auto it = fences_.find(t1);
    if (it != fences_.end())
      for (const FenceRecord& f : it->second)
        if (f.pos > prev.pos && f.pos < cur.pos && coversThread(f.scope, t1.block, t2.block)) return false;
    return true;
  }

  void memory(uint64_t pos, const MemoryEvent& e) {
    // The lanes' accesses, word by word.
    std::map<LocationKey, std::vector<LocksetAccess>> lanesByWord;
    forEachLane(e.lanes.mask, [&](uint32_t lane) {
      ThreadId t = laneThread(e.lanes, lane);
      AccessInfo info{t, e.type, isStrong(e), e.scope, wordsOf(e.space, e.lanes.block, e.address[lane], e.size)};
      auto h = held_.find(t);
      std::vector<HeldLock> locks = h == held_.end() ? std::vector<HeldLock>{} : h->second;
      for (const LocationKey& w : info.words) lanesByWord[w].push_back({info, pos, locks});
    });
    for (auto& [word, lanes] : lanesByWord) {
      LocationState& st = state_[word];
      // Against the metadata of earlier events.
      for (const LocksetAccess& cur : lanes) {
        if (result_.locations.count(word)) break;
        for (const LocksetAccess& prev : st.lastWrite)
          if (racesWith(prev, cur)) addWitness(result_, word, prev.pos, prev.access.thread, pos, t(cur));
        if (cur.access.writes())
          for (const LocksetAccess& prev : st.reads)
            if (racesWith(prev, cur)) addWitness(result_, word, prev.pos, prev.access.thread, pos, t(cur));
      }
      // Two lanes of this event: a race when they conflict.
      for (size_t i = 0; i < lanes.size(); ++i)
        for (size_t j = i + 1; j < lanes.size(); ++j)
          if (conflictOnCommonWord(lanes[i].access, lanes[j].access))
            addWitness(result_, word, pos, t(lanes[i]), pos, t(lanes[j]));
      // Update.
      if (e.type == AccessType::Read) {
        for (auto& l : lanes) st.reads.push_back(l);
      } else {
        st.lastWrite = lanes;
        st.reads.clear();
      }
    }
  }

  static ThreadId t(const LocksetAccess& a) { return a.access.thread; }
};

}  // namespace

DetectorResult hb(const Trace& trace) { return Graph(trace).hbRaces(); }
DetectorResult gwcp(const Trace& trace) { return Graph(trace).gwcpRaces(); }
DetectorResult lockset(const Trace& trace) { return Lockset(trace).run(); }

Results analyze(const Trace& trace) {
  Graph graph(trace);
  return {graph.gwcpRaces(), graph.hbRaces(), Lockset(trace).run()};
}

LocationSet racyLocations(std::string_view detector, const Trace& trace) {
  if (detector == "gwcp" || detector == "predatar") return gwcp(trace).locations;
  if (detector == "hb" || detector == "barracuda") return hb(trace).locations;
  if (detector == "lockset" || detector == "scord") return lockset(trace).locations;
  throw std::invalid_argument("reference: unknown detector " + std::string(detector));
}

std::string toString(const Witness& w) {
  auto who = [](uint32_t b, uint32_t t) { return "b" + std::to_string(b) + ".t" + std::to_string(t); };
  return who(w.firstBlock, w.firstThread) + " @" + std::to_string(w.firstPos) + " / " +
         who(w.secondBlock, w.secondThread) + " @" + std::to_string(w.secondPos);
}

}  // namespace predatar::reference
