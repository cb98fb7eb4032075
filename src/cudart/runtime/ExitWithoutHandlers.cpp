// _exit, _Exit and quick_exit, interposed: a program that ends with one of
// them (a fork()-style exit, a test harness skipping destructors) runs no exit
// handler of this library, so its destructor never completes the launches
// whose detector results are still read late (ARCHITECTURE.md):
// their races would be lost. The program's references are versioned
// (_exit@GLIBC_2.2.5, quick_exit@GLIBC_2.24 on x86-64), so these definitions
// carry libc's versions (libc_exit.<arch>.map, given to the linker beside
// libcudart.map) and, this library coming before libc in the program's search
// order, are the ones the program's calls bind to.
//
// This library's own immediate exits (out of memory, signals re-raised) must
// not complete anything: they call sim::exitImmediately, never these names.
#include <dlfcn.h>

#include "cudart/runtime/Runtime.h"
#include "sim/ImmediateExit.h"

namespace {
void completeLaunches() {
  using predatar::cudart::Runtime;
  if (Runtime* r = Runtime::existing()) r->completeLaunchesBeforeExit();
}

// libc's quick_exit, which runs the at_quick_exit handlers; the versioned one
// first (the program asked for that behaviour), any one otherwise.
using QuickExit = void (*)(int);
QuickExit libcQuickExit() {
  for (const char* version : {"GLIBC_2.24", "GLIBC_2.17", "GLIBC_2.10"})
    if (void* f = dlvsym(RTLD_NEXT, "quick_exit", version)) return reinterpret_cast<QuickExit>(f);
  return reinterpret_cast<QuickExit>(dlsym(RTLD_NEXT, "quick_exit"));
}
}  // namespace

extern "C" __attribute__((visibility("default"), noreturn)) void _exit(int status) {
  completeLaunches();
  predatar::sim::exitImmediately(status);
}

// The same function under its C99 name, as in libc.
extern "C" __attribute__((visibility("default"), noreturn, alias("_exit"))) void _Exit(int status);

extern "C" __attribute__((visibility("default"), noreturn)) void quick_exit(int status) noexcept {
  completeLaunches();
  if (QuickExit next = libcQuickExit()) next(status);
  predatar::sim::exitImmediately(status);  // (no libc quick_exit found: no handler to run)
}
