// Heap blocks given back, by size, kept for the next block of that size (up
// to kMaxPooledBytes a size), per thread: the compressed shadow pages' heap
// blocks (CompressedPage's layers, TablePage's tables) come and go by the
// million, in bursts, in a few sizes.
//
// Why: malloc's per-thread cache holds 7 blocks a size, and blocks over 128
// bytes skip its fast bins, so the bursts went down its slow paths: a page
// fitted again whenever a block read it, a layer more each time, spent a
// quarter of a GEMM's run in _int_malloc, unlink_chunk and _int_free (round
// 36). (Word record vectors are not pooled: it cut HSOpticalFlow's time in
// malloc from 15.7% to 3.5% but not its run time, FDTD3d's instructions
// not at all, and every size kept is memory no other size can use.)
#pragma once

#include <array>
#include <cstddef>
#include <new>

#include "absl/container/flat_hash_map.h"

namespace predatar {

class BlockPool {
 public:
  void* take(size_t bytes) {
    bytes = rounded(bytes);
    Free& f = freeOf(bytes);
    if (!f.head) return ::operator new(bytes);
    void* block = f.head;
    f.head = f.head->next;
    f.bytes -= bytes;
    return block;
  }
  void give(void* block, size_t bytes) {
    bytes = rounded(bytes);
    Free& f = freeOf(bytes);
    if (f.bytes + bytes > kMaxPooledBytes) return ::operator delete(block);
    f.head = new (block) Node{f.head};
    f.bytes += bytes;
  }
  BlockPool() = default;
  BlockPool(const BlockPool&) = delete;
  BlockPool& operator=(const BlockPool&) = delete;
  ~BlockPool() {
    for (Free& f : small_) release(f);
    for (auto& [bytes, f] : large_) release(f);
    gone = true;
  }
  // Set when this thread's pool is destroyed (the thread ends): a block
  // given back after it on the thread (by another thread_local or a static
  // object) goes straight to the heap (takeBlock/giveBlock, not the pool).
  static inline thread_local bool gone = false;  // (trivial: outlives the pool)

 private:
  static constexpr size_t kMaxPooledBytes = size_t(4) << 20;
  static constexpr size_t kGranule = 16;       // (every size is taken as a multiple)
  static constexpr size_t kSmallBytes = 2048;  // sizes up to this one: by index, not hashed
  struct Node {
    Node* next;
  };
  struct Free {
    Node* head = nullptr;
    size_t bytes = 0;
  };
  static size_t rounded(size_t bytes) { return (bytes + kGranule - 1) & ~(kGranule - 1); }
  Free& freeOf(size_t bytes) { return bytes <= kSmallBytes ? small_[bytes / kGranule] : large_[bytes]; }
  static void release(Free& f) {
    while (Node* n = f.head) {
      f.head = n->next;
      ::operator delete(n);
    }
  }
  std::array<Free, kSmallBytes / kGranule + 1> small_{};
  absl::flat_hash_map<size_t, Free> large_;  // (a GEMM's tiles: layers of up to 64 readers)
};
// Per thread: each detector's shadow stays with the thread that runs it.
inline thread_local BlockPool heapBlocks;
inline void* takeBlock(size_t bytes) { return BlockPool::gone ? ::operator new(bytes) : heapBlocks.take(bytes); }
inline void giveBlock(void* block, size_t bytes) {
  if (BlockPool::gone) return ::operator delete(block);
  heapBlocks.give(block, bytes);
}

}  // namespace predatar
