// predatar run [options] -- ./app args: run an unmodified CUDA program (built
// with nvcc -cudart shared) on the emulator through the replacement
// libcudart.so.13, then report the races of every checked kernel launch.
#include <fcntl.h>
#include <fmt/format.h>
#include <fnmatch.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <fstream>
#include <iostream>

#include "cli/Cli.h"
#include "cli/Commands.h"
#include "cudart/LaunchReport.h"
#include "cudart/ProgramCheck.h"
#include "cudart/RunEnvironment.h"

extern char** environ;

namespace predatar::cli {
namespace {

struct RunArgs {
  std::vector<std::string> command;
  ReportOptions report;
  std::string kernelName;
  uint64_t launchSkip = 0;
  std::optional<uint64_t> launchCount;
  std::string suppressions;
  std::string schedule = "rr";
  std::optional<uint64_t> seed;
  bool verbose = false;
};

int fail(const std::string& message) {
  std::cerr << "predatar: error: " << message << "\n";
  return kExitInputError;
}

// One pattern per line ("race:PATTERN" or "PATTERN", '#' comments), matched
// with shell wildcards against the kernel, the location and each access's
// "file:line" and file, as ThreadSanitizer suppressions are.
absl::StatusOr<std::vector<std::string>> readSuppressions(const std::string& path) {
  std::vector<std::string> patterns;
  if (path.empty()) return patterns;
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(fmt::format("{}: cannot open suppressions file", path));
  int lineNo = 0;
  for (std::string line; std::getline(in, line);) {
    ++lineNo;
    line = line.substr(0, line.find('#'));
    line.erase(0, line.find_first_not_of(" \t"));
    line.erase(line.find_last_not_of(" \t\r") + 1);
    if (line.empty()) continue;
    if (line.rfind("race:", 0) == 0) line = line.substr(5);
    else if (line.find(':') != std::string::npos && line.find_first_of("*?") == std::string::npos &&
             !std::isdigit(static_cast<unsigned char>(line.back())))
      return absl::InvalidArgumentError(
          fmt::format("{}:{}: expected 'race:PATTERN' or a pattern, found '{}'", path, lineNo, line));
    patterns.push_back(line);
  }
  return patterns;
}

bool suppressed(const std::vector<std::string>& patterns, const ReportedRace& race) {
  std::vector<std::string> subjects{race.race.kernel, race.location};
  for (const auto* a : {&race.first, &race.second}) {
    if (a->file.empty()) continue;
    subjects.push_back(a->file);
    subjects.push_back(fmt::format("{}:{}", a->file, a->line));
  }
  for (const auto& p : patterns)
    for (const auto& s : subjects)
      if (fnmatch(p.c_str(), s.c_str(), 0) == 0 || s == p) return true;
  return false;
}

RaceKind kindOf(const std::string& s) {
  if (s == "write-read") return RaceKind::WriteRead;
  if (s == "read-write") return RaceKind::ReadWrite;
  if (s == "atomic-scope") return RaceKind::AtomicScope;
  return RaceKind::WriteWrite;
}

ResolvedAccess resolved(const cudart::ReportedAccess& a) {
  ResolvedAccess r;
  r.access.block = a.block;
  r.access.thread = a.thread;
  r.access.type = a.type == "write" ? AccessType::Write : a.type == "atomic" ? AccessType::AtomicRmw : AccessType::Read;
  r.access.strong = a.strong;
  r.access.scope = a.scope == "block" ? Scope::Block : a.scope == "system" ? Scope::System : Scope::Device;
  r.access.origin.pc = a.pc;
  r.blockIndex = a.blockIdx;
  r.threadIndex = a.threadIdx;
  if (a.source) {
    r.file = a.source->file;
    r.line = a.source->line;
    r.column = a.source->column;
  }
  return r;
}

Report toReport(const std::vector<cudart::ReportedLaunch>& launches) {
  Report report;
  for (const auto& launch : launches)
    for (const auto& r : launch.races) {
      ReportedRace out;
      out.race.detector = r.detector;
      out.race.kernel = launch.kernel;
      out.race.kind = kindOf(r.kind);
      out.race.space = r.space == "shared" ? MemorySpace::Shared : MemorySpace::Global;
      out.race.sharedBlock = r.sharedBlock.value_or(0);
      out.race.address = r.address;
      out.race.count = r.count;
      out.location = r.location.empty() ? fmt::format("{:#x}", r.address) : r.location;
      out.first = resolved(r.first);
      out.second = resolved(r.second);
      out.race.first = out.first.access;
      out.race.second = out.second.access;
      report.add(std::move(out));
    }
  return report;
}

// Runs the program with `env` added; returns its exit status (128+signal when killed).
absl::StatusOr<int> execute(const std::vector<std::string>& command,
                            const std::vector<std::pair<std::string, std::string>>& env, bool stdoutToStderr) {
  pid_t pid = fork();
  if (pid < 0) return absl::InternalError("fork failed");
  if (pid == 0) {
    for (const auto& [name, value] : env) setenv(name.c_str(), value.c_str(), 1);
    if (stdoutToStderr) dup2(STDERR_FILENO, STDOUT_FILENO);
    std::vector<char*> argv;
    for (const auto& a : command) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execvp(argv[0], argv.data());
    std::fprintf(stderr, "predatar: error: cannot run %s: %s\n", argv[0], std::strerror(errno));
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return absl::InternalError("waitpid failed");
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WEXITSTATUS(status);
}

int runProgram(const RunArgs& a) {
  if (a.command.empty()) return fail("no program given: predatar run [options] -- ./app [args]");
  std::vector<std::string> detectors = a.report.detectorList();
  std::string warning;
  absl::Status check = cudart::checkProgram(a.command.front(), &warning);
  if (!check.ok()) return fail(std::string(check.message()));
  if (!warning.empty()) std::cerr << "predatar: warning: " << warning << "\n";
  auto suppressions = readSuppressions(a.suppressions);
  if (!suppressions.ok()) return fail(std::string(suppressions.status().message()));
  auto libraryDir = cudart::findRuntimeLibraryDir();
  if (!libraryDir.ok()) return fail(std::string(libraryDir.status().message()));

  char dir[] = "/tmp/predatar-run-XXXXXX";
  if (!mkdtemp(dir)) return fail("cannot create a temporary directory");
  cudart::RunSettings settings;
  settings.detectors = detectors;
  settings.reportPath = std::string(dir) + "/report.json";
  settings.schedule = a.schedule == "random" ? "random" : "round-robin";
  settings.seed = a.seed;
  settings.kernelName = a.kernelName;
  settings.launchSkip = a.launchSkip;
  settings.launchCount = a.launchCount;
  settings.verbose = a.verbose;
  auto env = cudart::runtimeEnvironment(settings, *libraryDir, std::getenv("LD_LIBRARY_PATH"),
                                        std::getenv("LD_PRELOAD"));
  env.emplace_back("PREDATAR_COMPRESSION", a.report.compression);
  if (a.report.stats) env.emplace_back("PREDATAR_STATS", "1");
  // Machine-readable reports keep standard output to themselves.
  bool cleanStdout = a.report.format != "text" && a.report.output.empty();
  auto status = execute(a.command, env, cleanStdout);
  auto launches = cudart::readLaunchReportFile(settings.reportPath);
  std::remove(settings.reportPath.c_str());
  rmdir(dir);
  if (!status.ok()) return fail(std::string(status.status().message()));
  std::vector<cudart::ReportedLaunch> list;
  if (launches.ok()) list = std::move(*launches);
  else if (!absl::IsNotFound(launches.status())) return fail(std::string(launches.status().message()));

  Report all = toReport(list), kept;
  size_t hidden = 0;
  for (const auto& r : all.races()) {
    if (suppressed(*suppressions, r)) ++hidden;
    else kept.add(r);
  }
  for (const auto& l : list)
    if (!l.error.empty()) std::cerr << fmt::format("predatar: kernel {} (launch {}) failed: {}\n", l.kernel, l.index, l.error);
  int code = emitReport(a.report, kept);
  size_t checked = 0;
  for (const auto& l : list) checked += l.checked;
  std::cerr << fmt::format("predatar: {} kernel launch{} checked, {} unique race{}{}; program exited with {}\n",
                           checked, checked == 1 ? "" : "es", kept.uniqueRaces(), kept.uniqueRaces() == 1 ? "" : "s",
                           hidden ? fmt::format(" ({} suppressed)", hidden) : "", *status);
  if (code == kExitInputError) return code;
  return kept.races().empty() ? *status : a.report.errorExitCode;
}

}  // namespace

void addRunCommand(CLI::App& app, int& exitCode) {
  auto a = std::make_shared<RunArgs>();
  CLI::App* cmd = app.add_subcommand(
      "run", "Run a CUDA program (built with nvcc -cudart shared) on the emulator and report its races");
  cmd->add_option("command", a->command, "-- ./app [args]")->required();
  addReportOptions(*cmd, a->report);
  cmd->add_option("--kernel-name", a->kernelName, "Check only kernels whose name contains this text");
  cmd->add_option("--launch-skip", a->launchSkip, "Number of kernel launches to skip before checking");
  cmd->add_option("--launch-count", a->launchCount, "Number of kernel launches to check");
  cmd->add_option("--suppressions", a->suppressions,
                  "File of race:PATTERN lines (kernel, location, file or file:line) to hide");
  cmd->add_option("--schedule", a->schedule, "Warp scheduling policy")
      ->check(CLI::IsMember({"rr", "random"}))
      ->capture_default_str();
  cmd->add_option("--seed", a->seed, "Seed of the random schedule");
  cmd->add_flag("--verbose", a->verbose, "Print each launch as it runs");
  cmd->prefix_command(false);
  cmd->callback([a, &exitCode] { exitCode = runProgram(*a); });
}

}  // namespace predatar::cli
