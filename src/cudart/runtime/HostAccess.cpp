#include "cudart/runtime/HostAccess.h"

#include <dlfcn.h>
#include <execinfo.h>
#include <ucontext.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "cudart/runtime/HostCallSite.h"
#include "cudart/runtime/Runtime.h"
#include "cudart/runtime/SignalSafeWrite.h"
#include "sim/DeviceArena.h"
#include "sim/ImmediateExit.h"

namespace predatar::cudart {
namespace {

struct sigaction previousAction {};

[[noreturn]] void dieOfSegv() {
  signal(SIGSEGV, SIG_DFL);
  raise(SIGSEGV);
  sim::exitImmediately(128 + SIGSEGV);
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

// The instruction that faulted (null where this machine's context is unknown).
const void* faultingInstruction(void* context) {
  auto* uc = static_cast<ucontext_t*>(context);
#if defined(__x86_64__)
  return reinterpret_cast<const void*>(uc->uc_mcontext.gregs[REG_RIP]);
#elif defined(__aarch64__)
  return reinterpret_cast<const void*>(uc->uc_mcontext.pc);
#else
  (void)uc;
  return nullptr;
#endif
}

// Whether the frame that called the faulting code at `pc` (the first frame
// after it, on the stack backtrace() unwinds through the signal frame) is in
// the object loaded at `base`.
bool calledFromObject(const void* pc, const void* base) {
  void* frames[64];
  int n = backtrace(frames, 64);
  for (int i = 0; i + 1 < n; ++i) {
    if (frames[i] != pc) continue;
    Dl_info caller{};
    return dladdr(frames[i + 1], &caller) && caller.dli_fbase == base;
  }
  return false;
}

// A fault outside device memory that will kill the program (no handler of
// its own before ours): says whose code faulted, so that a crash in the
// program's host code (an unchecked failed malloc, a missing input file)
// is not taken for predatar's, nor the other way round.
void describeCrash(siginfo_t* info, void* context) {
  static volatile sig_atomic_t described = 0;
  if (described) return;
  described = 1;
  bool programDies = !(previousAction.sa_flags & SA_SIGINFO) && previousAction.sa_handler == SIG_DFL;
  if (!programDies) return;
  const void* pc = faultingInstruction(context);
  Dl_info where{}, self{};
  bool known = pc && dladdr(pc, &where) && where.dli_fname;
  dladdr(reinterpret_cast<const void*>(&describeCrash), &self);
  bool ours = known && where.dli_fbase == self.dli_fbase;
  // A fault in the C library (memcpy, fread) belongs to its caller: ours
  // when predatar's runtime called it (a cudaMemcpy of a bad host pointer,
  // or a bug of ours), else the program's.
  bool calledByUs = known && !ours && calledFromObject(pc, self.dli_fbase);
  auto address = reinterpret_cast<unsigned long long>(info->si_addr);
  auto offset = known ? (unsigned long long)fileAddress(pc, where.dli_fbase) : 0ull;
  // "fread (libc.so.6+0x766be)", or a program's own function, which has no
  // dynamic symbol: "./main+0x13f7 (addr2line -f -e ./main 0x13f7 names it)".
  char place[512];
  if (!known)
    std::snprintf(place, sizeof place, "unknown code");
  else if (where.dli_sname)
    std::snprintf(place, sizeof place, "%s (%s+0x%llx)", where.dli_sname, where.dli_fname, offset);
  else
    std::snprintf(place, sizeof place, "%s+0x%llx (addr2line -f -e %s 0x%llx names the function and line)",
                  where.dli_fname, offset, where.dli_fname, offset);
  char text[1280];
  if (ours || calledByUs) {
    std::snprintf(text, sizeof text,
                  "predatar: error: predatar's runtime crashed (SIGSEGV at address 0x%llx in %s%s): unless the "
                  "program passed a CUDA call a bad host pointer (which crashes NVIDIA's runtime too), this is a "
                  "bug in predatar; please report it with the program\n",
                  address, place, calledByUs ? ", which predatar's runtime called" : "");
  } else {
    std::snprintf(text, sizeof text,
                  "predatar: error: the program's host code crashed: SIGSEGV at address 0x%llx in %s%s\n", address,
                  place,
                  address < 4096 ? "; a null pointer: an allocation that failed (malloc returns NULL) or a file "
                                   "that could not be opened, unchecked?"
                                 : "");
  }
  writeToStderr(text);
  // The program's own crash: its launches' races were found, so they are
  // reported (a launch's results are read late: they may not be yet).
  if (Runtime* r = Runtime::existing(); r && !ours && !calledByUs) r->writeReportBeforeDying();
}

void onSegv(int sig, siginfo_t* info, void* context) {
  const sim::DeviceArena* arena = sim::DeviceArena::current();
  auto address = reinterpret_cast<uint64_t>(info->si_addr);
  if (arena == nullptr || !arena->contains(address) || arena->isOpen()) {
    describeCrash(info, context);
    return chain(sig, info, context);
  }
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
  if (Runtime* r = Runtime::existing()) r->writeReportBeforeDying();
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
  void* warm[1];
  backtrace(warm, 1);  // (loads the unwinder now: in the handler it must not allocate)
}

}  // namespace predatar::cudart
