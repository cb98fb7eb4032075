// Lock inference as Barracuda and ScoRD do it, on warp-coalesced operations:
//  * a successful atom.cas (returned value == compare operand) followed by a
//    fence of the same thread, before its next memory access, acquires the
//    lock at the CAS address;
//  * a fence followed (before any other memory access) by atom.exch on an
//    address the thread holds as a lock releases it.
// Threads are identified by a global linear id; a warp passes the id of its
// lane 0 and lane masks. Scopes: the narrower of the CAS/Exch and fence scopes.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "events/Event.h"

namespace predatar::sim {

class LockInference {
 public:
  using Addresses = std::array<uint64_t, kWarpSize>;

  void reset(uint64_t numThreads);

  // Any memory access other than a CAS/Exch handled below: clears pending state.
  void access(uint64_t firstThread, LaneMask lanes) {
    if (pending_ != 0) clear(firstThread, lanes);
  }
  // An atom.cas by `lanes`; `success` lanes got back the compare value.
  void cas(uint64_t firstThread, LaneMask lanes, LaneMask success, const Addresses& address, Scope scope);
  // A fence by `lanes`. Returns the lanes that acquire a lock, with the lock
  // addresses in `locks` and the scope of the acquire in `lockScope`.
  LaneMask fence(uint64_t firstThread, LaneMask lanes, Scope scope, Addresses& locks, Scope& lockScope);
  // An atom.exch by `lanes`. Returns the lanes that release a lock (held at
  // that address and preceded by a fence), with `locks` and `lockScope`.
  LaneMask exch(uint64_t firstThread, LaneMask lanes, const Addresses& address, Scope scope, Addresses& locks,
                Scope& lockScope);

  // Locks currently held by a thread (for tests / diagnostics).
  std::vector<uint64_t> held(uint64_t thread) const;

 private:
  enum : uint8_t { kNone = 0, kCasPending = 1, kFencePending = 2 };
  struct Pending { uint64_t address; Scope scope; };
  void clear(uint64_t firstThread, LaneMask lanes);
  // A thread's state: null when its page was never written (kNone), or for
  // a thread past the grid's.
  uint8_t* stateOf(uint64_t thread) {
    uint64_t page = thread >> kPageBits;
    return thread < numThreads_ && pages_[page] ? &pages_[page][thread & kPageMask] : nullptr;
  }
  uint8_t* stateForWrite(uint64_t thread);  // allocates its page

  // Per-thread states in pages allocated at a thread's first CAS: a grid
  // that takes no lock costs a pointer per page (a byte a thread was 268 MB
  // for a grid of 2^28 threads, the largest part of such a launch's memory).
  static constexpr uint32_t kPageBits = 16;
  static constexpr uint64_t kPageMask = (uint64_t(1) << kPageBits) - 1;
  uint64_t numThreads_ = 0;
  std::vector<std::unique_ptr<uint8_t[]>> pages_;
  uint64_t pending_ = 0;        // threads with state != kNone
  absl::flat_hash_map<uint64_t, Pending> cas_;     // thread -> pending CAS
  absl::flat_hash_map<uint64_t, Scope> fences_;    // thread -> pending fence scope
  absl::flat_hash_map<uint64_t, std::vector<std::pair<uint64_t, Scope>>> held_;  // thread -> locks
};

}  // namespace predatar::sim
