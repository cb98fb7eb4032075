// State of the replacement CUDA runtime: registered modules, kernels and
// variables, device memory, streams and events, errors, and the launches it
// ran under the emulator with their races. One instance per process (never
// destroyed, so the program's own exit handlers may still call into it).
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <source_location>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "cudart/FatBinary.h"
#include "cudart/runtime/CudaTypes.h"
#include "cudart/runtime/DeviceLock.h"
#include "cudart/runtime/HostCallSite.h"
#include "cudart/LaunchLedger.h"
#include "cudart/LaunchReport.h"
#include "cudart/StreamOrder.h"
#include "analysis/LaunchResults.h"
#include "events/ParallelFanout.h"
#include "cudart/runtime/RepeatedLaunches.h"
#include "sim/Device.h"

namespace predatar::cudart {

// What `predatar run` passes through the environment.
// The device predatar reports (cudaGetDeviceProperties): an H100's multiprocessors.
inline constexpr int kMultiprocessors = 132;

struct RunOptions {
  std::vector<std::string> detectors{"gwcp"};   // PREDATAR_DETECTORS=gwcp,hb ("none": run only)
  std::string reportPath;                       // PREDATAR_REPORT
  sim::ScheduleOptions schedule;                // PREDATAR_SCHEDULE, PREDATAR_SEED, PREDATAR_QUANTUM
  std::string kernelName;                       // PREDATAR_KERNEL_NAME (substring of either name)
  uint64_t launchSkip = 0;                      // PREDATAR_LAUNCH_SKIP
  std::optional<uint64_t> launchCount;          // PREDATAR_LAUNCH_COUNT
  bool verbose = false;                         // PREDATAR_VERBOSE=1
  bool quiet = false;                           // PREDATAR_QUIET=1: no race text on stderr
  bool perLocation = false;                     // PREDATAR_PER_LOCATION=1
  bool replayRepeats = true;                    // PREDATAR_REPLAY=off: run exact repeats again
  bool fusedMultiplyAdd = true;                 // PREDATAR_FMAD=off: no mul/add contraction (ptx/Contraction.h)
  bool initCheck = false;                       // PREDATAR_INITCHECK=1: note reads of unwritten cudaMalloc'd bytes
  bool leakCheck = false;                       // PREDATAR_LEAK_CHECK=1: list unfreed allocations (leakMarkerSuffix)
  std::vector<std::string> errors;              // malformed variables
  static RunOptions fromEnvironment();
};

struct RegisteredModule;

struct KernelRecord {
  RegisteredModule* module = nullptr;
  const void* hostFunction = nullptr;
  std::string mangled;
  std::string demangled;
  int maxDynamicSharedBytes = 48 * 1024;
  std::optional<std::string> repeatabilityProblem;  // sim::repeatabilityProblem, once known
  std::optional<std::string> dataDependenceProblem;  // sim::dataDependenceProblem, once known
  std::optional<bool> writesAreEvents;              // sim::writesAreEvents, once known
};

struct VariableRecord {
  RegisteredModule* module = nullptr;
  std::string name;        // as in the PTX
  uint64_t bytes = 0;
  bool constant = false;
  void** managedHostPointer = nullptr;  // managed variables: where the host reads the address
};

struct RegisteredModule {
  void* handleSlot = nullptr;  // what __cudaRegisterFatBinary returns points here
  int index = 0;
  std::string sourceName;      // from the fatbin ("a.cu") or "module N"
  absl::Status fatbinStatus;   // parse / PTX selection
  std::string ptx;
  uint32_t ptxVersion = 0;     // cudaFuncAttributes::ptxVersion: the PTX's architecture (75: compute_75)
  bool loadAttempted = false;
  absl::Status loadStatus;
  std::unique_ptr<sim::Module> module;
  std::vector<KernelRecord*> kernels;
  std::vector<VariableRecord*> variables;
  bool unregistered = false;
};

enum class AllocationKind { Device, Host, Managed };

// The device memory the emulated GPU reports (cudaDeviceProp::totalGlobalMem,
// cudaMemGetInfo); device and managed allocations beyond what it leaves free
// fail with cudaErrorMemoryAllocation, as on the GPU.
// An H100 80GB HBM3 reports 85017493504 bytes (79.2 GiB; measured on one).
inline constexpr uint64_t kGlobalMemory = 85017493504;
inline constexpr uint64_t kGlobalMemoryReserved = kGlobalMemory / 16;  // the driver's own share

class Runtime {
 public:
  static Runtime& get();
  // The instance if this process created one (a process that only inherited
  // the library through LD_PRELOAD, or a fork child, has none): for exit.
  static Runtime* existing();
  explicit Runtime(RunOptions options);

  DeviceLock& mutex() { return mutex_; }
  const RunOptions& options() const { return options_; }
  sim::DeviceMemory& memory() { return *memory_; }

  // Registration.
  void** registerFatBinary(const void* wrapper);
  void registerFatBinaryEnd(void** handle);
  void unregisterFatBinary(void** handle);
  void registerFunction(void** handle, const void* hostFunction, const char* deviceName);
  void registerVariable(void** handle, const void* hostVariable, void** managedHostPointer,
                        const char* deviceName, uint64_t bytes, bool constant);
  bool initModule(void** handle);
  RegisteredModule* moduleOf(void** handle);

  // Lookups. `kernelByHandle` accepts what __cudaGetKernel returned.
  KernelRecord* kernelByHost(const void* hostFunction);
  KernelRecord* kernelByHandle(const void* handle);
  KernelRecord* kernelByMangledName(const std::string& mangled);
  cudaError_t ensureLoaded(RegisteredModule& module);
  // The device address and size of a registered variable (loads its module).
  cudaError_t symbol(const void* hostVariable, uint64_t& address, uint64_t& bytes);
  const sim::KernelSignature* signature(const KernelRecord& kernel);

  // Memory.
  cudaError_t allocate(void** pointer, uint64_t bytes, AllocationKind kind);
  cudaError_t release(void* pointer, AllocationKind kind);
  std::optional<AllocationKind> kindOf(const void* pointer) const;
  // Checks that [pointer, pointer+bytes) lies in one device allocation.
  bool isDeviceRange(const void* pointer, uint64_t bytes) const;
  cudaError_t copy(void* dst, const void* src, uint64_t bytes, int kind);
  cudaError_t fill(void* dst, int value, uint64_t bytes);
  // cudaHostRegister / cudaHostUnregister (HostRegister.cpp): the program's own memory,
  // reachable from kernels at its own address (unified addressing) while registered.
  cudaError_t registerHost(void* pointer, uint64_t bytes);
  cudaError_t unregisterHost(void* pointer);
  void resetDevice();

  // Launch (Launch.cpp). Serialized: the kernel has finished when this
  // returns, unless it waits for the host (a latch in pinned memory, written
  // after the launch): then the launch is suspended and the host goes on.
  cudaError_t launch(KernelRecord& kernel, dim3 grid, dim3 block, void** args,
                     uint64_t dynamicShared, cudaStream_t stream);
  // While a launch is suspended, stream work is queued behind it in issue
  // order (a launch keeps its arguments' values as they are now), and every
  // other call that needs the device settles first: the suspended launch
  // goes on, now unable to wait for the host again (that is a deadlock, as
  // on a GPU), then the queued work runs.
  bool launchSuspended() const { return suspended_ != nullptr; }
  cudaError_t deferLaunch(KernelRecord& kernel, dim3 grid, dim3 block, void** args, uint64_t dynamicShared,
                          cudaStream_t stream);
  // A launch's argument values, copied (sizes from the kernel's PTX
  // parameters) for a launch that runs after the caller's copies are gone:
  // graph kernel nodes, launches queued behind a suspended one.
  cudaError_t copyArguments(KernelRecord& kernel, void** args, std::vector<std::vector<uint8_t>>& values);
  // `work` on `stream`, after the suspended launch; `recorded`: the event it records.
  void defer(cudaStream_t stream, std::function<cudaError_t()> work, cudaEvent_t recorded = nullptr);
  void settleSuspendedLaunch();
  // cudaStreamQuery (`stream`) and cudaEventQuery (`event`, stream null):
  // whether the work asked about is done. Work of the stream (the suspended
  // launch, or work queued behind it), or the event's record, that has yet to
  // run lets the suspended launch and the queued work go on while they can;
  // false when the work still waits.
  bool queryReady(cudaStream_t stream, cudaEvent_t event);

  // Errors. Launch failures are sticky, as on a GPU.
  cudaError_t sticky() const { return sticky_; }
  void setSticky(cudaError_t error) { sticky_ = error; }
  // The sticky error, for a call (`call`: its name) that fails with it. A
  // program that does not check errors may loop on such calls for ever, as
  // it would on a GPU (HeCBench's ans launches and copies until the faulted
  // kernel sets a flag); after kStuckCalls of them predatar says so and ends
  // the program (exit status kStuckExit), rather than wait for a timeout.
  static constexpr uint64_t kStuckCalls = 100000;
  static constexpr size_t kApiErrorsReported = 100;  // distinct calls and errors (describeApiErrors)
  static constexpr int kStuckExit = 125;
  cudaError_t failWithSticky(const char* call);
  // Writes the API errors beside the report (apiErrorMarkerSuffix) when more
  // were noted since the last write: at exit and with the periodic report, so
  // that a run stopped by a limit keeps them.
  void writeApiErrors();

  // Streams and events.
  cudaStream_t createStream(bool nonBlocking = false);
  // The order CUDA puts launches in (streams, events, synchronization).
  StreamOrder& order() { return order_; }
  bool destroyStream(cudaStream_t stream);
  bool validStream(cudaStream_t stream) const;
  struct Event {
    bool recorded = false;
    std::chrono::steady_clock::time_point time;
  };
  cudaEvent_t createEvent();
  Event* event(cudaEvent_t event);
  bool destroyEvent(cudaEvent_t event);

  void writeReport();
  void rewriteReportIfDue(const LaunchRecord& latest);  // after a launch is recorded (Launch.cpp)
  // Completes every recorded launch whose detector results are still to be
  // read (LaunchAwaitingResults), waiting for the detectors: before memory
  // is freed (races name allocations), when the host waits for the device
  // (races are printed by then), at exit, and wherever launches' races are read.
  void settleDetectors() { completeLaunches(/*all=*/true); }
  // From a signal handler, before the process dies: the report of what the
  // run saw, the launches still on the detector threads included. Not
  // async-signal-safe in general, but losing the report is worse. Nothing
  // when the runtime is busy in another thread; within a runtime call of
  // this thread (the lock is recursive), without waiting for the detectors,
  // as that call may be changing what settling reads.
  void writeReportBeforeDying();
  // The program called _exit (ExitWithoutHandlers.cpp): no destructor runs,
  // so the launches still on the detector threads are completed (their races
  // printed, the report rewritten) here, under the same conditions as above.
  void completeLaunchesBeforeExit();
  // Out of memory (OutOfMemory.cpp): the running launch, if any, is recorded
  // as failed with `message` and the report written.
  void recordOutOfMemory(const char* message);
  // Detector metadata at its peak so far and device memory allocated now (bytes).
  uint64_t detectorMetadataBytes() const;
  uint64_t deviceBytesInUse() const { return deviceBytes_; }
  // In a fork() child of the program: its own report file beside the main one
  // (PREDATAR_REPORT.pid<N>, merged by `predatar run`), its own launches only,
  // kernels named with the pid, and the report rewritten after every finding
  // (such a child often ends with _exit). See Fork.cpp.
  void becomeChildProcess();
  // Its own report file and kernel names with its pid, as a fork() child's:
  // for a CUDA program the program ran, when another process writes the main
  // report (LaunchLedger::claimMainReport).
  void reportAsAProcessOfItsOwn();
  // At exit: the report file, or (without one) a summary line on stderr.
  void finish();
  const std::vector<LaunchRecord>& launches() const { return launches_; }

 private:
  // A launch for the report, counted in the ledger (LaunchLedger.h).
  LaunchRecord& recordLaunch(LaunchRecord record);
  // With the lock held (try_lock) by a dying or exiting thread: not inside a
  // runtime call of this thread (the lock is recursive; that call may be
  // changing what settling reads) nor on a detector thread.
  bool mayWaitForDetectors() const { return mutex_.depth() == 1 && !onAnalysisWorker(); }
  bool selected(const KernelRecord& kernel);
  // Launch.cpp: the checks a launch fails at once (cudaErrorInvalidValue ...).
  cudaError_t launchConfigError(const KernelRecord& kernel, dim3 grid, dim3 block, uint64_t dynamicShared,
                                cudaStream_t stream) const;
  struct InFlightLaunch;
  // Runs `step` (a launch's run, or its next part) as the running launch.
  bool runAsTheRunningLaunch(InFlightLaunch& launch, const std::function<bool()>& step);
  // The launch's record, races and faults, once its kernel has finished.
  cudaError_t finishLaunch(InFlightLaunch& launch);
  cudaError_t recordLaunchFailure(InFlightLaunch& launch);  // its error, sticky where it is
  // The suspended launch, then the work queued behind it, in issue order.
  // hostWaits: all of it (the launch may no longer wait for the host); else
  // until the launch waits again. True when nothing is left.
  bool runDeferredWork(bool hostWaits);
  // Whether work of `stream`, or the record of `event`, has yet to run.
  bool pendingOn(cudaStream_t stream, cudaEvent_t event) const;
  // A query answered cudaErrorNotReady: when the work asked about is of
  // another stream than the waiting launch's (it waits only because predatar
  // runs one launch at a time), says so once, so that a program that polls
  // it before releasing the launch does not hang without a word.
  void noteQueryBehindSuspended(cudaStream_t stream, cudaEvent_t event);
  std::shared_ptr<InFlightLaunch> suspended_;  // waits for the host
  bool detectorsHoldLaunches_ = false;         // a checked launch ran since the last retainLiveLaunches
  std::vector<uint32_t> retainedLive_;         // what it kept
  struct DeferredWork {
    cudaStream_t stream;
    cudaEvent_t recorded;
    std::function<cudaError_t()> run;
  };
  std::deque<DeferredWork> deferred_;  // stream work issued since, in issue order
  bool settling_ = false;
  bool warnedQueryBehindSuspended_ = false;
  // Races with earlier launches (LaunchOrder.cpp): their sources and a note
  // naming the streams; remembers this launch while later ones may race with it.
  void noteLaunchOrder(LaunchRecord& record, uintptr_t stream);
  // Exact repeats of earlier launches (LaunchReplay.cpp): `replayRepeat`
  // fills `record` and applies the earlier launch's effect when it may stand
  // for this launch (true); `learnRepeat` remembers a launch that ran.
  struct RepeatProbe {
    bool eligible = false;  // a repeatable kernel under the deterministic schedule
    RepeatedLaunches::Key key;
    RepeatedLaunches::Probe probe;
    std::unique_ptr<FootprintRecorder> footprint;  // when the launch runs under the detectors
    // The earlier launch whose races stand for this one's: the launch runs
    // without the detectors (Runtime::takesRacesOf).
    std::optional<uint64_t> racesOf;
  };
  bool replayRepeat(KernelRecord& kernel, const sim::KernelSignature& sig, const sim::LaunchConfig& config,
                    bool mayReplay, LaunchRecord& record, RepeatProbe& repeat);
  // A launch that is not an exact repeat, but whose kernel's events do not
  // depend on data (sim::dataDependenceProblem) and which has the key of an
  // earlier launch that ran under the detectors, emits that launch's events
  // again: it runs for its effect on memory alone, and that launch's races
  // are its own (RepeatProbe::racesOf). `mayReplay` as for replayRepeat.
  bool takesRacesOf(KernelRecord& kernel, bool mayReplay, const LaunchRecord& record, RepeatProbe& repeat);
  void takeRaces(uint64_t twin, LaunchRecord& record) const;  // after such a launch ran
  void retainLiveLaunches(const std::vector<uint32_t>& live);
  void learnRepeat(const KernelRecord& kernel, const RepeatProbe& repeat, const LaunchRecord& record,
                   const sim::LaunchStats& stats, const absl::Status& status);
  void recordFootprint(KernelRecord& kernel, const LaunchRecord& record, RepeatProbe& repeat, EventFanout& fanout);
  RepeatedLaunches repeats_;
  std::set<std::string> undefinedBehaviourNoted_;  // sites (sim::LaunchStats) whose note was printed
  // Races printed as found: the launch that printed each pair first (printRaces).
  std::map<InstructionPair, uint64_t> printedRaces_;
  std::set<std::string> repeatsNoted_;  // kernels whose repeated races printRaces mentioned
  void printRaces(const LaunchRecord& record);
  // Runs the grids a launch launched from the device (DeviceLaunch.cpp).
  void launchDeviceChildren(std::vector<sim::DeviceLaunchRequest>& children, cudaStream_t stream);
  struct LiveLaunchInfo {
    std::string kernel, stream;
    Dim3 grid, block;
    SourceTable sources;
  };
  StreamOrder order_;
  std::map<uint32_t, LiveLaunchInfo> liveLaunches_;
  // One set of detectors for every checked launch: they keep the accesses of
  // launches a later one may be unordered with (races between streams).
  std::vector<std::unique_ptr<Detector>> detectors_;
  // Feeds them (through results_) beside the emulator (PREDATAR_THREADS);
  // its workers wait between launches. Flushed before the runtime reads a
  // detector itself.
  std::unique_ptr<DetectorFeed> feed_;
  // Each detector's races and figures at each launch's end, taken in its own
  // thread: a launch's record is completed from them when a later launch
  // ends (LaunchAwaitingResults), so the emulator and the faster detector
  // do not wait for the slower one at every launch's end.
  std::unique_ptr<LaunchResults> results_;
  // A launch in launches_ whose races, detector figures and what follows from
  // them (allocation names, printed races, the report) are still to come.
  // Launches are completed in order (printRaces, noteLaunchOrder).
  struct LaunchAwaitingResults {
    size_t index;         // in launches_
    bool fed = false;     // the detectors saw its events: results_ holds its results
    uint64_t mark = 0;    // the feed's mark after its end (DetectorFeed::mark)
    uintptr_t stream = 0;
    std::optional<uint64_t> racesOf;  // RepeatProbe::racesOf
  };
  std::deque<LaunchAwaitingResults> awaitingResults_;
  // When the detectors run in threads of their own, up to this many launches
  // wait for their results: a launch's end completes the earlier ones the
  // detectors are done with, and waits only for launches beyond these. (With
  // one, the emulator waited at each launch's end for the slower detector to
  // finish the launch before, and the faster detector, done with both, had
  // nothing to do: 0.2-0.4 s of idle core a detector on needle, 253 launches.)
  static constexpr size_t kLaunchesAwaitingResults = 8;
  // all: every one; else all but the latest that the detectors are done
  // with, and those beyond kLaunchesAwaitingResults (the others are
  // completed at a later launch's end).
  void completeLaunches(bool all);
  void completeLaunch(const LaunchAwaitingResults& launch);
  // A launch refused before it ran (module without loadable PTX, unsupported
  // feature): recorded in the report as a failed launch; returns `error`.
  cudaError_t refuseLaunch(const KernelRecord& kernel, dim3 grid, dim3 block, cudaError_t error, std::string why);

  DeviceLock mutex_;
  RunOptions options_;
  std::unique_ptr<sim::DeviceMemory> memory_;
  std::vector<std::unique_ptr<RegisteredModule>> modules_;
  std::vector<std::unique_ptr<KernelRecord>> kernels_;
  std::map<const void*, KernelRecord*> kernelsByHost_;
  std::vector<std::unique_ptr<VariableRecord>> variables_;
  std::map<const void*, VariableRecord*> variablesByHost_;
  std::map<uint64_t, std::pair<uint64_t, AllocationKind>> allocations_;  // base -> bytes, kind
  std::set<uintptr_t> streams_;
  std::map<uintptr_t, std::unique_ptr<Event>> events_;
  uintptr_t nextHandle_ = 0x1000;
  uint64_t allocationCount_ = 0;
  // --leak-check full: device and managed allocations still live at a
  // cudaDeviceReset, and at exit (noteLeaks); written out by finish().
  void noteLeaks(const char* when);
  std::vector<std::string> leaks_;
  std::map<uint64_t, CallSite> allocationSites_;  // base -> the program's call (leak check only)
  uint64_t deviceBytes_ = 0;             // cudaMalloc'd and managed bytes allocated now
  LaunchRecord* running_ = nullptr;      // the launch being emulated (for recordOutOfMemory)
  cudaError_t sticky_ = cudaSuccess;
  uint64_t callsFailedSticky_ = 0;  // since sticky_ was set
  uint64_t apiErrorsWritten_ = 0;   // apiErrorsNoted() at the last writeApiErrors
  std::set<std::string> launchFailuresPrinted_;  // their stderr lines (Launch.cpp)
  uint64_t matchingLaunches_ = 0;
  std::vector<LaunchRecord> launches_;  // grown only by recordLaunch
  LaunchLedger ledger_;  // counts them for `predatar run`, whatever way the process ends
  std::optional<std::chrono::steady_clock::time_point> lastReportWrite_;   // any rewrite (Launch.cpp)
  std::optional<std::chrono::steady_clock::time_point> lastFindingWrite_;  // one for a race or an error
  std::chrono::steady_clock::duration lastReportWriteTook_{};
  std::string processNote_;  // " [pid N]" in a child process, appended to kernel names
};

// `args` for Runtime::launch from values Runtime::copyArguments made.
std::vector<void*> argumentPointers(std::vector<std::vector<uint8_t>>& values);

// Per-thread last error (cudaGetLastError / cudaPeekAtLastError).
cudaError_t& lastError();
// An error a runtime call returned to the program (`function`: the call, or
// the helper that failed for it, as std::source_location names it): counted
// per call and error, with the program's call site of the first, for the
// report's API ERROR lines (apiErrorMarkerSuffix), as compute-sanitizer's
// "Program hit ... on CUDA API call to ...". cudaErrorNotReady, a query's
// answer, is not one.
void noteApiError(std::string_view function, cudaError_t error);
// Records a failure as the last error and among the API errors, and returns it.
inline cudaError_t fail(cudaError_t error, std::source_location where = std::source_location::current()) {
  if (error != cudaSuccess) {
    lastError() = error;
    noteApiError(where.function_name(), error);
  }
  return error;
}
// The same for a call refused by name, which the report lists as REFUSED.
inline cudaError_t failRefused(cudaError_t error) {
  lastError() = error;
  return error;
}
// The API errors noted, one line each, for the report; at most `limit`.
// Runs addr2line (once an error): not for a signal handler.
std::vector<std::string> describeApiErrors(size_t limit);
// How many API errors were noted so far (to rewrite their file when it grew).
uint64_t apiErrorsNoted();

const char* errorName(cudaError_t error);
const char* errorString(cudaError_t error);

std::string demangle(const std::string& mangled);

}  // namespace predatar::cudart
