// Per-location access history shared by the vector-clock detectors (hb and
// gwcp): the accesses that a later access may still race with.
//
// A record is dropped only when a later access that is ordered after it
// conflicts with everything it conflicts with (a plain write subsumes all, a
// plain read subsumes reads, a strong access subsumes strong accesses of its
// block with a wider scope). Races are then reported on a location exactly
// when the trace has a racy pair on it, through the pair or one that stands
// for it. In race-free code this is FastTrack's epoch: one record.
#pragma once

#include <cstdint>
#include <algorithm>
#include <array>
#include <bit>
#include <cstdlib>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "analysis/AccessRecord.h"
#include "analysis/AlikeRecordSkip.h"
#include "analysis/FinishedBlocks.h"
#include "analysis/HeldLaunches.h"
#include "analysis/RecordOrder.h"
#include "analysis/ShadowPages.h"
#include "analysis/WarpReads.h"
#include "clock/VectorClock.h"
#include "events/Event.h"
#include "report/Race.h"

namespace predatar {

class AccessHistory {
 public:
  // Checks `access` against the history of `key` (reporting races to `log`),
  // then records it. `ordered(r)` tells whether r is ordered before `access`,
  // `excused(r)` whether an unordered conflicting r races with it all the
  // same (same-location observation), `note(r)` the fence that would have
  // ordered them. `ordered` answers false for every other thread's record
  // of this launch later in the trace than `unorderedAfter`, and `excused`,
  // true for a record, is true for every record alike (AlikeRecordSkip)
  // earlier in the trace.
  //
  // `also`, given, is a second order checked on this history (hb on gwcp's:
  // GwcpDetector), reported to its own log. A record goes only when both
  // orders put it before an access that subsumes it, so each order finds
  // every racy location as with a history of its own: take a racy pair
  // (r, e) of one order, e earliest. If r went at an access a before e, r
  // is ordered before a, so a is not before e (else r would be), and a
  // conflicts with e (a write, or a read when r and e are a read and a
  // write): a later stand-in for r. The chain of stand-ins ends at a
  // record e meets. Records kept longer add no report of their own: each
  // pair reported is unordered in its order. (The pair may differ from
  // the one a detector of its own would report.) `unorderedAfter` is then
  // the earlier of the two orders' positions: past it, one of them answers
  // false, so no record there is dropped.
  template <class OrderedFn, class ExcusedFn = NoExcuse, class NoteFn = NoNote>
  void access(uint64_t key, const AccessRecord& access, OrderedFn&& ordered, RaceLog& log,
              ExcusedFn&& excused = {}, NoteFn&& note = {}, uint64_t unorderedAfter = UINT64_MAX,
              const AlsoChecked* also = nullptr) {
    RecordHeapCharge charge(*this);
    Records& records = shadow_.at(key);
    finished_.used(key);
    if (records.empty() ? firstRecord(key, records, access) : ownRecordsOnly(key, records, access)) return;
    if (!access.writes() && !access.strong && records.size() >= compactReadsAt(key) &&
        std::has_single_bit(records.size()))
      compactReads(key, records);
    PackedRecord packed = packedOf(access);
    if (readGoesLast(key, records, access, packed)) return;
    // One report per earlier instruction and kind for this access: in a racy
    // loop, many earlier records share the instruction of a single unique race.
    ReportedOnce reported, alsoReported;
    auto firstReport = [&](const AccessRecord& earlier) {
      return reported.first(earlier.origin.pc, classify(earlier.access(), access.access()));
    };
    auto alsoFirstReport = [&](const AccessRecord& earlier) {
      return alsoReported.first(earlier.origin.pc, classify(earlier.access(), access.access()));
    };
    // Whether a record of this instruction and kind needs no order check to
    // report: every order checked reported it.
    auto passedReported = [&](const AccessRecord& earlier) {
      if (reported.count == 0 || (also && alsoReported.count == 0)) return false;
      RaceKind kind = classify(earlier.access(), access.access());
      return reported.has(earlier.origin.pc, kind) && (!also || alsoReported.has(earlier.origin.pc, kind));
    };
    bool wasEmpty = records.empty();
    // Checks `access` against one earlier access of this launch; false when
    // `access` stands for it from now on.
    auto keepEarlier = [&](const AccessRecord& earlier) {
      // A read neither conflicts with other threads' reads nor needs to drop
      // them (a later ordered write will): read-shared data costs no clock
      // lookups, as with FastTrack's read vector clocks.
      bool readAfterRead = !access.writes() && !earlier.writes();
      bool conflicting = !readAfterRead && conflicts(earlier, access);
      bool subsumed = (!readAfterRead || earlier.sameThread(access)) && subsumes(access, earlier);
      // Only a conflict or a possible subsumption needs the clocks. A
      // conflict that stays (no subsumption) needs them only to report it:
      // not when it is excused, or of an instruction and kind this access
      // reported already (a word that all threads of a block read and update
      // atomically, simpleAttributes' `hit`, meets a thousand such records
      // an access, most of them observed by the thread's own atomic).
      if (conflicting && !subsumed && (passedReported(earlier) || excused(earlier))) return true;
      if (conflicting || subsumed) {
        bool sameThread = earlier.sameThread(access);
        bool isOrdered = sameThread || ordered(earlier);
        if (!isOrdered && conflicting && !excused(earlier) && firstReport(earlier))
          report(key, earlier, access, log, note(earlier));
        if (!also) return !(isOrdered && subsumed);
        if (!conflicting && !isOrdered) return true;  // (kept whatever the second order says)
        bool alsoOrdered = sameThread || also->ordered(earlier);
        if (!alsoOrdered && conflicting && !excused(earlier) && alsoFirstReport(earlier))
          report(key, earlier, access, *also->log, note(earlier));
        if (isOrdered && alsoOrdered && subsumed) return false;
      }
      return true;
    };
    // After a record of this launch was checked and kept: what its alike
    // records will need (a block's atomics on one word: one check, not one
    // per thread).
    AlikeRecordSkip alike(unorderedAfter, access);
    auto learnFrom = [&](const PackedRecord& r) {
      if (!alike.canLearn(r)) return;
      AccessRecord earlier = AccessRecord::unpack(r);
      bool readAfterRead = !access.writes() && !earlier.writes();
      bool conflicting = !readAfterRead && conflicts(earlier, access);
      bool subsumed = !readAfterRead && subsumes(access, earlier);
      bool isReported = conflicting && passedReported(earlier);
      std::optional<uint64_t> excusedThrough;
      if (conflicting && !isReported && excused(earlier)) excusedThrough = excusedThroughOf(excused, earlier);
      alike.learn(r, conflicting, subsumed, isReported, excusedThrough);
    };
    // A group of this launch meets an access it may conflict with (a write,
    // or a group of strong accesses): each of its threads is checked as its
    // own record, and leaves the group when the access stands for it.
    auto keepGroup = [&](PackedRecord& group) {
      AccessRecord member = AccessRecord::unpack(group);
      uint32_t warp = group.warp(), mask = group.laneMask(), kept = 0;
      uint32_t own = group.block == access.block && group.holds(access.thread) ? 1u << (access.thread & 31) : 0;
      for (uint32_t lanes = mask; lanes;) {
        uint32_t lane = lanes & -lanes;
        PackedRecord alone = group;  // (the member as a record of its own)
        alone.setLanes(warp, lane);
        if (alike.skips(alone)) {
          // (so are the other threads left but the accessing one: alike, at one position)
          kept |= lanes & ~own;
          lanes &= own;
          continue;
        }
        lanes &= ~lane;
        member.thread = alone.thread;
        if (keepEarlier(member)) {
          kept |= lane;
          learnFrom(alone);
        }
      }
      if (kept == 0) return false;
      if (kept != mask) group.setLanes(warp, kept);
      return true;
    };
    // Checks `access` against list[from, to), drops the records it stands for
    // from now on (keeping the others' order) and returns the range's new end.
    bool dropped = false;
    auto scan = [&](Records& list, size_t from, size_t to) {
      size_t kept = from;
      // (A few records are checked as fast as learnt from: a histogram's bin
      // holds about one of the block's.)
      bool learns = to - from >= kLearnFromRecords;
      for (size_t i = from; i < to; ++i) {
        if (alike.skips(list[i])) {
          // (kept as it is)
        } else if (const AccessRecord earlier = AccessRecord::unpack(list[i]); earlier.launch != launch_) [[unlikely]] {
          // (a group's threads all answer alike: only the launches' order counts)
          if (!keepEarlierLaunch(key, earlier, access, log, firstReport, also, alsoFirstReport)) continue;
        } else if (list[i].group()) [[unlikely]] {
          // Other threads' plain reads neither conflict with a read nor are dropped by one.
          if (access.writes() || !isPlainRead(list[i])) {
            if (!keepGroup(list[i])) continue;
            learnFrom(list[i]);
          }
        } else if (!keepEarlier(earlier)) {
          continue;
        } else if (learns) {
          learnFrom(list[i]);
        }
        if (kept != i) list[kept] = list[i];
        ++kept;
      }
      if (kept != to) {
        liveRecords_ -= to - kept;
        list.erase(list.begin() + kept, list.begin() + to);
        dropped = true;
      }
      return kept;
    };
    size_t general = scan(records, 0, plainReadsBegin(records));
    size_t insertAt = general;  // where `packed` goes: last of the other records, or its place among the reads
    bool alreadyThere = false;  // a group of this launch holds `packed` already
    size_t joins = SIZE_MAX;    // a read of this launch that `packed` can join as a group
    if (!isPlainRead(packed)) {
      scan(records, general, records.size());
    } else if (general < records.size()) {
      // A plain read meets other threads' plain reads of this launch only to
      // pass them by (see above), so it visits just its own thread's: a word
      // read by n threads costs O(log n) per read (O(1) when threads come in
      // order), not O(n).
      if (records.back().launch > launch_)  // later launches' (none while launches count up)
        scan(records, readsAfterLaunch(records, general), records.size());
      if (general < records.size() && records[general].launch < launch_)  // earlier launches'
        scan(records, general, launchReadsBegin(records, general));
      insertAt = records.size();
      if (general < records.size() && !readBefore(records.back(), packed)) {
        auto [first, last] = warpReads_.find(key, records, general, packed);
        insertAt = ownWarpReads(records, first, last, packed, access, keepEarlier, alreadyThere, joins, liveRecords_);
      }
    }
    // Strong device-scoped accesses of this launch (atomics) to global memory
    // are kept apart by block: a strong device-scoped access neither
    // conflicts with nor subsumes those of other blocks (morally strong;
    // subsumption needs the same block), so it scans only its own block's (a
    // histogram stays linear in threads); any other access scans them all.
    Records* ownStrong = nullptr;  // such an access: its word's records apart, its block's [from, to)
    size_t ownStrongEnd = 0;
    if (keptApartByBlock(key, access)) {
      ownStrong = &strongDevice_[key];
      auto [from, to] = blockRange(*ownStrong, access.block);
      ownStrongEnd = scan(*ownStrong, from, to);
    } else if (!strongDevice_.empty()) {
      if (auto strong = strongDevice_.find(key); strong != strongDevice_.end())
        scan(strong->second, 0, strong->second.size());
    }
    if (ownStrong) {
      if (!joinsWarpEvent(*ownStrong, ownStrongEnd, packed)) {
        ownStrong->insert(ownStrong->begin() + ptrdiff_t(ownStrongEnd), packed);  // (at the end, mostly)
        ++liveRecords_;
      }
    } else if (isPlainRead(packed)) {
      addPlainRead(records, insertAt, packed, alreadyThere, joins);
    } else if (!joinsWarpEvent(records, insertAt, packed)) {
      insertRecord(records, insertAt, packed);
      ++liveRecords_;
    }
    // (After the insert: shrinking before it would allocate again at once.)
    if (dropped) releaseSlack(records);
    // The page counts words with records in shadow_ (strongDevice_ is apart).
    if (wasEmpty && !records.empty()) shadow_.filled();
    else if (!wasEmpty && records.empty()) shadow_.emptied();
    notePeakIfPassed();
  }

  // How far records alike to an excused `write` are excused: as `excused`
  // says when it can (MessagePassing::Excuses), else through `write` itself.
  template <class ExcusedFn>
  static uint64_t excusedThroughOf(ExcusedFn& excused, const AccessRecord& write) {
    if constexpr (requires { excused.excusedThrough(write); })
      return std::max<uint64_t>(write.origin.seq, excused.excusedThrough(write));
    else
      return write.origin.seq;
  }

  using LaneEpoch = predatar::LaneEpoch;  // (WarpReads.h)
  // The later lanes `lanes` of a warp's plain read of `key` whose lanes read
  // one word (`*factor` by every thread, a row of a shared tile), right after
  // access() took its first lane with `access` (alike but for thread and
  // clock; beforeDependencyWait too). For each of them access() would find no
  // report and only its own warp's reads to change when the word holds no
  // record but plain reads, none of a later launch, nor strong ones apart:
  //  * other threads' plain reads neither conflict with a plain read nor
  //    are dropped by one; reads of earlier launches were dropped, or kept,
  //    by the first lane for a reason the same for every lane (the
  //    launches' order, the bytes, beforeDependencyWait);
  //  * the lane's own earlier reads are ordered before it: it leaves each
  //    one whose bytes it covers, then is found in a group alike, joins
  //    one, or comes last among its warp's reads (ownWarpReads).
  // So this finds the warp's reads once, then changes them for all lanes in
  // one pass where their order cannot matter (readsTogether), else does
  // ownWarpReads for each lane in turn, compacting the word's reads where a
  // lane's access() would (compactReads, at a lane's start). Returns how
  // many lanes it took: all, or none when the word is not such (the caller
  // then sends each lane through access()).
  size_t sameWordReads(uint64_t key, AccessRecord access, const LaneEpoch* lanes, size_t count) {
    if (count == 0 || !takesSameWordReads(key, access, lanes[0])) return 0;
    RecordHeapCharge charge(*this);
    Records& records = shadow_.at(key);
    access.thread = lanes[0].thread;  // (the lanes are of one warp)
    access.clock = lanes[0].clock;
    PackedRecord read = packedOf(access);
    auto [first, end] = warpReads_.find(key, records, 0, read);
    if (readsTogether(records, first, end, read, lanes, count, compactReadsAt(key), liveRecords_)) return count;
    for (size_t i = 0; i < count; ++i) {
      if (records.size() >= compactReadsAt(key) && std::has_single_bit(records.size())) {
        // What access() does first at this lane; the rest of its path is
        // this loop's still (compacting keeps the first of each kind of
        // interchangeable read, so the word holds plain reads only, its last
        // this warp's). Leaving the rest of the lanes to access() sent each
        // down the general path: a 512-thread block's reads of `*factor`
        // reach 8 and 16 records, a sixth of a g[i] += *factor kernel.
        size_t before = records.size();
        compactReads(key, records);
        if (records.size() != before) std::tie(first, end) = warpReads_.find(key, records, 0, read);
      }
      access.thread = lanes[i].thread;
      access.clock = lanes[i].clock;
      read = packedOf(access);
      bool alreadyThere = false;
      size_t joins = SIZE_MAX;
      // (the lane's own reads of this launch: ordered; kept when `access` does not cover them)
      auto keepOwn = [&access](const AccessRecord& own) { return !subsumes(access, own); };
      end = ownWarpReads(records, first, end, read, access, keepOwn, alreadyThere, joins, liveRecords_);
      if (addPlainRead(records, end, read, alreadyThere, joins)) {
        ++end;
        notePeakIfPassed();
      }
    }
    return count;
  }

  // A warp's plain read of the 16 words of one shadow page by the lanes
  // `lanes` (of one warp), lane i on the `elementBytes` (4, 8 or 16) from
  // word `firstKey` + i * elementBytes / 4 on: a row of a shared tile, or a
  // page of a read-shared array in global memory. Takes each lane that
  // access() would take, word by word, through firstRecord or readGoesLast
  // (each of its words empty, or holding only plain reads of this launch by
  // warps before its own, with no compaction due at the word's size and no
  // strong record apart): its read goes last in each of its words, with no
  // report. Returns the lanes taken (bit i: lane i); the caller sends the
  // others through access(). (Each lane's access found its page, ruled out
  // ownRecordsOnly and compaction, and packed its record: a third of a tiled
  // matrix product's analysis.)
  //
  // A compressed page, whose records all such reads of consecutive threads
  // with one clock alike but for their reader, takes the reads as a layer
  // appended (ShadowPages::appendReads) where access() expanded the page
  // into records and compressed it again when it was left (a GEMM's A and
  // B, which each block reads once: a quarter of its analysis).
  uint32_t pageReads(uint64_t firstKey, AccessRecord access, const LaneEpoch* lanes, uint32_t elementBytes = 4) {
    if (access.writes() || access.strong || access.bytes != 0xf) return 0;
    RecordHeapCharge charge(*this);
    uint32_t all = (1u << (4 * ShadowPages::kWordsPerPage / elementBytes)) - 1;
    uint32_t taken = appendedAsLayer(firstKey, access, lanes, elementBytes) ? all
                                                                             : readsGoLast(firstKey, access, lanes, elementBytes);
    if (taken) notePeakIfPassed();
    return taken;
  }

  // Whether sameWordReads takes a run of lanes from `lead` on (all of
  // them) on `key`, changing nothing: a run over several words (a broadcast
  // double) is taken only where it is taken on each.
  bool takesSameWordReads(uint64_t key, AccessRecord access, const LaneEpoch& lead) {
    if (access.writes() || access.strong || touchesStrongDevice(key, access)) return false;
    const Records& records = shadow_.at(key);
    if (records.empty() || !isPlainRead(records[0]) || records.back().launch > launch_) return false;
    access.thread = lead.thread;
    access.clock = lead.clock;
    return access.thread < PackedRecord::kGroupWarps * 32 && !readBefore(records.back(), packedOf(access));
  }

  // A word's records, in order (tests compare two histories by them),
  // leaving a compressed page compressed.
  std::vector<PackedRecord> recordsOf(uint64_t key) {
    const Records records = shadow_.recordsOf(key);
    return {records.begin(), records.end()};
  }

  // What may order another block's threads after a block's earlier accesses
  // (compactReads then no longer merges its reads): a strong write to global
  // memory, or a fence or lock release wider than the block. The detectors
  // call these with every memory event, fence and release.
  void notePublication(const MemoryEvent& event, bool strong) {
    if (strong && event.type != AccessType::Read && event.space == MemorySpace::Global)
      markPublished(event.lanes.block);
  }
  void notePublication(uint32_t block, Scope scope) {
    if (scope != Scope::Block) markPublished(block);
  }

  // Peak bytes of shadow memory: the pages plus records beyond a word's first.
  uint64_t peakBytes() const { return peakBytes_; }
  size_t locations() const { return shadow_.words(); }
  // Records kept now (a group of threads counts one).
  uint64_t records() const { return liveRecords_; }
  // Heap bytes of the words' record vectors now (see recordHeapBytesOnThisThread).
  int64_t recordHeapBytes() const { return recordHeap_; }
  void clear() {
    RecordHeapCharge charge(*this);
    heldLaunches_.clear();
    shadow_.clear();
    clearStrongDevice();
    liveRecords_ = 0;
  }
  // A new launch (KernelInfo::launch): keeps only the global accesses of
  // `kernel.liveLaunches`, which races of this launch or later ones may involve.
  void beginLaunch(const KernelInfo& kernel);
  // Keeps only the global accesses of the launches `live` (as beginLaunch
  // does): after launches this history did not see (Detector::retainLaunches).
  void retain(const std::vector<uint32_t>& live);
  // After a thread exit: drops the shared words of a block that has finished;
  // true when it has.
  bool exited(const ExitEvent& event) {
    if (!finished_.finishes(event)) return false;
    RecordHeapCharge charge(*this);
    dropSharedWords(event.lanes.block, /*keepPages=*/false);
    return true;
  }
  // After a barrier `participants` threads of `block` waited at (arrivers,
  // which do not wait, are not counted). When they are all its threads,
  // every access so far by a thread of the block is ordered before every
  // later one by any of them (synchronize() joins each
  // participant's clocks into each participant's, H and P alike), and only
  // they access the block's shared memory: nothing can race with its shared
  // words' records any more, so they go, as when the block finishes. A
  // word's next accesses then meet only their own barrier interval's records
  // instead of checking, and dropping, the last interval's one by one.
  void barrier(uint32_t block, size_t participants) {
    if (participants != finished_.threadsPerBlock()) return;
    RecordHeapCharge charge(*this);
    dropSharedWords(block, /*keepPages=*/true);
  }
  // The blocks that finished, and the shared words every access so far used.
  const FinishedBlocks& finishedBlocks() const { return finished_; }

 private:
  // Drops every record of `block`'s shared words (strongDevice_ holds none);
  // `keepPages`: their pages stay, empty, for the block's next barrier
  // interval (ShadowPages::erase).
  void dropSharedWords(uint32_t block, bool keepPages) {
    finished_.dropSharedPages(shadow_, block, keepPages, [&](size_t records) { liveRecords_ -= records; });
  }
  using Records = ShadowPages::Records;
  // A word's records are kept in two runs: first every other record in the
  // order it came, then its plain reads sorted by (launch, block, warp), so
  // that a plain read finds its own warp's reads by binary search
  // (isPlainRead, PackedRecord.h).
  //
  // Whether `access` goes to strongDevice_. A shared word's key names its
  // block, so all its accesses are of one block: apart, they would only cost
  // every access to the word a lookup in a map of all blocks' words.
  static bool keptApartByBlock(uint64_t key, const AccessRecord& access) {
    return access.strong && access.scope != Scope::Block && locationOf(key).space == MemorySpace::Global;
  }
  // Read-shared words (a table that every thread of a big grid reads:
  // cuRAND's skip-ahead matrices, a GEMM's input tiles) keep a read record
  // per reading warp and epoch, hundreds per word, and each read then misses
  // the cache finding its own warp's. Many of those records are
  // interchangeable: plain reads alike in all but thread and epoch (same
  // instruction, bytes, launch) that every later access treats alike:
  //  * reads of an earlier launch: only the launches' order relates them to
  //    a later access (keepEarlierLaunch), and a plain read's subsumption
  //    depends on its bytes alone;
  //  * reads of this launch by a block that has finished and never published
  //    (notePublication()): nothing can order a later access of another block
  //    after them (barriers and block-scoped fences and locks stay in the
  //    block; what crosses blocks goes through a strong global write, a
  //    wider fence or a wider lock release), so every later conflicting
  //    access races with each of them alike, and none is dropped by one
  //    (only an ordered access subsumes); nor does a missing-fence note
  //    name them (it needs a strong write of theirs).
  // A later access reports one race per earlier instruction and kind
  // (firstReport), naming the first record in the word's order: so keeping
  // the first of each kind of interchangeable record changes no report, as
  // long as the word has at most 8 such (pc, kind) pairs (firstReport's
  // memory; with more it reports duplicates, so nothing is merged).
  void compactReads(uint64_t key, Records& records) {
    if (!strongDevice_.empty() && strongDevice_.contains(key)) return;  // scanned too, with the same memory
    // Most words that come here have nothing to merge (a stencil's inputs,
    // read by a few threads of running blocks): they cost one pass.
    size_t begin = plainReadsBegin(records);
    auto isInterchangeable = [this](const PackedRecord& r) { return interchangeable(r); };
    if (std::count_if(records.begin() + ptrdiff_t(begin), records.end(), isInterchangeable) < 2) return;
    absl::InlinedVector<std::pair<uint64_t, uint64_t>, 8> pairs;           // (pc, kind bits) of every record
    for (const PackedRecord& r : records) {
      std::pair<uint64_t, uint64_t> p{r.pc, r.kind() & 0x3ff};
      if (std::find(pairs.begin(), pairs.end(), p) != pairs.end()) continue;
      if (pairs.size() == 8) return;
      pairs.push_back(p);
    }
    absl::InlinedVector<PackedRecord, 8> firsts;  // the first of each kind of interchangeable read
    size_t kept = begin;
    for (size_t i = begin; i < records.size(); ++i) {
      const PackedRecord& r = records[i];
      if (interchangeable(r)) {
        auto alike = [&r](const PackedRecord& f) { return alikeBesidesThreadAndEpoch(f, r); };
        if (std::any_of(firsts.begin(), firsts.end(), alike)) continue;
        firsts.push_back(r);
      }
      if (kept != i) records[kept] = r;
      ++kept;
    }
    liveRecords_ -= records.size() - kept;
    records.erase(records.begin() + ptrdiff_t(kept), records.end());
    releaseSlack(records);
  }
  // A vector of 8 slots or more that holds under a quarter of its capacity
  // (reads compacted, or dropped by an access that stands for them) gives
  // the rest back: a word once read by 64 blocks kept 64 slots for the few
  // records left (globalToShmemAsyncCopy's input matrices). Growing again to
  // four times the size takes two reallocations per 3x records: amortized
  // O(1). (Smaller vectors keep theirs: a word that a lock's critical
  // sections take turns writing and reading dropped to one record and grew
  // to two at every access, 15% more malloc and free on block-locks.)
  static void releaseSlack(Records& records) {
    if (records.capacity() >= 8 && records.capacity() >= 4 * records.size()) records.shrink_to_fit();
  }
  void clearStrongDevice() { strongDevice_.clear(); }
  void markPublished(uint32_t block) {
    if (block < published_.size()) published_[block] = true;
  }
  bool interchangeable(const PackedRecord& r) const {
    return r.launch != launch_ || (finished_.finished(r.block) && !published_[r.block]);
  }
  static bool alikeBesidesThreadAndEpoch(const PackedRecord& a, const PackedRecord& b) {
    return ((a.seqAndKind ^ b.seqAndKind) >> PackedRecord::kSeqBits & 0x3ff) == 0 && a.pc == b.pc &&
           a.source == b.source && a.launch == b.launch;
  }
  // Scans of fewer records check each without learning what alike records
  // will need (AlikeRecordSkip).
  static constexpr size_t kLearnFromRecords = 4;
  // Words with at least this many records are compacted when their count
  // reaches a power of two (amortized: a pass per doubling). 2 in the
  // differential tests (PREDATAR_COMPACT_READS_AT). At 64, a GEMM's input
  // words each held up to 64 records (2 KiB) between compactions:
  // globalToShmemAsyncCopy's RSS was 1.8 GB after 75 s against 0.39 GB at 8,
  // which also ran its first launch 25% further in the same time.
  static size_t compactReadsAtFromEnvironment() {
    const char* at = std::getenv("PREDATAR_COMPACT_READS_AT");
    return at && std::atoi(at) > 0 ? size_t(std::atoi(at)) : 8;
  }

  // `access` as its word keeps it (launch set).
  PackedRecord packedOf(const AccessRecord& access) const {
    PackedRecord packed = access.packed();
    packed.launch = launch_;
    return packed;
  }
  // Whether `access` goes to strongDevice_, or `key` has records there: the
  // cheap cases (firstRecord, ownRecordsOnly) leave both to the general path.
  bool touchesStrongDevice(uint64_t key, const AccessRecord& access) const {
    return keptApartByBlock(key, access) || (!strongDevice_.empty() && strongDevice_.contains(key));
  }
  bool compactionDue(uint64_t key, size_t records) const {
    return records >= compactReadsAt(key) && std::has_single_bit(records);
  }
  // The record count from which `key`'s reads are compacted: never for a
  // shared word, whose records are all of this launch by its own block's
  // threads, which has not finished while they access it (a finished block's
  // shared words go): none is interchangeable, and compactReads would only
  // cost a pass (at 8, 16 and 32 records of each word of a GEMM's tile).
  size_t compactReadsAt(uint64_t key) const { return key >> 63 ? SIZE_MAX : compactReadsAt_; }
  // pageReads on a compressed page: all lanes or none.
  bool appendedAsLayer(uint64_t firstKey, AccessRecord access, const LaneEpoch* lanes, uint32_t elementBytes) {
    if (!strongDevice_.empty()) return false;
    for (uint32_t i = 1; i < 4 * ShadowPages::kWordsPerPage / elementBytes; ++i)
      if (lanes[i].thread != lanes[0].thread + i || lanes[i].clock != lanes[0].clock) return false;
    access.thread = lanes[0].thread;
    access.clock = lanes[0].clock;
    auto accepts = [this, firstKey](const CompressedPage& page) {
      uint32_t n = page.allRecordsPerWord();
      return n < CompressedPage::kMaxReadRecordsPerWord && !compactionDue(firstKey, n);
    };
    // (A shared page that one warp read whole is compressed at the next warp's read.)
    uint64_t pageNo = firstKey >> ShadowPages::kPageShift;
    PackedRecord packed = packedOf(access);
    if (!shadow_.appendReads(pageNo, packed, elementBytes, accepts) &&
        !(shadow_.compressSharedReads(pageNo) && shadow_.appendReads(pageNo, packed, elementBytes, accepts)))
      return false;
    liveRecords_ += ShadowPages::kWordsPerPage;
    return true;
  }
  // pageReads on a full page (at() expands a compressed one), lane by lane:
  // what firstRecord and readGoesLast do to each of its words, when they
  // would to all (a lane left to access() must find none of its words done).
  uint32_t readsGoLast(uint64_t firstKey, AccessRecord access, const LaneEpoch* lanes, uint32_t elementBytes) {
    uint32_t taken = 0, wordsPerLane = elementBytes / 4;
    for (uint32_t lane = 0; lane < 4 * ShadowPages::kWordsPerPage / elementBytes; ++lane) {
      access.thread = lanes[lane].thread;
      access.clock = lanes[lane].clock;
      PackedRecord packed = packedOf(access);
      uint64_t first = firstKey + lane * wordsPerLane, end = first + wordsPerLane;
      auto goesLast = [&](uint64_t key) {
        if (touchesStrongDevice(key, access)) return false;
        const Records& records = shadow_.at(key);
        return records.empty() || (!compactionDue(key, records.size()) && afterPlainReadsOnly(records, packed));
      };
      bool all = true;
      for (uint64_t key = first; key < end && all; ++key) all = goesLast(key);
      if (!all) continue;
      for (uint64_t key = first; key < end; ++key) {
        Records& records = shadow_.at(key);
        insertRecord(records, records.size(), packed);
        if (records.size() == 1) shadow_.filled();
        finished_.used(key);
        ++liveRecords_;
      }
      taken |= 1u << lane;
    }
    return taken;
  }
  // A plain read of a word that holds only plain reads of this launch, all
  // by warps before its own (read-shared data after the first reader, in
  // warp order): what access() does then, without its scans. The read
  // conflicts with none of them and stands for none (other threads'), and no
  // record of its warp is there to join: it goes last. (A GEMM's tiles: most
  // of its reads.)
  // (`packed`: packedOf(access), which access() goes on with when this declines.)
  bool readGoesLast(uint64_t key, Records& records, const AccessRecord& access, const PackedRecord& packed) {
    if (!isPlainRead(packed) || !afterPlainReadsOnly(records, packed) || touchesStrongDevice(key, access)) return false;
    insertRecord(records, records.size(), packed);
    ++liveRecords_;
    notePeakIfPassed();
    return true;
  }
  // Whether `records` are all plain reads of this launch by warps before
  // `read`'s (plain reads come last: when the first is one, all are).
  bool afterPlainReadsOnly(const Records& records, const PackedRecord& read) const {
    return !records.empty() && isPlainRead(records.front()) && records.front().launch == launch_ &&
           readBefore(records.back(), read);
  }
  // A word without records (each word after a __syncthreads, in shared
  // memory) takes `access` as its first, unless strongDevice_ may hold some
  // of its records: what access() does then, without its scans.
  bool firstRecord(uint64_t key, Records& records, const AccessRecord& access) {
    if (touchesStrongDevice(key, access)) return false;
    PackedRecord packed = packedOf(access);
    records.push_back(packed);
    ++liveRecords_;
    shadow_.filled();
    notePeakIfPassed();
    return true;
  }
  // FastTrack's same-thread case: a word whose records are all this thread's,
  // of this launch (a loop over the thread's own element: a write, or a read
  // and a write of it), or other bytes of the word (char arrays: a thread's
  // byte beside its neighbours'). The general path in access() would check
  // each pair (same thread: ordered, no conflict, nothing to report; other
  // bytes: neither conflict nor subsumption, in this launch or across
  // launches, so nothing to report and nothing dropped), drop the records
  // `access` stands for and put `access` after the other non-plain-read
  // records, or last if it is a plain read (its own warp's reads come last,
  // so another thread's plain read, which sorts by warp, sends it to the
  // general path); this does the same without the scans. Strong
  // device-scoped accesses to global memory keep their records apart
  // (strongDevice_), so they, and words with such records, take the general
  // path.
  bool ownRecordsOnly(uint64_t key, Records& records, const AccessRecord& access) {
    if (records.empty() || records.size() > 8) return false;
    bool plainRead = !access.writes() && !access.strong;
    for (const PackedRecord& r : records) {
      bool own = r.launch == launch_ && !r.group() && r.block == access.block && r.thread == access.thread;
      if (own) continue;
      if ((r.bytes() & access.bytes) || (plainRead && isPlainRead(r))) return false;
    }
    if (touchesStrongDevice(key, access)) return false;
    PackedRecord packed = packedOf(access);
    size_t kept = 0, generalKept = 0;
    if (records.size() == 1) {
      if (ownSubsumed(records[0], access)) {
        records[0] = packed;  // the common case (a loop's write, or read): one store
        return true;
      }
      kept = 1;  // (a read after the thread's write: the write stays)
      generalKept = !isPlainRead(records[0]);
    } else {
      for (size_t i = 0; i < records.size(); ++i) {
        if (ownSubsumed(records[i], access)) continue;
        generalKept += !isPlainRead(records[i]);
        records[kept++] = records[i];
      }
      liveRecords_ -= records.size() - kept;
      records.resize(kept);
    }
    insertRecord(records, isPlainRead(packed) ? kept : generalKept, packed);
    ++liveRecords_;
    notePeakIfPassed();  // (the insert may have grown the vector's heap block)
    return true;
  }
  // `r` passed ownRecordsOnly's test: it is the accessing thread's unless
  // its bytes are apart, and then `access` does not subsume it.
  static bool ownSubsumed(const PackedRecord& r, const AccessRecord& access) {
    return (r.bytes() & access.bytes) && subsumes(access, r);
  }
  // A plain read after ownWarpReads: nothing to add when a group holds it
  // already, else its thread joins the read `joins`, else it goes in at
  // `at`. True when it added a record.
  bool addPlainRead(Records& records, size_t at, const PackedRecord& read, bool alreadyThere, size_t joins) {
    if (alreadyThere) return false;
    if (joins != SIZE_MAX) {
      PackedRecord& group = records[joins];
      group.setLanes(group.warp(), group.lanes() | 1u << (read.thread & 31));
      return false;
    }
    insertRecord(records, at, read);
    ++liveRecords_;
    return true;
  }
  // Where this launch's plain reads begin (earlier launches' come before),
  // and where they end.
  size_t launchReadsBegin(const Records& records, size_t readsBegin) const {
    return size_t(std::partition_point(records.begin() + readsBegin, records.end(),
                                       [&](const PackedRecord& r) { return r.launch < launch_; }) -
                  records.begin());
  }
  size_t readsAfterLaunch(const Records& records, size_t readsBegin) const {
    if (records.size() == readsBegin || records.back().launch <= launch_) return records.size();
    return size_t(std::partition_point(records.begin() + readsBegin, records.end(),
                                       [&](const PackedRecord& r) { return r.launch <= launch_; }) -
                  records.begin());
  }
  // (Called inside a RecordHeapCharge: the record heap is counted so far.)
  void notePeakIfPassed() {
    if (liveRecords_ > peakRecords_ || shadow_.pages() > peakPages_ || shadow_.fullPages() > peakFullPages_ ||
        recordHeapSoFar() > peakRecordHeap_)
      notePeak();
  }
  void notePeak() {
    peakRecords_ = std::max(peakRecords_, liveRecords_);
    peakPages_ = std::max(peakPages_, shadow_.pages());
    peakFullPages_ = std::max(peakFullPages_, shadow_.fullPages());
    int64_t heap = recordHeapSoFar();
    peakRecordHeap_ = std::max(peakRecordHeap_, heap);
    // Records beyond a word's first live in their vector's heap block (the
    // record heap, whole capacity counted) or in a compressed page's tables
    // (shadow_.bytes()); strong device-scoped records in their word's
    // vector (the record heap too: CountedRecordAllocator).
    uint64_t strongSlots = strongDevice_.capacity() * (sizeof(uint64_t) + sizeof(Records) + 1);
    peakBytes_ = std::max(peakBytes_, shadow_.bytes() + strongSlots + uint64_t(std::max<int64_t>(heap, 0)));
  }
  // Charges `history` with the record heap that the call it is made in
  // allocated and freed (calls of AccessHistory do not nest).
  class RecordHeapCharge {
   public:
    explicit RecordHeapCharge(AccessHistory& history) : history_(history) {
      history_.recordHeapStart_ = recordHeapBytesOnThisThread;
    }
    ~RecordHeapCharge() { history_.recordHeap_ = history_.recordHeapSoFar(); }
    RecordHeapCharge(const RecordHeapCharge&) = delete;
    RecordHeapCharge& operator=(const RecordHeapCharge&) = delete;

   private:
    AccessHistory& history_;
  };
  int64_t recordHeapSoFar() const { return recordHeap_ + (recordHeapBytesOnThisThread - recordHeapStart_); }
  void report(uint64_t key, const AccessRecord& first, const AccessRecord& second, RaceLog& log,
              MissingFence missing) const {
    LocationKey where = locationOf(key);
    Access later = second.access();
    later.launch = launch_;
    log.add(where.space, where.sharedBlock, where.address, first.access(), later, missing);
  }
  bool unorderedWith(uint32_t launch) const {
    return std::find(unordered_.begin(), unordered_.end(), launch) != unordered_.end();
  }
  // `earlier` is of another launch: nothing but the launches' order relates
  // them. Reports their race; false when `access` stands for it from now on
  // (an ordered access that subsumes it, by the same argument as above: any
  // launch unordered with it is unordered with `access` too).
  template <class FirstReportFn, class AlsoFirstReportFn>
  bool keepEarlierLaunch(uint64_t key, const AccessRecord& earlier, const AccessRecord& access, RaceLog& log,
                         FirstReportFn&& firstReport, const AlsoChecked* also, AlsoFirstReportFn&& alsoFirstReport) const {
    if (unorderedWith(earlier.launch) || (access.beforeDependencyWait && earlier.launch == overlapped_)) {
      if (conflictsAcrossLaunches(earlier, access)) {  // (the launches' order is every detector's)
        if (firstReport(earlier)) report(key, earlier, access, log, {});
        if (also && alsoFirstReport(earlier)) report(key, earlier, access, *also->log, {});
      }
      return true;
    }
    return earlier.strong || !subsumes(access, earlier);
  }

  uint32_t launch_ = 0;
  HeldLaunches heldLaunches_;  // retain() walks the shadow only when one died
  uint32_t overlapped_ = UINT32_MAX;  // KernelInfo::overlappedLaunch
  std::vector<bool> published_;       // by block, this launch (notePublication())
  size_t compactReadsAt_ = compactReadsAtFromEnvironment();
  WarpReadsFinder warpReads_;
  std::vector<uint32_t> unordered_;
  ShadowPages shadow_;
  // This launch's strong device-scoped records of global words, by location
  // and block (see access() and blockRange()).
  absl::flat_hash_map<uint64_t, Records> strongDevice_;
  FinishedBlocks finished_;
  uint64_t liveRecords_ = 0;
  uint64_t peakRecords_ = 0;
  uint64_t peakPages_ = 0;
  uint64_t peakFullPages_ = 0;
  uint64_t peakBytes_ = 0;
  int64_t recordHeap_ = 0;        // record heap charged to this object (RecordHeapCharge)
  int64_t recordHeapStart_ = 0;   // recordHeapBytesOnThisThread when the current call began
  int64_t peakRecordHeap_ = 0;
};

}  // namespace predatar
