// Subcommands of `predatar`; each registers itself on the app and stores its
// exit code in `exitCode` when it runs.
#pragma once

namespace CLI { class App; }

namespace predatar::cli {

void addCheckCommand(CLI::App& app, int& exitCode);   // predatar check FILE...
void addLitmusCommand(CLI::App& app, int& exitCode);  // predatar litmus PATH...
void addKernelCommand(CLI::App& app, int& exitCode);  // predatar kernel FILE.ptx ...
void addRunCommand(CLI::App& app, int& exitCode);     // predatar run -- ./app

// The help of --schedule (kernel and run).
inline constexpr const char* kScheduleHelp =
    "Warp scheduling policy: rr (deterministic; the blocks of a wave run one after another, a block's warps "
    "taking turns until they finish, wait, or spin, neither writing memory nor reading new words) or random "
    "(warps shuffled every round, turns of random length; --seed)";

}  // namespace predatar::cli
