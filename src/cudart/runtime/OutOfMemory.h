// Out of memory in the program's process (the emulator, the detectors or the
// runtime itself): instead of std::bad_alloc ending in "terminate called"
// (SIGABRT), a new-handler names what was running and the memory in use,
// suggests what to do, records the running launch as failed in the report,
// leaves a marker beside the report (`predatar run` then exits with its
// out-of-memory code) and exits with kOutOfMemoryExit. That is for the
// runtime's own work (a MemoryActivity names it) and the detectors' worker
// threads; an allocation of the program's own host code gets std::bad_alloc,
// as it would natively (a program may catch it and size its work down), after
// a note of the memory predatar holds.
#pragma once

#include <cstdint>

namespace predatar::cudart {

class Runtime;

// The process's exit status after running out of memory (also `predatar`'s,
// cli::kExitOutOfMemory).
inline constexpr int kOutOfMemoryExit = 5;

// Installs the new-handler (once) and keeps a small reserve to report with.
void installOutOfMemoryHandler();

// What the runtime is doing, for the message ("running kernel K (launch 3)");
// nests: the destructor puts back what was there. Allocates nothing.
class MemoryActivity {
 public:
  // printf-style; the text is cut at 300 characters.
  explicit MemoryActivity(const char* format, ...) __attribute__((format(printf, 2, 3)));
  ~MemoryActivity();
  MemoryActivity(const MemoryActivity&) = delete;
  MemoryActivity& operator=(const MemoryActivity&) = delete;
  // The activity allocates for the program (a cudaMalloc): running out then,
  // with the detectors holding little, is the program's memory to shrink.
  void allocatesForTheProgram();

 private:
  char saved_[320];
  bool savedForTheProgram_;
};

// The marker file `predatar run` looks for beside the report.
const char* outOfMemoryMarkerSuffix();

// Resident set size of this process now and at its peak (bytes; 0 if unknown),
// read from /proc without allocating.
void residentBytes(uint64_t& now, uint64_t& peak);

}  // namespace predatar::cudart
