// Child processes of the program under `predatar run`: a fork() child that
// launches kernels, or another CUDA program the program runs, reports into the
// same run. Each such process writes its own report file beside the main one
// (PREDATAR_REPORT.pid<N>) and `predatar run` merges them; its kernels are
// named with its pid ("racy(int*) [pid 1234]"). The main report is the first
// runtime's to claim it (LaunchLedger::claimMainReport).
#pragma once

namespace predatar::cudart {

class Runtime;

// When the runtime is created: registers the fork handler.
void watchChildProcesses(Runtime& runtime);
// The pthread_atfork prepare handler (Runtime.cpp): the launches awaiting
// the detectors' results are completed in the parent, so that the child
// inherits detectors at rest (their threads stay in the parent).
void settleRuntimeBeforeFork();
// The pthread_atfork child handler (Runtime.cpp): this process now owns the
// runtime it inherited.
void adoptRuntimeAfterFork();

}  // namespace predatar::cudart
