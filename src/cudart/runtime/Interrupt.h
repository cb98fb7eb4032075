// SIGINT/SIGTERM under `predatar run`: the program still leaves the report of
// what it saw. A signal during a launch stops the emulator at its next
// scheduling round (the launch is recorded as interrupted); the report is
// written and the process then dies of the same signal, as it would have.
// SIGABRT from host code (a failed assert) writes the report too.
#pragma once

#include <atomic>

namespace predatar::cudart {

class Runtime;

// Installs the handlers (once); only when a report file is requested.
void installInterruptHandlers();
// The flag the emulator polls (sim::ScheduleOptions::interrupt).
const std::atomic<bool>* interruptFlag();
// Brackets a launch: a signal inside it only sets the flag.
void setInLaunch(bool inLaunch);
// After a launch: when a signal arrived, writes the report and re-raises it.
void dieIfInterrupted(Runtime& runtime);

}  // namespace predatar::cudart
