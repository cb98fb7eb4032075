// How many kernel launches the program's processes recorded, counted where
// `predatar run` can read it whatever way they ended: a file beside the report
// (launchLedgerPath) that `predatar run` creates zeroed, and each process's
// runtime maps shared and counts into as it records a launch for its report.
// Launches counted but in no report were never checked: the process ended in
// a way that runs none of the runtime's code (SIGKILL, a raw exit_group
// system call) before it read their detectors' results and wrote them, and
// `predatar run` says so instead of reporting a clean run. (fork() children
// share the mapping; programs the program runs map the same file.)
//
// The ledger also names the process that writes the main report: the first
// runtime to claim it. Any other CUDA program the program runs (a test
// script's second binary, system()) writes its own report beside it, as a
// fork() child does, instead of overwriting the first one's.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace predatar::cudart {

std::string launchLedgerPath(const std::string& reportPath);

// `predatar run`: creates the ledger (count 0) before the program starts;
// false when it cannot (the run goes on without it).
bool createLaunchLedger(const std::string& reportPath);
// `predatar run`: the count after the program ended; nullopt without a ledger.
std::optional<uint64_t> readLaunchLedger(const std::string& reportPath);

// The runtime's side: counts nothing without a report path or a ledger
// beside it (the library run without `predatar run`).
class LaunchLedger {
 public:
  explicit LaunchLedger(const std::string& reportPath);
  ~LaunchLedger();
  LaunchLedger(const LaunchLedger&) = delete;
  LaunchLedger& operator=(const LaunchLedger&) = delete;

  void countLaunch();
  // Whether this process writes the main report: true for the first to ask
  // (and again for it), and without a ledger.
  bool claimMainReport();

 private:
  // In the shared mapping: [0] launches recorded, [1] pid of the process
  // that writes the main report (0: none yet).
  uint64_t* words_ = nullptr;
};

}  // namespace predatar::cudart
