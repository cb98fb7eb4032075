#include "analysis/Detector.h"

#include "analysis/GwcpDetector.h"
#include "analysis/HbDetector.h"
#include "analysis/LocksetDetector.h"

namespace predatar {

std::string canonicalDetectorName(std::string_view name) {
  if (name == "gwcp" || name == "predatar") return "gwcp";
  if (name == "hb" || name == "barracuda") return "hb";
  if (name == "lockset" || name == "scord") return "lockset";
  return {};
}

namespace {

// hb's reports, found by gwcp (GwcpDetector::checkHbToo): no events of its own.
class HbOnGwcp final : public Detector {
 public:
  HbOnGwcp(const DetectorOptions& options, GwcpDetector& gwcp) : Detector("hb", options), gwcp_(gwcp) {
    gwcp.checkHbToo(&races_);
  }
  std::string_view name() const override { return "hb"; }
  const Detector* checkedBy() const override { return &gwcp_; }
  DetectorStats stats() const override { return {gwcp_.stats().events, 0, 0, 0, 0}; }
  void kernelBegin(const KernelInfo&) override {}
  void memory(const MemoryEvent&) override {}
  void barrier(const BarrierEvent&) override {}
  void syncWarp(const SyncWarpEvent&) override {}
  void fence(const FenceEvent&) override {}
  void acquire(const LockEvent&) override {}
  void release(const LockEvent&) override {}
  void exit(const ExitEvent&) override {}
  void kernelEnd() override {}
  bool consumesEvents() const override { return false; }

 private:
  const GwcpDetector& gwcp_;
};

}  // namespace

std::vector<std::unique_ptr<Detector>> makeDetectors(const std::vector<std::string>& names,
                                                     const DetectorOptions& options) {
  std::vector<std::unique_ptr<Detector>> detectors;
  GwcpDetector* gwcp = nullptr;
  for (const std::string& name : names) {
    detectors.push_back(makeDetector(name, options));
    if (canonicalDetectorName(name) == "gwcp" && !gwcp) gwcp = static_cast<GwcpDetector*>(detectors.back().get());
  }
  if (!gwcp || !options.hbOnGwcp) return detectors;
  for (auto& d : detectors)
    if (d && d->name() == "hb") {
      d = std::make_unique<HbOnGwcp>(options, *gwcp);
      break;
    }
  return detectors;
}

std::vector<EventSink*> eventSinksOf(const std::vector<std::unique_ptr<Detector>>& detectors) {
  std::vector<EventSink*> sinks;
  for (const auto& d : detectors)
    if (d && !d->checkedBy()) sinks.push_back(d.get());
  return sinks;
}

std::unique_ptr<Detector> makeDetector(std::string_view name, const DetectorOptions& options) {
  std::string canonical = canonicalDetectorName(name);
  if (canonical == "gwcp") return std::make_unique<GwcpDetector>(options);
  if (canonical == "hb") return std::make_unique<HbDetector>(options);
  if (canonical == "lockset") return std::make_unique<LocksetDetector>(options);
  return nullptr;
}

}  // namespace predatar
