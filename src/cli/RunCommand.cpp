// predatar run [options] -- ./app args: run an unmodified CUDA program (built
// with nvcc -cudart shared) on the emulator through the replacement
// libcudart.so.13, then report the races of every checked kernel launch.
#include <fcntl.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <fnmatch.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>

#include "cli/Cli.h"
#include "cli/Commands.h"
#include "cudart/LaunchLedger.h"
#include "cudart/LaunchReport.h"
#include "cudart/ProgramCheck.h"
#include "cudart/RunEnvironment.h"
#include "sim/Device.h"

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
  std::optional<uint64_t> stepLimit;
  std::optional<double> timeout;
  std::optional<double> progress;
  std::string residentBlocks;
  bool verbose = false;
  std::string replayRepeats = "on";
  std::string fmad = "on";
  bool initCheck = false;
  std::string leakCheck = "no";
  std::string reportApiErrors = "explicit";
};

int fail(const std::string& message) {
  std::cerr << "predatar: error: " << message << "\n";
  return kExitInputError;
}

// ", 2 calls refused (the run did not do what it would on a GPU)" for the summary line; empty without.
std::string refusedNote(const Report& report) {
  size_t n = report.refusals().size();
  if (!n) return {};
  return fmt::format(", {} call{} refused (the run did not do what it would on a GPU)", n, n == 1 ? "" : "s");
}

// The report's UNCHECKED line: launches the program's processes ran (the
// launch ledger's count) that no report holds.
std::string uncheckedLaunchesText(uint64_t unchecked, uint64_t run) {
  bool one = unchecked == 1;
  const char* its = one ? "its" : "their";
  return fmt::format("{} of the {} kernel launch{} the program ran {} in no report: {} process ended before the "
                     "runtime wrote {} results (killed, or an exit that runs none of the runtime's code), so {} "
                     "races are unknown",
                     unchecked, run, run == 1 ? "" : "es", one ? "is" : "are", its, its, its);
}

// ", 1 launch never checked" for the summary line; empty without.
std::string uncheckedNote(uint64_t unchecked) {
  if (!unchecked) return {};
  return fmt::format(", {} launch{} never checked", unchecked, unchecked == 1 ? "" : "es");
}

// ", 2 uninitialized reads (--initcheck), 1 leak (--leak-check full)" for the summary line; empty without.
std::string memoryNote(const Report& report) {
  size_t n = report.uninitializedReads().size();
  std::string reads = n ? fmt::format(", {} uninitialized read{} (--initcheck)", n, n == 1 ? "" : "s") : "";
  size_t leaks = report.leaks().size();
  return reads + (leaks ? fmt::format(", {} leak{} (--leak-check full)", leaks, leaks == 1 ? "" : "s") : "");
}

// ", 2 calls returned errors to the program, 1 warning" for the summary line; empty without.
std::string apiErrorNote(const Report& report) {
  size_t n = report.apiErrors().size(), w = report.warnings().size();
  return (n ? fmt::format(", {} call{} returned errors to the program", n, n == 1 ? "" : "s") : "") +
         (w ? fmt::format(", {} warning{}", w, w == 1 ? "" : "s") : "");
}

// The calls the program's runtime refused (cudart::refusalMarkerSuffix), each once.
std::vector<std::string> readRefusals(const std::string& path) {
  std::vector<std::string> refusals;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);)
    if (!line.empty() && std::find(refusals.begin(), refusals.end(), line) == refusals.end())
      refusals.push_back(line);
  return refusals;
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
  r.access.isVolatile = a.isVolatile;
  r.access.scope = a.scope == "block" ? Scope::Block : a.scope == "system" ? Scope::System : Scope::Device;
  r.access.origin.pc = a.pc;
  r.blockIndex = a.blockIdx;
  r.threadIndex = a.threadIdx;
  if (a.source) {
    r.file = a.source->file;
    r.line = a.source->line;
    r.column = a.source->column;
    r.inlinedInto = a.source->inlinedInto;
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
      out.notes = r.notes;
      out.launch = launch.index;
      out.race.first = out.first.access;
      out.race.second = out.second.access;
      report.add(std::move(out));
    }
  for (const auto& launch : launches)
    for (const auto& u : launch.uninitializedReads)
      report.addUninitializedRead({launch.kernel, launch.index, u.message, u.count});
  for (const auto& launch : launches) {
    if (launch.error.empty()) continue;
    KernelError e;
    e.kernel = launch.kernel;
    e.launch = launch.index;
    e.cudaError = launch.cudaError.empty() ? "cudaErrorLaunchFailure" : launch.cudaError;
    e.message = launch.error;
    if (launch.fault) {
      e.located = true;
      e.pc = uint32_t(launch.fault->pc);
      e.file = launch.fault->file;
      e.line = launch.fault->line;
      e.blockIndex = launch.fault->blockIdx;
      e.threadIndex = launch.fault->threadIdx;
    }
    report.addError(std::move(e));
  }
  return report;
}

// SIGINT/SIGTERM received by predatar while the program runs: forwarded to
// the program (which writes its report and dies), then the report is shown.
volatile sig_atomic_t receivedSignal = 0;
void onSignal(int sig) { receivedSignal = sig; }
int programKilledBy = 0;  // the signal that ended the program (0: it exited)

void catchSignals() {
  struct sigaction action {};
  action.sa_handler = onSignal;  // no SA_RESTART: waitpid returns EINTR
  sigemptyset(&action.sa_mask);
  for (int sig : {SIGINT, SIGTERM}) sigaction(sig, &action, nullptr);
}

// Waits for `pid`; after a signal, asks it to stop (SIGTERM) and, if it has
// not within 10 s, kills it.
int waitForProgram(pid_t pid) {
  int status = 0;
  bool forwarded = false;
  auto deadline = std::chrono::steady_clock::time_point::max();
  for (;;) {
    pid_t r = waitpid(pid, &status, forwarded ? WNOHANG : 0);
    if (r == pid) break;
    if (r < 0 && errno != EINTR) return -1;
    if (receivedSignal && !forwarded) {
      forwarded = true;
      kill(pid, SIGTERM);
      deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    }
    if (forwarded) {
      if (std::chrono::steady_clock::now() > deadline) kill(pid, SIGKILL);
      usleep(20000);
    }
  }
  if (WIFSIGNALED(status)) {
    programKilledBy = WTERMSIG(status);
    return 128 + WTERMSIG(status);
  }
  return WEXITSTATUS(status);
}

// Runs the program with `env` added; returns its exit status (128+signal when killed).
absl::StatusOr<int> execute(const std::vector<std::string>& command,
                            const std::vector<std::pair<std::string, std::string>>& env, bool stdoutToStderr) {
  catchSignals();
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) return absl::InternalError("fork failed");
  if (pid == 0) {
    // The program does not outlive predatar (killed with SIGKILL, say).
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent) _exit(127);
    for (const auto& [name, value] : env) setenv(name.c_str(), value.c_str(), 1);
    if (stdoutToStderr) dup2(STDERR_FILENO, STDOUT_FILENO);
    std::vector<char*> argv;
    for (const auto& a : command) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execvp(argv[0], argv.data());
    std::fprintf(stderr, "predatar: error: cannot run %s: %s\n", argv[0], std::strerror(errno));
    _exit(127);
  }
  int status = waitForProgram(pid);
  if (status < 0) return absl::InternalError("waitpid failed");
  return status;
}

// --stats: what `kernel --stats` prints, per launch and in total (events and
// time summed, peak metadata the largest of any launch).
void printRunStats(const std::vector<cudart::ReportedLaunch>& launches) {
  auto mib = [](uint64_t b) { return double(b) / (1024.0 * 1024.0); };
  auto line = [&](const std::string& prefix, const cudart::DetectorFigures& d) {
    uint64_t total = d.threadClockBytes + d.lockClockBytes + d.queueBytes + d.shadowBytes;
    std::cerr << fmt::format(
        "{} [{}]: {} events; peak metadata {:.2f} MiB (thread clocks {:.2f}, lock and message clocks {:.2f}, queues {:.2f}, "
        "shadow {:.2f}){}\n",
        prefix, d.detector, d.events, mib(total), mib(d.threadClockBytes), mib(d.lockClockBytes), mib(d.queueBytes),
        mib(d.shadowBytes), d.checkedBy.empty() ? "" : fmt::format(" (checked by {}: its metadata)", d.checkedBy));
  };
  std::map<std::string, cudart::DetectorFigures> totals;
  double seconds = 0;
  uint64_t warpInstructions = 0;
  size_t withoutFigures = 0;
  for (const auto& l : launches) {
    std::string prefix = fmt::format("predatar stats: launch {} {}", l.index, l.kernel);
    // A launch stopped where no figures are gathered (out of memory: the
    // report is written from the handler) has none: say so, not "0".
    if (!l.error.empty() && l.figures.warpInstructions == 0 && l.figures.seconds == 0) {
      ++withoutFigures;
      std::string why = l.error.substr(0, std::min(l.error.find(": resident memory"), size_t(160)));
      std::cerr << fmt::format("{}: no figures (stopped: {})\n", prefix, why);
      continue;
    }
    std::cerr << fmt::format("{}: {} warp instructions ({} thread instructions), {:.3f} s{}\n", prefix,
                             l.figures.warpInstructions, l.figures.threadInstructions, l.figures.seconds,
                             l.replayOf  ? fmt::format(" (replay of launch {})", *l.replayOf)
                             : l.racesOf ? fmt::format(" (without the detectors: the races of launch {})", *l.racesOf)
                                         : "");
    for (const auto& d : l.figures.detectors) {
      line(prefix, d);
      auto& t = totals[d.detector];
      t.detector = d.detector;
      t.checkedBy = d.checkedBy;
      t.events += d.events;
      uint64_t peak = d.threadClockBytes + d.lockClockBytes + d.queueBytes + d.shadowBytes;
      if (peak > t.threadClockBytes + t.lockClockBytes + t.queueBytes + t.shadowBytes) {
        t.threadClockBytes = d.threadClockBytes;
        t.lockClockBytes = d.lockClockBytes;
        t.queueBytes = d.queueBytes;
        t.shadowBytes = d.shadowBytes;
      }
    }
    seconds += l.figures.seconds;
    warpInstructions += l.figures.warpInstructions;
  }
  for (const auto& [name, t] : totals) line("predatar stats: total", t);
  std::cerr << fmt::format("predatar stats: total: {} launches, {} warp instructions, {:.3f} s{}\n", launches.size(),
                           warpInstructions, seconds,
                           withoutFigures ? fmt::format(" ({} stopped with no figures)", withoutFigures) : "");
}

// The launches of the run: the main report, then those of child processes
// (fork() children, CUDA programs the program ran: `<report>.pid<N>`, see
// cudart/runtime/Fork.h), in pid order. Removes the temporary folder.
absl::StatusOr<std::vector<cudart::ReportedLaunch>> readRunReports(const std::string& dir, const std::string& main) {
  std::vector<std::string> children;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    std::string name = entry.path().string();
    if (name.rfind(main + ".pid", 0) == 0 && name.find(".tmp") == std::string::npos) children.push_back(name);
  }
  std::sort(children.begin(), children.end());
  std::vector<cudart::ReportedLaunch> all;
  absl::Status error;
  for (const std::string& path : [&] { auto v = children; v.insert(v.begin(), main); return v; }()) {
    auto launches = cudart::readLaunchReportFile(path);
    if (launches.ok()) all.insert(all.end(), launches->begin(), launches->end());
    else if (!absl::IsNotFound(launches.status()) && error.ok()) error = launches.status();
  }
  std::filesystem::remove_all(dir, ec);
  if (!error.ok()) return error;
  return all;
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
  settings.stepLimit = a.stepLimit;
  settings.timeLimitSeconds = a.timeout;
  settings.progressSeconds = a.progress;
  settings.residentBlocks = a.residentBlocks;
  settings.kernelName = a.kernelName;
  settings.launchSkip = a.launchSkip;
  settings.launchCount = a.launchCount;
  settings.verbose = a.verbose;
  settings.replayRepeats = a.replayRepeats == "on";
  settings.fusedMultiplyAdd = a.fmad == "on";
  settings.initCheck = a.initCheck;
  settings.leakCheck = a.leakCheck == "full";
  if (auto program = cudart::inspectProgram(a.command.front()); program.ok())
    for (const std::string& library : cudart::ownLibraries())
      if (std::find(program->needed.begin(), program->needed.end(), library) != program->needed.end() &&
          std::filesystem::exists(*libraryDir + "/" + library))
        settings.neededLibraries.push_back(library);
  settings.quiet = a.report.format != "text";  // text: the program prints races as they are found
  auto env = cudart::runtimeEnvironment(settings, *libraryDir, std::getenv("LD_LIBRARY_PATH"),
                                        std::getenv("LD_PRELOAD"));
  env.emplace_back("PREDATAR_COMPRESSION", a.report.compression);
  env.emplace_back("PREDATAR_VOLATILE", a.report.volatileSemantics);
  if (a.report.hbApart) env.emplace_back("PREDATAR_HB_APART", "1");
  if (a.report.threads != "auto") env.emplace_back("PREDATAR_THREADS", a.report.threads);  // else inherited
  // Machine-readable reports keep standard output to themselves.
  bool cleanStdout = a.report.format != "text" && a.report.output.empty();
  bool ledger = cudart::createLaunchLedger(settings.reportPath);
  auto status = execute(a.command, env, cleanStdout);
  // The program's process ran out of memory (it said so on stderr; cudart/runtime/OutOfMemory.h).
  bool outOfMemory = std::filesystem::exists(settings.reportPath + ".out-of-memory");
  std::vector<std::string> refusals = readRefusals(settings.reportPath + cudart::refusalMarkerSuffix());
  std::vector<std::string> leaks = readRefusals(settings.reportPath + cudart::leakMarkerSuffix());  // (lines, as refusals)
  std::vector<std::string> apiErrors = readRefusals(settings.reportPath + cudart::apiErrorMarkerSuffix());
  std::vector<std::string> warnings = readRefusals(settings.reportPath + cudart::warningMarkerSuffix());
  std::optional<uint64_t> launchesRun = ledger ? cudart::readLaunchLedger(settings.reportPath) : std::nullopt;
  auto launches = readRunReports(dir, settings.reportPath);
  if (!status.ok()) return fail(std::string(status.status().message()));
  if (!launches.ok()) return fail(std::string(launches.status().message()));
  std::vector<cudart::ReportedLaunch> list = std::move(*launches);

  Report all = toReport(list), kept;
  size_t hidden = 0;
  for (const auto& r : all.races()) {
    if (suppressed(*suppressions, r)) ++hidden;
    else kept.add(r);
  }
  for (const auto& e : all.errors()) kept.addError(e);
  for (const auto& u : all.uninitializedReads()) kept.addUninitializedRead(u);
  for (std::string& leak : leaks) kept.addLeak(std::move(leak));
  for (std::string& r : refusals) kept.addRefusal(std::move(r));
  if (a.reportApiErrors != "no")
    for (std::string& e : apiErrors) kept.addApiError(std::move(e));
  for (std::string& w : warnings) kept.addWarning(std::move(w));
  uint64_t run = launchesRun.value_or(0), unchecked = run > list.size() ? run - list.size() : 0;
  if (unchecked) kept.addUncheckedLaunches(uncheckedLaunchesText(unchecked, run));
  if (a.report.stats) printRunStats(list);
  int code = emitReport(a.report, kept);
  size_t checked = 0, replayed = 0, racesOfEarlier = 0;
  for (const auto& l : list) {
    checked += l.checked;
    replayed += l.checked && l.replayOf;
    racesOfEarlier += l.checked && l.racesOf;
  }
  std::vector<std::string> notes;
  if (replayed) notes.push_back(fmt::format("{} of them exact repeats of an earlier launch, replayed", replayed));
  if (racesOfEarlier)
    notes.push_back(fmt::format("{}{} run without the detectors, as their kernels' events do not depend on data: "
                                "an earlier launch with the same arguments found their races",
                                racesOfEarlier, replayed ? "" : " of them"));
  std::string replays =
      notes.empty() ? "" : fmt::format(" ({}; --replay-repeats off runs them)", fmt::join(notes, "; "));
  if (a.report.detectorList().empty())
    std::cerr << fmt::format("predatar: {} kernel launch{} executed, none checked for races (--detectors none){}; "
                             "program exited with {}\n",
                             list.size(), list.size() == 1 ? "" : "es",
                             memoryNote(kept) + refusedNote(kept) + apiErrorNote(kept) + uncheckedNote(unchecked),
                             *status);
  else
    std::cerr << fmt::format("predatar: {} kernel launch{} checked{}, {} unique race{}{}{}{}; program exited with {}\n",
                             checked, checked == 1 ? "" : "es", replays, kept.uniqueRaces(),
                             kept.uniqueRaces() == 1 ? "" : "s", instructionPairsNote(kept),
                             hidden ? fmt::format(" ({} suppressed)", hidden) : "",
                             memoryNote(kept) + refusedNote(kept) + apiErrorNote(kept) + uncheckedNote(unchecked),
                             *status);
  if (programKilledBy && !receivedSignal)  // (killed from outside: a CPU limit, the OOM killer, kill -9)
    std::cerr << fmt::format(
        "predatar: the program was killed by signal {} ({}) before it ended: this report has the launches it "
        "reported by then (it reports at each race or error, and every 10 s or so), not the later ones\n",
        programKilledBy, strsignal(programKilledBy));
  if (code == kExitInputError) return code;
  if (outOfMemory) return kExitOutOfMemory;
  if (receivedSignal) {
    std::cerr << fmt::format("predatar: interrupted by signal {}; the report shows what the run saw\n",
                             int(receivedSignal));
    return 128 + receivedSignal;
  }
  if (!kept.complete()) return kExitKernelFault;
  if (!kept.races().empty() || !kept.uninitializedReads().empty() || !kept.leaks().empty())
    return a.report.errorExitCode;
  return *status == 0 ? kExitClean : kExitProgramFailed;
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
  cmd->add_option("--schedule", a->schedule, kScheduleHelp)
      ->check(CLI::IsMember({"rr", "random"}))
      ->capture_default_str();
  cmd->add_option("--seed", a->seed, "Seed of the random schedule");
  cmd->add_option("--step-limit", a->stepLimit, "Warp instructions before a launch is stopped (default 2^32)");
  cmd->add_option("--timeout", a->timeout, "Seconds before a launch is stopped")
      ->check([](const std::string& v) { return checkSeconds(v, false); });
  cmd->add_option("--progress", a->progress,
                  "Seconds between the progress lines of a long launch (default 30; 0: none)")
      ->check([](const std::string& v) { return checkSeconds(v, true); });
  cmd->add_option("--resident-blocks", a->residentBlocks,
                  "Blocks resident at once: gpu (what an sm_90 GPU holds; more come in, with a warning, when resident "
                  "blocks wait on others), all, or a number")
      ->check([](const std::string& v) { auto n = sim::parseResidentBlocks(v); return n.ok() ? "" : std::string(n.status().message()); });
  cmd->add_option("--replay-repeats", a->replayRepeats,
                  "on: a launch that repeats an earlier one exactly (kernel, configuration, arguments, memory) and "
                  "that nothing else can race with replays the earlier one's effect instead of running again (its "
                  "races are the earlier one's); off: run every launch")
      ->check(CLI::IsMember({"on", "off"}))
      ->capture_default_str();
  addFmadOption(*cmd, a->fmad);
  cmd->add_option("--leak-check", a->leakCheck,
                  "full: at cudaDeviceReset and at exit, report device and managed allocations never freed (as "
                  "compute-sanitizer --leak-check full); they count as errors for --error-exitcode")
      ->check(CLI::IsMember({"no", "full"}))
      ->capture_default_str();
  cmd->add_flag("--initcheck", a->initCheck,
                "Also report kernel reads of cudaMalloc'd bytes that no copy, memset or kernel store wrote (as "
                "compute-sanitizer --tool initcheck); they count as errors for --error-exitcode");
  cmd->add_option("--report-api-errors", a->reportApiErrors,
                  "explicit or all: list the errors the program's CUDA calls returned to it, per call and error, "
                  "with where the first was made (as compute-sanitizer's); no: do not. Informational: they do not "
                  "change the exit status (predatar's runtime makes no implicit calls: explicit and all are one)")
      ->check(CLI::IsMember({"explicit", "all", "no"}))
      ->capture_default_str();
  cmd->add_flag("--verbose", a->verbose, "Print each launch as it runs");
  cmd->prefix_command(false);
  cmd->callback([a, &exitCode] { exitCode = runProgram(*a); });
}

}  // namespace predatar::cli
