#include "cudart/runtime/HostAccess.h"

#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "cudart/runtime/Runtime.h"
#include "cudart/runtime/SignalSafeWrite.h"
#include "sim/DeviceArena.h"

namespace predatar::cudart {
namespace {

struct sigaction previousAction {};

[[noreturn]] void dieOfSegv() {
  signal(SIGSEGV, SIG_DFL);
  raise(SIGSEGV);
  _Exit(128 + SIGSEGV);
}

void chain(int sig, siginfo_t* info, void* context) {
  if (previousAction.sa_flags & SA_SIGINFO) {
    if (previousAction.sa_sigaction) return previousAction.sa_sigaction(sig, info, context);
  } else if (previousAction.sa_handler == SIG_IGN) {
    return;
  } else if (previousAction.sa_handler != SIG_DFL && previousAction.sa_handler) {
    return previousAction.sa_handler(sig);
  }
  // Default action: return and let the instruction fault again without us.
  signal(SIGSEGV, SIG_DFL);
}

void onSegv(int sig, siginfo_t* info, void* context) {
  const sim::DeviceArena* arena = sim::DeviceArena::current();
  auto address = reinterpret_cast<uint64_t>(info->si_addr);
  if (arena == nullptr || !arena->contains(address) || arena->isOpen()) return chain(sig, info, context);
  char text[640];
  uint64_t base = 0, bytes = 0;
  if (arena->blockOf(address, base, bytes)) {
    std::snprintf(text, sizeof text,
                  "predatar: error: host code dereferenced device pointer 0x%llx (byte %llu of a cudaMalloc'd "
                  "block of %llu bytes at 0x%llx): device memory is not host-accessible, a GPU faults here too; "
                  "copy it with cudaMemcpy, or allocate it with cudaMallocManaged or cudaMallocHost\n",
                  (unsigned long long)address, (unsigned long long)(address - base), (unsigned long long)bytes,
                  (unsigned long long)base);
  } else {
    std::snprintf(text, sizeof text,
                  "predatar: error: host code dereferenced device address 0x%llx, which is not (or no longer) "
                  "allocated: device memory is not host-accessible, a GPU faults here too\n",
                  (unsigned long long)address);
  }
  writeToStderr(text);
  // The report of what the run saw so far (not async-signal-safe in general,
  // but the process is about to die and losing the report is worse).
  if (Runtime* r = Runtime::existing(); r && r->mutex().try_lock()) {
    r->writeReport();
    r->mutex().unlock();
  }
  dieOfSegv();
}

}  // namespace

void protectDeviceMemoryFromHost(Runtime& runtime) {
  const char* off = std::getenv("PREDATAR_HOST_MAPPED_DEVICE_MEMORY");
  if (off && std::strcmp(off, "1") == 0) return;
  if (!runtime.memory().protectDeviceOnly()) return;  // no address space: device memory stays host memory
  runtime.mutex().guard(runtime.memory().arena());
  struct sigaction action {};
  action.sa_sigaction = onSegv;
  action.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&action.sa_mask);
  sigaction(SIGSEGV, &action, &previousAction);
}

}  // namespace predatar::cudart
