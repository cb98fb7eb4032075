// The errors the runtime's calls returned to the program (Runtime.h's fail):
// counted per call and error, the first with the program's call site, and
// written beside the report at exit (apiErrorMarkerSuffix), where `predatar
// run` lists them as compute-sanitizer lists the errors a program "hit on
// CUDA API call to" a function.
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cudart/runtime/HostCallSite.h"
#include "cudart/runtime/Runtime.h"

namespace predatar::cudart {
namespace {

struct Tally {
  uint64_t count = 0;
  CallSite site;        // of the first
  std::string placed;   // the site described (addr2line runs once a tally)
  bool described = false;
};
struct ApiErrors {
  std::mutex mutex;
  std::map<std::pair<std::string, int>, Tally> tallies;
  std::vector<std::pair<std::string, int>> order;  // first occurrences, in order
  uint64_t noted = 0;                              // errors noted so far (apiErrorsNoted)
};
ApiErrors& apiErrors() {
  static auto* errors = new ApiErrors;  // (fail() may run during static destruction)
  return *errors;
}

// The call a failing function stands for: its name from std::source_location's
// signature ("cudaError_t cudaMalloc(void**, size_t)"), or, for the runtime's
// helpers, the call they serve.
std::string callName(std::string_view function) {
  function = function.substr(0, function.find('('));
  if (size_t space = function.rfind(' '); space != function.npos) function.remove_prefix(space + 1);
  if (size_t scope = function.rfind("::"); scope != function.npos) function.remove_prefix(scope + 2);
  static const std::map<std::string_view, std::string_view> kHelpers = {
      {"launchKernel", "a kernel launch"},
      {"__cudaPopCallConfiguration", "a kernel launch"},
      {"__cudaGetKernel", "a kernel launch"},
      {"symbolCopy", "cudaMemcpyToSymbol/FromSymbol"},
      {"allocateFrom", "cudaMalloc"},
      {"arrayCopy", "a copy to or from a CUDA array"},
      {"beginCapture", "cudaStreamBeginCapture"},
      {"endCapture", "cudaStreamEndCapture"},
      {"captureFree", "cudaFree"},
      {"runDeferredWork", "a stream's queued work"},
  };
  auto helper = kHelpers.find(function);
  return std::string(helper != kHelpers.end() ? helper->second : function);
}

}  // namespace

void noteApiError(std::string_view function, cudaError_t error) {
  if (error == cudaSuccess || error == cudaErrorNotReady) return;
  ApiErrors& errors = apiErrors();
  std::lock_guard lock(errors.mutex);
  auto key = std::make_pair(callName(function), int(error));
  Tally& tally = errors.tallies[key];
  ++errors.noted;
  if (tally.count++ == 0) {
    tally.site = programCallSite();
    errors.order.push_back(std::move(key));
  }
}

std::vector<std::string> describeApiErrors(size_t limit) {
  ApiErrors& errors = apiErrors();
  std::lock_guard lock(errors.mutex);
  std::vector<std::string> lines;
  for (const auto& key : errors.order) {
    if (lines.size() == limit) {
      lines.push_back(absl::StrCat("... and ", errors.order.size() - limit, " more calls and errors"));
      break;
    }
    Tally& tally = errors.tallies.at(key);
    auto error = cudaError_t(key.second);
    if (!tally.described) tally.placed = describeCallSite(tally.site), tally.described = true;
    const std::string& site = tally.placed;
    lines.push_back(absl::StrCat(key.first, " returned ", errorName(error), " (\"", errorString(error), "\")",
                                 tally.count == 1 ? "" : absl::StrCat(", ", tally.count, " times"),
                                 site.empty() ? "" : absl::StrCat(tally.count == 1 ? "; called by " : "; first by ", site)));
  }
  return lines;
}

uint64_t apiErrorsNoted() {
  ApiErrors& errors = apiErrors();
  std::lock_guard lock(errors.mutex);
  return errors.noted;
}

}  // namespace predatar::cudart
