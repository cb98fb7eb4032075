#include "cudart/runtime/OutOfMemory.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

#include "cudart/runtime/Runtime.h"
#include "cudart/runtime/SignalSafeWrite.h"
#include "events/ParallelFanout.h"
#include "sim/ImmediateExit.h"

namespace predatar::cudart {
namespace {

// Released first thing in the handler, so that formatting the message and
// writing the report have memory to work with.
constexpr size_t kReserveBytes = size_t(16) << 20;
void* reserve = nullptr;

char activity[320] = {};  // empty: the program's host code runs
bool activityForTheProgram = false;  // MemoryActivity::allocatesForTheProgram

// "Name:   12345 kB" of /proc/self/status, in bytes.
uint64_t statusField(const char* status, const char* name) {
  const char* at = std::strstr(status, name);
  if (!at) return 0;
  return std::strtoull(at + std::strlen(name), nullptr, 10) * 1024;
}

double mib(uint64_t bytes) { return double(bytes) / (1024.0 * 1024.0); }

// The program's own host code (no runtime activity): it gets std::bad_alloc,
// as it would without predatar (it may catch it and size its work down), with
// a note of predatar's share of the memory in case that is why.
void throwToTheProgram() {
  uint64_t rss = 0, peak = 0;
  residentBytes(rss, peak);
  Runtime* runtime = Runtime::existing();
  char message[512];
  std::snprintf(message, sizeof message,
                "predatar: note: an allocation of the program's host code failed: it gets std::bad_alloc, as it "
                "would natively (resident memory %.0f MiB, of which device allocations %.0f MiB and detector "
                "metadata %.0f MiB)\n",
                mib(rss), mib(runtime ? runtime->deviceBytesInUse() : 0),
                mib(runtime ? runtime->detectorMetadataBytes() : 0));
  writeToStderr(message);
  throw std::bad_alloc();
}

void onOutOfMemory() {
  if (!activity[0] && !onAnalysisWorker()) throwToTheProgram();
  static std::atomic<int> entered{0};
  if (entered++ > 0) {  // the report itself ran out: leave at once
    writeToStderr("predatar: error: out of memory while reporting running out of memory\n");
    sim::exitImmediately(kOutOfMemoryExit);
  }
  std::free(reserve);
  reserve = nullptr;
  uint64_t rss = 0, peak = 0;
  residentBytes(rss, peak);
  Runtime* runtime = Runtime::existing();
  uint64_t metadata = runtime ? runtime->detectorMetadataBytes() : 0;
  uint64_t device = runtime ? runtime->deviceBytesInUse() : 0;
  // A device allocation of the program's that does not fit, with little of
  // the memory the detectors', is the program's to shrink (its host data and
  // device allocations, which predatar keeps in host memory: car's 5.6 GB of
  // host arrays, then a 1.6 GB cudaMalloc); otherwise the analysis can do
  // less.
  bool programs = activityForTheProgram && 4 * metadata < rss;
  const char* advice = programs ? "most of it is the program's own (its host data, and its device allocations, "
                                  "which predatar keeps in host memory): give it a smaller input, or more memory"
                                : "try --detectors none, fewer detectors, or checking fewer launches (--kernel-name, "
                                  "--launch-skip, --launch-count)";
  char message[1024];
  std::snprintf(message, sizeof message,
                "out of memory while %s: resident memory %.0f MiB (peak %.0f MiB), device allocations %.0f MiB, "
                "detector metadata %.0f MiB; %s",
                activity[0] ? activity : "analysing the program's kernels", mib(rss), mib(peak), mib(device),
                mib(metadata), advice);
  writeToStderr("predatar: error: ");
  writeToStderr(message);
  writeToStderr("\n");
  if (runtime) {
    try {
      runtime->recordOutOfMemory(message);
    } catch (...) {  // the report is lost; the message above is not
    }
    const std::string& report = runtime->options().reportPath;
    if (!report.empty()) {
      char marker[4096];
      std::snprintf(marker, sizeof marker, "%s%s", report.c_str(), outOfMemoryMarkerSuffix());
      int fd = ::open(marker, O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (fd >= 0) {
        ssize_t ignored = ::write(fd, message, std::strlen(message));
        (void)ignored;
        ::close(fd);
      }
    }
  }
  sim::exitImmediately(kOutOfMemoryExit);
}

}  // namespace

void installOutOfMemoryHandler() {
  static bool installed = false;
  if (installed) return;
  installed = true;
  reserve = std::malloc(kReserveBytes);
  std::set_new_handler(onOutOfMemory);
}

MemoryActivity::MemoryActivity(const char* format, ...) : savedForTheProgram_(activityForTheProgram) {
  std::memcpy(saved_, activity, sizeof saved_);
  activityForTheProgram = false;
  va_list args;
  va_start(args, format);
  std::vsnprintf(activity, sizeof activity, format, args);
  va_end(args);
}

MemoryActivity::~MemoryActivity() {
  std::memcpy(activity, saved_, sizeof saved_);
  activityForTheProgram = savedForTheProgram_;
}

void MemoryActivity::allocatesForTheProgram() { activityForTheProgram = true; }

const char* outOfMemoryMarkerSuffix() { return ".out-of-memory"; }

void residentBytes(uint64_t& now, uint64_t& peak) {
  now = peak = 0;
  int fd = ::open("/proc/self/status", O_RDONLY);
  if (fd < 0) return;
  char status[8192];
  ssize_t n = ::read(fd, status, sizeof status - 1);
  ::close(fd);
  if (n <= 0) return;
  status[n] = '\0';
  now = statusField(status, "VmRSS:");
  peak = statusField(status, "VmHWM:");
}

}  // namespace predatar::cudart
