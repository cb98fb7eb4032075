// Runs one detector over one synthetic stream in a child process, so that
// its peak RSS and CPU time are its own (shared by the bench programs).
#pragma once

#include <cstdint>
#include <string>

#include "SyntheticStream.h"

namespace predatar::bench {

struct ChildResult {
  uint64_t events = 0;  // 0: the child failed (e.g. out of memory)
  double seconds = 0;   // CPU time of the analysis
  uint64_t metadataBytes = 0;  // the sum of the four peaks below
  uint64_t threadClockBytes = 0, lockClockBytes = 0, queueBytes = 0, shadowBytes = 0;
  long maxRssKiB = 0;
};

ChildResult runChild(const StreamSpec& spec, const std::string& detector, bool compression);

// runChild in two halves, so that two children can run at once (one a core).
struct StartedChild {
  int pid = -1, resultFd = -1;
};
StartedChild startChild(const StreamSpec& spec, const std::string& detector, bool compression);
ChildResult finishChild(StartedChild child);

}  // namespace predatar::bench
