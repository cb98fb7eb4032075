// Fallbacks for device-runtime functions that PTX declares `.extern` and the
// emulator may not provide: `vprintf` (device printf) becomes a no-op that
// returns 0 and `__assertfail` (device assert) traps, so that a module using
// them still loads. The runtime applies this only when loading the original
// PTX fails, and says what was replaced.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace predatar::cudart {

struct PtxPatch {
  std::string ptx;                    // the patched text
  std::vector<std::string> replaced;  // functions given a fallback body
};

// Replaces the `.extern .func` declarations of the functions in `names` (of
// those with a known fallback) by definitions. `replaced` is empty when none
// was declared.
PtxPatch defineMissingFunctions(std::string_view ptx, const std::vector<std::string>& names = {"vprintf",
                                                                                               "__assertfail"});

}  // namespace predatar::cudart
