// Runtime::launch: a kernel launch through the emulator and the detectors,
// and the launches that wait for the host (HostHandOff.h): such a launch is
// suspended while the host goes on, the stream work issued meanwhile is
// queued behind it, and both finish when the host next waits for the device.
#include <malloc.h>

#include <algorithm>
#include <chrono>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "analysis/Detector.h"
#include "cudart/runtime/Api.h"
#include "cudart/runtime/DeviceFeatures.h"
#include "cudart/runtime/Graph.h"
#include "cudart/runtime/HostHandOff.h"
#include "cudart/runtime/Interrupt.h"
#include "cudart/runtime/LaunchProgress.h"
#include "cudart/runtime/OutOfMemory.h"
#include "cudart/runtime/Runtime.h"
#include "cudart/runtime/RuntimeDetail.h"

namespace predatar::cudart {
using namespace detail;

// A launch from its start in the emulator to its record: everything the
// record is made of after the kernel ran (finishLaunch), which may be long
// after `launch` returned when the kernel waited for the host.
struct Runtime::InFlightLaunch {
  KernelRecord* kernel = nullptr;
  RegisteredModule* module = nullptr;
  cudaStream_t stream = nullptr;
  sim::LaunchConfig config;
  LaunchRecord record;
  RepeatProbe repeat;
  KernelInfoRecorder info;
  EventFanout fanout;
  std::unique_ptr<LaunchOrderSink> ordered;
  bool fed = false;  // the detectors see its events
  sim::LaunchStats stats;
  absl::Status status;
  std::chrono::steady_clock::time_point started;
  std::unique_ptr<HostHandOff> handOff;  // when the kernel may wait for the host
};

namespace {

// Whether a kernel may wait for the host: an argument points into memory
// the host reaches while kernels run (pinned, managed or registered memory).
// Such a launch runs on a thread of its own, so that it can wait.
bool argumentsReachHostMemory(const sim::KernelSignature& sig, const sim::LaunchConfig& config,
                              const sim::DeviceMemory& memory) {
  for (size_t i = 0; i < sig.params.size() && i < config.args.size(); ++i)
    for (uint32_t at = 0; at + sizeof(uint64_t) <= sig.params[i].bytes; at += sizeof(uint64_t)) {
      uint64_t value;
      std::memcpy(&value, static_cast<const char*>(config.args[i]) + at, sizeof value);
      auto a = value ? memory.find(value) : std::nullopt;
      if (a && a->placement == sim::DeviceMemory::Placement::HostShared) return true;
    }
  return false;
}

}  // namespace

bool Runtime::selected(const KernelRecord& kernel) {
  if (!options_.kernelName.empty() && kernel.mangled.find(options_.kernelName) == std::string::npos &&
      kernel.demangled.find(options_.kernelName) == std::string::npos)
    return false;
  uint64_t n = matchingLaunches_++;
  if (n < options_.launchSkip) return false;
  if (options_.launchCount && n - options_.launchSkip >= *options_.launchCount) return false;
  return true;
}

cudaError_t Runtime::launchConfigError(const KernelRecord& kernel, dim3 grid, dim3 block, uint64_t dynamicShared,
                                       cudaStream_t stream) const {
  if (sticky_ != cudaSuccess) return sticky_;
  if (!validStream(stream)) return cudaErrorInvalidResourceHandle;
  uint64_t threads = uint64_t(block.x) * block.y * block.z;
  if (grid.x == 0 || grid.y == 0 || grid.z == 0 || threads == 0 || threads > 1024 || block.x > 1024 ||
      block.y > 1024 || block.z > 64 || grid.y > 65535 || grid.z > 65535 || grid.x > 0x7fffffffu)
    return cudaErrorInvalidValue;  // CUDA 13 (driver 580) returns "invalid argument" here, not 9
  if (dynamicShared > uint64_t(std::max(kernel.maxDynamicSharedBytes, 48 * 1024)))
    return cudaErrorInvalidValue;
  return cudaSuccess;
}

cudaError_t Runtime::launch(KernelRecord& kernel, dim3 grid, dim3 block, void** args,
                            uint64_t dynamicShared, cudaStream_t stream) {
  settleSuspendedLaunch();
  if (cudaError_t e = launchConfigError(kernel, grid, block, dynamicShared, stream); e != cudaSuccess) return e;
  RegisteredModule& m = *kernel.module;
  if (!m.fatbinStatus.ok()) {
    warn(absl::StrCat("cannot launch ", kernel.demangled, ": ", m.fatbinStatus.message()));
    return refuseLaunch(kernel, grid, block, cudaErrorNoKernelImageForDevice, std::string(m.fatbinStatus.message()));
  }
  if (std::string why = unsupportedKernelFeature(m.ptx, kernel.mangled); !why.empty()) {
    warn(absl::StrCat("cannot launch ", kernel.demangled, ": ", why));
    return refuseLaunch(kernel, grid, block, cudaErrorNotSupported, why);
  }
  if (cudaError_t e = ensureLoaded(m); e != cudaSuccess)
    return refuseLaunch(kernel, grid, block, e, absl::StrCat("cannot load the PTX of ", m.sourceName, ": ",
                                                             describe(m.loadStatus)));
  const sim::KernelSignature* sig = signature(kernel);
  if (sig == nullptr) {
    warn(absl::StrCat("kernel ", kernel.mangled, " is registered but not in the PTX of ", m.sourceName));
    return cudaErrorInvalidDeviceFunction;
  }
  if (!sig->params.empty() && args == nullptr) return cudaErrorInvalidValue;

  auto flight = std::make_unique<InFlightLaunch>();
  InFlightLaunch& f = *flight;
  f.kernel = &kernel;
  f.module = &m;
  f.stream = stream;
  sim::LaunchConfig& config = f.config;
  config.grid = Dim3{grid.x, grid.y, grid.z};
  config.block = Dim3{block.x, block.y, block.z};
  config.dynamicSharedBytes = uint32_t(dynamicShared);
  if (size_t stack = 0; cudaDeviceGetLimit(&stack, 0 /* cudaLimitStackSize */) == cudaSuccess)
    config.stackLimitBytes = stack;
  config.schedule = options_.schedule;
  config.schedule.interrupt = interruptFlag();
  config.schedule.onProgress = progressPrinter(launches_.size(), kernel.demangled);
  config.setGraphConditional = setGraphConditional;
  if (cooperativeLaunchPending()) prepareCooperativeLaunch(config, *memory_);
  for (size_t i = 0; i < sig->params.size(); ++i) config.args.push_back(args[i]);

  LaunchRecord& record = f.record;
  record.index = launches_.size();
  record.kernel = kernel.demangled + processNote_;
  record.mangled = kernel.mangled;
  record.module = m.sourceName;
  record.grid = config.grid;
  record.block = config.block;
  record.dynamicSharedBytes = dynamicShared;
  record.checked = selected(kernel);
  StreamOrder::Launch order =
      order_.launch(reinterpret_cast<uintptr_t>(stream), uint32_t(record.index), programmaticLaunchPending());
  // The kernel it may overlap (kernels that trigger are never replayed: sim/Repeatable.cpp).
  config.programmaticOverlap = order.overlapped != UINT32_MAX;

  f.fanout.add(&f.info);
  if (record.checked && detectors_.empty()) {
    DetectorOptions detectorOptions;
    detectorOptions.perLocationDedup = options_.perLocation;
    if (const char* v = env("PREDATAR_COMPRESSION")) detectorOptions.compression = std::strcmp(v, "off") != 0;
    if (const char* v = env("PREDATAR_VOLATILE")) detectorOptions.volatileStrong = std::strcmp(v, "strong") == 0;
    // (off: every lane through the per-lane path, to compare reports with)
    if (const char* v = env("PREDATAR_SAME_WORD_READS")) detectorOptions.sameWordReads = std::strcmp(v, "off") != 0;
    if (const char* v = env("PREDATAR_HB_APART")) detectorOptions.hbOnGwcp = std::strcmp(v, "1") != 0;
    for (auto& d : makeDetectors(options_.detectors, detectorOptions))
      if (d) detectors_.push_back(std::move(d));
  }
  if (record.checked && !feed_ && !detectors_.empty()) {
    if (!results_) results_ = std::make_unique<LaunchResults>(detectors_);
    feed_ = std::make_unique<DetectorFeed>(results_->sinks(), 0);
  }
  if (record.checked)
    for (const auto& d : detectors_) record.detectors.push_back(std::string(d->name()));
  if (options_.verbose)
    warn(absl::StrCat("launch ", record.index, ": ", record.kernel, " <<<(", grid.x, ",", grid.y, ",", grid.z,
                      "), (", block.x, ",", block.y, ",", block.z, "), ", dynamicShared, ">>>",
                      record.checked ? "" : " (not checked)"));
  bool orderedAfterAll = order.unordered.empty() && !config.programmaticOverlap;
  if (replayRepeat(kernel, *sig, config, orderedAfterAll && !order_.mayRaceWithExistingStreams(uint32_t(record.index)), record,
                   f.repeat)) {
    retainLiveLaunches(order.live);
    noteLaunchOrder(record, reinterpret_cast<uintptr_t>(stream));
    rewriteReportIfDue(recordLaunch(std::move(record)));  // (a program of repeated launches, killed, keeps them too)
    dieIfInterrupted(*this);
    return cudaSuccess;
  }
  if (f.repeat.racesOf) {  // (the detectors would see an earlier launch's events again)
    retainLiveLaunches(order.live);
  } else {
    recordFootprint(kernel, record, f.repeat, f.fanout);
    f.fed = record.checked && feed_;
    if (f.fed) f.fanout.add(feed_.get());
    else retainLiveLaunches(order.live);
  }
  f.ordered = std::make_unique<LaunchOrderSink>(f.fanout, uint32_t(record.index), std::move(order));
  auto run = [this, &f] {
    MemoryActivity activity("running kernel %s (launch %zu, grid (%u,%u,%u) x block (%u,%u,%u))",
                            f.record.kernel.c_str(), f.record.index, f.config.grid.x, f.config.grid.y,
                            f.config.grid.z, f.config.block.x, f.config.block.y, f.config.block.z);
    f.status = sim::launch(*f.module->module, f.kernel->mangled, f.config, *memory_, *f.ordered, &f.stats);
  };
  f.started = std::chrono::steady_clock::now();
  if (argumentsReachHostMemory(*sig, config, *memory_)) {
    f.handOff = std::make_unique<HostHandOff>();
    config.schedule.waitForHost = [&f] { return f.handOff->waitForHost(); };
    bool finished = runAsTheRunningLaunch(f, [&] { return f.handOff->start(run); });
    if (!finished) {
      // The kernel waits for the host: the host goes on, as it would on a GPU.
      if (options_.verbose)
        warn(absl::StrCat("launch ", record.index, ": ", record.kernel,
                          " waits for the host; later stream work waits for it"));
      suspended_ = std::move(flight);
      return cudaSuccess;
    }
  } else {
    runAsTheRunningLaunch(f, [&] {
      run();
      return true;
    });
  }
  return finishLaunch(f);
}

// A launch the detectors do not see (a replay, one run without them, one not
// selected): what they keep of earlier launches shrinks now to what its order
// leaves live (Detector::retainLaunches), when no launch is in flight.
// Each retain flushes the feed (and a detector walks its shadow when a launch
// it holds records of died): it is done only when the launches they saw that
// are live changed (a replay loop's live set grows with each replay, which
// holds none).
void Runtime::retainLiveLaunches(const std::vector<uint32_t>& live) {
  if (detectors_.empty() || suspended_) return;
  std::vector<uint32_t> seen;  // the live launches the detectors saw
  for (uint32_t l : live)
    if (l < launches_.size() && launches_[l].checked && !launches_[l].replayOf && !launches_[l].racesOf)
      seen.push_back(l);
  if (!detectorsHoldLaunches_ && seen == retainedLive_) return;
  if (feed_) feed_->flush();
  for (const auto& d : detectors_) d->retainLaunches(seen);
  detectorsHoldLaunches_ = false;
  retainedLive_ = std::move(seen);
  // The shadow's records went back to malloc's free lists, still resident:
  // the program's own later allocations (FDTD3d's 212 MB output) would not
  // reuse them. Once, when nothing is left live.
  if (retainedLive_.empty()) malloc_trim(0);
}

bool Runtime::runAsTheRunningLaunch(InFlightLaunch& f, const std::function<bool()>& step) {
  running_ = &f.record;
  setInLaunch(true);
  bool finished = step();
  setInLaunch(false);
  running_ = nullptr;
  return finished;
}

// Races as they are found (the full report comes at exit). A pair an earlier
// launch of the kernel printed is not printed again (one line says so, once
// per kernel): a kernel launched in a loop finds the same races each time
// (radixSortThrust's 600 launches printed 400 lines for 4 pairs).
void Runtime::printRaces(const LaunchRecord& record) {
  if (options_.quiet) return;
  std::optional<uint64_t> printedBy;
  for (const Race& r : record.races) {
    auto [it, fresh] = printedRaces_.try_emplace(instructionPair(r), record.index);
    if (fresh) std::fprintf(stderr, "%s\n", describeRace(record, r).c_str());
    else if (!printedBy) printedBy = it->second;
  }
  if (printedBy && repeatsNoted_.insert(record.kernel).second)
    std::fprintf(stderr, "predatar: launch %llu: %s finds races again that launch %llu found; races of later launches "
                 "are printed here only when new (the report at exit lists every launch's)\n",
                 static_cast<unsigned long long>(record.index), shortTemplateArguments(record.kernel).c_str(),
                 static_cast<unsigned long long>(*printedBy));
}

// The record's parts from the emulator, now; the detectors' parts when they
// are done with the launch (completeLaunch).
cudaError_t Runtime::finishLaunch(InFlightLaunch& f) {
  LaunchRecord& record = f.record;
  const sim::LaunchStats& stats = f.stats;
  const absl::Status& status = f.status;
  if (record.checked && feed_) detectorsHoldLaunches_ = true;
  record.figures.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - f.started).count();
  record.figures.warpInstructions = stats.warpInstructions;
  if (status.ok() && stats.launchedDependents)
    order_.keptForDependents(reinterpret_cast<uintptr_t>(f.stream), uint32_t(record.index));
  for (const std::string& w : stats.warnings) warn("warning: " + w);
  for (const auto& u : stats.undefinedBehaviour)  // once per site: a kernel in a loop relies on it every launch
    if (undefinedBehaviourNoted_.insert(u.site).second)
      warn("warning: launch " + std::to_string(record.index) + ": " + u.message);
  for (const auto& u : stats.uninitializedReads) record.uninitializedReads.push_back({u.message, u.count});
  record.figures.threadInstructions = stats.threadInstructions;
  learnRepeat(*f.kernel, f.repeat, record, stats, status);
  record.info = std::move(f.info.info);
  if (record.info.grid.count() == 0 || record.info.name.empty()) {
    record.info.grid = f.config.grid;
    record.info.block = f.config.block;
  }
  cudaError_t result = cudaSuccess;
  if (!status.ok()) {
    settleDetectors();  // (earlier launches' races are printed before this failure's line)
    result = recordLaunchFailure(f);
  }
  LaunchAwaitingResults awaiting{record.index, f.fed, f.fed ? feed_->mark() : 0, reinterpret_cast<uintptr_t>(f.stream),
                                 status.ok() ? f.repeat.racesOf : std::nullopt};
  awaitingResults_.push_back(std::move(awaiting));
  record.awaitingResults = true;
  recordLaunch(std::move(record));
  completeLaunches(/*all=*/!status.ok());  // (a failed launch's races, before the program learns it failed)
  dieIfInterrupted(*this);
  if (!f.stats.deviceLaunches.empty()) launchDeviceChildren(f.stats.deviceLaunches, f.stream);
  return result;
}

cudaError_t Runtime::recordLaunchFailure(InFlightLaunch& f) {
  LaunchRecord& record = f.record;
  const sim::LaunchStats& stats = f.stats;
  record.error = describe(f.status);
  cudaError_t result = errorForLaunch(f.status);
  // One line as it happens (once for a kernel's launches that fail alike, as
  // a refused grid does launch after launch); the whole message is the
  // report's KERNEL FAULT.
  std::string line = absl::StrCat("kernel ", record.kernel, " failed (", errorName(result),
                                  "): ", record.error.substr(0, record.error.find('\n')),
                                  record.error.find('\n') == std::string::npos ? "" : " (more in the report)");
  if (launchFailuresPrinted_.insert(line).second) warn(line);
  if (result != cudaErrorNotSupported && result != cudaErrorInvalidValue) sticky_ = result;
  record.cudaError = errorName(result);
  if (stats.fault)
    record.fault = FaultLocation{stats.fault->pc, stats.fault->file, stats.fault->line, stats.fault->blockIdx,
                                 stats.fault->threadIdx};
  return result;
}

void Runtime::completeLaunches(bool all) {
  while (!awaitingResults_.empty()) {
    const LaunchAwaitingResults& next = awaitingResults_.front();
    // (The latest waits even when its results are in: which launches a run
    // that ends abruptly lost does not hang on the detectors' timing.)
    bool latest = awaitingResults_.size() == 1;
    bool mayWait = next.fed && feed_ && feed_->parallel() &&
                   (latest || (awaitingResults_.size() <= kLaunchesAwaitingResults && !feed_->reached(next.mark)));
    // (A fork() child often ends with _exit: its report is rewritten at each finding.)
    if (!all && mayWait && processNote_.empty()) return;
    LaunchAwaitingResults launch = std::move(awaitingResults_.front());
    awaitingResults_.pop_front();
    completeLaunch(launch);
  }
}

// The detectors' part of a launch's record: their races and figures, the
// allocations the races are in, and what follows from them.
void Runtime::completeLaunch(const LaunchAwaitingResults& launch) {
  LaunchRecord& record = launches_[launch.index];
  record.awaitingResults = false;
  if (launch.fed) {
    feed_->waitFor(launch.mark);
    std::vector<DetectorLaunchResult> results = results_->take(uint32_t(launch.index));
    for (size_t i = 0; i < results.size(); ++i) {
      const Detector& d = *detectors_[i];
      const DetectorStats& ds = results[i].stats;
      record.figures.detectors.push_back(DetectorFigures{std::string(d.name()), results[i].events,
                                                         ds.peakThreadClockBytes, ds.peakLockClockBytes,
                                                         ds.peakQueueBytes, ds.peakShadowBytes,
                                                         d.checkedBy() ? std::string(d.checkedBy()->name()) : ""});
      record.races.insert(record.races.end(), std::make_move_iterator(results[i].races.begin()),
                          std::make_move_iterator(results[i].races.end()));
    }
  }
  // Name global locations outside the module's variables by their allocation.
  for (const Race& r : record.races) {
    std::string name;
    bool symbol = false;
    for (const auto& sym : record.info.symbols)
      symbol |= sym.space == r.space && r.address >= sym.base && r.address < sym.base + sym.bytes;
    if (r.space == MemorySpace::Global && !symbol)
      if (auto a = memory_->find(r.address)) name = absl::StrCat(a->label, "+", r.address - a->base);
    record.allocations.push_back(std::move(name));
  }
  if (launch.racesOf) takeRaces(*launch.racesOf, record);  // (with the allocations named then)
  noteLaunchOrder(record, launch.stream);
  printRaces(record);
  // The source table and symbols only serve to describe races (a live
  // launch's whole table went to liveLaunches_ above, for later launches'
  // races with it).
  if (record.races.empty()) record.info = KernelInfo{};
  else keepOnlyRaceSources(record);
  rewriteReportIfDue(record);
}

// Rewrites the report after a launch (run or replayed, the last of
// launches_) when it found something, so that a later crash of the program
// does not lose it (at most once a second; always at exit), and every 10 s
// regardless: a program killed outright (a CPU limit's SIGKILL) then loses
// at most 10 s of launches from its report, where a run of clean launches
// lost them all ("0 kernel launches checked"). The report grows with the
// launches, so the periodic rewrite waits at least 20 times as long as the
// last one took (a twentieth of the run at most).
void Runtime::rewriteReportIfDue(const LaunchRecord& last) {
  using Steady = std::chrono::steady_clock;
  auto now = Steady::now();
  auto since = [&](const std::optional<Steady::time_point>& t) { return t ? now - *t : Steady::duration::max(); };
  bool found = (!last.races.empty() || !last.error.empty()) &&
               (!processNote_.empty() || since(lastFindingWrite_) >= std::chrono::seconds(1));
  auto period = std::max<Steady::duration>(std::chrono::seconds(10), 20 * lastReportWriteTook_);
  if (found || since(lastReportWrite_) >= period) {
    writeReport();
    writeApiErrors();
    lastReportWrite_ = Steady::now();
    lastReportWriteTook_ = *lastReportWrite_ - now;
    if (found) lastFindingWrite_ = now;
  }
}

// ---------------------------------------------------------------- work behind a suspended launch

cudaError_t Runtime::deferLaunch(KernelRecord& kernel, dim3 grid, dim3 block, void** args, uint64_t dynamicShared,
                                 cudaStream_t stream) {
  if (cudaError_t e = launchConfigError(kernel, grid, block, dynamicShared, stream); e != cudaSuccess) return e;
  // A kernel that cannot load keeps no values: the launch is refused when it runs.
  std::vector<std::vector<uint8_t>> values;
  if (kernel.module->fatbinStatus.ok())
    if (cudaError_t e = copyArguments(kernel, args, values); e == cudaErrorInvalidValue) return e;
  defer(stream, [this, &kernel, grid, block, values = std::move(values), dynamicShared, stream]() mutable {
    std::vector<void*> argv = argumentPointers(values);
    return launch(kernel, grid, block, argv.empty() ? nullptr : argv.data(), dynamicShared, stream);
  });
  return cudaSuccess;
}

cudaError_t Runtime::copyArguments(KernelRecord& kernel, void** args, std::vector<std::vector<uint8_t>>& values) {
  if (cudaError_t e = ensureLoaded(*kernel.module); e != cudaSuccess) return e;
  const sim::KernelSignature* sig = signature(kernel);
  if (sig == nullptr) return cudaErrorInvalidDeviceFunction;
  if (!sig->params.empty() && args == nullptr) return cudaErrorInvalidValue;
  values.clear();
  for (size_t i = 0; i < sig->params.size(); ++i) {
    const auto* value = static_cast<const uint8_t*>(args[i]);
    values.emplace_back(value, value + sig->params[i].bytes);
  }
  return cudaSuccess;
}

std::vector<void*> argumentPointers(std::vector<std::vector<uint8_t>>& values) {
  std::vector<void*> pointers;
  for (auto& v : values) pointers.push_back(v.data());
  return pointers;
}

void Runtime::defer(cudaStream_t stream, std::function<cudaError_t()> work, cudaEvent_t recorded) {
  deferred_.push_back(DeferredWork{stream, recorded, std::move(work)});
}

bool Runtime::pendingOn(cudaStream_t stream, cudaEvent_t event) const {
  if (!event && suspended_ && suspended_->stream == stream) return true;
  return std::any_of(deferred_.begin(), deferred_.end(),
                     [&](const DeferredWork& w) { return event ? w.recorded == event : w.stream == stream; });
}

bool Runtime::queryReady(cudaStream_t stream, cudaEvent_t event) {
  if (!pendingOn(stream, event) || runDeferredWork(/*hostWaits=*/false) || !pendingOn(stream, event)) return true;
  noteQueryBehindSuspended(stream, event);
  return false;
}

void Runtime::noteQueryBehindSuspended(cudaStream_t stream, cudaEvent_t event) {
  if (!suspended_ || warnedQueryBehindSuspended_) return;
  if (event) {
    auto record = std::find_if(deferred_.begin(), deferred_.end(), [&](const DeferredWork& w) { return w.recorded == event; });
    if (record == deferred_.end()) return;
    stream = record->stream;
  }
  if (stream == suspended_->stream) return;  // it waits for the launch on a GPU too
  warnedQueryBehindSuspended_ = true;
  warn(absl::StrCat("warning: ", event ? "cudaEventQuery" : "cudaStreamQuery", " answers cudaErrorNotReady: the work ",
                    "asked about is queued behind launch ", suspended_->record.index, " (", suspended_->record.kernel,
                    ") on another stream, which waits for the host to write memory. predatar runs one launch at a "
                    "time, so that work runs only after it (on a GPU it may run at once): a program that waits "
                    "for it before releasing the launch waits forever here"));
}

void Runtime::settleSuspendedLaunch() { runDeferredWork(/*hostWaits=*/true); }

bool Runtime::runDeferredWork(bool hostWaits) {
  if (settling_ || (!suspended_ && deferred_.empty())) return true;  // (work that runs runs nothing more)
  settling_ = true;
  while (suspended_ || !deferred_.empty()) {
    if (suspended_) {
      std::shared_ptr<InFlightLaunch> f = suspended_;
      if (!runAsTheRunningLaunch(*f, [&] { return f->handOff->resume(hostWaits); })) break;  // waits again (not if hostWaits)
      suspended_.reset();
      fail(finishLaunch(*f));
      continue;
    }
    std::function<cudaError_t()> work = std::move(deferred_.front().run);
    deferred_.pop_front();
    fail(work());
  }
  settling_ = false;
  return !suspended_;
}

cudaError_t Runtime::refuseLaunch(const KernelRecord& kernel, dim3 grid, dim3 block, cudaError_t error,
                                  std::string why) {
  LaunchRecord record;
  record.index = launches_.size();
  record.kernel = kernel.demangled + processNote_;
  record.mangled = kernel.mangled;
  record.module = kernel.module->sourceName;
  record.grid = Dim3{grid.x, grid.y, grid.z};
  record.block = Dim3{block.x, block.y, block.z};
  record.error = std::move(why);
  record.cudaError = errorName(error);
  recordLaunch(std::move(record));
  writeReport();
  return error;
}

}  // namespace predatar::cudart
