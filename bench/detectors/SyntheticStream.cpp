#include "SyntheticStream.h"

#include <algorithm>
#include <cmath>

namespace predatar::bench {

const char* toString(Shape shape) {
  switch (shape) {
    case Shape::BarrierStencil: return "barrier-stencil";
    case Shape::LockHeavy: return "lock-heavy";
    case Shape::AtomicsHeavy: return "atomics-heavy";
    case Shape::WarpLock: return "warp-lock";
    case Shape::BlockLocks: return "block-locks";
    case Shape::SlotLocks: return "slot-locks";
    case Shape::GridSync: return "grid-sync";
    case Shape::TiledGemm: return "tiled-gemm";
  }
  return "?";
}

namespace {

constexpr uint64_t kSlotLocks = 8192, kInput = 1ull << 40, kOutput = 2ull << 40, kCounter = 3ull << 40, kBins = 4ull << 40;

class Generator {
 public:
  Generator(const StreamSpec& spec, EventSink& sink) : spec_(spec), sink_(sink) {
    blocks_ = uint32_t(std::max<uint64_t>(1, spec.threads / spec.blockSize));
    warps_ = (spec.blockSize + 31) / 32;
  }

  uint64_t run() {
    KernelInfo k;
    k.name = toString(spec_.shape);
    k.grid = {blocks_, 1, 1};
    k.block = {spec_.blockSize, 1, 1};
    sink_.kernelBegin(k);
    if (spec_.shape == Shape::GridSync) {
      // (as many grid syncs as the other shapes' rounds: events grow as blocks^2)
      uint64_t syncs = std::max<uint64_t>(1, spec_.targetEvents / (uint64_t(blocks_) * warps_ * 5));
      for (uint32_t round = 0; round < syncs; ++round) gridSync(round);
      if (spec_.exits)
        for (uint32_t b = 0; b < blocks_; ++b) exitBlock(b);
    } else if (spec_.blocksInTurn) {
      uint64_t perBlock = (spec_.targetEvents + blocks_ - 1) / blocks_;
      for (uint32_t b = 0; b < blocks_; ++b) {
        for (uint64_t start = events_, round = 0; events_ - start < perBlock; ++round) block(b, uint32_t(round));
        if (spec_.exits) exitBlock(b);
      }
    } else {
      for (uint32_t round = 0; events_ < spec_.targetEvents; ++round) {
        for (uint32_t b = 0; b < blocks_ && events_ < spec_.targetEvents; ++b) block(b, round);
      }
      if (spec_.exits)
        for (uint32_t b = 0; b < blocks_; ++b) exitBlock(b);
    }
    sink_.kernelEnd();
    return events_;
  }

 private:
  void exitBlock(uint32_t b) {
    for (uint32_t w = 0; w < warps_; ++w) {
      sink_.exit(ExitEvent{{b, w, fullMask(w)}, {events_, 400, Origin::kNoSource}});
      ++events_;
    }
  }
  LaneMask fullMask(uint32_t warp) const {
    uint32_t lanes = std::min<uint32_t>(32, spec_.blockSize - warp * 32);
    return lanes == 32 ? ~0u : ((1u << lanes) - 1);
  }
  uint64_t globalThread(uint32_t b, uint32_t warp, uint32_t lane) const {
    return uint64_t(b) * spec_.blockSize + warp * 32 + lane;
  }
  void access(uint32_t b, uint32_t warp, LaneMask mask, AccessType type, MemorySpace space, uint64_t base,
              int64_t offset, bool perLane, uint32_t pc, bool strong = false, int rotate = -1) {
    MemoryEvent e;
    e.lanes = {b, warp, mask};
    e.type = type;
    e.space = space;
    e.strong = strong || type == AccessType::AtomicRmw;
    e.scope = Scope::Device;
    for (uint32_t lane = 0; lane < 32; ++lane) {
      int64_t index = rotate >= 0 ? (lane + rotate) % 32 : perLane ? int64_t(space == MemorySpace::Shared ? warp * 32 + lane : globalThread(b, warp, lane)) + offset : offset;
      e.address[lane] = base + 4 * uint64_t(std::max<int64_t>(index, 0));
    }
    e.origin = {events_, pc, Origin::kNoSource};
    sink_.memory(e);
    ++events_;
  }
  void fence(uint32_t b) {
    sink_.fence(FenceEvent{{b, 0, 1}, Scope::Device, {events_, 64, Origin::kNoSource}});
    ++events_;
  }
  // One grid.sync() as cooperative groups compiles it, between a write of
  // every thread's word and a read of the next block's (ordered by it).
  // Thread 0's atom.add.release is a fence and an RMW, its spin's
  // ld.acquire a strong read and a fence; each block spins (reads again)
  // after each later block's arrival, as the round-robin schedule runs them.
  void gridSync(uint32_t round) {
    uint64_t words = kOutput + (round % 2) * (1ull << 36), counter = kCounter + 64;
    for (uint32_t b = 0; b < blocks_; ++b)
      for (uint32_t w = 0; w < warps_; ++w)
        access(b, w, fullMask(w), AccessType::Write, MemorySpace::Global, words, 0, true, 60);
    for (uint32_t b = 0; b < blocks_; ++b) {
      barrier(b);
      fence(b);
      access(b, 0, 1, AccessType::AtomicRmw, MemorySpace::Global, counter, 0, false, 61);
      for (uint32_t spinner = 0; spinner < b; ++spinner) {
        access(spinner, 0, 1, AccessType::Read, MemorySpace::Global, counter, 0, false, 62, /*strong=*/true);
        fence(spinner);
      }
    }
    for (uint32_t b = 0; b < blocks_; ++b) {  // the read that sees every arrival
      access(b, 0, 1, AccessType::Read, MemorySpace::Global, counter, 0, false, 62, /*strong=*/true);
      fence(b);
      barrier(b);
    }
    for (uint32_t b = 0; b < blocks_; ++b) {
      int64_t next = b + 1 < blocks_ ? int64_t(spec_.blockSize) : -int64_t(b) * spec_.blockSize;
      for (uint32_t w = 0; w < warps_; ++w)
        access(b, w, fullMask(w), AccessType::Read, MemorySpace::Global, words, next, true, 63);
    }
  }
  // A warp's event whose lane l accesses address(l).
  template <class AddressFn>
  void warpAccess(uint32_t b, uint32_t warp, AccessType type, MemorySpace space, uint32_t pc, AddressFn&& address) {
    MemoryEvent e;
    e.lanes = {b, warp, fullMask(warp)};
    e.type = type;
    e.space = space;
    for (uint32_t lane = 0; lane < 32; ++lane) e.address[lane] = address(lane);
    e.origin = {events_, pc, Origin::kNoSource};
    sink_.memory(e);
    ++events_;
  }
  // One tile of C = A B (Shape::TiledGemm): n x n matrices, n = 32 x the
  // grid's columns (the grid's square part: a block computes a 32 x 32
  // tile of C when it has 32 warps), so a block's first n / 32 rounds are
  // its whole product.
  void tiledGemm(uint32_t b, uint32_t round) {
    constexpr uint64_t kA = kInput, kB = kInput + (1ull << 36);
    uint32_t columns = std::max(1u, uint32_t(std::sqrt(double(blocks_))));
    uint64_t kRow = 32ull * columns, row = b / columns % columns, column = b % columns, tile = round % columns;
    uint64_t bs = 4 * 32 * warps_;  // (Bs after As in shared memory)
    for (uint32_t w = 0; w < warps_; ++w) {
      warpAccess(b, w, AccessType::Read, MemorySpace::Global, 70,
                 [&](uint32_t l) { return kA + 4 * ((row * warps_ + w) % kRow * kRow + tile * 32 + l); });
      warpAccess(b, w, AccessType::Write, MemorySpace::Shared, 71, [&](uint32_t l) { return 4 * (w * 32 + l); });
      warpAccess(b, w, AccessType::Read, MemorySpace::Global, 72,
                 [&](uint32_t l) { return kB + 4 * ((tile * 32 + w) % kRow * kRow + column * 32 + l); });
      warpAccess(b, w, AccessType::Write, MemorySpace::Shared, 73, [&](uint32_t l) { return bs + 4 * (w * 32 + l); });
    }
    barrier(b);
    for (uint32_t k = 0; k < 32; ++k)
      for (uint32_t w = 0; w < warps_; ++w) {
        warpAccess(b, w, AccessType::Read, MemorySpace::Shared, 74, [&](uint32_t) { return 4 * (w * 32 + k); });
        warpAccess(b, w, AccessType::Read, MemorySpace::Shared, 75,
                   [&](uint32_t l) { return bs + 4 * (k % warps_ * 32 + l); });
      }
    barrier(b);
  }
  void barrier(uint32_t b) {
    BarrierEvent e{b, {}, {}, {events_, 100, Origin::kNoSource}};
    e.threads.resize(spec_.blockSize);
    for (uint32_t t = 0; t < spec_.blockSize; ++t) e.threads[t] = t;
    sink_.barrier(e);
    ++events_;
  }
  void lock(uint32_t b, uint32_t warp, uint32_t lane, Scope scope, uint64_t id, bool acquire) {
    LockEvent e{{b, warp, 1u << lane}, scope, {}, {events_, acquire ? 200u : 201u, Origin::kNoSource}};
    e.lock.fill(id);
    acquire ? sink_.acquire(e) : sink_.release(e);
    ++events_;
  }
  // Every lane of `warp` takes (or releases) the block lock of shared slot
  // (lane + shift) % 32 of block b, ids and blockLocal as the emulator makes them.
  void slotLocks(uint32_t b, uint32_t warp, uint32_t shift, bool acquire) {
    LockEvent e{{b, warp, fullMask(warp)}, Scope::Block, {}, {events_, acquire ? 210u : 211u, Origin::kNoSource}};
    e.blockLocal = fullMask(warp);
    for (uint32_t lane = 0; lane < 32; ++lane)
      e.lock[lane] = (uint64_t(1) << 62) | (uint64_t(b) << 32) | (kSlotLocks + 4 * ((lane + shift) % 32));
    acquire ? sink_.acquire(e) : sink_.release(e);
    ++events_;
  }

  void block(uint32_t b, uint32_t round) {
    switch (spec_.shape) {
      case Shape::BarrierStencil:
        for (uint32_t w = 0; w < warps_; ++w)
          access(b, w, fullMask(w), AccessType::Read, MemorySpace::Global, kInput, 0, true, 1);
        for (uint32_t w = 0; w < warps_; ++w)
          access(b, w, fullMask(w), AccessType::Write, MemorySpace::Shared, 0, 1, true, 2);
        barrier(b);
        for (uint32_t w = 0; w < warps_; ++w) {
          access(b, w, fullMask(w), AccessType::Read, MemorySpace::Shared, 0, 0, true, 3);
          access(b, w, fullMask(w), AccessType::Read, MemorySpace::Shared, 0, 2, true, 4);
          access(b, w, fullMask(w), AccessType::Write, MemorySpace::Global, kOutput + (round % 2) * (1ull << 36), 0,
                 true, 5);
        }
        barrier(b);
        break;
      case Shape::LockHeavy:
        // One thread per warp per round takes the device lock (as real code
        // serializes lock holders), updates the counter, releases.
        for (uint32_t w = 0; w < warps_; ++w) {
          uint32_t lane = round % 32;
          if (!((fullMask(w) >> lane) & 1)) continue;
          lock(b, w, lane, Scope::Device, 1, true);
          access(b, w, 1u << lane, AccessType::Read, MemorySpace::Global, kCounter, 0, false, 10);
          access(b, w, 1u << lane, AccessType::Write, MemorySpace::Global, kCounter, 0, false, 11);
          lock(b, w, lane, Scope::Device, 1, false);
          access(b, w, fullMask(w), AccessType::Read, MemorySpace::Global, kInput, 0, true, 12);
        }
        break;
      case Shape::AtomicsHeavy:
        for (uint32_t w = 0; w < warps_; ++w) {
          access(b, w, fullMask(w), AccessType::Read, MemorySpace::Global, kInput + round * (1ull << 30), 0, true, 20);
          access(b, w, fullMask(w), AccessType::AtomicRmw, MemorySpace::Global, kBins, (w + round) % 64, false, 21);
        }
        break;
      case Shape::BlockLocks:
        // One k step of a tile: every warp in turn updates C[lane] under lock lane.
        for (uint32_t w = 0; w < warps_; ++w) {
          access(b, w, fullMask(w), AccessType::Read, MemorySpace::Global, kInput + round * (1ull << 30), 0, true, 40);
          slotLocks(b, w, 0, true);
          access(b, w, fullMask(w), AccessType::Read, MemorySpace::Shared, 0, 0, true, 41, false, 0);
          access(b, w, fullMask(w), AccessType::Write, MemorySpace::Shared, 0, 0, true, 42, false, 0);
          slotLocks(b, w, 0, false);
        }
        if (round % 8 == 7) {  // end of a tile: __syncthreads, lane 0 adds the block's part
          barrier(b);
          lock(b, 0, 0, Scope::Device, 2, true);
          access(b, 0, 1, AccessType::Read, MemorySpace::Global, kCounter, 0, false, 43);
          access(b, 0, 1, AccessType::Write, MemorySpace::Global, kCounter, 0, false, 44);
          lock(b, 0, 0, Scope::Device, 2, false);
        }
        break;
      case Shape::SlotLocks:
        for (uint32_t w = 0; w < warps_; ++w) {
          uint32_t shift = (round + w) % 32;
          slotLocks(b, w, shift, true);
          access(b, w, fullMask(w), AccessType::Read, MemorySpace::Shared, 0, 0, true, 50, false, int(shift));
          access(b, w, fullMask(w), AccessType::Write, MemorySpace::Shared, 0, 0, true, 51, false, int(shift));
          slotLocks(b, w, shift, false);
        }
        break;
      case Shape::GridSync: break;  // (gridSync: the whole grid at once)
      case Shape::TiledGemm:
        tiledGemm(b, round);
        break;
      case Shape::WarpLock:
        for (uint32_t w = 0; w < warps_; ++w) {
          SyncWarpEvent sync{{b, w, fullMask(w)}, {events_, 300, Origin::kNoSource}};
          lock(b, w, 0, Scope::Block, 1000 + w, true);
          sink_.syncWarp(sync), ++events_;
          access(b, w, fullMask(w), AccessType::Write, MemorySpace::Shared, 4096, 0, true, 30);
          sync.origin.seq = events_;
          sink_.syncWarp(sync), ++events_;
          lock(b, w, 0, Scope::Block, 1000 + w, false);
        }
        break;
    }
  }

  const StreamSpec& spec_;
  EventSink& sink_;
  uint32_t blocks_, warps_;
  uint64_t events_ = 0;
};

}  // namespace

uint64_t generate(const StreamSpec& spec, EventSink& sink) { return Generator(spec, sink).run(); }

}  // namespace predatar::bench
