#include "cudart/RunEnvironment.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace predatar::cudart {

const std::vector<std::string>& ownLibraries() {
  static const std::vector<std::string> libraries{"libcuda.so.1", "libcurand.so.10", "libcublas.so.13",
                                                  "libcublasLt.so.13", "libcusparse.so.12", "libnvrtc.so.13"};
  return libraries;
}

std::vector<std::pair<std::string, std::string>> runtimeEnvironment(const RunSettings& s,
                                                                    const std::string& libraryDir,
                                                                    const char* currentLdLibraryPath,
                                                                    const char* currentLdPreload) {
  std::vector<std::pair<std::string, std::string>> env;
  auto prepend = [](std::string first, const char* rest, const char* separator) {
    if (rest && *rest) absl::StrAppend(&first, separator, rest);
    return first;
  };
  env.emplace_back("LD_LIBRARY_PATH", prepend(libraryDir, currentLdLibraryPath, ":"));
  // LD_PRELOAD too: a program with an RPATH (not RUNPATH) to CUDA's lib64
  // would otherwise get NVIDIA's libraries, whatever LD_LIBRARY_PATH says.
  std::string preload = libraryDir + "/libcudart.so.13";
  for (const std::string& library : s.neededLibraries) absl::StrAppend(&preload, ":", libraryDir, "/", library);
  env.emplace_back("LD_PRELOAD", prepend(preload, currentLdPreload, ":"));
  env.emplace_back("PREDATAR_DETECTORS", s.detectors.empty() ? "none" : absl::StrJoin(s.detectors, ","));
  if (!s.reportPath.empty()) env.emplace_back("PREDATAR_REPORT", s.reportPath);
  if (!s.schedule.empty()) env.emplace_back("PREDATAR_SCHEDULE", s.schedule);
  if (s.seed) env.emplace_back("PREDATAR_SEED", absl::StrCat(*s.seed));
  if (s.quantum) env.emplace_back("PREDATAR_QUANTUM", absl::StrCat(*s.quantum));
  if (s.stepLimit) env.emplace_back("PREDATAR_STEP_LIMIT", absl::StrCat(*s.stepLimit));
  if (s.timeLimitSeconds) env.emplace_back("PREDATAR_TIME_LIMIT", absl::StrCat(*s.timeLimitSeconds));
  if (s.progressSeconds) env.emplace_back("PREDATAR_PROGRESS", absl::StrCat(*s.progressSeconds));
  if (!s.residentBlocks.empty()) env.emplace_back("PREDATAR_RESIDENT_BLOCKS", s.residentBlocks);
  if (!s.kernelName.empty()) env.emplace_back("PREDATAR_KERNEL_NAME", s.kernelName);
  if (s.launchSkip) env.emplace_back("PREDATAR_LAUNCH_SKIP", absl::StrCat(s.launchSkip));
  if (s.launchCount) env.emplace_back("PREDATAR_LAUNCH_COUNT", absl::StrCat(*s.launchCount));
  if (s.perLocation) env.emplace_back("PREDATAR_PER_LOCATION", "1");
  if (s.quiet) env.emplace_back("PREDATAR_QUIET", "1");
  if (s.verbose) env.emplace_back("PREDATAR_VERBOSE", "1");
  if (!s.replayRepeats) env.emplace_back("PREDATAR_REPLAY", "off");
  if (!s.fusedMultiplyAdd) env.emplace_back("PREDATAR_FMAD", "off");
  if (s.initCheck) env.emplace_back("PREDATAR_INITCHECK", "1");
  if (s.leakCheck) env.emplace_back("PREDATAR_LEAK_CHECK", "1");
  return env;
}

}  // namespace predatar::cudart
