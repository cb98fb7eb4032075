#include "cudart/runtime/LaunchProgress.h"

#include <cstdio>
#include <utility>

namespace predatar::cudart {

std::function<void(const sim::LaunchProgress&)> progressPrinter(size_t launch, std::string kernel) {
  return [launch, kernel = std::move(kernel)](const sim::LaunchProgress& p) {
    std::fprintf(stderr, "predatar: launch %zu %s %s\n", launch, kernel.c_str(), sim::describe(p).c_str());
    std::fflush(stderr);
  };
}

}  // namespace predatar::cudart
