// The event stream: the one contract between every front end (litmus reader,
// PTX emulator, recorded traces) and every detector.
//
// Events are warp-coalesced: one event per warp instruction, carrying the
// active lane mask and per-lane operands, like the records an NVBit tool sends
// from the device. Lanes of one event are separate threads with no order among
// them (independent thread scheduling); per-thread semantics live in detectors.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "events/SourceTable.h"

namespace predatar {

inline constexpr uint32_t kWarpSize = 32;
using LaneMask = uint32_t;

// Scope of an atomic, strong access, fence or lock operation. `System`
// behaves as `Device` for a single-GPU kernel.
enum class Scope : uint8_t { Block, Device, System };

enum class MemorySpace : uint8_t { Global, Shared };

enum class AccessType : uint8_t {
  Read,       // ld (plain, or strong when MemoryEvent::strong)
  Write,      // st (plain, or strong when MemoryEvent::strong)
  AtomicRmw,  // atom / red: a strong read-modify-write (writes)
};

enum class AtomicOp : uint8_t { None, Add, Sub, Min, Max, Inc, Dec, And, Or, Xor, Exch, Cas };

struct Dim3 {
  uint32_t x = 1, y = 1, z = 1;
  uint64_t count() const { return uint64_t(x) * y * z; }
  bool operator==(const Dim3&) const = default;
};

// Where an event comes from: the position in the trace, the instruction and,
// when known, a source position (index into KernelInfo::sources).
struct Origin {
  uint64_t seq = 0;            // position in the trace (monotone, shared by the lanes of one event)
  uint64_t pc = 0;             // instruction address or litmus line
  uint32_t source = kNoSource; // index into KernelInfo::sources
  static constexpr uint32_t kNoSource = UINT32_MAX;
  bool operator==(const Origin&) const = default;
};

// A named memory region, so reports can name locations ("buf[3]") instead of
// addresses. Shared regions are per block: the same offsets in every block.
struct MemorySymbol {
  std::string name;
  MemorySpace space = MemorySpace::Global;
  uint64_t base = 0;
  uint64_t bytes = 0;
  uint32_t elementBytes = 4;  // index = (address - base) / elementBytes
};

struct KernelInfo {
  std::string name;  // kernel (demangled where known) or litmus file
  Dim3 grid;         // blocks
  Dim3 block;        // threads per block
  SourceTable sources;
  std::vector<MemorySymbol> symbols;
  std::vector<std::string> lockNames;  // litmus: lock id -> name (locks have their own namespace)
  // Ordering between launches (CUDA streams and events). Launches that no
  // stream, event or synchronization orders may overlap on a GPU, so their
  // conflicting accesses race. `launch` names this launch; `liveLaunches`
  // are the earlier launches that this or a later launch may still be
  // unordered with (detectors keep their global accesses; empty: forget every
  // earlier launch); `unorderedLaunches` (a subset) are those this launch is
  // not ordered after.
  uint32_t launch = 0;
  std::vector<uint32_t> liveLaunches;
  std::vector<uint32_t> unorderedLaunches;
  // A programmatic dependent launch whose predecessor on its stream let it
  // start early (griddepcontrol.launch_dependents): that launch, which its
  // threads' global accesses before their griddepcontrol.wait
  // (MemoryEvent::beforeDependencyWait) overlap; later accesses are ordered
  // after it. UINT32_MAX: none. (In liveLaunches too.)
  uint32_t overlappedLaunch = UINT32_MAX;
  // Whether a lock may be acquired at block scope in this launch (true where
  // the front end cannot tell). The emulator's lock inference takes the
  // narrower scope of a CAS and its fence, so a module with no .cta CAS or
  // fence acquires none; a trace of no scopes (STD) neither. gwcp lets
  // another block's critical sections go from its rule (ii) log sooner when
  // none can be (GwcpDetector::trimLog).
  bool blockScopedAcquires = true;

  uint32_t threadsPerBlock() const { return uint32_t(block.count()); }
  uint32_t warpsPerBlock() const { return (threadsPerBlock() + kWarpSize - 1) / kWarpSize; }
  uint32_t numBlocks() const { return uint32_t(grid.count()); }
  uint64_t numThreads() const { return uint64_t(numBlocks()) * threadsPerBlock(); }
};

// The lanes of one warp taking part in an event.
struct WarpLanes {
  uint32_t block = 0;  // linear block index
  uint32_t warp = 0;   // warp index in the block
  LaneMask mask = 0;   // active lanes
};

struct MemoryEvent {
  WarpLanes lanes;
  AccessType type = AccessType::Read;
  bool strong = false;          // relaxed / volatile / acquire / release ld-st; always true for atomics
  bool isVolatile = false;      // ld/st.volatile (C++ volatile): strong only under --volatile strong
  // Lanes whose CAS or Exch lock inference may take for a lock operation (every
  // atom.cas lane, atom.exch lanes that released a lock): the lock events carry
  // their synchronization, so detectors build no message passing from them.
  LaneMask lockLanes = 0;
  Scope scope = Scope::Device;  // meaningful when strong
  AtomicOp op = AtomicOp::None;
  MemorySpace space = MemorySpace::Global;
  uint8_t size = 4;             // bytes per lane
  std::array<uint64_t, kWarpSize> address{};  // per lane; shared: offset in the block's shared memory
  Origin origin;
  // Lanes of a programmatic dependent launch whose global access comes before
  // their griddepcontrol.wait: unordered with KernelInfo::overlappedLaunch.
  LaneMask beforeDependencyWait = 0;
  // Lanes of a store that left every byte it wrote as it was (it wrote the
  // value the location already held): a race report says so, since such
  // same-value stores are what programmers most often take for benign.
  LaneMask unchangedWrites = 0;
};

// A barrier of one block: __syncthreads, bar.sync and bar.red wait at it
// (`threads`); bar.arrive only arrives and goes on (`arrivers`): a release,
// whose thread's accesses before it are ordered before the waiters'
// accesses after the barrier, and nothing before its own later ones.
// Sent at each bar.arrive (`complete` false: that warp's arriving lanes in
// `arrivers`, no waiters) and when barrier `id` completes (`complete`: its
// waiters, and every thread that arrived in this phase without waiting).
struct BarrierEvent {
  uint32_t block = 0;
  std::vector<uint32_t> threads;   // thread indices in the block, ascending
  std::vector<uint32_t> arrivers;  // ascending, none of them in `threads`
  Origin origin;
  uint32_t id = 0;  // the named barrier, 0-15
  bool complete = true;
};

// __syncwarp(mask)
struct SyncWarpEvent {
  WarpLanes lanes;
  Origin origin;
};

struct FenceEvent {
  WarpLanes lanes;
  Scope scope = Scope::Device;
  Origin origin;
};

// Lock acquire or release (inferred from CAS+fence / fence+Exch, or written
// in a litmus file). Lock ids are their own namespace.
struct LockEvent {
  WarpLanes lanes;
  Scope scope = Scope::Device;
  std::array<uint64_t, kWarpSize> lock{};  // per lane
  Origin origin;
  // Lanes whose lock is in the block's shared memory: it dies with the block,
  // so detectors may forget it once the block has finished.
  LaneMask blockLocal = 0;
};

struct ExitEvent {
  WarpLanes lanes;
  Origin origin;
};

inline constexpr bool coversThread(Scope scope, uint32_t issuerBlock, uint32_t otherBlock) {
  return scope != Scope::Block || issuerBlock == otherBlock;
}

// Two operations are morally strong when each one's scope covers the other's thread.
inline constexpr bool morallyStrong(Scope a, uint32_t blockA, Scope b, uint32_t blockB) {
  return coversThread(a, blockA, blockB) && coversThread(b, blockB, blockA);
}

const char* toString(Scope scope);
const char* toString(MemorySpace space);
const char* toString(AccessType type);
const char* toString(AtomicOp op);

}  // namespace predatar
