// libFuzzer entry point: see FuzzTargets.h and tests/fuzz/run_fuzz.sh.
#include "FuzzTargets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  predatar::fuzz::fuzzLitmus(data, size);
  return 0;
}
