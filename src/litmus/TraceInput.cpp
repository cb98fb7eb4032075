#include "litmus/TraceInput.h"

#include <filesystem>

#include "events/ParallelFanout.h"
#include "io/LineReader.h"

namespace predatar::litmus {

std::optional<TraceFormat> traceFormatNamed(std::string_view name) {
  if (name == "auto") return TraceFormat::Auto;
  if (name == "litmus") return TraceFormat::Litmus;
  if (name == "std") return TraceFormat::Std;
  return std::nullopt;
}

absl::StatusOr<TraceFormat> detectFormat(const std::string& path, TraceFormat forced) {
  if (forced != TraceFormat::Auto) return forced;
  std::string extension = std::filesystem::path(path).extension().string();
  if (extension == ".litmus") return TraceFormat::Litmus;
  if (extension == ".std") return TraceFormat::Std;
  auto in = io::LineReader::open(path);
  if (!in.ok()) return in.status();
  std::string_view line;
  while ((*in)->next(line)) {
    std::string_view code = line.substr(0, line.find('#'));
    if (code.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    return looksLikeStd(code) ? TraceFormat::Std : TraceFormat::Litmus;
  }
  if (!(*in)->status().ok()) return (*in)->status();
  return TraceFormat::Litmus;  // empty: read as litmus, which says what is missing
}

absl::StatusOr<LitmusSummary> streamTrace(const std::string& path, TraceFormat format, EventSink& sink,
                                          StdThreads stdThreads) {
  auto resolved = detectFormat(path, format);
  if (!resolved.ok()) return resolved.status();
  if (*resolved == TraceFormat::Litmus) return stream(path, sink);
  auto in = io::LineReader::open(path);
  if (!in.ok()) return in.status();
  return streamStd(**in, sink, stdThreads);
}

absl::StatusOr<Analysis> analyzeTrace(const std::string& path, TraceFormat format,
                                      const std::vector<std::string>& detectors, const DetectorOptions& options,
                                      StdThreads stdThreads, unsigned threads) {
  Analysis analysis;
  analysis.detectors = makeDetectors(detectors, options);
  DetectorFeed feed(eventSinksOf(analysis.detectors), threads);
  auto summary = streamTrace(path, format, feed, stdThreads);
  feed.flush();  // before the detectors are read (or destroyed)
  if (!summary.ok()) return summary.status();
  analysis.summary = std::move(*summary);
  return analysis;
}

}  // namespace predatar::litmus
