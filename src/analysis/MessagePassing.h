// Message passing (race-semantics.md, hb rule 4 and gwcp rule iii) and
// same-location observation, for the vector-clock detectors (hb, gwcp).
//
// What a strong read observed is not an event field: in a trace (executed or
// written) a read observes the last write of its word before it in trace
// order, because the emulator executes events in the order it emits them and
// litmus files say so. So the detectors follow each word's RMW chain
// themselves from the event order:
//
//  * a thread's fence F remembers H at F (one clock for its latest fence of
//    any scope, one for its latest device/system fence) and ends its epoch;
//  * a strong write or RMW W of word x adds those clocks to x's chain (an RMW
//    extends the chain, a strong non-RMW write starts a new one, a plain
//    write or a lock operation ends it); lanes of one event do not observe
//    each other, so the chain changes after the whole event;
//  * a strong read or RMW R of x by t2 takes from x's chain the clocks of the
//    writes morally strong with R (same block: H at their latest fence;
//    other blocks, device-scoped writes: H at their latest device fence) into
//    t2's pending clocks, which t2's next fence covering the writer joins
//    into H (and gwcp's P: rule iv composes the edge F <GWCP F' with <=HB).
//
// A thread's latest strong read/RMW of each word, per scope class, excuses a
// strong write W of that word earlier in the trace than the read (the
// "same-location observation" rule).
//
// Accesses lock inference may take for lock operations (MemoryEvent::
// lockLanes) form no pattern: the lock events order them, as rule 3 says, and
// gwcp keeps its predictive treatment of critical sections.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "analysis/AccessHistory.h"
#include "analysis/FinishedBlocks.h"
#include "analysis/KeyedList.h"
#include "analysis/ThreadClocks.h"
#include "clock/VectorClock.h"
#include "events/Event.h"

namespace predatar {

class MessagePassing {
 public:
  void reset(uint32_t threadsPerBlock, const ClockGeometry* geometry);

  // A fence by `t` of `scope`: joins the releases its earlier strong reads
  // observed that the fence covers, then remembers H at the fence and ends
  // the thread's epoch.
  void fence(ThreadClocks& t, Scope scope, bool withWcp);

  // One lane's strong read or RMW (`strong` after --volatile) of the words of
  // its access, before the access is checked: records the observation and
  // takes the releases of the words' chains. `lockLane`: no pattern.
  void strongRead(const ThreadClocks& t, uint64_t key, Scope scope, uint64_t seq, bool lockLane,
                  const Origin& origin);
  // After every lane of an event was checked: the writes change their words'
  // chains. Call chainEnd for every lane's word that a plain write, a strong
  // non-RMW write or a lock operation wrote, then chainAdd for every strong
  // write or RMW that is not a lock operation.
  // Whether any word has a chain or an unfenced write: chainEnd does nothing
  // while none has.
  bool anyChains() const { return !chains_.empty() || !unfenced_.empty(); }
  void chainEnd(uint64_t key) {
    // (Most kernels have no strong writes: a plain store then costs no lookups.)
    if (!anyChains()) return;
    chains_.erase(key);
    unfenced_.erase(key);
  }
  void chainAdd(const ThreadClocks& t, uint64_t key, Scope scope, const Origin& origin);

  // Same-location observation: thread t has, at or before its current
  // access, a strong read/RMW of `key` after the strong write `write`, and
  // morally strong with it.
  class Observations {
   public:
    bool excuse(const AccessRecord& write) const;
    // The latest trace position at which a write alike to `write` (same
    // strength, scope and block) is excused; 0 when none is. excuse(w) is
    // exactly w.origin.seq <= excusedThrough(w) for w with a nonzero answer.
    uint64_t excusedThrough(const AccessRecord& write) const;

   private:
    friend class MessagePassing;
    uint64_t latestReadAfter(const AccessRecord& write) const;
    uint64_t blockScoped_ = 0, deviceScoped_ = 0;  // seq + 1 of the latest read (0: none)
    uint32_t block_ = 0;
  };
  Observations observations(uint64_t key, const ThreadClocks& t) const;
  // AccessHistory::access's `excused` for t's current access to `key`: t's
  // observations are looked up at the first record that asks, once (a word
  // that a block's threads all update atomically has a thousand records,
  // and two hash lookups each were a fifth of simpleAttributes' run).
  // excusedThrough(write) tells AccessHistory how far writes alike are
  // excused (AlikeRecordSkip).
  class Excuses {
   public:
    Excuses(const MessagePassing& messages, uint64_t key, const ThreadClocks& t)
        : messages_(messages), key_(key), t_(t) {}
    bool operator()(const AccessRecord& write) {
      if (!write.strong || !write.writes()) return false;  // (without the lookup)
      return seen().excuse(write);
    }
    uint64_t excusedThrough(const AccessRecord& write) {
      if (!write.strong || !write.writes()) return 0;
      return seen().excusedThrough(write);
    }

   private:
    const Observations& seen() {
      if (!seen_) seen_ = messages_.observations(key_, t_);
      return *seen_;
    }
    const MessagePassing& messages_;
    uint64_t key_;
    const ThreadClocks& t_;
    std::optional<Observations> seen_;
  };
  Excuses excuses(uint64_t key, const ThreadClocks& t) const { return Excuses(*this, key, t); }
  // The fence that would order `earlier` before thread t's current access: a
  // fence after a flag read t made whose pattern lacks only that, or a fence
  // before the flag write that t read and then fenced after.
  MissingFence missingFence(const ThreadClocks& t, const AccessRecord& earlier) const;

  void exit(const ThreadClocks& t);
  // When `block` has finished (AccessHistory::exited): its shared words leave
  // the chains (nothing reads them again), so the maps follow the blocks
  // resident at once, not the grid. `finished` is the access history's: every
  // word a strong read or write names here was an access there too.
  void blockFinished(uint32_t block, const FinishedBlocks& finished);
  uint64_t bytes() const;

 private:
  // A strong write with no fence before it in its thread: no release, but a
  // reader's report can say where the fence was missing. Only the writer's
  // own epoch is kept (not its clock): the note covers the writer's own
  // earlier accesses, at no cost per atomic.
  struct UnfencedWrite {
    uint32_t block, thread;
    bool device;
    Clock epoch;
    Origin origin;
  };
  // H of a thread at a fence, kept as ThreadClocks keeps it: H without the
  // thread's own entry (shared with the thread's clock until either changes)
  // and its own time apart. A copy of H with the own entry set is a private
  // block list per fencing thread (1.2 GiB for a grid of 270k threads that
  // each fence once); the thread is known from where a Release is kept.
  struct Release {
    VectorClock hb;
    Clock now = 0;

    bool empty() const { return now == 0; }
    // Pointwise <=, both of thread (block, thread).
    bool leq(const Release& o, uint32_t block, uint32_t thread) const {
      return now <= o.now && hb.leq(o.hb, block, thread, std::max(o.now, o.hb.get(block, thread)));
    }
    void join(const Release& o) {  // of the same thread
      hb.join(o.hb);
      now = std::max(now, o.now);
    }
    // `into` joins H with the own entry of (block, thread).
    void joinInto(VectorClock& into, uint32_t block, uint32_t thread) const {
      into.join(hb);
      if (into.get(block, thread) < now) into.set(block, thread, now);
    }
  };
  struct PerThread {
    Release fenceAny, fenceDevice;           // H at the latest fence, at the latest device fence
    bool fencedAny = false, fencedDevice = false;
    // Whether H at the latest device fence was <= P_t then (gwcp; always for
    // hb), so <= P_t ever after: a reader that published it may take it back.
    bool fenceDeviceBelowP = true;
    VectorClock pendingSame, pendingOther;   // observed releases awaiting a covering fence
    Origin pendingSameRead, pendingOtherRead;  // the latest read that brought one
  };
  // The latest flag write with no fence before it that t read: pending until
  // t's covering fence, then what one producer fence would have ordered (only
  // for the missing-fence note; it orders nothing). Kept apart from PerThread:
  // every thread of a histogram reads unfenced atomics, and a PerThread made
  // only to hold these was 320 of the ~780 bytes a thread cost here.
  struct UnfencedNotes {
    std::optional<UnfencedWrite> same, other, acquired;
  };
  // One writer's releases in a chain (a reader never takes its own).
  struct Writer {
    uint32_t block, thread;
    bool device;  // made a device-scoped write after a device fence
    Release fenceAny, fenceDevice;
    bool deviceBelowP = true;  // every fenceDevice joined was <= the writer's P at its fence
    uint64_t stamp = 0;  // the chain's stamp when these releases last changed
  };
  struct Chain {
    // writer block -> join of H at its latest fence, sorted by block
    std::vector<std::pair<uint32_t, VectorClock>> byBlock;
    VectorClock device;  // device-scoped writes: join of H at their latest device fence
    VectorClock deviceHb;  // the same without each writer's own entry (Release::hb's join)
    std::vector<Writer> writers;  // sorted by (block, thread)
    uint64_t stamp = 0;  // changes whenever the chain's releases change (never reused)
  };
  struct Observed {
    uint64_t key;                                // the word
    uint64_t blockScoped = 0, deviceScoped = 0;  // seq + 1 of the latest read
    // The chain stamp of this thread's latest read that took the chain's
    // releases, whether it was device scoped, and what it brought.
    uint64_t takenStamp = 0;
    bool takenDevice = false, broughtSame = false, broughtOther = false;
  };
  // A thread's latest strong reads by word (most threads observe a word or
  // two: a histogram's bin, a flag; a hash map per thread from the first
  // word cost ~130 bytes a thread).
  using ObservedWords = KeyedList<Observed, 1, 8>;

  // `pending` joins the chain's device releases but for the own entry of
  // `self`, a writer of the chain: that entry joins only what the releases' H
  // say of it.
  static void takeDeviceJoin(VectorClock& pending, const Chain& c, const Writer& self);
  PerThread& at(const ThreadClocks& t);
  void noteUnfenced(const ThreadClocks& t, const UnfencedWrite& w, bool device);
  const PerThread* find(const ThreadClocks& t) const;
  uint64_t index(const ThreadClocks& t) const { return uint64_t(t.block) * threadsPerBlock_ + t.thread; }

  const ClockGeometry* geometry_ = nullptr;
  uint32_t threadsPerBlock_ = 1;
  absl::flat_hash_map<uint64_t, PerThread> threads_;  // threads that fenced or read strongly
  absl::flat_hash_map<uint64_t, Chain> chains_;
  absl::flat_hash_map<uint64_t, UnfencedWrite> unfenced_;  // word -> its latest unfenced strong write
  absl::flat_hash_map<uint64_t, UnfencedNotes> notes_;     // threads that read an unfenced write
  // Thread -> word -> its latest strong reads of the word. Only a thread's
  // own observations excuse its accesses, so they go when it exits: keyed by
  // (word, thread), one map held every observation of the launch (12M entries
  // for a histogram of shared atomics), and each read missed the cache.
  absl::flat_hash_map<uint64_t, ObservedWords> observed_;
  uint64_t stamps_ = 0;
};

// The chain updates of a memory event, after all its lanes were checked.
void updateChains(ThreadTable& threads, MessagePassing& messages, const MemoryEvent& event, bool strong);

}  // namespace predatar
