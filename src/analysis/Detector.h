// What every detector is: a consumer of the event stream that collects races.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "events/EventSink.h"
#include "report/Race.h"

namespace predatar {

struct DetectorOptions {
  bool compression = true;     // hierarchical vector clock compression (gwcp, hb)
  bool perLocationDedup = false;
  bool volatileStrong = false;  // --volatile strong: ld/st.volatile are .relaxed.sys, else plain
  // gwcp, hb: the later lanes of a run of lanes reading one word take one
  // step (SameWordReads.h); off, each takes the per-lane path (tests compare).
  bool sameWordReads = true;
  // gwcp, hb: an access passes records alike to one it checked, unordered
  // with it, without checking each (AlikeRecordSkip.h); off, it checks
  // every record (tests compare).
  bool skipAlikeRecords = true;
  // gwcp and hb together: hb is checked by gwcp on gwcp's history and
  // clocks (GwcpDetector::checkHbToo), not by a detector of its own; off
  // (--hb-apart, PREDATAR_HB_APART=1), each keeps its own. The same racy
  // locations either way; hb's pairs may differ.
  bool hbOnGwcp = true;
  // gwcp: a block-scoped acquire whose P join would walk both clocks leaves
  // it to the thread's next event that reads or publishes P, mostly the
  // critical section's first access (GwcpDetector::HeldLock::lockWcp); off
  // (or PREDATAR_GWCP_DEFER_LOCK_P=off), it joins at the acquire.
  bool deferLockJoins = true;
  // lockset: a page of the shadow left this many page visits ago (a power of
  // two, at most 64: LeftPages.h), untouched since, is compacted when it fits
  // (LocksetShadow.h); 0 (or compression off): never. Tests compact at every
  // leave.
  uint32_t locksetLeavesBeforeCompact = 32;
  // lockset: a page that fits no pattern of runs is kept as a table only
  // while the shadow holds at least this many bytes: a table costs a fit,
  // and an expansion at the next launch's touch, which cost launch-heavy
  // programs with small shadows a fifth of their time (shoc-bfs, a launch a
  // level: 80 -> 30 MiB, 1.1 -> 1.4 s; rule-110). Tests make tables always (0).
  uint64_t locksetTablesFromBytes = uint64_t(128) << 20;
};

// Metadata sizes a detector reports for --stats.
struct DetectorStats {
  uint64_t events = 0;
  uint64_t peakThreadClockBytes = 0;
  uint64_t peakLockClockBytes = 0;
  uint64_t peakQueueBytes = 0;
  uint64_t peakShadowBytes = 0;
};

class Detector : public EventSink {
 public:
  virtual std::string_view name() const = 0;
  const RaceLog& races() const { return races_; }
  virtual DetectorStats stats() const { return {}; }
  // The detector that does this one's work (hb's view on gwcp: makeDetectors),
  // or none. Such a detector takes no events (eventSinksOf leaves it out) and
  // has no metadata of its own.
  virtual const Detector* checkedBy() const { return nullptr; }
  // Launches ran that this detector did not see (replayed, or run without the
  // detectors): no launch to come can race with the accesses of a launch
  // not in `live` (KernelInfo::liveLaunches of the latest), so their records
  // go now rather than at the next launch it sees, which may never come
  // (FDTD3d: three launches run without the detectors kept 0.9 GiB of the
  // second one's shadow to the program's end). Called between launches,
  // with the detector idle (its feed flushed).
  virtual void retainLaunches(const std::vector<uint32_t>& /*live*/) {}

 protected:
  explicit Detector(std::string name, const DetectorOptions& options)
      : races_(std::move(name), options.perLocationDedup),
        volatileStrong_(options.volatileStrong),
        sameWordReads_(options.sameWordReads),
        skipAlikeRecords_(options.skipAlikeRecords) {}
  // Whether an access is strong for race purposes: atomics, strong ld/st, and
  // volatile ones only under --volatile strong.
  bool isStrong(const MemoryEvent& e) const {
    if (e.type == AccessType::AtomicRmw) return true;
    return e.strong && (!e.isVolatile || volatileStrong_);
  }
  RaceLog races_;
  bool volatileStrong_ = false;
  bool sameWordReads_ = true;
  bool skipAlikeRecords_ = true;
};

// "gwcp", "hb", "lockset" and their aliases "predatar", "barracuda", "scord".
// Returns the canonical name, or empty when unknown.
std::string canonicalDetectorName(std::string_view name);
std::unique_ptr<Detector> makeDetector(std::string_view name, const DetectorOptions& options);
// The detectors `names` name, in that order (nullptr for an unknown name),
// with hb checked by gwcp when both are asked for (DetectorOptions::hbOnGwcp).
std::vector<std::unique_ptr<Detector>> makeDetectors(const std::vector<std::string>& names,
                                                     const DetectorOptions& options);
// The detectors that take events (those not checkedBy another), to feed.
std::vector<EventSink*> eventSinksOf(const std::vector<std::unique_ptr<Detector>>& detectors);
inline const std::vector<std::string>& allDetectorNames() {
  static const std::vector<std::string> names{"gwcp", "hb", "lockset"};
  return names;
}

}  // namespace predatar
