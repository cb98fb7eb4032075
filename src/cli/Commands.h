// Subcommands of `predatar`; each registers itself on the app and stores its
// exit code in `exitCode` when it runs.
#pragma once

namespace CLI { class App; }

namespace predatar::cli {

void addCheckCommand(CLI::App& app, int& exitCode);   // predatar check FILE...
void addLitmusCommand(CLI::App& app, int& exitCode);  // predatar litmus PATH...
void addKernelCommand(CLI::App& app, int& exitCode);  // predatar kernel FILE.ptx ...
void addRunCommand(CLI::App& app, int& exitCode);     // predatar run -- ./app

}  // namespace predatar::cli
