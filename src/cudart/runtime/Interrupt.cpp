#include "cudart/runtime/Interrupt.h"

#include <csignal>

#include "cudart/runtime/Runtime.h"

namespace predatar::cudart {
namespace {

std::atomic<bool> interrupted{false};
std::atomic<int> pendingSignal{0};
std::atomic<bool> launching{false};

[[noreturn]] void reraise(int sig) {
  std::signal(sig, SIG_DFL);
  std::raise(sig);
  _Exit(128 + sig);
}

void onSignal(int sig) {
  pendingSignal = sig;
  interrupted = true;
  if (launching) return;  // the launch stops soon and dieIfInterrupted() finishes
  // Outside a launch (host code): write what was seen unless the runtime is
  // busy in another thread (not async-signal-safe in general, but the process
  // is about to die and losing the report is what this prevents).
  if (Runtime* r = Runtime::existing(); r && r->mutex().try_lock()) {
    r->writeReport();
    r->mutex().unlock();
  }
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
