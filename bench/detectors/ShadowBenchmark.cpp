// Shadow pages under a stream like a coalesced kernel's (NVIDIA's scan:
// uint4 loads, a million pages filled and compressed between two
// synchronizations): each warp's 32 lanes write their element's records,
// word by word, into consecutive pages, which are then left, fitted to a
// pattern and kept compressed; the shadow is cleared at the end (a device
// synchronization). Reports pages per second and how many compression kept.
//
// And pages that many blocks read in turn (a GEMM's tiles): each block's
// 16-byte loads add a reader to every page, which is expanded and fitted
// again. Reports reader-pages per second and the shadow's bytes a page.
//
// And a 3D stencil's input (FDTD3d): rows that start 4 words into a page,
// each read by its column's threads and again by the halo readers of the
// neighbouring blocks, so half of each row's pages hold two blocks' threads.
// Reports words per second, the shadow's bytes a word and the pages kept full.
//
// And a shared-memory tile with its halo (a Jacobi step, HSOpticalFlow's):
// block after block, each of the tile's words written by one thread and read
// by five (its own and its neighbours'), and the block's shared words erased
// when it finishes. Reports words per second.
//
// And a wavefront over a shared tile (Rodinia's needle): a block writes a
// 16 x 16 tile, then one anti-diagonal of a 17 x 17 tile beside it in each
// of 31 intervals; at each of the 32 __syncthreads the block's shared words
// are erased, pages kept. Reports barriers per second.
//
//   build/bench/shadow_benchmark [--benchmark_filter=...]
#include <benchmark/benchmark.h>

#include <algorithm>

#include "analysis/ShadowPages.h"

namespace predatar {
namespace {

// Args: element bytes (4, 8 or 16), pages.
void BM_ShadowPagesFillAndCompress(benchmark::State& state) {
  const uint32_t elementBytes = uint32_t(state.range(0));
  const uint64_t pages = uint64_t(state.range(1));
  const uint64_t words = pages * ShadowPages::kWordsPerPage;
  const uint32_t wordsPerElement = elementBytes / 4;
  uint64_t compressed = 0;
  for (auto _ : state) {
    ShadowPages shadow;
    uint64_t seq = 1;
    for (uint64_t firstWord = 0; firstWord < words; firstWord += 32 * wordsPerElement, ++seq) {
      for (uint32_t lane = 0; lane < 32; ++lane) {
        uint32_t thread = uint32_t(firstWord / wordsPerElement) + lane;
        for (uint32_t w = 0; w < wordsPerElement; ++w) {
          Records& r = shadow.at(firstWord + lane * wordsPerElement + w);
          r.push_back(PackedRecord::pack(thread / 1024, thread % 1024, 3, AccessType::Read, false, false,
                                         Scope::Device, 0xf, Origin{seq, 17, 5}, 1));
          shadow.filled();
        }
      }
    }
    shadow.settle();
    compressed = shadow.pages() - shadow.fullPages();
    shadow.clear();
  }
  state.SetItemsProcessed(int64_t(pages) * int64_t(state.iterations()));  // items: pages
  state.counters["compressed_pages"] = double(compressed);
}
BENCHMARK(BM_ShadowPagesFillAndCompress)
    ->ArgsProduct({{4, 8, 16}, {1 << 18}})
    ->Unit(benchmark::kMillisecond);

// Args: readers (blocks), pages. Block b reads every page in turn, four
// words a lane as 16-byte loads leave them, at its own clock and events.
void BM_ShadowPagesReadShared(benchmark::State& state) {
  const uint32_t readers = uint32_t(state.range(0));
  const uint64_t pages = uint64_t(state.range(1));
  uint64_t bytes = 0, full = 0;
  for (auto _ : state) {
    ShadowPages shadow;
    for (uint32_t b = 0; b < readers; ++b) {
      for (uint64_t page = 0; page < pages; ++page) {
        for (uint32_t i = 0; i < ShadowPages::kWordsPerPage; ++i) {
          Records& r = shadow.at(page * ShadowPages::kWordsPerPage + i);
          bool wasEmpty = r.empty();
          r.push_back(PackedRecord::pack(b, 96 + i / 4, 10 + b, AccessType::Read, false, false, Scope::Device, 0xf,
                                         Origin{1000 + b * pages + page, 9, 0}, 2));
          if (wasEmpty) shadow.filled();
        }
      }
      shadow.settle();
    }
    bytes = shadow.bytes();
    full = shadow.fullPages();
    shadow.clear();
  }
  state.SetItemsProcessed(int64_t(pages) * readers * int64_t(state.iterations()));  // items: a reader's page
  state.counters["bytes_per_page"] = double(bytes) / double(pages);
  state.counters["full_pages"] = double(full);
}
BENCHMARK(BM_ShadowPagesReadShared)->ArgsProduct({{8, 32, 64}, {1 << 14}})->Unit(benchmark::kMillisecond);

// FDTD3d's kernel on `planes` xy-planes of 12 x 8 blocks of 32 x 16 threads
// (rows of 384 words, the first 4 and the last 4 the halo's): block by block,
// each row of the block is read by its warp, the 4 words left and right of
// the block by lanes 0..3, and the rows 4 above and 16 below by the block's
// first 4 warps (rows of the neighbouring blocks). Args: planes.
void BM_ShadowPagesStencilRows(benchmark::State& state) {
  constexpr uint32_t kRowWords = 384, kHalo = 4, kBlocksX = 12, kBlocksY = 8, kBlockRows = 16;
  constexpr uint32_t kRows = kBlocksY * kBlockRows;
  const uint32_t planes = uint32_t(state.range(0));
  uint64_t bytes = 0, full = 0, words = 0;
  for (auto _ : state) {
    ShadowPages shadow;
    uint64_t seq = 1;
    auto read = [&](uint32_t plane, uint32_t row, uint32_t word, uint32_t block, uint32_t thread, uint32_t pc) {
      Records& r = shadow.at((uint64_t(plane) * kRows + row) * kRowWords + word);
      bool wasEmpty = r.empty();
      r.push_back(PackedRecord::pack(block, thread, 3, AccessType::Read, false, false, Scope::Device, 0xf,
                                     Origin{seq, pc, 5}, 1));
      if (wasEmpty) shadow.filled();
    };
    for (uint32_t plane = 0; plane < planes; ++plane)
      for (uint32_t by = 0; by < kBlocksY; ++by)
        for (uint32_t bx = 0; bx < kBlocksX; ++bx)
          for (uint32_t ty = 0; ty < kBlockRows; ++ty) {
            const uint32_t block = by * kBlocksX + bx, row = by * kBlockRows + ty, first = kHalo + 32 * bx;
            auto warpRead = [&](uint32_t onRow, uint32_t from, uint32_t lanes, uint32_t pc) {
              for (uint32_t lane = 0; lane < lanes && from + lane < kRowWords; ++lane)
                read(plane, onRow, from + lane, block, 32 * ty + lane, pc);
              ++seq;
            };
            warpRead(row, first, 32, 20);               // the column's reads
            warpRead(row, first - kHalo, kHalo, 30);    // left halo
            warpRead(row, first + 32, kHalo, 31);       // right halo
            if (ty < kHalo && row >= kHalo) warpRead(row - kHalo, first, 32, 32);              // above
            if (ty < kHalo && row + kBlockRows < kRows) warpRead(row + kBlockRows, first, 32, 33);  // below
          }
    shadow.settle();
    bytes = shadow.bytes() + uint64_t(std::max<int64_t>(recordHeapBytesOnThisThread, 0));
    full = shadow.fullPages();
    words = shadow.words();
    shadow.clear();
  }
  state.SetItemsProcessed(int64_t(words) * int64_t(state.iterations()));  // items: words
  state.counters["bytes_per_word"] = double(bytes) / double(words);
  state.counters["full_pages"] = double(full) / double(words / ShadowPages::kWordsPerPage);
}
BENCHMARK(BM_ShadowPagesStencilRows)->Arg(256)->Unit(benchmark::kMillisecond);

// One block's part of the shadow: its threads' block-scoped accesses to its
// shared words, erased at a __syncthreads (pages kept) or when it finishes.
struct SharedBlock {
  ShadowPages& shadow;
  uint32_t block;
  uint64_t& seq;  // the instruction of the accesses added

  uint64_t base() const { return (uint64_t(1) << 63) | (uint64_t(block) << 32); }
  void add(uint64_t word, uint32_t thread, AccessType type) {
    Records& r = shadow.at(base() + word);
    bool wasEmpty = r.empty();
    r.push_back(PackedRecord::pack(block, thread, 3, type, false, false, Scope::Block, 0xf, Origin{seq, 40, 5}, 1));
    if (wasEmpty) shadow.filled();
  }
  void erase(uint64_t words, bool keepPages) { shadow.erase(base(), base() + words - 1, [](size_t) {}, keepPages); }
};

// Each iteration: perBlock(SharedBlock&) for blocks 0 .. blocks - 1 in turn
// on a fresh shadow, cleared at the end (a device synchronization).
template <class PerBlock>
void blockByBlock(benchmark::State& state, uint32_t blocks, PerBlock&& perBlock) {
  for (auto _ : state) {
    ShadowPages shadow;
    uint64_t seq = 1;
    for (uint32_t b = 0; b < blocks; ++b) {
      SharedBlock block{shadow, b, seq};
      perBlock(block);
    }
    shadow.clear();
  }
}

// Args: blocks. A block's tile is two arrays of 34 x 8 words (32 x 6 threads
// and the halo); thread t writes word t and reads it and its four neighbours'.
void BM_ShadowPagesSharedTiles(benchmark::State& state) {
  constexpr uint32_t kTileWords = 34 * 8, kArrays = 2;
  const uint32_t blocks = uint32_t(state.range(0));
  blockByBlock(state, blocks, [&](SharedBlock& block) {
    for (uint32_t a = 0; a < kArrays; ++a, ++block.seq)
      for (uint32_t w = 0; w < kTileWords; ++w) block.add(a * kTileWords + w, w % 192, AccessType::Write);
    for (int32_t offset : {0, -1, 1, -34, 34})
      for (uint32_t a = 0; a < kArrays; ++a, ++block.seq)
        for (uint32_t w = 35; w < kTileWords - 35; ++w)
          block.add(a * kTileWords + uint32_t(int32_t(w) + offset), w % 192, AccessType::Read);
    block.erase(kArrays * kTileWords, /*keepPages=*/false);  // the block finished
  });
  state.SetItemsProcessed(int64_t(blocks) * kArrays * kTileWords * int64_t(state.iterations()));  // items: words
}
BENCHMARK(BM_ShadowPagesSharedTiles)->Arg(1600)->Unit(benchmark::kMillisecond);

// Args: blocks. Interval d writes the cells (i, d - i) of the 17 x 17 tile
// (words 256 on) after reading their three upper-left neighbours.
void BM_ShadowPagesBarrierIntervals(benchmark::State& state) {
  constexpr uint32_t kSide = 17, kReference = 16 * 16, kIntervals = 2 * kSide - 3;
  constexpr uint64_t kWords = kReference + kSide * kSide;
  const uint32_t blocks = uint32_t(state.range(0));
  blockByBlock(state, blocks, [&](SharedBlock& block) {
    for (uint32_t w = 0; w < kReference; ++w) block.add(w, w % 16, AccessType::Write);
    block.erase(kWords, /*keepPages=*/true);
    for (uint32_t d = 2; d < kIntervals + 2; ++d, block.seq += 2) {
      for (uint32_t i = 1; i < kSide; ++i) {
        if (d <= i || d - i >= kSide) continue;
        uint32_t cell = kReference + i * kSide + (d - i);
        for (uint32_t neighbour : {cell - 1, cell - kSide, cell - kSide - 1})
          block.add(neighbour, i - 1, AccessType::Read);
        block.add(cell, i - 1, AccessType::Write);
      }
      block.erase(kWords, /*keepPages=*/true);  // __syncthreads
    }
    block.erase(kWords, /*keepPages=*/false);  // the block finished
  });
  state.SetItemsProcessed(int64_t(blocks) * (kIntervals + 1) * int64_t(state.iterations()));  // items: barriers
}
BENCHMARK(BM_ShadowPagesBarrierIntervals)->Arg(2048)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace predatar

BENCHMARK_MAIN();
