#include "cudart/runtime/Unsupported.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>
#include <string>

#include "cudart/RunEnvironment.h"
#include "cudart/runtime/Runtime.h"

namespace predatar::cudart {

namespace {

// Appends the refusal to the marker beside the report, which `predatar run`
// reads (RunEnvironment.h), so that a program that goes on after it does not
// end in a clean-looking report.
// (From the environment: a library may be refused before the program's first
// runtime call, and a forked child's report has a name of its own.)
void noteForTheReport(const std::string& line, const char* suffix = refusalMarkerSuffix()) {
  const char* report = std::getenv("PREDATAR_REPORT");
  if (!report || !*report) return;
  std::string path = std::string(report) + suffix;
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (fd < 0) return;
  std::string text = line + "\n";
  ssize_t ignored = ::write(fd, text.data(), text.size());  // (one write: processes of one run append whole lines)
  (void)ignored;
  ::close(fd);
}

}  // namespace

void refusedByTheHost(const std::string& what) {
  std::fprintf(stderr, "predatar: %s\n", what.c_str());
  noteForTheReport(what);
}

namespace {

// Prints the refusal once per name; with PREDATAR_STRICT=1 the process exits.
void announce(const char* name, const char* returning) {
  static std::mutex mutex;
  static auto* reported = new std::set<std::string>;
  {
    std::lock_guard lock(mutex);
    if (reported->insert(name).second) {
      refusedByTheHost(std::string(name) + " is not supported by the emulator (returning " + returning + ")");
    }
  }
  const char* strict = std::getenv("PREDATAR_STRICT");
  if (strict && *strict && std::strcmp(strict, "0") != 0) std::exit(125);
}

}  // namespace

int unsupported(const char* name) {
  announce(name, "cudaErrorNotSupported");
  return failRefused(cudaErrorNotSupported);
}

}  // namespace predatar::cudart

// For lib/libcuda.so.1 (src/cudart/driver): a driver entry point refused by name.
extern "C" __attribute__((visibility("default"))) int predatarUnsupported(const char* what) {
  return predatar::cudart::unsupported(what);
}

// For predatar's libraries (src/libraries): a call a GPU would run but whose
// result is undefined (cuSPARSE given a CSR matrix whose columns are out of
// order): printed, and listed in the report's warnings (warningMarkerSuffix).
extern "C" __attribute__((visibility("default"))) void predatarWarning(const char* what) {
  std::fprintf(stderr, "predatar: warning: %s\n", what);
  predatar::cudart::noteForTheReport(what, predatar::cudart::warningMarkerSuffix());
}

// For predatar's cuRAND and cuBLAS (src/libraries): a library function or
// argument refused by name, returning that library's own status.
extern "C" __attribute__((visibility("default"))) void predatarUnsupportedReturning(const char* what,
                                                                                   const char* returning) {
  predatar::cudart::announce(what, returning);
}
