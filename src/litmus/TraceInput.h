// Trace files of either format (litmus, RAPID's STD) streamed to detectors:
// `predatar check` and `predatar litmus` read through here.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "analysis/Detector.h"
#include "litmus/Litmus.h"
#include "litmus/StdTrace.h"

namespace predatar::litmus {

enum class TraceFormat { Auto, Litmus, Std };

// "auto", "litmus", "std"; nullopt when unknown.
std::optional<TraceFormat> traceFormatNamed(std::string_view name);

// The format of `path`: `forced` unless Auto; else by extension (.litmus,
// .std); else by its first non-blank line (an STD event has '|', litmus never).
absl::StatusOr<TraceFormat> detectFormat(const std::string& path, TraceFormat forced);

// Streams the file to `sink` in its format.
absl::StatusOr<LitmusSummary> streamTrace(const std::string& path, TraceFormat format, EventSink& sink,
                                          StdThreads stdThreads = StdThreads::Warps);

// The detectors after streaming a whole file through them, with the summary
// that names its locations. `threads`: as --threads (events/ParallelFanout.h),
// 0 automatic.
struct Analysis {
  LitmusSummary summary;
  std::vector<std::unique_ptr<Detector>> detectors;
};
absl::StatusOr<Analysis> analyzeTrace(const std::string& path, TraceFormat format,
                                      const std::vector<std::string>& detectors, const DetectorOptions& options,
                                      StdThreads stdThreads = StdThreads::Warps, unsigned threads = 0);

}  // namespace predatar::litmus
