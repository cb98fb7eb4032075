#include "cudart/runtime/Fork.h"

#include <pthread.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "absl/strings/str_cat.h"
#include "cudart/runtime/Runtime.h"

namespace predatar::cudart {

void watchChildProcesses(Runtime&) { pthread_atfork(settleRuntimeBeforeFork, nullptr, adoptRuntimeAfterFork); }

void Runtime::reportAsAProcessOfItsOwn() {
  std::string pid = std::to_string(::getpid());
  processNote_ = absl::StrCat(" [pid ", pid, "]");
  if (!options_.reportPath.empty()) {
    // Beside the main report: PREDATAR_REPORT.pid<N> (predatar run reads them all).
    std::string main = options_.reportPath;
    size_t mark = main.find(".pid");
    if (mark != std::string::npos) main.resize(mark);
    options_.reportPath = absl::StrCat(main, ".pid", pid);
  }
}

void Runtime::becomeChildProcess() {
  reportAsAProcessOfItsOwn();
  launches_.clear();  // the parent's, reported by the parent
  repeats_ = RepeatedLaunches{};  // they name launches of the parent's numbering
  // The feed's worker threads stayed in the parent (fork copies only the
  // calling thread): leak it rather than join threads that do not exist here;
  // the next checked launch starts a new one.
  (void)feed_.release();
  // Its results hold the parent's launches (and a lock a parent's thread may
  // have held); the parent completes them.
  (void)results_.release();
  awaitingResults_.clear();
  // So did the thread of a launch waiting for the host: the parent finishes
  // it, with the work queued behind it (leaked here, like the feed).
  if (suspended_) {
    (void)new std::shared_ptr<InFlightLaunch>(std::move(suspended_));
    deferred_.clear();
  }
  lastReportWrite_.reset();
  lastFindingWrite_.reset();
}

}  // namespace predatar::cudart
