#include "cudart/runtime/Unsupported.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>
#include <string>

#include "cudart/runtime/Runtime.h"

namespace predatar::cudart {

int unsupported(const char* name) {
  static std::mutex mutex;
  static auto* reported = new std::set<std::string>;
  {
    std::lock_guard lock(mutex);
    if (reported->insert(name).second)
      std::fprintf(stderr, "predatar: %s is not supported by the emulator (returning cudaErrorNotSupported)\n",
                   name);
  }
  const char* strict = std::getenv("PREDATAR_STRICT");
  if (strict && *strict && std::strcmp(strict, "0") != 0) std::exit(125);
  return fail(cudaErrorNotSupported);
}

}  // namespace predatar::cudart

// For lib/libcuda.so.1 (driver/DriverStub.cpp): a driver entry point refused by name.
extern "C" __attribute__((visibility("default"))) int predatarUnsupported(const char* what) {
  return predatar::cudart::unsupported(what);
}
