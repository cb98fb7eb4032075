// predatar litmus PATH...: run litmus files, check their expect lines, and
// optionally print the coverage table of a microbenchmark suite.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <filesystem>
#include <iostream>
#include <map>

#include "cli/Cli.h"
#include "cli/Commands.h"
#include "litmus/TraceInput.h"

namespace predatar::cli {
namespace {

struct LitmusArgs {
  std::vector<std::string> paths;
  bool table = false;
  bool quiet = false;
  std::string compression = "on";
  std::string volatileSemantics = "plain";
};

struct FileOutcome {
  std::string path;
  std::string category;  // the folder the file is in
  std::map<std::string, bool> racy;     // detector -> reported a race
  std::map<std::string, std::string> verdict;  // detector -> PASS / FAIL / -
  std::vector<std::string> failures;
};

std::string join(const std::set<std::string>& s) {
  if (s.empty()) return "norace";
  std::string out = "race ";
  for (const auto& x : s) out += (out.size() > 5 ? ", " : "") + x;
  return out;
}

// The expect lines, compared once the whole file has streamed through the detectors.
FileOutcome checkExpectations(const litmus::Analysis& analysis) {
  const litmus::LitmusSummary& file = analysis.summary;
  FileOutcome outcome{file.path, std::filesystem::path(file.path).parent_path().filename().string(), {}, {}, {}};
  for (const auto& d : analysis.detectors) {
    std::string name(d->name());
    std::set<std::string> found = litmus::racyLocations(file.kernel, *d);
    outcome.racy[name] = !found.empty();
    outcome.verdict[name] = "-";
    for (const auto& x : file.expectations) {
      if (x.detector != name) continue;
      bool pass = x.locations == found;
      if (outcome.verdict[name] != "FAIL") outcome.verdict[name] = pass ? "PASS" : "FAIL";
      if (!pass)
        outcome.failures.push_back(fmt::format("{}:{}: expect {}: {} but {} reports {}", file.path, x.line, name,
                                               join(x.locations), name, join(found)));
    }
  }
  return outcome;
}

void printTable(const std::vector<FileOutcome>& outcomes) {
  std::map<std::string, std::vector<const FileOutcome*>> byCategory;
  for (const auto& o : outcomes) byCategory[o.category].push_back(&o);
  fmt::print("\n{:<14} {:>6} {:>8} {:>8} {:>8}\n", "category", "files", "BC+(hb)", "SRD(ls)", "PD(gwcp)");
  for (const auto& [category, files] : byCategory) {
    auto count = [&](const char* d) {
      size_t n = 0;
      for (const auto* f : files) n += f->racy.at(d);
      return n;
    };
    fmt::print("{:<14} {:>6} {:>8} {:>8} {:>8}{}\n", category, files.size(), count("hb"), count("lockset"),
               count("gwcp"), category == "norace" ? "   (false positives)" : "");
  }
  fmt::print("(files in which each detector reports at least one race)\n");
}

int runLitmus(const LitmusArgs& args) {
  auto files = litmus::collect(args.paths);
  if (!files.ok()) {
    std::cerr << "predatar: " << files.status().message() << "\n";
    return kExitInputError;
  }
  // Expectations name locations: keep a report for each.
  DetectorOptions options{args.compression == "on", /*perLocationDedup=*/true, args.volatileSemantics == "strong"};
  std::vector<FileOutcome> outcomes;
  bool inputError = false, mismatch = false;
  if (!args.quiet) fmt::print("{:<60} {:>6} {:>6} {:>8}\n", "file", "gwcp", "hb", "lockset");
  for (const std::string& path : *files) {
    auto analysis = litmus::analyzeTrace(path, litmus::TraceFormat::Litmus, allDetectorNames(), options);
    if (!analysis.ok()) {
      std::cerr << "predatar: error: " << analysis.status().message() << "\n";
      inputError = true;
      continue;
    }
    if (analysis->summary.expectations.empty()) {  // nothing to check: it would pass whatever the detectors say
      std::cerr << "predatar: error: " << path
                << ": no expect lines (predatar litmus checks them; use predatar check to only analyse)\n";
      inputError = true;
      continue;
    }
    FileOutcome o = checkExpectations(*analysis);
    if (!args.quiet || !o.failures.empty())
      fmt::print("{:<60} {:>6} {:>6} {:>8}\n", path, o.verdict["gwcp"], o.verdict["hb"], o.verdict["lockset"]);
    for (const auto& f : o.failures) fmt::print("  FAIL {}\n", f);
    mismatch |= !o.failures.empty();
    outcomes.push_back(std::move(o));
  }
  size_t failed = 0;
  for (const auto& o : outcomes) failed += !o.failures.empty();
  if (args.table) printTable(outcomes);
  fmt::print("\nlitmus: {} passed, {} failed{}\n", outcomes.size() - failed, failed,
             inputError ? " (and some files could not be read)" : "");
  if (inputError) return kExitInputError;
  return mismatch ? kExitRaces : kExitClean;
}

}  // namespace

void addLitmusCommand(CLI::App& app, int& exitCode) {
  auto args = std::make_shared<LitmusArgs>();
  CLI::App* cmd = app.add_subcommand("litmus", "Run litmus files and folders, checking their expect lines");
  cmd->add_option("paths", args->paths, "Litmus files or folders")->required();
  cmd->add_flag("--table", args->table,
                "Print the coverage table: per folder, files and how many each detector flags");
  cmd->add_flag("--quiet,-q", args->quiet, "Only print failures and the summary");
  cmd->add_option("--compression", args->compression, kCompressionHelp)
      ->check(CLI::IsMember({"on", "off"}));
  addVolatileOption(*cmd, args->volatileSemantics);
  cmd->callback([args, &exitCode] { exitCode = runLitmus(*args); });
}

}  // namespace predatar::cli
