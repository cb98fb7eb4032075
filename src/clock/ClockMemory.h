// Where clocks' memory comes from: mimalloc's heap, not the process's malloc.
//
// A clock is a few small shared arrays, copied on write: every __syncwarp
// and every release makes new ones, and gwcp's critical-section log frees
// the old ones in bulk, hundreds of releases later. glibc's malloc served
// that from its slow paths (a sixth of gwcp's time on a warp-lock stream in
// _int_malloc, unlink_chunk and malloc_consolidate), mimalloc's free lists
// do not. With only the clocks on mimalloc (as under `predatar run`), on
// 100,000 threads: block-locks hb 8.6 -> 5.3 s and gwcp 9.5 -> 6.8 s,
// warp-lock gwcp 0.66 -> 0.60 s; but slot-locks hb 2.3 -> 2.5 s, whose
// copies no longer reuse the block freed last, still in cache (bench/
// detectors/RESULTS.md, round 50). Explicit calls, not an override of
// malloc: in `predatar run` the detectors live in the program's process,
// whose malloc stays the program's.
//
// Under AddressSanitizer the clocks stay on the system heap, so that the
// sanitizer build keeps checking every use of their memory.
#pragma once

#include <cstddef>
#include <memory>
#include <new>

#if defined(__SANITIZE_ADDRESS__)
#define PREDATAR_CLOCKS_ON_SYSTEM_HEAP 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PREDATAR_CLOCKS_ON_SYSTEM_HEAP 1
#endif
#endif

#ifndef PREDATAR_CLOCKS_ON_SYSTEM_HEAP
#include <mimalloc.h>
#endif

namespace predatar {

// As operator new: throws std::bad_alloc (after the new handler) when out of memory.
inline void* allocateClockMemory(size_t bytes) {
#ifdef PREDATAR_CLOCKS_ON_SYSTEM_HEAP
  return ::operator new(bytes);
#else
  return mi_new(bytes);
#endif
}

inline void freeClockMemory(void* memory) {
#ifdef PREDATAR_CLOCKS_ON_SYSTEM_HEAP
  ::operator delete(memory);
#else
  mi_free(memory);
#endif
}

// For containers inside clocks (their block lists and chunk indexes), and
// other detector metadata made and freed as often: lockset's History
// records and shadow pages (on pathfinder, glibc's malloc and free were 13%
// of a serial lockset run). Not gwcp's records (PackedRecord.h) nor
// lockset's thread states (WordPages.h): measured, no faster there
// (bench/detectors/RESULTS.md, round 76).
#ifdef PREDATAR_CLOCKS_ON_SYSTEM_HEAP
template <class T>
using ClockAllocator = std::allocator<T>;
#else
template <class T>
using ClockAllocator = mi_stl_allocator<T>;
#endif

// A base that puts a class's objects (made with new) on the clocks' heap.
struct OnClockHeap {
  static void* operator new(size_t bytes) { return allocateClockMemory(bytes); }
  static void operator delete(void* memory) { freeClockMemory(memory); }
};

}  // namespace predatar
