// Each detector's races and figures at the end of each launch, taken in the
// thread that feeds the detector (at its kernelEnd). The thread that runs
// kernels reads a launch's results once the feed consumed that launch
// (DetectorFeed::waitFor) while the detectors go on with later launches:
// reading a detector itself would need the whole feed flushed, and the
// emulator and the faster detector would wait for the slower one at every
// launch's end.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "analysis/Detector.h"

namespace predatar {

struct DetectorLaunchResult {
  uint64_t events = 0;       // the detector's events in the launch
  DetectorStats stats;       // its figures at the launch's end
  std::vector<Race> races;   // found in the launch
};

class LaunchResults {
 public:
  // `detectors` outlive this; what they found before is not a launch's.
  explicit LaunchResults(const std::vector<std::unique_ptr<Detector>>& detectors);
  ~LaunchResults();
  LaunchResults(const LaunchResults&) = delete;
  LaunchResults& operator=(const LaunchResults&) = delete;

  // What to feed in place of eventSinksOf(detectors): each passes events on
  // to its detector and takes, at each kernelEnd, the results of it and of
  // the detectors it checks (Detector::checkedBy).
  std::vector<EventSink*> sinks() const;

  // The results of launch `launch` (KernelInfo::launch), one per detector in
  // the constructor's order, removed from here. Call once the feed consumed
  // the launch's end. A detector that saw no such launch (it ran no events)
  // gets no races and its figures at the latest launch it saw.
  std::vector<DetectorLaunchResult> take(uint32_t launch);

 private:
  class Taker;
  void put(size_t detector, uint32_t launch, DetectorLaunchResult result);  // (from a feed's thread)

  size_t detectors_;
  std::vector<std::unique_ptr<Taker>> takers_;
  std::mutex mutex_;  // guards what follows: takers put from the feed's threads
  std::map<uint32_t, std::vector<std::optional<DetectorLaunchResult>>> byLaunch_;
  std::vector<DetectorStats> latest_;  // each detector's figures at the latest launch end it saw
};

}  // namespace predatar
