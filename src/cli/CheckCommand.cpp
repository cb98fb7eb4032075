// predatar check FILE...: analyse litmus traces and report races.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <iostream>

#include "cli/Cli.h"
#include "cli/Commands.h"
#include "litmus/Litmus.h"

namespace predatar::cli {
namespace {

struct CheckArgs {
  std::vector<std::string> files;
  ReportOptions report;
};

int runCheck(const CheckArgs& args) {
  std::vector<std::string> detectors = args.report.detectorList();
  auto files = litmus::collect(args.files);
  if (!files.ok()) {
    std::cerr << "predatar: " << files.status().message() << "\n";
    return kExitInputError;
  }
  if (files->empty()) {
    std::cerr << "predatar: no .litmus files found\n";
    return kExitInputError;
  }
  // Every file is read first: any malformed input stops the run before analysis.
  std::vector<litmus::LitmusFile> parsed;
  bool bad = false;
  for (const std::string& path : *files) {
    auto file = litmus::read(path);
    if (!file.ok()) {
      std::cerr << "predatar: error: " << file.status().message() << "\n";
      bad = true;
      continue;
    }
    parsed.push_back(std::move(*file));
  }
  if (bad) return kExitInputError;

  auto start = std::chrono::steady_clock::now();
  Report report;
  std::vector<std::unique_ptr<Detector>> all;
  for (const auto& file : parsed) {
    auto results = litmus::analyze(file, detectors, args.report.detectorOptions());
    for (auto& d : results) {
      report.add(file.trace.kernel, d->races());
      all.push_back(std::move(d));
    }
  }
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
  CLI::App* cmd = app.add_subcommand("check", "Analyse litmus traces (.litmus files or folders) and report races");
  cmd->add_option("files", args->files, "Litmus files or folders")->required();
  addReportOptions(*cmd, args->report);
  cmd->callback([args, &exitCode] { exitCode = runCheck(*args); });
}

}  // namespace predatar::cli
