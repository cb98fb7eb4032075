// The hand-written trace format (`.litmus`, ../shared/docs/litmus-format.md):
// streaming a file's events to detectors as they are read (memory does not
// grow with the trace), or reading it into a Trace; checking its expectations.
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

// Origin::pc of a trace event with a source position of its own (litmus '@',
// an STD program location): this bit plus the position's index, never a line
// number (below 2^32). Races are deduplicated by pc.
inline constexpr uint64_t kPositionPc = uint64_t(1) << 32;

// What a streamed read leaves once every event has gone to the sink: the
// complete kernel description (names of locations, locks and positions, for
// reports), the expectations (compared after the analysis) and the count.
struct LitmusSummary {
  std::string path;
  KernelInfo kernel;
  std::vector<Expectation> expectations;
  std::optional<std::string> truth;
  uint64_t events = 0;
};

// Streams a litmus file: kernelBegin, each event as its line is read, then
// kernelEnd. Memory is independent of the trace length. A file without a
// complete `launch` line is read twice (the first pass finds the geometry).
// On an error ("path:line: ...") the sink has seen a prefix of the events and
// no kernelEnd.
absl::StatusOr<LitmusSummary> stream(const std::string& path, EventSink& sink);
absl::StatusOr<LitmusSummary> streamText(std::string_view text, const std::string& path, EventSink& sink);

// Parses litmus text into a whole Trace; `path` names the file in errors ("path:line: ...").
absl::StatusOr<LitmusFile> parse(std::string_view text, const std::string& path);
absl::StatusOr<LitmusFile> read(const std::string& path);

// The files under each path (a file, or a folder searched recursively for
// `extensions`), sorted per folder.
absl::StatusOr<std::vector<std::string>> collect(const std::vector<std::string>& paths,
                                                  const std::vector<std::string>& extensions = {".litmus"});

// Runs the detectors over a file's trace; one RaceLog per detector, in order.
std::vector<std::unique_ptr<Detector>> analyze(const LitmusFile& file, const std::vector<std::string>& detectors,
                                               const DetectorOptions& options);

// The locations a detector reported, named as expect lines name them.
std::set<std::string> racyLocations(const LitmusFile& file, const Detector& detector);
std::set<std::string> racyLocations(const KernelInfo& kernel, const Detector& detector);

}  // namespace predatar::litmus
