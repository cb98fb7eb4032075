// The kernel launches the replacement runtime ran and the races the
// detectors found, written as JSON by the library (PREDATAR_REPORT) and read
// back by `predatar run`.
//
// Until src/report has a JSON writer for races, this is the library's own:
//   [ { "launch": 0, "kernel": "add(int*, int const*, int)", "mangled": "_Z3addPiPKii",
//       "module": "a.cu", "grid": [4,1,1], "block": [32,1,1], "dynamicSharedBytes": 0,
//       "checked": true, "detectors": ["gwcp"], "status": "ok" | "error", "error": "...",
//       "cudaError": "cudaErrorIllegalAddress", "fault": {"pc": 7, "file": "a.cu", "line": 9,
//                                                         "blockIdx": [..], "threadIdx": [..]},
//       "races": [ { "detector": "gwcp", "kind": "write-write", "space": "global",
//                    "address": 4096, "sharedBlock": 0, "count": 2,
//                    "location": "buf[3]" (a PTX variable) | "cudaMalloc #2+16" (allocation, byte offset) | null,
//                    "first":  { "block": 0, "blockIdx": [0,0,0], "thread": 1,
//                                "threadIdx": [1,0,0], "warp": 0, "lane": 1,
//                                "type": "write", "strong": false, "scope": "device",
//                                "pc": 12, "file": "a.cu", "line": 9, "column": 32 },
//                    "second": { ... } } ] } ]
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

#include "events/Event.h"
#include "report/Race.h"

namespace predatar::cudart {

// Where a failed launch stopped (the faulting or first stuck thread).
struct FaultLocation {
  uint64_t pc = 0;
  std::string file;  // empty without -lineinfo
  uint32_t line = 0;
  Dim3 blockIdx, threadIdx;
};

// What `--stats` prints for a launch: execution and detector figures.
struct DetectorFigures {
  std::string detector;
  uint64_t events = 0;
  uint64_t threadClockBytes = 0, lockClockBytes = 0, queueBytes = 0, shadowBytes = 0;  // peaks
  std::string checkedBy;  // the detector that did this one's work, its metadata (Detector::checkedBy), or empty
};
struct LaunchFigures {
  double seconds = 0;  // emulation and detection
  uint64_t warpInstructions = 0, threadInstructions = 0;
  std::vector<DetectorFigures> detectors;
};

// --initcheck: a kernel instruction that read bytes nothing wrote (sim::LaunchStats).
struct UninitializedRead {
  std::string message;  // the first read's thread, address and allocation
  uint64_t count = 0;   // reads of unwritten bytes at the instruction in the launch
};

struct LaunchRecord {
  uint64_t index = 0;        // launch number in the process, from 0
  std::string kernel;        // demangled
  std::string mangled;
  std::string module;
  Dim3 grid, block;
  uint64_t dynamicSharedBytes = 0;
  bool checked = false;      // run under the detectors (else only executed)
  // An exact repeat of this earlier launch (same kernel, configuration,
  // arguments and memory): its effect was replayed, not emulated again.
  std::optional<uint64_t> replayOf;
  // Run for its effect on memory alone, without the detectors: its kernel's
  // events do not depend on data, and this earlier launch, with the same
  // configuration and arguments, ran under them: its races are this one's.
  std::optional<uint64_t> racesOf;
  std::vector<std::string> detectors;
  std::string error;         // empty when the kernel completed
  std::string cudaError;     // with `error`: the error the program's calls get ("cudaErrorIllegalAddress")
  std::optional<FaultLocation> fault;
  LaunchFigures figures;
  KernelInfo info;           // as the emulator announced it (sources, symbols)
  std::vector<Race> races;   // unique races of every detector
  // Per race: the allocation holding a global address ("cudaMalloc #2+16"),
  // when no symbol of `info` names it.
  std::vector<std::string> allocations;
  // --initcheck: reads of bytes nothing wrote, one per instruction.
  std::vector<UninitializedRead> uninitializedReads;
  // Per race: for a race with an earlier launch (Access::launch), which
  // streams the two kernels ran on and that nothing ordered them; else empty.
  std::vector<std::string> launchNotes;
  // Run, but its detectors' results are not read yet (they are read one
  // launch late): no race of it is known, so the report file leaves it out
  // until they are, and `predatar run` counts it unchecked (LaunchLedger.h)
  // if the process ends first.
  bool awaitingResults = false;
};

// The report file: every launch but those awaiting their results.
std::string launchesToJson(const std::vector<LaunchRecord>& launches);
// Keeps of `launch.info.sources` only the positions its races name (their
// indices renumbered), as a list of the record's own: the record no longer
// holds its module's table (SourceTable), which may be unloaded. (Before the
// table was shared, a launch with races kept a copy of all its module's
// lines: radixSortThrust, 400 launches with races, 3.4 GB of CUB's lines.)
void keepOnlyRaceSources(LaunchRecord& launch);
// One line per race, for stderr when no report file is requested. Its
// function names have their long template argument lists as "<...>"
// (shortTemplateArguments): CUB's kernels and the agents they inline name
// hundreds of characters each, several times a line. The report keeps them.
std::string describeRace(const LaunchRecord& launch, const Race& race);
// `name` with each outermost template argument list of more than 32
// characters written "<...>" ("f<256>(int*)" stays whole).
std::string shortTemplateArguments(const std::string& name);

// The report as read back (by `predatar run`): positions already resolved.
struct ReportedAccess {
  uint32_t block = 0, thread = 0;  // linear indices
  Dim3 blockIdx, threadIdx;
  uint32_t warp = 0, lane = 0;
  std::string type;                // "read", "write", "atomic"
  bool strong = false;
  bool isVolatile = false;
  std::string scope;
  uint64_t pc = 0;
  std::optional<SourcePosition> source;  // with -lineinfo
};

struct ReportedRace {
  std::string detector, kind, space;  // "gwcp", "write-write", "global"
  uint64_t address = 0;
  std::optional<uint32_t> sharedBlock;
  std::string location;               // "buf[3]", "cudaMalloc #2+16" or empty
  uint64_t count = 1;
  ReportedAccess first, second;
  std::vector<std::string> notes;     // raceNotes(), resolved by the library
};

struct ReportedLaunch {
  uint64_t index = 0;
  std::string kernel, mangled, module;
  Dim3 grid, block;
  uint64_t dynamicSharedBytes = 0;
  bool checked = false;
  std::optional<uint64_t> replayOf;
  std::optional<uint64_t> racesOf;  // LaunchRecord::racesOf
  std::vector<std::string> detectors;
  std::string error;  // empty: completed
  std::string cudaError;
  std::optional<FaultLocation> fault;
  LaunchFigures figures;
  std::vector<ReportedRace> races;
  std::vector<UninitializedRead> uninitializedReads;
};

absl::StatusOr<std::vector<ReportedLaunch>> readLaunchReport(std::string_view json);
// NotFound when the file does not exist (the program exited before using CUDA,
// or was killed).
absl::StatusOr<std::vector<ReportedLaunch>> readLaunchReportFile(const std::string& path);

}  // namespace predatar::cudart
