// Races ready to show: locations named through the kernel's symbols, accesses
// with their source positions and coordinates; written as text, JSON or SARIF.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "events/Event.h"
#include "report/Race.h"

namespace predatar {

struct ResolvedAccess {
  Access access;
  Dim3 blockIndex;   // blockIdx
  Dim3 threadIndex;  // threadIdx
  std::string file;  // source file (or the litmus file)
  uint32_t line = 0;
  uint32_t column = 0;
  std::vector<InlinedCall> inlinedInto = {};  // innermost first; empty when not inlined
};

struct ReportedRace {
  Race race;
  std::string location;  // "name", "name[3]", or an address
  ResolvedAccess first, second;
  // What the user should know to fix it: both accesses volatile, a missing
  // fence of a message-passing pattern.
  std::vector<std::string> notes;
  // The kernel launch it was found in (`predatar run`: several launches of a
  // kernel may report the same pair); none for a litmus trace.
  std::optional<uint64_t> launch;
};

// The notes of a race, with positions resolved through the kernel's sources.
std::vector<std::string> raceNotes(const KernelInfo& kernel, const Race& race);

// "x" for index 0 and "x[i]" otherwise, as litmus expect lines write them;
// an address in hex when no symbol covers it.
std::string nameLocation(const KernelInfo& kernel, MemorySpace space, uint64_t address);

// Origin::source of a trace-file event without a position of its own (a
// litmus line without '@'): it is at kernel.name (the file), line origin.pc.
// No sources entry per event, so reading a trace keeps nothing per line.
inline constexpr uint32_t kTraceLineSource = Origin::kNoSource - 1;

// A kernel launch that did not complete (fault, deadlock, step limit,
// unsupported feature): the race report of that launch is incomplete.
struct KernelError {
  std::string kernel;
  uint64_t launch = 0;
  std::string cudaError;  // what the program's CUDA calls return, e.g. "cudaErrorIllegalAddress"
  std::string message;    // the emulator's description
  bool located = false;   // pc, position and thread below are known
  uint32_t pc = 0;
  std::string file;       // source position (-lineinfo), empty when unknown
  uint32_t line = 0;
  Dim3 blockIndex, threadIndex;
};

// `predatar run --initcheck`: a kernel instruction that read cudaMalloc'd
// bytes no copy, memset or kernel store wrote (once per instruction and launch).
struct UninitializedReadFinding {
  std::string kernel;
  uint64_t launch = 0;
  std::string message;  // the first such read: thread, address, allocation, source line
  uint64_t count = 0;   // reads at the instruction in that launch
};

class Report {
 public:
  // `predatar run --leak-check full`: device or managed allocations never freed
  // ("256 bytes at 0x... (cudaMalloc #3) never freed before the program exited").
  void addLeak(std::string leak) { leaks_.push_back(std::move(leak)); }
  const std::vector<std::string>& leaks() const { return leaks_; }
  void addUninitializedRead(UninitializedReadFinding f) { uninitializedReads_.push_back(std::move(f)); }
  const std::vector<UninitializedReadFinding>& uninitializedReads() const { return uninitializedReads_; }
  void addError(KernelError error) { errors_.push_back(std::move(error)); }
  const std::vector<KernelError>& errors() const { return errors_; }
  // Calls the emulator refused while the program ran ("cuGetProcAddress of
  // cuInit (...) is not supported by the emulator (returning ...)"): the
  // program got an error a GPU would not give and went on, so the run did not
  // do what it would on a GPU.
  void addRefusal(std::string refusal) { refusals_.push_back(std::move(refusal)); }
  const std::vector<std::string>& refusals() const { return refusals_; }
  // `predatar run`: errors the program's CUDA calls returned to it, one per
  // call and error ("cudaMalloc returned cudaErrorMemoryAllocation (...), 2
  // times; first by main at app.cu:12"). Informational: what a GPU would
  // return too, which the program may check and handle.
  void addApiError(std::string error) { apiErrors_.push_back(std::move(error)); }
  const std::vector<std::string>& apiErrors() const { return apiErrors_; }
  // `predatar run`: library calls run as a GPU would whose result is
  // undefined ("cusparseDcsrilu02_analysis: row 3 of the CSR matrix has its
  // columns out of order ..."). Informational, as API errors are.
  void addWarning(std::string warning) { warnings_.push_back(std::move(warning)); }
  const std::vector<std::string>& warnings() const { return warnings_; }
  // `predatar run`: kernel launches the program ran that no report holds
  // (LaunchLedger: its process ended before their detectors' results were
  // read), one line saying how many and why.
  void addUncheckedLaunches(std::string note) { uncheckedLaunches_.push_back(std::move(note)); }
  const std::vector<std::string>& uncheckedLaunches() const { return uncheckedLaunches_; }
  // Whether the run checked everything it was asked to: no error, no refusal,
  // no launch left unchecked.
  bool complete() const { return errors_.empty() && refusals_.empty() && uncheckedLaunches_.empty(); }
  void add(const KernelInfo& kernel, const RaceLog& log);
  void add(ReportedRace race) { races_.push_back(std::move(race)); }
  const std::vector<ReportedRace>& races() const { return races_; }
  uint64_t uniqueRaces() const { return races_.size(); }
  uint64_t occurrences() const;
  // Races of kernel launches (`predatar run`) are unique per launch: the
  // pairs of instructions behind them, across launches (same kernel,
  // detector, kind and both instructions). 0 when no race names a launch.
  uint64_t instructionPairs() const;

 private:
  std::vector<ReportedRace> races_;
  std::vector<KernelError> errors_;
  std::vector<std::string> refusals_;
  std::vector<std::string> uncheckedLaunches_;
  std::vector<UninitializedReadFinding> uninitializedReads_;
  std::vector<std::string> leaks_;
  std::vector<std::string> apiErrors_;
  std::vector<std::string> warnings_;
};

// " in N pairs of instructions" when repeated launches report the same pairs
// (Report::instructionPairs), for summary lines; empty otherwise.
std::string instructionPairsNote(const Report& report);

struct TextOptions {
  size_t printLimit = SIZE_MAX;  // unique races shown; a summary line follows
  bool unchecked = false;        // no detector ran (--detectors none): the summary says so, not "0 races"
};

void writeText(std::ostream& out, const Report& report, const TextOptions& options = {});
void writeJson(std::ostream& out, const Report& report);
void writeSarif(std::ostream& out, const Report& report);

}  // namespace predatar
