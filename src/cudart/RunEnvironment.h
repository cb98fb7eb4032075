// What `predatar run` puts in the program's environment so that it loads the
// replacement libcudart.so.13 and the library runs the chosen analysis: the
// contract between the CLI and src/cudart/runtime (RunOptions reads it).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace predatar::cudart {

struct RunSettings {
  std::vector<std::string> detectors{"gwcp"};  // canonical names; empty: only execute
  std::string reportPath;                      // where the library writes the JSON launch report
  std::string schedule;                        // "round-robin" or "random"; empty: default
  std::optional<uint64_t> seed;
  std::optional<uint32_t> quantum;
  std::optional<uint64_t> stepLimit;         // per launch
  std::optional<double> timeLimitSeconds;    // per launch
  std::optional<double> progressSeconds;     // between a long launch's progress lines (0: none)
  std::string residentBlocks;                  // "gpu", "all" or a number; empty: default (gpu)
  std::string kernelName;                      // substring filter; empty: every kernel
  uint64_t launchSkip = 0;
  std::optional<uint64_t> launchCount;
  bool perLocation = false;
  bool quiet = true;                           // the CLI prints the races, not the library
  bool verbose = false;
  bool replayRepeats = true;                   // false: PREDATAR_REPLAY=off
  bool fusedMultiplyAdd = true;                // false: PREDATAR_FMAD=off
  bool initCheck = false;                      // PREDATAR_INITCHECK=1 (run --initcheck)
  bool leakCheck = false;                      // PREDATAR_LEAK_CHECK=1 (run --leak-check full)
  // Which of predatar's other libraries (ownLibraries()) the program needs
  // directly (its DT_NEEDED): preloaded too, like libcudart.so.13.
  std::vector<std::string> neededLibraries;
};

// Beside reportPath, the library appends one line per call it refused (the
// stderr line's text, "X is not supported by the emulator (returning Y)"):
// `predatar run` lists them in its report and exits as for a fault.
inline constexpr const char* refusalMarkerSuffix() { return ".refused"; }
// With leakCheck, the library writes beside the report, at cudaDeviceReset and
// at exit, one line per device or managed allocation still live then ("N bytes
// at 0x... (cudaMalloc #k) ..."), which `predatar run` lists as leaks.
inline constexpr const char* leakMarkerSuffix() { return ".leaks"; }
// At exit, the library writes beside the report one line per call and error
// the program got ("cudaMalloc returned cudaErrorMemoryAllocation (...), 2
// times; first by main at app.cu:12"), which `predatar run` lists as API errors.
inline constexpr const char* apiErrorMarkerSuffix() { return ".api-errors"; }
// Beside reportPath, predatar's libraries append one line per call whose
// result is undefined though a GPU runs it (predatarWarning, Refusal.h), which
// `predatar run` lists as warnings.
inline constexpr const char* warningMarkerSuffix() { return ".warnings"; }

// The sonames of predatar's libraries besides libcudart.so.13, which a
// program's RPATH to CUDA's lib64 could otherwise replace by NVIDIA's.
const std::vector<std::string>& ownLibraries();

// NAME, VALUE pairs to set. LD_LIBRARY_PATH and LD_PRELOAD put `libraryDir`
// (and its libcudart.so.13, then the settings' neededLibraries) in front of
// `currentLdLibraryPath` / `currentLdPreload` (the values in the CLI's own
// environment, may be null).
std::vector<std::pair<std::string, std::string>> runtimeEnvironment(const RunSettings& settings,
                                                                    const std::string& libraryDir,
                                                                    const char* currentLdLibraryPath,
                                                                    const char* currentLdPreload);

}  // namespace predatar::cudart
