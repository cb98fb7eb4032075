// _exit, interposed: a program that ends with _exit (a fork()-style exit, a
// test harness skipping destructors) runs no exit handler, so this library's
// destructor never completes the launches whose detector results are still
// read one launch late (ARCHITECTURE.md): their races would be lost. The
// program's reference is versioned (_exit@GLIBC_2.2.5 on x86-64), so this
// definition carries libc's version (libc_exit.<arch>.map, given to the
// linker beside libcudart.map) and, this library coming before libc in the
// program's search order, is the one the program's call binds to.
//
// _Exit is left to libc: this library's own immediate exits (out of memory,
// signals re-raised) call it and must not complete anything.
#include <sys/syscall.h>
#include <unistd.h>

#include "cudart/runtime/Runtime.h"

extern "C" __attribute__((visibility("default"), noreturn)) void _exit(int status) {
  using predatar::cudart::Runtime;
  if (Runtime* r = Runtime::existing()) r->completeLaunchesBeforeExit();
  // What libc's _exit does (its definition is not reachable by name from here).
  for (;;) {
    syscall(SYS_exit_group, status);
    syscall(SYS_exit, status);
  }
}
