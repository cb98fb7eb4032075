// The hand-written trace format (`.litmus`, ../shared/docs/litmus-format.md):
// reading a file into a Trace with its expectations, and checking them.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "analysis/Detector.h"
#include "events/Trace.h"

namespace predatar::litmus {

// `expect D: race L1, L2` or `expect D: norace`.
struct Expectation {
  std::string detector;              // canonical name
  std::set<std::string> locations;   // empty for norace
  uint32_t line = 0;
};

struct LitmusFile {
  std::string path;
  Trace trace;
  std::vector<Expectation> expectations;
  std::optional<std::string> truth;  // documentation only
};

// Parses litmus text; `path` names the file in errors ("path:line: ...").
absl::StatusOr<LitmusFile> parse(std::string_view text, const std::string& path);
absl::StatusOr<LitmusFile> read(const std::string& path);

// The .litmus files under each path (a file, or a folder searched recursively), sorted.
absl::StatusOr<std::vector<std::string>> collect(const std::vector<std::string>& paths);

// Runs the detectors over a file's trace; one RaceLog per detector, in order.
std::vector<std::unique_ptr<Detector>> analyze(const LitmusFile& file, const std::vector<std::string>& detectors,
                                               const DetectorOptions& options);

// The locations a detector reported, named as expect lines name them.
std::set<std::string> racyLocations(const LitmusFile& file, const Detector& detector);

}  // namespace predatar::litmus
