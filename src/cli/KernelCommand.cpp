// predatar kernel FILE.ptx --entry NAME --grid X[,Y,Z] --block X[,Y,Z] --arg SPEC...:
// run one kernel on the emulator under the detectors and report its races.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <fstream>
#include <iostream>
#include <sstream>

#include "cli/Cli.h"
#include "cli/Commands.h"
#include "events/ParallelFanout.h"
#include "io/InputFile.h"
#include "sim/Device.h"
#include "sim/KernelArgs.h"

namespace predatar::cli {
namespace {

struct KernelCommandArgs {
  std::string ptx;
  std::string entry;
  std::string grid = "1";
  std::string block = "1";
  uint32_t sharedBytes = 0;
  std::vector<std::string> args;
  std::string schedule = "rr";
  uint64_t seed = 0;
  uint64_t stepLimit = sim::kDefaultStepLimit;
  double timeout = 0;
  double progress = 30;
  std::string residentBlocks = "gpu";
  bool cooperative = false;
  bool dump = false;
  size_t dumpLimit = 64;
  std::string dumpDir;
  std::string fmad = "on";
  ReportOptions report;
};

int fail(const std::string& message) {
  std::cerr << "predatar: error: " << message << "\n";
  return kExitInputError;
}

KernelError kernelError(const std::string& kernel, const absl::Status& status, const sim::LaunchStats& stats) {
  KernelError e;
  e.kernel = sim::demangledName(kernel);
  e.cudaError = sim::cudaErrorNameOf(status);
  e.message = std::string(status.message());
  if (stats.fault) {
    e.located = true;
    e.pc = stats.fault->pc;
    e.file = stats.fault->file;
    e.line = stats.fault->line;
    e.blockIndex = stats.fault->blockIdx;
    e.threadIndex = stats.fault->threadIdx;
  }
  return e;
}

int runKernel(const KernelCommandArgs& a) {
  std::vector<std::string> detectors = a.report.detectorList();
  auto text = io::readTextFile(a.ptx);
  if (!text.ok()) return fail(std::string(text.status().message()));

  sim::DeviceMemory memory;
  auto module = sim::loadPtx(*text, a.ptx, memory, {.fusedMultiplyAdd = a.fmad == "on"});
  if (!module.ok()) return fail(std::string(module.status().message()));
  const sim::KernelSignature* kernel = nullptr;
  std::string available;
  for (const auto& k : (*module)->kernels()) {
    available += (available.empty() ? "" : ", ") + k.name;
    if (k.name == a.entry) kernel = &k;
  }
  // Demangled names as the README documents them: 'kmain(unsigned int*)' or 'kmain'.
  for (const auto& k : (*module)->kernels()) {
    if (kernel) break;
    std::string d = sim::demangledName(k.name);
    if (d == a.entry || d.substr(0, d.find('(')) == a.entry) kernel = &k;
  }
  if (!kernel) return fail(fmt::format("{}: no kernel '{}' (the module has: {})", a.ptx, a.entry, available));

  sim::LaunchConfig config;
  auto grid = sim::parseDim3(a.grid);
  auto block = sim::parseDim3(a.block);
  if (!grid.ok()) return fail("--grid: " + std::string(grid.status().message()));
  if (!block.ok()) return fail("--block: " + std::string(block.status().message()));
  config.grid = *grid;
  config.block = *block;
  config.dynamicSharedBytes = a.sharedBytes;
  config.schedule.policy = a.schedule == "random" ? sim::ScheduleOptions::Policy::Random
                                                  : sim::ScheduleOptions::Policy::RoundRobin;
  config.schedule.seed = a.seed;
  config.schedule.stepLimit = a.stepLimit;
  config.schedule.timeLimitSeconds = a.timeout;
  config.schedule.progressSeconds = a.progress;
  config.schedule.onProgress = [&a](const sim::LaunchProgress& p) {
    std::cerr << "predatar: kernel " << a.entry << " " << sim::describe(p) << std::endl;
  };
  if (auto n = sim::parseResidentBlocks(a.residentBlocks); n.ok()) config.schedule.maxResidentBlocks = *n;
  else return fail("--resident-blocks: " + std::string(n.status().message()));
  std::vector<sim::ArgSpec> specs;
  for (const std::string& s : a.args) {
    auto spec = sim::parseArgSpec(s);
    if (!spec.ok()) return fail("--arg " + s + ": " + std::string(spec.status().message()));
    specs.push_back(*spec);
  }
  auto args = sim::KernelArgs::build(*kernel, specs, memory);
  if (!args.ok()) return fail(a.entry + ": " + std::string(args.status().message()));
  config.args = args->pointers();
  if (a.cooperative) {
    if (absl::Status fits = sim::checkCooperativeGridFits(config, sim::demangledName(kernel->name)); !fits.ok())
      return fail(std::string(fits.message()) + " (cudaLaunchCooperativeKernel fails so too)");
    uint64_t workspace = memory.allocate(sim::kGridWorkspaceBytes, "grid barrier workspace");
    if (!workspace) return fail("cannot allocate the grid barrier workspace of --cooperative");
    sim::makeCooperative(config, workspace);
  }

  std::vector<std::unique_ptr<Detector>> owned = makeDetectors(detectors, a.report.detectorOptions());
  DetectorFeed feed(eventSinksOf(owned), a.report.threadCount());
  EventFanout fanout;
  KernelInfoRecorder capture;
  fanout.add(&capture);
  fanout.add(&feed);
  auto start = std::chrono::steady_clock::now();
  sim::LaunchStats launchStats;
  absl::Status status = sim::launch(**module, kernel->name, config, memory, fanout, &launchStats);
  feed.flush();  // the detectors are read below
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  for (const std::string& w : launchStats.warnings) std::cerr << "predatar: warning: " << w << "\n";

  // Argument buffers get their parameter names, so reports say "out[3]".
  for (const auto& b : args->buffers())
    capture.info.symbols.push_back(
        MemorySymbol{b.name, MemorySpace::Global, b.address, b.count * sim::elementBytes(b.type),
                     sim::elementBytes(b.type)});
  Report report;
  std::vector<const Detector*> views;
  for (const auto& d : owned) {
    report.add(capture.info, d->races());
    views.push_back(d.get());
  }
  if (!status.ok()) report.addError(kernelError(kernel->name, status, launchStats));
  if (a.report.stats) printStats(views, seconds);
  int code = emitReport(a.report, report);
  if (a.dump) std::cerr << args->dump(a.dumpLimit);
  if (!a.dumpDir.empty()) {
    for (const auto& b : args->buffers()) {
      absl::Status written = sim::KernelArgs::writeBinary(b, a.dumpDir + "/" + b.name + ".bin");
      if (!written.ok()) return fail(std::string(written.message()));
    }
  }
  if (!status.ok()) std::cerr << "predatar: error: " << status.message() << "\n";
  return code;
}

}  // namespace

void addKernelCommand(CLI::App& app, int& exitCode) {
  auto a = std::make_shared<KernelCommandArgs>();
  CLI::App* cmd = app.add_subcommand("kernel", "Run one PTX kernel on the emulator and report its races");
  cmd->add_option("ptx", a->ptx, "PTX file (nvcc --ptx -lineinfo)")->required();
  cmd->add_option("--entry,-e", a->entry, "Kernel to run (mangled or demangled name)")->required();
  cmd->add_option("--grid,-g", a->grid, "Blocks: X[,Y[,Z]]")->capture_default_str();
  cmd->add_option("--block,-b", a->block, "Threads per block: X[,Y[,Z]]")->capture_default_str();
  cmd->add_option("--shared", a->sharedBytes, "Dynamic shared memory bytes per block");
  cmd->add_option("--arg,-a", a->args,
                  "One per kernel parameter, in order: buf:TYPE:COUNT[:zeros|iota|random[:SEED]|fill:V|file:PATH] "
                  "or scalar:TYPE:VALUE or, for a struct by value, bytes:SIZE[:HEX] (memory order; the rest zero)");
  cmd->add_option("--schedule", a->schedule, kScheduleHelp)
      ->check(CLI::IsMember({"rr", "random"}))
      ->capture_default_str();
  cmd->add_option("--seed", a->seed, "Seed of the random schedule")->capture_default_str();
  cmd->add_option("--step-limit", a->stepLimit, "Warp instructions before the run is stopped")->capture_default_str();
  cmd->add_option("--timeout", a->timeout, "Seconds before the launch is stopped (0: no limit)")
      ->check([](const std::string& v) { return checkSeconds(v, true); });
  cmd->add_option("--progress", a->progress, "Seconds between the progress lines of a long launch (0: none)")
      ->check([](const std::string& v) { return checkSeconds(v, true); })
      ->capture_default_str();
  cmd->add_option("--resident-blocks", a->residentBlocks,
                  "Blocks resident at once: gpu (what an sm_90 GPU holds; more come in, with a warning, when resident "
                  "blocks wait on others), all, or a number")
      ->capture_default_str();
  cmd->add_flag("--cooperative", a->cooperative,
                "A cooperative launch (cudaLaunchCooperativeKernel): every block resident at once, and "
                "cooperative_groups' grid.sync() works (in other launches it traps, as on a GPU)")
      ->excludes("--resident-blocks");
  addFmadOption(*cmd, a->fmad);
  cmd->add_flag("--dump", a->dump, "Print the argument buffers after the run (stderr)");
  cmd->add_option("--dump-limit", a->dumpLimit, "Elements printed per buffer with --dump")->capture_default_str();
  cmd->add_option("--dump-dir", a->dumpDir, "Write each buffer as raw bytes to DIR/NAME.bin");
  addReportOptions(*cmd, a->report);
  cmd->callback([a, &exitCode] { exitCode = runKernel(*a); });
}

}  // namespace predatar::cli
