// The emulated device as the CUDA runtime replacement (src/cudart) and the
// `predatar kernel` command see it: device memory, loaded PTX modules and
// kernel launches that feed an EventSink. This header is the contract between
// src/sim (which implements it) and its users; extend it, do not break it.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "events/EventSink.h"

namespace predatar::sim {

class DeviceArena;
class InitShadow;

// Device memory is host memory of this process: a device pointer is the
// address of a host buffer. The table knows every allocation so that an
// emulated access out of bounds is an error, not a crash. With
// protectDeviceOnly() (the CUDA runtime does it), DeviceOnly allocations
// (cudaMalloc) live in a DeviceArena that host code cannot read or write
// unless the arena is open (see sim/DeviceArena.h).
class DeviceMemory {
 public:
  // HostShared: host memory that kernels reach while the host runs on
  // (cudaMallocHost, cudaMallocManaged, cudaHostRegister); the host may write
  // it during a kernel, which the emulator cannot show (launches run when issued).
  enum class Placement { HostVisible, DeviceOnly, HostShared };
  uint64_t allocate(uint64_t bytes, std::string label = {},
                    Placement placement = Placement::HostVisible);  // zero-filled, 256-byte aligned
  absl::Status free(uint64_t address);                          // must be an allocation's base
  // Makes the caller's memory [base, base+bytes) reachable from kernels (cudaHostRegister);
  // false if it overlaps an allocation. Adopted memory is never freed here: `disown` ends it.
  bool adopt(uint64_t base, uint64_t bytes, std::string label);
  absl::Status disown(uint64_t base);
  // The allocation containing [address, address+bytes), if any.
  struct Allocation { uint64_t base; uint64_t bytes; std::string label; Placement placement = Placement::HostVisible; };
  std::optional<Allocation> find(uint64_t address, uint64_t bytes = 1) const;
  // Every range kernels can reach, by address (allocations and adopted memory).
  struct Range { uint64_t base; uint64_t bytes; };
  std::vector<Range> ranges() const;
  // As find, without copying the label (the emulator's per-access lookup).
  std::optional<Range> rangeOf(uint64_t address, uint64_t bytes) const;
  // Where an access of `bytes` at `address`, in no allocation, lies against
  // the nearest one, as memcheck says it: "8 bytes past the end of cudaMalloc
  // #1 (2560 bytes)", "8192 bytes before the start of ..."; "no allocation
  // contains it" when none is within 1 MiB.
  std::string describeMiss(uint64_t address, uint64_t bytes) const;
  // From now on DeviceOnly allocations are not host-accessible; false when the
  // address space cannot be reserved (they then stay host memory).
  bool protectDeviceOnly();
  DeviceArena* arena() { return arena_.get(); }
  // --initcheck (sim/InitShadow.h): from now on DeviceOnly allocations in the
  // arena start unwritten, and kernels' reads of bytes nothing wrote are
  // noted (LaunchStats::uninitializedReads). The runtime notes its own
  // writes: copies (each byte written where its source byte was) and memsets.
  void enableInitCheck();
  InitShadow* initShadow() { return initShadow_.get(); }
  void noteHostWrite(uint64_t address, uint64_t bytes);
  void noteHostCopy(uint64_t dst, uint64_t src, uint64_t bytes);
  DeviceMemory();
  ~DeviceMemory();

 private:
  const Allocation* containing(uint64_t address, uint64_t bytes) const;  // find's and rangeOf's lookup

  std::map<uint64_t, Allocation> allocations_;
  std::unique_ptr<DeviceArena> arena_;
  std::unique_ptr<InitShadow> initShadow_;
  std::set<uint64_t> adopted_;  // bases of adopted (caller-owned) ranges
};

struct KernelParam {
  std::string name;
  uint32_t bytes = 0;      // size of the .param
  uint32_t alignment = 1;
};

struct KernelSignature {
  std::string name;        // mangled, as in the PTX .entry
  std::vector<KernelParam> params;
};

struct GlobalVariable {
  std::string name;        // as in the PTX
  uint64_t address = 0;    // in DeviceMemory, initialized from the PTX initializer
  uint64_t bytes = 0;
  bool constant = false;   // .const
};

class Module {
 public:
  virtual ~Module() = default;
  virtual const std::vector<KernelSignature>& kernels() const = 0;
  virtual const std::vector<GlobalVariable>& globals() const = 0;
};

struct LoadOptions {
  bool fusedMultiplyAdd = true;  // fuse mul/add pairs as ptxas does by default (ptx/Contraction.h)
};
// Parses and decodes PTX text; allocates and initializes its .global/.const
// variables in `memory`. Errors name `sourceName`, the PTX line and what is
// unsupported.
absl::StatusOr<std::unique_ptr<Module>> loadPtx(std::string_view ptx, std::string sourceName,
                                                DeviceMemory& memory, const LoadOptions& options = {});

inline constexpr uint32_t kAllBlocksResident = UINT32_MAX;
inline constexpr uint64_t kDefaultStepLimit = uint64_t(1) << 32;

// How far a long launch got (ScheduleOptions::onProgress).
struct LaunchProgress {
  uint32_t blocksDone = 0, blocks = 0;
  uint64_t warpInstructions = 0;
  double seconds = 0;  // wall clock since the launch began
};

// "still running after T s: B of G blocks done, W warp instructions", for the
// progress lines of `run` and `kernel`.
std::string describe(const LaunchProgress& progress);

struct ScheduleOptions {
  enum class Policy { RoundRobin, Random } policy = Policy::RoundRobin;
  uint64_t seed = 0;
  uint32_t quantum = 64;               // instructions a warp runs before the next is scheduled
  // Warp instructions before a launch is stopped: 2^32 is ~5 minutes of
  // emulation, far more than test-sized launches need; raise it for big ones.
  uint64_t stepLimit = kDefaultStepLimit;
  double timeLimitSeconds = 0;         // wall-clock seconds per launch before it is stopped (0: none)
  // Blocks resident at once; later blocks start as earlier ones finish, so
  // memory grows with what runs at once. 0 (the default): what an sm_90-class
  // GPU holds (132 SMs x blocks per SM by threads, shared memory, registers);
  // kAllBlocksResident: the whole grid. Blocks that spin-wait on blocks not yet
  // resident get more brought in, with a warning (sim/Residency.h).
  uint32_t maxResidentBlocks = 0;
  // When set and true (a signal handler sets it), the launch stops at the next
  // scheduling round with a Cancelled error that lists the live warps.
  const std::atomic<bool>* interrupt = nullptr;
  // Every `progressSeconds` of a launch's wall-clock time (0: never), the
  // launch tells onProgress how far it got, so a long run is not silent.
  double progressSeconds = 0;
  std::function<void(const LaunchProgress&)> onProgress;
  // Set by the runtime for a launch run on a thread of its own, one side at a
  // time with the host: called when the launch is stuck and its arguments
  // point into host memory (Placement::HostShared), it hands control back to
  // the host, which goes on as on a GPU, until the host waits for the launch
  // (or polls it). True: go on, the host may have written what the kernel
  // waits for; false: the host waits for this launch, which is a deadlock.
  std::function<bool()> waitForHost;
};

// "gpu" (0), "all" (kAllBlocksResident) or a positive number of blocks, for
// ScheduleOptions::maxResidentBlocks (--resident-blocks, PREDATAR_RESIDENT_BLOCKS).
absl::StatusOr<uint32_t> parseResidentBlocks(std::string_view text);

struct LaunchConfig {
  Dim3 grid;
  Dim3 block;
  uint32_t dynamicSharedBytes = 0;
  // Local memory per thread for the call stack of a recursive kernel
  // (cudaLimitStackSize; CUDA's default is 1 KiB).
  uint64_t stackLimitBytes = 1024;
  // One pointer per kernel parameter, to a value of that parameter's size
  // (what cudaLaunchKernel receives as `args`).
  std::vector<const void*> args;
  ScheduleOptions schedule;
  // A cooperative launch's grid barrier workspace (cooperative_groups reads it
  // from %envreg1:%envreg2); 0 for other launches, whose grid.sync() traps.
  uint64_t gridWorkspace = 0;
  // Device printf output (one call per formatted printf); null: stdout.
  std::function<void(std::string_view)> printfOutput;
  // cudaGraphSetConditional(handle, value) from a thread: false when the
  // handle is unknown (a fault). Null: the launch is not part of a graph
  // that has conditional handles, and the call faults.
  std::function<bool(uint64_t handle, uint32_t value)> setGraphConditional;
  // A programmatic dependent launch whose predecessor on the stream executed
  // griddepcontrol.launch_dependents: until a thread executes
  // griddepcontrol.wait, the predecessor may still run beside it. The
  // emulator runs the predecessor to completion first (one schedule of the
  // overlap) and marks the global accesses that come before a thread's wait
  // (MemoryEvent::beforeDependencyWait), which the detectors check as
  // unordered with the predecessor.
  bool programmaticOverlap = false;
};

// Makes `config` a cooperative launch (cudaLaunchCooperativeKernel): every
// block resident at once, and `workspace` (kGridWorkspaceBytes of device
// memory, zeroed here) its grid barrier's.
inline constexpr uint64_t kGridWorkspaceBytes = 64;
void makeCooperative(LaunchConfig& config, uint64_t workspace);
// Blocks of `threadsPerBlock` threads using `sharedBytes` of dynamic shared
// memory that one SM holds at once, as the runtime counts them for
// cudaOccupancyMaxActiveBlocksPerMultiprocessor and cooperative launches
// (threads and shared memory; the scheduler's residency, sim/Residency.cpp
// beside these, also counts registers).
int occupancyBlocksPerSm(int threadsPerBlock, uint64_t sharedBytes);
// A cooperative grid must be resident at once: an error (as
// cudaErrorCooperativeLaunchTooLarge) naming `kernel`, the grid and what
// the device holds, when `config`'s grid is larger.
absl::Status checkCooperativeGridFits(const LaunchConfig& config, std::string_view kernel);

// Runs one kernel to completion, emitting its events to `sink` (kernelBegin
// ... kernelEnd). A fault, deadlock, trap or step limit returns an error that
// names the kernel, the PC/PTX line, the source line when known and the thread.
absl::Status launch(const Module& module, std::string_view kernel, const LaunchConfig& config,
                    DeviceMemory& memory, EventSink& sink);

// Where a failed launch stopped: the faulting thread (for a deadlock or the
// step limit, the first stuck one) and its instruction, for reports.
struct FaultSite {
  uint32_t pc = 0;
  uint32_t ptxLine = 0;
  std::string file;             // source position (-lineinfo); empty when unknown
  uint32_t line = 0, column = 0;
  Dim3 blockIdx, threadIdx;
};

// Execution counters of one launch (also filled when the launch fails).
// A kernel launched from the device (dynamic parallelism): run by the
// runtime after its parent grid, with the parameters the parent wrote to
// `params` (a device allocation laid out as the kernel's .param buffer; the
// runtime frees it).
struct DeviceLaunchRequest {
  std::string kernel;      // mangled name of the .entry
  Dim3 grid, block;
  uint32_t sharedBytes = 0;
  uint64_t params = 0;
  uint64_t stream = 0;     // the device-side stream handle (0: the block's default stream)
  Dim3 parentBlock;        // the launching thread
  Dim3 parentThread;
};

struct LaunchStats {
  uint64_t warpInstructions = 0;    // instructions issued by warps (one per lane group)
  uint64_t threadInstructions = 0;  // sum over issued instructions of their active lanes
  std::optional<FaultSite> fault;   // set when the launch failed in a thread
  // What the user should know although the launch finished (a program that
  // relies on co-residency or scheduling the hardware does not promise).
  std::vector<std::string> warnings;
  // Behaviour CUDA leaves undefined that the launch relied on, and what
  // predatar did (as a GPU does). Unlike `warnings`, the same outcome follows
  // from the same inputs, so a launch with notes can still be replayed.
  struct UndefinedBehaviour {
    std::string site;     // kernel and instruction: one note per site is enough
    std::string message;  // what happened, where, and what to change
  };
  std::vector<UndefinedBehaviour> undefinedBehaviour;
  // --initcheck (DeviceMemory::enableInitCheck): reads of bytes nothing wrote,
  // one per instruction: the first lane's description, and how many reads.
  struct UninitializedRead {
    std::string message;
    uint64_t count = 0;
  };
  std::vector<UninitializedRead> uninitializedReads;
  std::vector<DeviceLaunchRequest> deviceLaunches;  // in the order the threads launched them
  // A thread executed griddepcontrol.launch_dependents: a programmatic
  // dependent launch after this one may start before this one completes.
  bool launchedDependents = false;
};
absl::Status launch(const Module& module, std::string_view kernel, const LaunchConfig& config,
                    DeviceMemory& memory, EventSink& sink, LaunchStats* stats);

// Why a launch of `kernel` is not a function of its configuration, arguments
// and the memory it can reach (it reads the clock, prints, asserts, launches
// from the device); empty when it is one. The runtime replays such a
// launch instead of running it again when all of these repeat exactly.
std::string repeatabilityProblem(const Module& module, std::string_view kernel);
// Why the events of `kernel`'s launches may depend on the values it reads
// from memory (empty: they do not). A kernel whose addresses, control flow,
// guards, member masks and barriers are computed from its configuration,
// arguments and special registers alone, with no atomics and no calls, emits
// under the deterministic schedule the same events in the same order from
// any memory contents: two launches of it with the same configuration and
// arguments have the same races, whatever data they read.
std::string dataDependenceProblem(const Module& module, std::string_view kernel);
// Whether every write of `kernel` to memory that outlives the launch is a
// memory event (false: it writes surfaces, whose stores are not events).
// Reads outside events are of .const variables and texture/surface texels.
bool writesAreEvents(const Module& module, std::string_view kernel);

// The name of the error a GPU's runtime returns after a launch failed with
// `status` ("cudaErrorIllegalAddress", "cudaErrorLaunchTimeout", ...), for reports.
const char* cudaErrorNameOf(const absl::Status& status);

// A kernel's demangled name ("kmain(unsigned int*)"); the name itself when it is not mangled.
std::string demangledName(const std::string& mangled);

}  // namespace predatar::sim
