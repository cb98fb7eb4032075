#include "cudart/runtime/Interrupt.h"

#include <csignal>

#include "cudart/runtime/Runtime.h"
#include "sim/ImmediateExit.h"

namespace predatar::cudart {
namespace {

std::atomic<bool> interrupted{false};
std::atomic<int> pendingSignal{0};
std::atomic<bool> launching{false};

[[noreturn]] void reraise(int sig) {
  std::signal(sig, SIG_DFL);
  std::raise(sig);
  sim::exitImmediately(128 + sig);
}

void onSignal(int sig) {
  pendingSignal = sig;
  interrupted = true;
  if (launching) return;  // the launch stops soon and dieIfInterrupted() finishes
  // Outside a launch (host code): write what was seen.
  if (Runtime* r = Runtime::existing()) r->writeReportBeforeDying();
  reraise(sig);
}

// abort() in the program's host code (a failed assert, an uncaught
// exception): its launches' races were found, so they are reported. (Inside
// a launch the abort is the emulator's own: nothing is written there.)
void onAbort(int sig) {
  if (Runtime* r = Runtime::existing(); r && !launching) r->writeReportBeforeDying();
  reraise(sig);
}

}  // namespace

void installInterruptHandlers() {
  static bool installed = false;
  if (installed) return;
  installed = true;
  struct sigaction action {};
  action.sa_handler = onSignal;
  sigemptyset(&action.sa_mask);
  for (int sig : {SIGINT, SIGTERM}) sigaction(sig, &action, nullptr);
  action.sa_handler = onAbort;
  sigaction(SIGABRT, &action, nullptr);
}

const std::atomic<bool>* interruptFlag() { return &interrupted; }

void setInLaunch(bool inLaunch) { launching = inLaunch; }

void dieIfInterrupted(Runtime& runtime) {
  if (!interrupted) return;
  runtime.settleDetectors();
  runtime.writeReport();
  reraise(pendingSignal.load());
}

}  // namespace predatar::cudart
