#include "cli/Cli.h"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>

#include "cli/Commands.h"
#include "events/ParallelFanout.h"

namespace predatar::cli {

std::vector<std::string> ReportOptions::detectorList() const {
  std::vector<std::string> names;
  std::stringstream in(detectors);
  for (std::string item; std::getline(in, item, ',');) {
    if (item == "none") continue;  // execution alone (run and kernel), e.g. to time the emulator
    if (item == "all") {
      for (const auto& n : allDetectorNames())
        if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
      continue;
    }
    std::string canonical = canonicalDetectorName(item);
    if (canonical.empty())
      throw CLI::ValidationError("--detectors",
                                 fmt::format("unknown detector '{}' (expected gwcp, hb, lockset, all or none)", item));
    if (std::find(names.begin(), names.end(), canonical) == names.end()) names.push_back(canonical);
  }
  if (names.empty() && detectors != "none") throw CLI::ValidationError("--detectors", "no detector named");
  return names;
}

void addReportOptions(CLI::App& command, ReportOptions& options) {
  command.add_option("--detectors,-d", options.detectors,
                     "Comma-separated detectors: gwcp (PreDataR), hb (Barracuda+), lockset (ScoRD), all, or none (execute only)")
      ->capture_default_str();
  command.add_option("--format,-f", options.format, "Report format")
      ->check(CLI::IsMember({"text", "json", "sarif"}))
      ->capture_default_str();
  command.add_option("--output,-o", options.output, "Write the report to this file instead of standard output");
  command.add_option("--error-exitcode", options.errorExitCode, "Exit code when races are found")
      ->capture_default_str();
  command.add_option("--compression", options.compression, kCompressionHelp)
      ->check(CLI::IsMember({"on", "off"}))
      ->capture_default_str();
  addVolatileOption(command, options.volatileSemantics);
  command.add_flag("--hb-apart", options.hbApart,
                   "With gwcp and hb both: run hb as a detector of its own (by default gwcp checks hb's order on its "
                   "own history and clocks, which finds the same racy locations at a fraction of the cost; hb's "
                   "reported pairs may differ)");
  command.add_flag("--stats", options.stats, "Print events processed, peak metadata bytes and time to stderr");
  command.add_option("--print-limit", options.printLimit, "Show at most this many unique races (text format)");
  command
      .add_option("--threads", options.threads,
                  "Analysis threads: 1 (detectors run in the emulator's thread), N (the emulator plus at most N-1 "
                  "detector threads), or auto (PREDATAR_THREADS, else one thread per detector on a multi-core "
                  "machine)")
      ->check([](const std::string& v) { return parseThreadCount(v) ? std::string() : "expected auto or 0..1024"; })
      ->capture_default_str();
}

unsigned ReportOptions::threadCount() const { return parseThreadCount(threads).value_or(0); }

void addVolatileOption(CLI::App& command, std::string& value) {
  command.add_option("--volatile", value,
                     "volatile loads/stores: plain (race like plain accesses, as ScoR, iGUARD and compute-sanitizer "
                     "count them) or strong (the PTX letter: .relaxed.sys)")
      ->check(CLI::IsMember({"plain", "strong"}))
      ->capture_default_str();
}

void addFmadOption(CLI::App& command, std::string& value) {
  command.add_option("--fmad", value,
                     "on: fuse each mul and add (or sub) without rounding modifier into one multiply-add where ptxas "
                     "would, as a GPU runs nvcc's PTX by default; off: round each, as ptxas --fmad=false does")
      ->check(CLI::IsMember({"on", "off"}))
      ->capture_default_str();
}

std::string checkSeconds(const std::string& value, bool zeroAllowed) {
  double seconds = 0;
  auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), seconds);
  bool number = error == std::errc() && end == value.data() + value.size() && std::isfinite(seconds);
  if (number && (seconds > 0 || (zeroAllowed && seconds == 0))) return "";
  return fmt::format("{} is not a number of seconds {}", value, zeroAllowed ? "(0 or more)" : "above 0");
}

int emitReport(const ReportOptions& options, const Report& report) {
  std::ofstream file;
  if (!options.output.empty()) {
    file.open(options.output);
    if (!file) {
      std::cerr << fmt::format("predatar: cannot write {}\n", options.output);
      return kExitInputError;
    }
  }
  std::ostream& out = options.output.empty() ? std::cout : file;
  if (options.format == "json") writeJson(out, report);
  else if (options.format == "sarif") writeSarif(out, report);
  else writeText(out, report, TextOptions{options.printLimit, options.detectorList().empty()});
  if (!report.complete()) return kExitKernelFault;
  return report.races().empty() ? kExitClean : options.errorExitCode;
}

void printStats(const std::vector<const Detector*>& detectors, double seconds) {
  auto mib = [](uint64_t b) { return double(b) / (1024.0 * 1024.0); };
  for (const Detector* d : detectors) {
    DetectorStats s = d->stats();
    if (const Detector* by = d->checkedBy()) {
      std::cerr << fmt::format("predatar stats [{}]: checked by {} on its history and clocks (its metadata)\n",
                               d->name(), by->name());
      continue;
    }
    uint64_t total = s.peakThreadClockBytes + s.peakLockClockBytes + s.peakQueueBytes + s.peakShadowBytes;
    std::cerr << fmt::format(
        "predatar stats [{}]: {} events; peak metadata {:.2f} MiB (thread clocks {:.2f}, lock and message clocks {:.2f}, "
        "queues {:.2f}, shadow {:.2f})\n",
        d->name(), s.events, mib(total), mib(s.peakThreadClockBytes), mib(s.peakLockClockBytes),
        mib(s.peakQueueBytes), mib(s.peakShadowBytes));
  }
  std::cerr << fmt::format("predatar stats: {:.3f} s\n", seconds);
}

// VmHWM of /proc/self/status in MiB (0 when unknown).
uint64_t peakResidentMiB() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("VmHWM:", 0) == 0) return std::strtoull(line.c_str() + 6, nullptr, 10) / 1024;
  return 0;
}

int main(int argc, char** argv) {
  CLI::App app{"PreDataR: predictive data race detection for CUDA programs, without a GPU"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "predatar 0.1");
  int exitCode = kExitClean;
  addCheckCommand(app, exitCode);
  addLitmusCommand(app, exitCode);
  addKernelCommand(app, exitCode);
  addRunCommand(app, exitCode);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : kExitInputError;
  } catch (const std::bad_alloc&) {  // an input asked for more memory than there is
    std::cerr << "predatar: error: out of memory while analysing (peak resident memory " << peakResidentMiB()
              << " MiB); try --detectors none, fewer detectors, or a smaller input\n";
    return kExitOutOfMemory;
  } catch (const std::exception& e) {  // a bug: say so, never abort
    std::cerr << "predatar: internal error: " << e.what() << "\n";
    return kExitInputError;
  }
  return exitCode;
}

}  // namespace predatar::cli
