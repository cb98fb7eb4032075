#include "cudart/runtime/LaunchProgress.h"

#include <cstdio>
#include <utility>

namespace predatar::cudart {

std::function<void(const sim::LaunchProgress&)> progressPrinter(size_t launch, std::string kernel) {
  return [launch, kernel = std::move(kernel)](const sim::LaunchProgress& p) {
    std::fprintf(stderr, "predatar: launch %zu %s still running after %.0f s: %u of %u blocks done, %llu warp "
                 "instructions\n", launch, kernel.c_str(), p.seconds, p.blocksDone, p.blocks,
                 static_cast<unsigned long long>(p.warpInstructions));
    std::fflush(stderr);
  };
}

}  // namespace predatar::cudart
