// A warp's plain read of the 16 words of one shadow page (16 lanes of 4
// bytes, 8 of 8, 4 of 16), taken where each read goes last in its words
// (AccessHistory::pageReads: on a compressed page, as a layer appended
// instead of expanding it), against the per-lane path it replaces: on random
// events the same records in every word and the same races after each, with
// the page path taken often. Blocks finish (their reads then compact),
// launches follow one another, writes, atomics and barriers come between the
// reads, and pages are left behind so that they compress. Then the
// detectors on tiled traces, with and without it (and the runs of lanes
// that read one element, doubles among them).
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "AccessHistoryFixture.h"
#include "analysis/Detector.h"
#include "events/Trace.h"
#include "support/DescribeRaces.h"
#include "support/EnvNumber.h"

namespace predatar {
namespace {

std::string describe(const std::vector<PackedRecord>& records) {
  std::ostringstream out;
  for (const PackedRecord& r : records)
    out << "(" << r.seqAndKind << " " << r.block << " " << r.thread << " " << r.clock << " " << r.pc << " "
        << r.launch << ")";
  return out.str();
}

class PageReadsTest : public AccessHistoryFixture {
 protected:
  static constexpr uint32_t kThreads = 128, kBlocks = 8, kPages = 3, kFillerPages = 40;
  static constexpr uint64_t kFirstKey = 0x10000, kFillerKey = 0x100000;
  static constexpr uint32_t kWords = ShadowPages::kWordsPerPage;

  void start(uint32_t seed) {
    rng_.seed(seed);
    firstLaunch(kBlocks, kThreads, {&lanes_, &pages_});
    resetThreads();
  }
  void resetThreads() {
    now_.assign(kBlocks * kThreads, 1);
    view_.assign(kBlocks * kThreads, std::vector<Clock>(kBlocks * kThreads, 0));
    exited_.assign(kBlocks, false);
  }
  uint32_t pick(uint32_t n) { return uint32_t(rng_() % n); }
  uint32_t liveBlock() {
    for (;;)
      if (uint32_t b = pick(kBlocks); !exited_[b]) return b;
  }
  auto orderedFor(uint32_t block, uint32_t thread) {
    return [this, accessor = block * kThreads + thread](const AccessRecord& r) {
      return r.clock <= view_[accessor][r.block * kThreads + r.thread];
    };
  }
  AccessRecord lane(const AccessRecord& common, uint32_t thread) {
    AccessRecord r = common;
    r.thread = thread;
    r.clock = now_[common.block * kThreads + thread];
    return r;
  }
  void both(uint64_t key, const AccessRecord& r) {
    for (Side* side : {lanes_.get(), pages_.get()}) side->history.access(key, r, orderedFor(r.block, r.thread), side->log);
  }

  // Lanes of a warp read a page's words in order, 4, 8 or 16 bytes each
  // (16, 8 or 4 lanes): lane by lane on one side, through pageReads (lane
  // by lane where it declines) on the other.
  void pageRead(uint64_t seq) {
    AccessRecord common;
    // Mostly the next warp in (block, warp) order, as blocks run in turn;
    // sometimes any. Some of its lanes read.
    uint32_t warps = kThreads / 32;
    if (pick(10)) {
      do {
        if (++reader_ == kBlocks * warps) {  // (every block read: the next launch's turn)
          nextLaunch();
          reader_ = 0;
        }
      } while (exited_[reader_ / warps]);
    } else {
      reader_ = liveBlock() * warps + pick(warps);
    }
    common.block = reader_ / warps;
    common.type = AccessType::Read;
    common.origin.pc = pick(10) ? 1 : 2;  // (a page's layers are of one instruction)
    common.origin.seq = seq;
    common.beforeDependencyWait = pick(16) == 0;
    // (Mostly one size a page: a page's layers are of one element size.)
    uint32_t page = pick(kPages + 1), elementBytes = pick(16) ? 4u << page % 3 : 4u << pick(3);
    uint32_t lanes = 4 * kWords / elementBytes, wordsPerLane = elementBytes / 4;
    uint32_t first = reader_ % warps * 32 + pick(32 / lanes) * lanes;
    uint64_t key = page < kPages ? kFirstKey + kWords * page : sharedKey(common.block);
    AccessHistory::LaneEpoch epochs[kWords];
    auto laneByLane = [&](Side& side, uint32_t i) {
      AccessRecord r = lane(common, first + i);
      for (uint32_t w = 0; w < wordsPerLane; ++w)
        side.history.access(key + i * wordsPerLane + w, r, orderedFor(r.block, r.thread), side.log);
    };
    for (uint32_t i = 0; i < lanes; ++i) {
      epochs[i] = {first + i, now_[common.block * kThreads + first + i]};
      laneByLane(*lanes_, i);
    }
    uint32_t taken = pages_->history.pageReads(key, common, epochs, elementBytes);
    taken_ += uint32_t(std::popcount(taken));
    for (uint32_t i = 0; i < lanes; ++i)
      if (!((taken >> i) & 1)) laneByLane(*pages_, i);
  }
  // The first word of a page of `block`'s shared memory.
  static uint64_t sharedKey(uint32_t block) { return locationKey(MemorySpace::Shared, block, 0x400); }
  // A __syncthreads of a whole block: its shared words' records go.
  void barrier() {
    uint32_t b = liveBlock();
    for (Side* side : {lanes_.get(), pages_.get()}) side->history.barrier(b, kThreads);
    for (uint32_t t = b * kThreads; t < (b + 1) * kThreads; ++t)
      for (uint32_t u = b * kThreads; u < (b + 1) * kThreads; ++u) view_[t][u] = std::max(view_[t][u], now_[u]);
    for (uint32_t t = b * kThreads; t < (b + 1) * kThreads; ++t) ++now_[t];
  }
  // Every word the test reads or writes, shared pages included.
  std::vector<uint64_t> keys() const {
    std::vector<uint64_t> k;
    for (uint64_t key = kFirstKey; key < kFirstKey + kPages * kWords; ++key) k.push_back(key);
    for (uint32_t b = 0; b < kBlocks; ++b)
      for (uint32_t i = 0; i < kWords; ++i) k.push_back(sharedKey(b) + i);
    return k;
  }
  // One thread writes, or reads atomically, a word of a page.
  void single(uint64_t seq) {
    AccessRecord common;
    common.block = liveBlock();
    common.type = pick(2) ? AccessType::Write : AccessType::Read;
    common.strong = common.type == AccessType::Read || pick(3) == 0;
    common.scope = Scope::Device;
    common.origin.pc = 3 + pick(2);
    common.origin.seq = seq;
    uint32_t word = pick((kPages + 1) * kWords);
    uint64_t key = word < kPages * kWords ? kFirstKey + word : sharedKey(common.block) + word % kWords;
    if (key >> 63) common.scope = Scope::Block;
    both(key, lane(common, pick(kThreads)));
  }
  // Pages left behind: the test's pages are compressed (ShadowPages::leave).
  void leavePages(uint64_t seq) {
    AccessRecord common;
    common.type = AccessType::Write;
    common.origin.pc = 9;
    common.origin.seq = seq;
    for (uint64_t page = 0; page < kFillerPages; ++page)
      for (uint32_t i = 0; i < kWords; ++i) both(kFillerKey + kWords * page + i, lane(common, i));
  }
  // Epochs end and views grow: a warp ticks (its lanes keep one clock, as a
  // layer needs), a thread takes another's view and time and the other's
  // warp ticks, or now and then a thread alone ticks.
  void synchronize() {
    uint32_t t = pick(kBlocks * kThreads), u = pick(kBlocks * kThreads);
    auto warpTicks = [&](uint32_t thread) {
      for (uint32_t i = thread / 32 * 32; i < thread / 32 * 32 + 32; ++i) ++now_[i];
    };
    uint32_t what = pick(20);
    if (what == 0) {
      ++now_[t];
    } else if (what < 10) {
      warpTicks(t);
    } else {
      for (size_t i = 0; i < view_[t].size(); ++i) view_[t][i] = std::max(view_[t][i], view_[u][i]);
      view_[t][u] = std::max(view_[t][u], now_[u]);
      warpTicks(u);
    }
  }
  // Every thread of a block exits: its reads become interchangeable.
  void finishBlock() {
    uint32_t b = liveBlock();
    exited_[b] = true;
    for (Side* side : {lanes_.get(), pages_.get()})
      for (uint32_t warp = 0; warp < kThreads / 32; ++warp) {
        ExitEvent e;
        e.lanes = {b, warp, ~LaneMask(0)};
        side->history.exited(e);
      }
    if (std::find(exited_.begin(), exited_.end(), false) == exited_.end()) nextLaunch();
  }
  void nextLaunch() {
    uint32_t previous = kernel_.launch++;
    // (The previous launch's records stay when it may race with this one or
    // a later one: another stream's, or not yet waited for.)
    kernel_.liveLaunches = {kernel_.launch};
    kernel_.unorderedLaunches.clear();
    if (pick(2)) kernel_.liveLaunches = {previous, kernel_.launch};
    if (pick(2)) kernel_.unorderedLaunches = {previous};
    for (Side* side : {lanes_.get(), pages_.get()}) side->history.beginLaunch(kernel_);
    resetThreads();
  }

  std::mt19937 rng_;
  std::unique_ptr<Side> lanes_, pages_;
  std::vector<Clock> now_;
  std::vector<std::vector<Clock>> view_;
  std::vector<bool> exited_;
  uint64_t taken_ = 0;
  uint32_t reader_ = 0;  // the last warp to read: block * warps + warp
};

TEST_F(PageReadsTest, SameRecordsAndRacesAsLaneByLane) {
  uint64_t events = 0;
  const uint64_t first = testsupport::envNumber("PREDATAR_PAGE_FIRST_SEED", 0);
  for (uint64_t seed = first; seed < first + testsupport::envNumber("PREDATAR_PAGE_SEEDS", 30); ++seed) {
    start(uint32_t(seed));
    for (uint64_t seq = 1; seq <= 400; ++seq, ++events) {
      uint32_t what = pick(100);
      if (what < 60) pageRead(seq);
      else if (what < 62) single(seq);
      else if (what < 78) leavePages(seq);
      else if (what < 90) synchronize();
      else if (what < 95) barrier();
      else if (what < 98) finishBlock();
      else nextLaunch();
      for (uint64_t key : keys())
        ASSERT_EQ(describe(lanes_->history.recordsOf(key)), describe(pages_->history.recordsOf(key)))
            << "seed " << seed << ", event " << seq << ", word " << key;
      ASSERT_EQ(testsupport::describeRaces(lanes_->log), testsupport::describeRaces(pages_->log))
          << "seed " << seed << ", event " << seq;
      ASSERT_EQ(lanes_->history.records(), pages_->history.records()) << "seed " << seed << ", event " << seq;
    }
  }
  // (A page path that never ran would pass the comparisons vacuously.)
  EXPECT_GT(taken_, events / 2);  // (lanes: 4 to 16 a read)
  RecordProperty("page reads taken", std::to_string(taken_));
}

// The common case, checked step by step: blocks in turn read a page, which
// compresses when left; each later block's half-warp appends a layer.
TEST_F(PageReadsTest, LaterBlocksAppendLayersToACompressedPage) {
  start(0);
  for (uint32_t b = 0; b < 6; ++b) {
    AccessRecord common;
    common.block = b;
    common.type = AccessType::Read;
    common.origin.pc = 1;
    common.origin.seq = 100 + b;
    AccessHistory::LaneEpoch epochs[kWords];
    for (uint32_t i = 0; i < kWords; ++i) epochs[i] = {i, 1};
    EXPECT_EQ(pages_->history.pageReads(kFirstKey, common, epochs), 0xffffu);  // (the first: empty words)
    // Not expanded: a word of several records would hold them on the heap.
    EXPECT_EQ(pages_->history.recordHeapBytes(), 0);
    EXPECT_EQ(pages_->history.recordsOf(kFirstKey + 5).size(), b + 1);
    leavePages(200 + b);  // (it compresses)
  }
  EXPECT_EQ(pages_->history.records(), 6u * kWords + kFillerPages * kWords);
  EXPECT_EQ(pages_->log.races().size(), 0u);
}

// A tiled kernel's trace: blocks in turn, each warp reading a row of a
// global array a round (two pages of floats, 16 lanes a page, or four of
// doubles, 8 lanes a page), the pages
// shared by the blocks, then a tile in shared memory whose rows warps read
// (some by both, in either order); among the reads,
// random racy writes and atomics, missing __syncthreads, and critical
// sections (gwcp's per-lane path).
Trace tiledReads(uint64_t seed) {
  std::mt19937 rng{uint32_t(seed)};
  auto pick = [&](uint32_t n) { return uint32_t(rng() % n); };
  constexpr uint32_t kBlocks = 8, kWarps = 2, kPairs = 24, kRounds = 12;
  constexpr uint64_t kArray = 0x10000;
  Trace trace;
  trace.kernel.name = "tiled";
  trace.kernel.grid = Dim3{kBlocks, 1, 1};
  trace.kernel.block = Dim3{kWarps * 32, 1, 1};
  trace.kernel.launch = 1;
  uint64_t seq = 0;
  auto memory = [&](uint32_t block, uint32_t warp, LaneMask mask, AccessType type, bool strong, uint64_t pc,
                    auto&& address, MemorySpace space = MemorySpace::Global, uint8_t size = 4) {
    MemoryEvent m;
    m.space = space;
    m.size = size;
    if (space == MemorySpace::Shared) m.scope = Scope::Block;
    m.lanes = {block, warp, mask};
    m.type = type;
    m.strong = strong;
    m.op = strong && type != AccessType::Read ? AtomicOp::Add : AtomicOp::None;
    for (uint32_t lane = 0; lane < 32; ++lane) m.address[lane] = address(lane);
    m.origin.pc = pc;
    m.origin.seq = ++seq;
    trace.events.push_back(m);
  };
  auto barrier = [&](uint32_t block) {  // (__syncthreads of the whole block)
    BarrierEvent b;
    b.block = block;
    for (uint32_t t = 0; t < kWarps * 32; ++t) b.threads.push_back(t);
    b.origin.seq = ++seq;
    trace.events.push_back(b);
  };
  for (uint32_t block = 0; block < kBlocks; ++block) {
    for (uint32_t round = 0; round < kRounds; ++round) {
      for (uint32_t warp = 0; warp < kWarps; ++warp) {
        uint64_t pair = (round * kWarps + warp + pick(3)) % kPairs;
        LaneMask mask = pick(10) ? ~LaneMask(0) : LaneMask(0xffff) << 16 * pick(2);
        bool locked = pick(8) == 0;
        LockEvent lock;
        lock.lanes = {block, warp, mask};
        lock.lock.fill(7);
        if (locked) {
          lock.origin.seq = ++seq;
          trace.events.push_back(AcquireEvent{lock});
        }
        // (A third of the rows are of doubles: a warp reads four pages, 8 lanes a page.)
        uint32_t size = pair % 3 == 0 ? 8 : 4;
        memory(block, warp, mask, AccessType::Read, false, 10,
               [&](uint32_t lane) { return kArray + 256 * pair + size * lane; }, MemorySpace::Global, size);
        if (locked) {
          lock.origin.seq = ++seq;
          trace.events.push_back(ReleaseEvent{lock});
        }
        if (pick(30) == 0) {  // one thread writes, or updates atomically, a word of the array
          bool atomic = pick(2);
          uint64_t word = pick(kPairs) * 64 + pick(32);
          memory(block, warp, 1u << pick(32), atomic ? AccessType::AtomicRmw : AccessType::Write, atomic, 20,
                 [&](uint32_t) { return kArray + 4 * word; });  // (of the rows' first halves)
        }
      }
      // A shared tile: each warp writes its row; after a __syncthreads
      // (missing now and then: races), warps read each other's rows.
      auto sharedRow = [](uint32_t row) { return [row](uint32_t lane) { return 128 * row + 4 * lane; }; };
      // (and a tile of doubles beside it: 8-byte lanes, and an element every
      // lane reads, As[w][k] in a GEMM of doubles: a run over two words)
      auto doubleRow = [](uint32_t row) { return [row](uint32_t lane) { return 0x1000 + 256 * row + 8 * lane; }; };
      for (uint32_t warp = 0; warp < kWarps; ++warp) {
        memory(block, warp, ~LaneMask(0), AccessType::Write, false, 30, sharedRow(warp), MemorySpace::Shared);
        memory(block, warp, ~LaneMask(0), AccessType::Write, false, 32, doubleRow(warp), MemorySpace::Shared, 8);
      }
      if (pick(6)) barrier(block);
      for (uint32_t warp = 0; warp < kWarps; ++warp) {
        memory(block, warp, ~LaneMask(0), AccessType::Read, false, 31, sharedRow((warp + round) % kWarps),
               MemorySpace::Shared);
        uint64_t k = 0x1000 + 256 * pick(kWarps) + 8 * pick(32);
        for (uint32_t step = 0; step < 2; ++step)
          memory(block, warp, pick(4) ? ~LaneMask(0) : ~LaneMask(0) << pick(32), AccessType::Read, false, 33,
                 [k](uint32_t) { return k; }, MemorySpace::Shared, 8);
        memory(block, warp, ~LaneMask(0), AccessType::Read, false, 34, doubleRow((warp + round) % kWarps),
               MemorySpace::Shared, 8);
      }
      // (Rows read again, by the same instruction: a row read by an earlier
      // warp, whole, takes the next warp's reads as a layer of a compressed
      // page, as a GEMM's tile row; by the same warp or an earlier one not.)
      for (uint32_t warp = 0; warp < kWarps; ++warp)
        if (pick(2))
          memory(block, warp, ~LaneMask(0), AccessType::Read, false, 31, sharedRow(pick(kWarps)), MemorySpace::Shared);
      if (pick(3) == 0) barrier(block);
    }
    for (uint32_t warp = 0; warp < kWarps; ++warp) {
      ExitEvent e;
      e.lanes = {block, warp, ~LaneMask(0)};
      e.origin.seq = ++seq;
      trace.events.push_back(e);
    }
  }
  return trace;
}

// The detectors on tiled reads, with the page path (and the runs of
// readInRuns) and without: the same races, every field, and the same events
// counted. (Not the same peak shadow: a page the path appends to stays
// compressed, where the per-lane path expands it.)
TEST(PageReadsDetectors, SameReportsWithAndWithout) {
  uint32_t races = 0, sharedRaces = 0, doubleRaces = 0;
  const uint64_t first = testsupport::envNumber("PREDATAR_PAGE_FIRST_SEED", 0);
  const uint64_t seeds = testsupport::envNumber("PREDATAR_PAGE_SEEDS", 100);
  for (const char* name : {"gwcp", "hb"}) {
    for (uint64_t seed = first; seed < first + seeds; ++seed) {
      Trace trace = tiledReads(seed);
      std::string reports[2];
      for (bool oneStep : {false, true}) {
        DetectorOptions options;
        options.sameWordReads = oneStep;
        std::unique_ptr<Detector> d = makeDetector(name, options);
        replay(trace, *d);
        reports[oneStep] = testsupport::describeRaces(d->races()) + std::to_string(d->stats().events);
      }
      ASSERT_EQ(reports[0], reports[1]) << name << ", seed " << seed;
      races += reports[0].find("pc 10") != std::string::npos;
      sharedRaces += reports[0].find("pc 31") != std::string::npos;
      doubleRaces += reports[0].find("pc 33") != std::string::npos;
    }
  }
  // (Reads among the races, on global and shared pages: the page path
  // declines on their words. Checked over the default seeds or more, not a
  // replay of one.)
  if (seeds < 100) return;
  EXPECT_GT(races, 20u);
  EXPECT_GT(sharedRaces, 20u);
  EXPECT_GT(doubleRaces, 20u);
}

}  // namespace
}  // namespace predatar
