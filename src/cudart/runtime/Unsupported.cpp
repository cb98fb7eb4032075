#include "cudart/runtime/Unsupported.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>
#include <string>

#include "cudart/runtime/Runtime.h"

namespace predatar::cudart {

namespace {

// Prints the refusal once per name; with PREDATAR_STRICT=1 the process exits.
void announce(const char* name, const char* returning) {
  static std::mutex mutex;
  static auto* reported = new std::set<std::string>;
  {
    std::lock_guard lock(mutex);
    if (reported->insert(name).second)
      std::fprintf(stderr, "predatar: %s is not supported by the emulator (returning %s)\n", name, returning);
  }
  const char* strict = std::getenv("PREDATAR_STRICT");
  if (strict && *strict && std::strcmp(strict, "0") != 0) std::exit(125);
}

}  // namespace

int unsupported(const char* name) {
  announce(name, "cudaErrorNotSupported");
  return fail(cudaErrorNotSupported);
}

}  // namespace predatar::cudart

// For lib/libcuda.so.1 (src/cudart/driver): a driver entry point refused by name.
extern "C" __attribute__((visibility("default"))) int predatarUnsupported(const char* what) {
  return predatar::cudart::unsupported(what);
}

// For predatar's cuRAND and cuBLAS (src/libraries): a library function or
// argument refused by name, returning that library's own status.
extern "C" __attribute__((visibility("default"))) void predatarUnsupportedReturning(const char* what,
                                                                                   const char* returning) {
  predatar::cudart::announce(what, returning);
}
