// Synthetic event streams shaped like real kernels, generated on the fly (a
// stream of 10^7 warp events is never stored), for the detector benchmarks.
#pragma once

#include <cstdint>
#include <string>

#include "events/EventSink.h"

namespace predatar::bench {

enum class Shape {
  BarrierStencil,  // shared-memory stencil: load, __syncthreads, neighbours, __syncthreads, store
  LockHeavy,       // every thread updates a global counter under a device-scoped lock
  AtomicsHeavy,    // histogram: device-scoped atomics on a few bins, plain reads of input
  WarpLock,        // lane 0 takes a block lock for its warp, __syncwarp, warp updates, release
  BlockLocks,      // lock-heavy matmul: lane l of every warp takes block lock l (shared memory, 4 warps
                   // contend), updates shared C[l]; every 8 rounds (a tile) __syncthreads, then lane 0 of
                   // warp 0 adds to a global sum under a device lock
  SlotLocks,       // per-slot block-scoped CAS locks in shared memory: every thread, for 8 slots in turn,
                   // takes slot (thread + k) % 32's lock and updates it (slots shared by the block's warps)
  GridSync,        // cooperative groups' grid.sync() between writing one's words and reading the next
                   // block's: __syncthreads; thread 0 of each block in turn adds to the barrier word
                   // (release) and every block already there reads it again (acquire); __syncthreads.
                   // Always every block's round in turn (blocksInTurn does not apply: all are resident)
  TiledGemm,       // the CUDA samples' tiled matrix product: a round is a tile; warp w loads row w of the
                   // block's A and B tiles to shared As and Bs, __syncthreads, reads As[w][k] (a broadcast)
                   // and Bs[k][lane] for each k, __syncthreads; a grid row's blocks share A's tiles, a grid
                   // column's B's
};

const char* toString(Shape shape);

struct StreamSpec {
  Shape shape = Shape::BarrierStencil;
  uint64_t threads = 1 << 14;      // rounded to whole blocks of `blockSize`
  uint32_t blockSize = 256;
  uint64_t targetEvents = 1 << 20; // rounds continue until at least this many events
  bool exits = false;              // every warp exits at the end (as emulated kernels do)
  // Blocks in turn: each block's rounds, then its exits, before the next
  // block's first (how predatar's round-robin schedule runs a wave); else
  // every block's first round, then every block's second, ...
  bool blocksInTurn = false;
};

// Feeds kernelBegin, the events, kernelEnd; returns the number of events.
uint64_t generate(const StreamSpec& spec, EventSink& sink);

}  // namespace predatar::bench
