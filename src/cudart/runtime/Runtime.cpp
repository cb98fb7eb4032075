#include "cudart/runtime/Runtime.h"
#include "cudart/runtime/DeviceFeatures.h"
#include "cudart/runtime/Api.h"
#include "cudart/runtime/Graph.h"
#include "cudart/runtime/Unsupported.h"
#include "cudart/RunEnvironment.h"

#include <cxxabi.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "analysis/Detector.h"
#include "cudart/runtime/Fork.h"
#include "cudart/runtime/HostAccess.h"
#include "cudart/runtime/HostCallSite.h"
#include "cudart/runtime/Interrupt.h"
#include "cudart/runtime/LaunchProgress.h"
#include "cudart/runtime/OutOfMemory.h"
#include "cudart/runtime/RuntimeDetail.h"

namespace predatar::cudart {
namespace detail {

const char* env(const char* name) {
  const char* v = std::getenv(name);
  return v && *v ? v : nullptr;
}

bool envFlag(const char* name) {
  const char* v = env(name);
  return v && std::strcmp(v, "0") != 0 && std::strcmp(v, "false") != 0;
}

cudaError_t errorForLaunch(const absl::Status& status) {
  std::string m(status.message());
  auto has = [&](const char* what) { return m.find(what) != std::string::npos; };
  switch (status.code()) {
    case absl::StatusCode::kFailedPrecondition:  // faults of the emulated kernel
      if (has("misaligned")) return cudaErrorMisalignedAddress;
      if (has("out-of-bounds") || has("out of bounds") || has("illegal address")) return cudaErrorIllegalAddress;
      if (has("deadlock")) return cudaErrorLaunchTimeout;
      if (has("assert")) return cudaErrorAssert;
      return cudaErrorLaunchFailure;
    case absl::StatusCode::kOutOfRange: return cudaErrorIllegalAddress;
    case absl::StatusCode::kDeadlineExceeded:
    case absl::StatusCode::kResourceExhausted: return cudaErrorLaunchTimeout;
    case absl::StatusCode::kUnimplemented: return cudaErrorNotSupported;
    case absl::StatusCode::kInvalidArgument: return cudaErrorInvalidValue;
    default: return cudaErrorLaunchFailure;
  }
}

void warn(const std::string& message) { std::fprintf(stderr, "predatar: %s\n", message.c_str()); }

// A status for the user; marks what the emulator does not implement (yet).
std::string describe(const absl::Status& status) {
  std::string text(status.message());
  if (status.code() == absl::StatusCode::kUnimplemented) text += " (not implemented by the emulator)";
  return text;
}

}  // namespace detail
using namespace detail;

// ---------------------------------------------------------------- options

RunOptions RunOptions::fromEnvironment() {
  RunOptions o;
  if (const char* v = env("PREDATAR_DETECTORS")) {
    o.detectors.clear();
    for (absl::string_view d : absl::StrSplit(v, absl::ByAnyChar(", "), absl::SkipEmpty())) {
      if (d == "none") continue;
      std::string canonical = canonicalDetectorName(std::string(d));
      if (canonical.empty())
        o.errors.push_back(absl::StrCat("unknown detector '", std::string(d), "' in PREDATAR_DETECTORS"));
      else
        o.detectors.push_back(canonical);
    }
  }
  if (const char* v = env("PREDATAR_REPORT")) o.reportPath = v;
  if (const char* v = env("PREDATAR_SCHEDULE")) {
    std::string s = v;
    if (s == "random")
      o.schedule.policy = sim::ScheduleOptions::Policy::Random;
    else if (s == "round-robin" || s == "roundrobin" || s == "rr")
      o.schedule.policy = sim::ScheduleOptions::Policy::RoundRobin;
    else
      o.errors.push_back(absl::StrCat("unknown schedule '", s, "' in PREDATAR_SCHEDULE (round-robin, random)"));
  }
  if (const char* v = env("PREDATAR_THREADS"); v && *v && !parseThreadCount(v))
    o.errors.push_back(absl::StrCat("PREDATAR_THREADS='", v, "' is not auto or a number of threads"));
  auto number = [&](const char* name, auto& out) {
    if (const char* v = env(name)) {
      uint64_t n;
      if (absl::SimpleAtoi(v, &n))
        out = n;
      else
        o.errors.push_back(absl::StrCat(name, "='", v, "' is not a number"));
    }
  };
  number("PREDATAR_SEED", o.schedule.seed);
  number("PREDATAR_QUANTUM", o.schedule.quantum);
  number("PREDATAR_STEP_LIMIT", o.schedule.stepLimit);
  o.schedule.progressSeconds = kDefaultProgressSeconds;
  if (const char* v = env("PREDATAR_PROGRESS")) {
    if (!absl::SimpleAtod(v, &o.schedule.progressSeconds) || o.schedule.progressSeconds < 0)
      o.errors.push_back(absl::StrCat("PREDATAR_PROGRESS='", v, "' is not a number of seconds"));
  }
  if (const char* v = env("PREDATAR_TIME_LIMIT")) {
    if (!absl::SimpleAtod(v, &o.schedule.timeLimitSeconds) || o.schedule.timeLimitSeconds < 0)
      o.errors.push_back(absl::StrCat("PREDATAR_TIME_LIMIT='", v, "' is not a number of seconds"));
  }
  number("PREDATAR_LAUNCH_SKIP", o.launchSkip);
  if (const char* v = env("PREDATAR_RESIDENT_BLOCKS")) {
    auto n = sim::parseResidentBlocks(v);
    if (n.ok()) o.schedule.maxResidentBlocks = *n;
    else o.errors.push_back(absl::StrCat("PREDATAR_RESIDENT_BLOCKS: ", n.status().message()));
  }
  if (env("PREDATAR_LAUNCH_COUNT")) {
    uint64_t n = 0;
    number("PREDATAR_LAUNCH_COUNT", n);
    o.launchCount = n;
  }
  if (const char* v = env("PREDATAR_KERNEL_NAME")) o.kernelName = v;
  o.verbose = envFlag("PREDATAR_VERBOSE");
  o.quiet = envFlag("PREDATAR_QUIET");
  o.perLocation = envFlag("PREDATAR_PER_LOCATION");
  // A switch set by hand to anything but on or off is an error, not off: a
  // misspelt PREDATAR_INITCHECK would otherwise give a clean run unchecked.
  auto onOff = [&](const char* name, bool& out) {
    if (const char* v = env(name)) {
      std::string_view s = v;
      if (s == "on" || s == "1") out = true;
      else if (s == "off" || s == "0") out = false;
      else o.errors.push_back(absl::StrCat(name, "='", v, "' is not on or off"));
    }
  };
  onOff("PREDATAR_REPLAY", o.replayRepeats);
  onOff("PREDATAR_INITCHECK", o.initCheck);
  onOff("PREDATAR_LEAK_CHECK", o.leakCheck);
  onOff("PREDATAR_FMAD", o.fusedMultiplyAdd);
  return o;
}

// ---------------------------------------------------------------- runtime

namespace {
std::atomic<Runtime*> created{nullptr};
std::atomic<pid_t> creator{0};
}  // namespace

Runtime& Runtime::get() {
  static Runtime* runtime = [] {
    auto* r = new Runtime(RunOptions::fromEnvironment());
    for (const auto& e : r->options().errors) warn(e);
    if (!r->options().errors.empty()) std::exit(125);
    if (!r->ledger_.claimMainReport()) r->reportAsAProcessOfItsOwn();
    creator = ::getpid();
    created = r;
    watchChildProcesses(*r);
    if (!r->options().reportPath.empty()) installInterruptHandlers();
    installOutOfMemoryHandler();
    protectDeviceMemoryFromHost(*r);
    if (r->options().initCheck) {
      // Host code could write device memory the runtime never sees: unchecked, not clean.
      if (r->memory().arena()) r->memory().enableInitCheck();
      else refusedByTheHost("--initcheck without device memory kept from host code (PREDATAR_HOST_MAPPED_DEVICE_MEMORY=1, or no address space for it)");
    }
    return r;
  }();
  return *runtime;
}

Runtime* Runtime::existing() { return creator == ::getpid() ? created.load() : nullptr; }

void Runtime::writeReportBeforeDying() {
  if (!mutex_.try_lock()) return;
  if (mayWaitForDetectors()) settleDetectors();
  writeReport();
  mutex_.unlock();
}

void Runtime::completeLaunchesBeforeExit() {
  if (!mutex_.try_lock()) return;
  if (!awaitingResults_.empty() && mayWaitForDetectors()) settleDetectors();
  // Always: the last rewrite may be up to 10 s old (rewriteReportIfDue), and
  // launches it lacks would count as unchecked (LaunchLedger.h).
  writeReport();  // (none without a report file)
  mutex_.unlock();
}

void settleRuntimeBeforeFork() {
  if (Runtime* r = Runtime::existing(); r && r->mutex().try_lock()) {
    r->settleDetectors();
    r->mutex().unlock();
  }
}

void adoptRuntimeAfterFork() {
  creator = ::getpid();
  if (Runtime* r = created.load()) r->becomeChildProcess();
}

Runtime::Runtime(RunOptions options)
    : options_(std::move(options)), memory_(std::make_unique<sim::DeviceMemory>()), ledger_(options_.reportPath) {}

LaunchRecord& Runtime::recordLaunch(LaunchRecord record) {
  ledger_.countLaunch();
  return launches_.emplace_back(std::move(record));
}

void** Runtime::registerFatBinary(const void* wrapper) {
  std::lock_guard lock(mutex_);
  auto m = std::make_unique<RegisteredModule>();
  m->index = int(modules_.size());
  m->handleSlot = m.get();
  m->sourceName = absl::StrCat("module ", m->index);
  auto entries = parseFatbinWrapper(wrapper);
  if (!entries.ok()) {
    m->fatbinStatus = entries.status();
  } else {
    // Name the module after its source file (PTX entries first, they are the ones loaded).
    std::string named;
    for (const auto& e : *entries)
      if (e.isPtx() && !e.name.empty() && named.empty()) named = e.name;
    for (const auto& e : *entries)
      if (!e.name.empty() && named.empty()) named = e.name;
    if (!named.empty()) m->sourceName = named;
    auto ptx = selectModulePtx(*entries, named);  // -rdc=true: the translation units linked
    if (!ptx.ok()) {
      m->fatbinStatus = ptx.status();
    } else {
      m->ptx = std::move(ptx->text);
      m->ptxVersion = ptx->arch;  // the virtual architecture, as CUDA reports it (CUB dispatches on it)
      if (ptx->units > 1 && options_.verbose)
        warn(absl::StrCat(m->sourceName, ": linked the PTX of ", ptx->units, " translation units"));
    }
  }
  if (options_.verbose)
    warn(absl::StrCat("registered ", m->sourceName, ": ",
                      m->fatbinStatus.ok() ? absl::StrCat(m->ptx.size(), " bytes of PTX")
                                           : std::string(m->fatbinStatus.message())));
  modules_.push_back(std::move(m));
  return &modules_.back()->handleSlot;
}

RegisteredModule* Runtime::moduleOf(void** handle) {
  if (handle == nullptr || *handle == nullptr) return nullptr;
  for (auto& m : modules_)
    if (&m->handleSlot == handle) return m.get();
  return nullptr;
}

void Runtime::registerFatBinaryEnd(void** handle) {
  std::lock_guard lock(mutex_);
  RegisteredModule* m = moduleOf(handle);
  // A module without kernels or variables (e.g. the device-link stub) needs no PTX.
  if (m && !m->fatbinStatus.ok() && (!m->kernels.empty() || !m->variables.empty()))
    warn(std::string(m->fatbinStatus.message()));
}

void Runtime::unregisterFatBinary(void** handle) {
  std::lock_guard lock(mutex_);
  if (RegisteredModule* m = moduleOf(handle)) m->unregistered = true;
}

void Runtime::registerFunction(void** handle, const void* hostFunction, const char* deviceName) {
  std::lock_guard lock(mutex_);
  RegisteredModule* m = moduleOf(handle);
  if (m == nullptr || deviceName == nullptr) return;
  auto k = std::make_unique<KernelRecord>();
  k->module = m;
  k->hostFunction = hostFunction;
  k->mangled = deviceName;
  k->demangled = demangle(k->mangled);
  m->kernels.push_back(k.get());
  kernelsByHost_[hostFunction] = k.get();
  kernels_.push_back(std::move(k));
}

void Runtime::registerVariable(void** handle, const void* hostVariable, void** managedHostPointer,
                               const char* deviceName, uint64_t bytes, bool constant) {
  std::lock_guard lock(mutex_);
  RegisteredModule* m = moduleOf(handle);
  if (m == nullptr || deviceName == nullptr) return;
  auto v = std::make_unique<VariableRecord>();
  v->module = m;
  v->name = deviceName;
  v->bytes = bytes;
  v->constant = constant;
  v->managedHostPointer = managedHostPointer;
  m->variables.push_back(v.get());
  variablesByHost_[hostVariable] = v.get();
  variables_.push_back(std::move(v));
}

bool Runtime::initModule(void** handle) {
  std::lock_guard lock(mutex_);
  RegisteredModule* m = moduleOf(handle);
  if (m == nullptr) return false;
  cudaError_t error = ensureLoaded(*m);
  if (error == cudaSuccess) return true;
  // Keep host code that reads managed variables from crashing on a null pointer.
  for (VariableRecord* v : m->variables)
    if (v->managedHostPointer && *v->managedHostPointer == nullptr)
      *v->managedHostPointer = reinterpret_cast<void*>(memory_->allocate(v->bytes ? v->bytes : 1, v->name));
  return false;
}

cudaError_t Runtime::ensureLoaded(RegisteredModule& m) {
  if (!m.fatbinStatus.ok()) return cudaErrorNoKernelImageForDevice;
  if (!m.loadAttempted) {
    m.loadAttempted = true;
    MemoryActivity activity("loading the PTX of %s", m.sourceName.c_str());
    auto loaded = sim::loadPtx(m.ptx, m.sourceName, *memory_, {.fusedMultiplyAdd = options_.fusedMultiplyAdd});
    if (!loaded.ok()) {
      m.loadStatus = loaded.status();
      warn(absl::StrCat("cannot load the PTX of ", m.sourceName, ": ", describe(m.loadStatus)));
    } else {
      m.module = std::move(*loaded);
      for (VariableRecord* v : m.variables) {
        if (!v->managedHostPointer) continue;
        for (const auto& g : m.module->globals())
          if (g.name == v->name) *v->managedHostPointer = reinterpret_cast<void*>(g.address);
        if (*v->managedHostPointer == nullptr) {
          warn(absl::StrCat("managed variable ", v->name, " is registered but not in the PTX of ", m.sourceName));
          *v->managedHostPointer = reinterpret_cast<void*>(memory_->allocate(v->bytes ? v->bytes : 1, v->name));
        }
      }
    }
  }
  return m.loadStatus.ok() ? cudaSuccess : cudaErrorInvalidPtx;
}

KernelRecord* Runtime::kernelByHost(const void* hostFunction) {
  auto it = kernelsByHost_.find(hostFunction);
  return it == kernelsByHost_.end() ? nullptr : it->second;
}

KernelRecord* Runtime::kernelByHandle(const void* handle) {
  for (auto& k : kernels_)
    if (k.get() == handle) return k.get();
  return kernelByHost(handle);  // a host function pointer used as a handle
}

const sim::KernelSignature* Runtime::signature(const KernelRecord& kernel) {
  if (!kernel.module || !kernel.module->module) return nullptr;
  for (const auto& s : kernel.module->module->kernels())
    if (s.name == kernel.mangled) return &s;
  return nullptr;
}

cudaError_t Runtime::symbol(const void* hostVariable, uint64_t& address, uint64_t& bytes) {
  auto it = variablesByHost_.find(hostVariable);
  if (it == variablesByHost_.end()) return cudaErrorInvalidSymbol;
  VariableRecord& v = *it->second;
  if (cudaError_t e = ensureLoaded(*v.module); e != cudaSuccess) return e;
  for (const auto& g : v.module->module->globals())
    if (g.name == v.name) {
      address = g.address;
      bytes = g.bytes ? g.bytes : v.bytes;
      return cudaSuccess;
    }
  warn(absl::StrCat("variable ", v.name, " is registered but not in the PTX of ", v.module->sourceName));
  return cudaErrorInvalidSymbol;
}

// ---------------------------------------------------------------- memory

cudaError_t Runtime::allocate(void** pointer, uint64_t bytes, AllocationKind kind) {
  if (pointer == nullptr) return cudaErrorInvalidValue;
  if (bytes == 0) {
    *pointer = nullptr;
    return cudaSuccess;
  }
  const char* api = kind == AllocationKind::Device ? "cudaMalloc"
                    : kind == AllocationKind::Host ? "cudaMallocHost" : "cudaMallocManaged";
  bool onDevice = kind != AllocationKind::Host;
  if (bytes > (uint64_t(1) << 40) ||
      (onDevice && bytes > kGlobalMemory - kGlobalMemoryReserved - std::min(deviceBytes_, kGlobalMemory)))
    return cudaErrorMemoryAllocation;  // more than the device has free
  MemoryActivity activity("allocating %llu bytes (%s)", (unsigned long long)bytes, api);
  activity.allocatesForTheProgram();
  auto placement = kind == AllocationKind::Device ? sim::DeviceMemory::Placement::DeviceOnly  // not host-mapped
                                                   : sim::DeviceMemory::Placement::HostShared;
  uint64_t base = memory_->allocate(bytes, absl::StrCat(api, " #", ++allocationCount_), placement);
  if (base == 0) {  // the device has room (above): this process does not
    refusedByTheHost(absl::StrCat(api, " of ", bytes, " bytes failed: predatar could not map that much memory in "
                                  "this process (a data or address-space limit, ulimit -d / -v, or the machine's "
                                  "memory), where the device has room for it (cudaErrorMemoryAllocation)"));
    return cudaErrorMemoryAllocation;
  }
  allocations_[base] = {bytes, kind};
  if (options_.leakCheck && onDevice) allocationSites_[base] = programCallSite();
  if (onDevice) deviceBytes_ += bytes;
  *pointer = reinterpret_cast<void*>(base);
  return cudaSuccess;
}

cudaError_t Runtime::release(void* pointer, AllocationKind kind) {
  if (pointer == nullptr) return cudaSuccess;
  auto it = allocations_.find(reinterpret_cast<uint64_t>(pointer));
  if (it == allocations_.end()) return cudaErrorInvalidValue;
  bool hostApi = kind == AllocationKind::Host;
  if (hostApi != (it->second.second == AllocationKind::Host)) return cudaErrorInvalidValue;
  settleDetectors();  // (their races name the allocations they are in)
  if (!memory_->free(it->first).ok()) return cudaErrorInvalidValue;
  if (it->second.second != AllocationKind::Host) deviceBytes_ -= std::min(deviceBytes_, it->second.first);
  allocationSites_.erase(it->first);
  allocations_.erase(it);
  return cudaSuccess;
}

std::optional<AllocationKind> Runtime::kindOf(const void* pointer) const {
  auto address = reinterpret_cast<uint64_t>(pointer);
  auto it = allocations_.upper_bound(address);
  if (it != allocations_.begin()) {
    --it;
    if (address < it->first + it->second.first) return it->second.second;
  }
  if (memory_->find(address)) return AllocationKind::Device;  // module globals
  return std::nullopt;
}

bool Runtime::isDeviceRange(const void* pointer, uint64_t bytes) const {
  return pointer != nullptr && memory_->find(reinterpret_cast<uint64_t>(pointer), bytes ? bytes : 1).has_value();
}

cudaError_t Runtime::copy(void* dst, const void* src, uint64_t bytes, int kind) {
  settleSuspendedLaunch();  // a copy made by the runtime itself (graphs) comes after it
  if (bytes == 0) return cudaSuccess;
  if (dst == nullptr || src == nullptr) return cudaErrorInvalidValue;
  switch (kind) {
    case cudaMemcpyHostToHost: break;
    case cudaMemcpyHostToDevice:
      if (!isDeviceRange(dst, bytes)) return cudaErrorInvalidValue;
      break;
    case cudaMemcpyDeviceToHost:
      if (!isDeviceRange(src, bytes)) return cudaErrorInvalidValue;
      break;
    case cudaMemcpyDeviceToDevice:
      if (!isDeviceRange(src, bytes) || !isDeviceRange(dst, bytes)) return cudaErrorInvalidValue;
      break;
    case cudaMemcpyDefault:
      // Unified addressing: whatever lies in an allocation must lie wholly in it.
      if (kindOf(dst) && !isDeviceRange(dst, bytes)) return cudaErrorInvalidValue;
      if (kindOf(src) && !isDeviceRange(src, bytes)) return cudaErrorInvalidValue;
      break;
    default: return cudaErrorInvalidMemcpyDirection;
  }
  std::memmove(dst, src, bytes);
  memory_->noteHostCopy(reinterpret_cast<uint64_t>(dst), reinterpret_cast<uint64_t>(src), bytes);
  return cudaSuccess;
}

cudaError_t Runtime::fill(void* dst, int value, uint64_t bytes) {
  settleSuspendedLaunch();
  if (bytes == 0) return cudaSuccess;
  if (!isDeviceRange(dst, bytes)) return cudaErrorInvalidValue;
  std::memset(dst, value, bytes);
  memory_->noteHostWrite(reinterpret_cast<uint64_t>(dst), bytes);
  return cudaSuccess;
}

void Runtime::noteLeaks(const char* when) {
  if (!options_.leakCheck || !processNote_.empty()) return;  // (a fork() child inherits the parent's)
  for (const auto& [base, info] : allocations_) {
    if (info.second == AllocationKind::Host) continue;  // (pinned host memory: not the device's)
    auto a = memory_->find(base);
    auto site = allocationSites_.find(base);
    std::string where = site == allocationSites_.end() ? "" : describeCallSite(site->second);
    leaks_.push_back(absl::StrCat(info.first, " bytes at 0x", absl::Hex(base), " (",
                                  a && !a->label.empty() ? a->label : "an allocation", ") never freed before ", when,
                                  where.empty() ? "" : "; allocated by " + where));
  }
}

void Runtime::resetDevice() {
  noteLeaks("cudaDeviceReset");
  settleDetectors();
  for (auto& [base, info] : allocations_) (void)memory_->free(base);
  allocations_.clear();
  allocationSites_.clear();
  deviceBytes_ = 0;
  sticky_ = cudaSuccess;
  callsFailedSticky_ = 0;
}

cudaError_t Runtime::failWithSticky(const char* call) {
  noteApiError(call, sticky_);
  if (++callsFailedSticky_ == kStuckCalls) {
    warn(absl::StrCat("error: the program made ", kStuckCalls, " CUDA calls after a launch failed (the report's ",
                      "KERNEL FAULT), each failing with its error, ", errorName(sticky_), ", which it does not check",
                      " (the last: ", std::string_view(call).starts_with("cuda") ? call : "a kernel launch",
                      "); it would loop the same way on a GPU, where a fault's error is",
                      " sticky. Stopping it (exit status ", kStuckExit, ")."));
    std::fflush(nullptr);
    std::exit(kStuckExit);  // (the report is written at exit; the device lock is recursive)
  }
  lastError() = sticky_;
  return sticky_;
}

// ---------------------------------------------------------------- streams/events

cudaStream_t Runtime::createStream(bool nonBlocking) {
  uintptr_t h = nextHandle_;
  nextHandle_ += 16;
  streams_.insert(h);
  if (order_.createStream(h, nonBlocking))
    warn(absl::StrCat("note: ", order_.streamName(h), " is created with cudaStreamNonBlocking while kernels "
                      "launched earlier were not yet waited for by the host; races between those kernels and "
                      "this stream's work are not reported (a kernel is forgotten once every stream that exists is "
                      "ordered after it)"));
  return reinterpret_cast<cudaStream_t>(h);
}

bool Runtime::destroyStream(cudaStream_t stream) {
  order_.destroyStream(reinterpret_cast<uintptr_t>(stream));
  return streams_.erase(reinterpret_cast<uintptr_t>(stream)) > 0;
}

bool Runtime::validStream(cudaStream_t stream) const {
  auto h = reinterpret_cast<uintptr_t>(stream);
  return h <= 2 || streams_.count(h);  // 0, cudaStreamLegacy (1), cudaStreamPerThread (2)
}

cudaEvent_t Runtime::createEvent() {
  uintptr_t h = nextHandle_;
  nextHandle_ += 16;
  events_[h] = std::make_unique<Event>();
  return reinterpret_cast<cudaEvent_t>(h);
}

Runtime::Event* Runtime::event(cudaEvent_t event) {
  auto it = events_.find(reinterpret_cast<uintptr_t>(event));
  return it == events_.end() ? nullptr : it->second.get();
}

bool Runtime::destroyEvent(cudaEvent_t event) {
  order_.destroyEvent(reinterpret_cast<uintptr_t>(event));
  return events_.erase(reinterpret_cast<uintptr_t>(event)) > 0;
}

void Runtime::finish() {
  settleSuspendedLaunch();  // a launch still waiting for the host at exit never finishes
  settleDetectors();
  if (options_.leakCheck && processNote_.empty() && !options_.reportPath.empty()) {
    noteLeaks("the program exited");
    std::ofstream out(options_.reportPath + leakMarkerSuffix(), std::ios::trunc);
    for (const std::string& leak : leaks_) out << leak << "\n";
  }
  writeApiErrors();
  if (!options_.reportPath.empty()) {
    writeReport();
    return;
  }
  if (options_.quiet || launches_.empty()) return;
  uint64_t checked = 0, races = 0, failed = 0;
  for (const auto& l : launches_) {
    checked += l.checked;
    races += l.races.size();
    failed += !l.error.empty();
  }
  std::fprintf(stderr, "predatar: %zu kernel launches (%llu checked), %llu unique races%s\n", launches_.size(),
               (unsigned long long)checked, (unsigned long long)races,
               failed ? absl::StrCat(", ", failed, " failed").c_str() : "");
}

void Runtime::recordOutOfMemory(const char* message) {
  if (!onAnalysisWorker()) settleDetectors();  // (a worker would wait for itself)
  if (running_) {
    LaunchRecord record = std::move(*running_);
    running_ = nullptr;
    record.error = message;
    record.cudaError = errorName(cudaErrorMemoryAllocation);
    record.races.clear();  // the detectors did not finish: what they found is in the launches before
    recordLaunch(std::move(record));
  }
  writeReport();
}

uint64_t Runtime::detectorMetadataBytes() const {
  uint64_t total = 0;
  for (const auto& d : detectors_) {
    DetectorStats s = d->stats();
    total += s.peakThreadClockBytes + s.peakLockClockBytes + s.peakQueueBytes + s.peakShadowBytes;
  }
  return total;
}

void Runtime::writeApiErrors() {
  if (!processNote_.empty() || options_.reportPath.empty()) return;
  uint64_t noted = apiErrorsNoted();
  if (noted == apiErrorsWritten_) return;
  apiErrorsWritten_ = noted;
  std::string path = options_.reportPath + apiErrorMarkerSuffix(), tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    for (const std::string& e : describeApiErrors(kApiErrorsReported)) out << e << "\n";
  }
  std::rename(tmp.c_str(), path.c_str());  // (whole, as `predatar run` may read it after a kill)
}

void Runtime::writeReport() {
  if (options_.reportPath.empty()) return;
  std::string tmp = options_.reportPath + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << launchesToJson(launches_);
    if (!out) {
      warn(absl::StrCat("cannot write the report ", tmp));
      return;
    }
  }
  if (std::rename(tmp.c_str(), options_.reportPath.c_str()) != 0)
    warn(absl::StrCat("cannot write the report ", options_.reportPath));
}

// ---------------------------------------------------------------- errors

cudaError_t& lastError() {
  thread_local cudaError_t error = cudaSuccess;
  return error;
}

namespace {
struct ErrorRow {
  int value;
  const char* name;
  const char* description;
};
constexpr ErrorRow kErrors[] = {
#include "cudart/generated/ErrorTable.inc"
};
// The strings NVIDIA's runtime returns for the errors programs print most.
struct ErrorText {
  int value;
  const char* text;
};
constexpr ErrorText kTexts[] = {
    {0, "no error"},
    {1, "invalid argument"},
    {2, "out of memory"},
    {3, "initialization error"},
    {9, "invalid configuration argument"},
    {12, "invalid pitch argument"},
    {13, "invalid device symbol"},
    {17, "invalid device pointer"},
    {21, "invalid copy direction for memcpy"},
    {98, "invalid device function"},
    {100, "no CUDA-capable device is detected"},
    {101, "invalid device ordinal"},
    {200, "device kernel image is invalid"},
    {209, "no kernel image is available for execution on the device"},
    {218, "a PTX JIT compilation failed"},
    {400, "invalid resource handle"},
    {500, "named symbol not found"},
    {600, "device not ready"},
    {700, "an illegal memory access was encountered"},
    {701, "too many resources requested for launch"},
    {702, "the launch timed out and was terminated"},
    {710, "device-side assert triggered"},
    {715, "an illegal instruction was encountered"},
    {719, "unspecified launch failure"},
    {801, "operation not supported"},
    {999, "unknown error"},
};
}  // namespace

const char* errorName(cudaError_t error) {
  for (const auto& row : kErrors)
    if (row.value == error) return row.name;
  return "cudaErrorUnknown";
}

const char* errorString(cudaError_t error) {
  for (const auto& t : kTexts)
    if (t.value == error) return t.text;
  for (const auto& row : kErrors)
    if (row.value == error) return row.description;
  return "unrecognized error code";
}

std::string demangle(const std::string& mangled) {
  int status = 0;
  char* d = abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status);
  if (status != 0 || d == nullptr) return mangled;
  std::string out = d;
  std::free(d);
  return out;
}

}  // namespace predatar::cudart
