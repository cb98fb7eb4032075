#include "analysis/LaunchResults.h"

namespace predatar {

// One detector fed events and the detectors it checks: their results at
// each launch's end, taken in the thread that feeds it.
class LaunchResults::Taker final : public EventSink {
 public:
  Taker(LaunchResults& owner, Detector& fed) : owner_(owner), fed_(fed) {}
  void carry(size_t index, const Detector& detector) {
    carried_.push_back({index, &detector, detector.stats().events, detector.races().races().size()});
  }

  void kernelBegin(const KernelInfo& k) override {
    launch_ = k.launch;
    fed_.kernelBegin(k);
  }
  void memory(const MemoryEvent& e) override { fed_.memory(e); }
  void barrier(const BarrierEvent& e) override { fed_.barrier(e); }
  void syncWarp(const SyncWarpEvent& e) override { fed_.syncWarp(e); }
  void fence(const FenceEvent& e) override { fed_.fence(e); }
  void acquire(const LockEvent& e) override { fed_.acquire(e); }
  void release(const LockEvent& e) override { fed_.release(e); }
  void exit(const ExitEvent& e) override { fed_.exit(e); }
  bool consumesEvents() const override { return fed_.consumesEvents(); }
  void kernelEnd() override {
    fed_.kernelEnd();
    for (Carried& c : carried_) {
      DetectorLaunchResult result;
      result.stats = c.detector->stats();
      result.events = result.stats.events - c.events;
      c.events = result.stats.events;
      const std::vector<Race>& races = c.detector->races().races();
      result.races.assign(races.begin() + c.races, races.end());
      c.races = races.size();
      owner_.put(c.index, launch_, std::move(result));
    }
  }

 private:
  struct Carried {
    size_t index;  // in the owner's detectors
    const Detector* detector;
    uint64_t events;  // its events and races at the latest launch end
    size_t races;
  };
  LaunchResults& owner_;
  Detector& fed_;
  std::vector<Carried> carried_;
  uint32_t launch_ = 0;
};

LaunchResults::LaunchResults(const std::vector<std::unique_ptr<Detector>>& detectors)
    : detectors_(detectors.size()), latest_(detectors.size()) {
  for (size_t i = 0; i < detectors.size(); ++i)
    if (!detectors[i]->checkedBy()) {
      takers_.push_back(std::make_unique<Taker>(*this, *detectors[i]));
      for (size_t j = 0; j < detectors.size(); ++j)
        if (j == i || detectors[j]->checkedBy() == detectors[i].get()) takers_.back()->carry(j, *detectors[j]);
    }
}

LaunchResults::~LaunchResults() = default;

std::vector<EventSink*> LaunchResults::sinks() const {
  std::vector<EventSink*> sinks;
  for (const auto& t : takers_) sinks.push_back(t.get());
  return sinks;
}

void LaunchResults::put(size_t detector, uint32_t launch, DetectorLaunchResult result) {
  std::lock_guard lock(mutex_);
  latest_[detector] = result.stats;
  auto [it, fresh] = byLaunch_.try_emplace(launch);
  if (fresh) it->second.resize(detectors_);
  it->second[detector] = std::move(result);
}

std::vector<DetectorLaunchResult> LaunchResults::take(uint32_t launch) {
  std::lock_guard lock(mutex_);
  std::vector<DetectorLaunchResult> results(detectors_);
  auto it = byLaunch_.find(launch);
  for (size_t i = 0; i < detectors_; ++i)
    if (it != byLaunch_.end() && it->second[i]) results[i] = std::move(*it->second[i]);
    else results[i].stats = latest_[i];
  if (it != byLaunch_.end()) byLaunch_.erase(it);
  return results;
}

}  // namespace predatar
