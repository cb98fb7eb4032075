// predatar check FILE...: analyse traces (litmus or RAPID's STD) and report races.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <iostream>

#include "cli/Cli.h"
#include "cli/Commands.h"
#include "litmus/TraceInput.h"

namespace predatar::cli {
namespace {

struct CheckArgs {
  std::vector<std::string> files;
  std::string traceFormat = "auto";
  std::string stdThreads = "auto";
  ReportOptions report;
};

int runCheck(const CheckArgs& args) {
  std::vector<std::string> detectors = args.report.detectorList();
  auto files = litmus::collect(args.files, {".litmus", ".std"});
  if (!files.ok()) {
    std::cerr << "predatar: " << files.status().message() << "\n";
    return kExitInputError;
  }
  if (files->empty()) {
    std::cerr << "predatar: no .litmus files found\n";
    return kExitInputError;
  }
  litmus::TraceFormat format = *litmus::traceFormatNamed(args.traceFormat);
  // gwcp and hb find the same races either way (lanes of a warp are separate
  // threads), with 32x smaller clocks as lanes; lockset needs warps.
  bool lockset = std::find(detectors.begin(), detectors.end(), "lockset") != detectors.end();
  litmus::StdThreads stdThreads = args.stdThreads == "lanes" || (args.stdThreads == "auto" && !lockset)
                                      ? litmus::StdThreads::Lanes
                                      : litmus::StdThreads::Warps;
  // Each file streams through the detectors as it is read. A malformed file is
  // found during its analysis; then no report is written and every file is
  // still read, so that every error is shown at once.
  auto start = std::chrono::steady_clock::now();
  Report report;
  std::vector<std::unique_ptr<Detector>> all;
  bool bad = false;
  for (const std::string& path : *files) {
    auto analysis = litmus::analyzeTrace(path, format, detectors, args.report.detectorOptions(), stdThreads,
                                         args.report.threadCount());
    if (!analysis.ok()) {
      std::cerr << "predatar: error: " << analysis.status().message() << "\n";
      bad = true;
      continue;
    }
    for (auto& d : analysis->detectors) {
      report.add(analysis->summary.kernel, d->races());
      all.push_back(std::move(d));
    }
  }
  if (bad) return kExitInputError;
  if (args.report.stats) {
    std::vector<const Detector*> views;
    for (const auto& d : all) views.push_back(d.get());
    printStats(views, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return emitReport(args.report, report);
}

}  // namespace

void addCheckCommand(CLI::App& app, int& exitCode) {
  auto args = std::make_shared<CheckArgs>();
  CLI::App* cmd = app.add_subcommand(
      "check", "Analyse traces (.litmus files, RAPID .std traces, or folders of them) and report races");
  cmd->add_option("files", args->files, "Trace files or folders")->required();
  cmd->add_option("--trace-format", args->traceFormat,
                  "Trace format: auto (by extension, else by content), litmus or std (RAPID's STD)")
      ->check(CLI::IsMember({"auto", "litmus", "std"}));
  cmd->add_option("--std-threads", args->stdThreads,
                  "STD thread k becomes: lanes (thread k: lane k%32 of warp k/32, small clocks; lockset does not "
                  "compare lanes of one warp), warps (thread 32k: lane 0 of warp k), or auto (default: warps when "
                  "lockset runs, else lanes)")
      ->check(CLI::IsMember({"auto", "warps", "lanes"}));
  addReportOptions(*cmd, args->report);
  cmd->callback([args, &exitCode] { exitCode = runCheck(*args); });
}

}  // namespace predatar::cli
