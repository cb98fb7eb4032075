// The `predatar` command line.
#pragma once

#include <string>
#include <vector>

#include "analysis/Detector.h"
#include "report/Report.h"

namespace CLI { class App; }

namespace predatar::cli {

// Exit codes shared by every command (README "Exit codes"). When several
// apply, the first of: input/tool error, kernel fault, races, program failure.
inline constexpr int kExitClean = 0;
inline constexpr int kExitRaces = 1;          // default of --error-exitcode
inline constexpr int kExitInputError = 2;     // usage, malformed input, predatar's own failure
inline constexpr int kExitKernelFault = 3;    // a launch faulted/deadlocked/was refused, or (run) a call was refused
                                              // or launches ran that no report holds: the report is incomplete
inline constexpr int kExitProgramFailed = 4;  // run: the program exited non-zero or was killed (no races, no fault)
inline constexpr int kExitOutOfMemory = 5;    // predatar (or, under run, the program's process) ran out of memory

// Options of the commands that report races (check, kernel, run).
struct ReportOptions {
  std::string detectors = "gwcp";
  std::string format = "text";
  std::string output;
  int errorExitCode = kExitRaces;
  std::string compression = "on";
  std::string volatileSemantics = "plain";  // --volatile plain|strong
  bool stats = false;
  size_t printLimit = SIZE_MAX;
  std::string threads = "auto";  // --threads: 1 serial, N, or auto (ParallelFanout.h)
  bool hbApart = false;          // --hb-apart: hb keeps its own history beside gwcp (DetectorOptions::hbOnGwcp)

  unsigned threadCount() const;  // 0 (automatic) unless --threads gave a number

  std::vector<std::string> detectorList() const;  // canonical names; "all" expands
  DetectorOptions detectorOptions() const {
    DetectorOptions options{compression == "on", false, volatileSemantics == "strong"};
    options.hbOnGwcp = !hbApart;
    return options;
  }
};

void addReportOptions(CLI::App& command, ReportOptions& options);
// --volatile plain|strong (race-semantics.md, the volatile bullet).
void addVolatileOption(CLI::App& command, std::string& value);
// `--compression on|off` (run, kernel and check share the report options; litmus its own).
inline constexpr const char* kCompressionHelp =
    "Hierarchical vector clock compression (gwcp, hb) and compact shadow pages (lockset)";
// --fmad on|off: multiply-add contraction as ptxas does it (ptx/Contraction.h), or none.
void addFmadOption(CLI::App& command, std::string& value);

// The check of a --timeout or --progress value: "" for a number of seconds
// above 0 (or 0 too, when `zeroAllowed`), else what is wrong, in words
// (CLI11's NonNegativeNumber named its bound, DBL_MAX, in 309 digits).
std::string checkSeconds(const std::string& value, bool zeroAllowed);

// Writes the report where --output says, in --format; returns the exit code.
int emitReport(const ReportOptions& options, const Report& report);

// Prints --stats figures of the detectors to stderr.
void printStats(const std::vector<const Detector*>& detectors, double seconds);

int main(int argc, char** argv);

}  // namespace predatar::cli
