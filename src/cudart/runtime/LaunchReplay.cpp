// Exact repeats of earlier launches (see RepeatedLaunches.h): the runtime's
// side, which decides when a remembered launch may stand for a new one.
#include <cstdio>
#include <string>

#include "cudart/runtime/Runtime.h"

namespace predatar::cudart {
namespace {

// The races of `earlier` within itself, as this launch's (the same events
// give the same races; like any launch's, they count for this launch too).
void copyRaces(const LaunchRecord& earlier, LaunchRecord& record) {
  for (size_t i = 0; i < earlier.races.size(); ++i) {
    Race race = earlier.races[i];
    if (race.first.launch != earlier.index || race.second.launch != earlier.index) continue;
    race.first.launch = race.second.launch = uint32_t(record.index);
    record.races.push_back(std::move(race));
    record.allocations.push_back(i < earlier.allocations.size() ? earlier.allocations[i] : std::string());
  }
  if (!record.races.empty()) record.info = earlier.info;
}

}  // namespace

// A replay stands for a launch only when
// * the kernel is a function of what is compared (no clock, printf, device
//   runtime) and the schedule is the deterministic round-robin one;
// * the launch it repeats ran under the detectors if this one is to be
//   checked (then its races, the same as this launch's, were reported);
// * `mayReplay`: nothing else can race with this launch (no earlier launch is
//   unordered with it and every later one of the streams that exist will be
//   ordered after it), so its events matter to no race but its own. A stream
//   created later may be unordered with it; the launch it repeats, of the
//   same stream, stays live as long and stands for it (the same accesses),
//   unless a launch between them dropped its records (ordered after it,
//   it may have left a read where the repeat would have written).
bool Runtime::replayRepeat(KernelRecord& kernel, const sim::KernelSignature& sig, const sim::LaunchConfig& config,
                           bool mayReplay, LaunchRecord& record, RepeatProbe& repeat) {
  // --verbose says why a launch runs instead of being replayed (a user
  // wondering why a loop of identical launches is slow finds out here).
  auto notReplayed = [&](const std::string& why) {
    if (options_.verbose)
      std::fprintf(stderr, "predatar: launch %llu runs (not a replay): %s\n",
                   static_cast<unsigned long long>(record.index), why.c_str());
    return false;
  };
  if (!options_.replayRepeats) return false;
  if (config.schedule.policy != sim::ScheduleOptions::Policy::RoundRobin)
    return notReplayed("only the round-robin schedule is replayed");
  bool firstLook = !kernel.repeatabilityProblem;
  if (firstLook) kernel.repeatabilityProblem = sim::repeatabilityProblem(*kernel.module->module, kernel.mangled);
  if (!kernel.repeatabilityProblem->empty())
    return firstLook ? notReplayed("its kernel is never replayed: " + *kernel.repeatabilityProblem) : false;
  repeat.eligible = true;
  RepeatedLaunches::Key& key = repeat.key;
  key.kernel = &kernel;
  key.grid = config.grid;
  key.block = config.block;
  key.sharedBytes = config.dynamicSharedBytes;
  key.gridWorkspace = config.gridWorkspace;
  for (size_t i = 0; i < sig.params.size(); ++i) {
    const auto* value = static_cast<const uint8_t*>(config.args[i]);
    key.params.insert(key.params.end(), value, value + sig.params[i].bytes);
  }
  auto outcome = repeats_.lookup(key, *memory_, repeat.probe);
  if (!outcome || outcome->launch >= launches_.size()) {
    if (takesRacesOf(kernel, mayReplay, record, repeat)) return false;
    return notReplayed("no earlier launch had the same kernel, configuration, arguments and inputs");
  }
  if (!mayReplay)
    return notReplayed("it repeats launch " + std::to_string(outcome->launch) +
                       ", but a launch it is not ordered with (another stream) may race with it");
  if (record.checked && !outcome->checked)
    return notReplayed("it repeats launch " + std::to_string(outcome->launch) + ", which was not checked");
  repeats_.apply(repeat.probe, *memory_);
  settleDetectors();  // (the launch it repeats has its races; printed in order)
  record.replayOf = outcome->launch;
  record.figures.warpInstructions = outcome->warpInstructions;
  record.figures.threadInstructions = outcome->threadInstructions;
  copyRaces(launches_[outcome->launch], record);
  if (options_.verbose)
    std::fprintf(stderr, "predatar: launch %llu repeats launch %llu exactly (kernel, configuration, arguments and "
                 "memory): replayed\n", static_cast<unsigned long long>(record.index),
                 static_cast<unsigned long long>(outcome->launch));
  printRaces(record);
  return true;
}

bool Runtime::takesRacesOf(KernelRecord& kernel, bool mayReplay, const LaunchRecord& record, RepeatProbe& repeat) {
  if (!record.checked || !mayReplay) return false;
  std::optional<uint64_t> twin = repeats_.checkedRunOf(repeat.key);
  if (!twin || *twin >= launches_.size()) return false;
  if (!kernel.dataDependenceProblem)
    kernel.dataDependenceProblem = sim::dataDependenceProblem(*kernel.module->module, kernel.mangled);
  if (!kernel.dataDependenceProblem->empty()) {
    if (options_.verbose)
      std::fprintf(stderr, "predatar: launch %llu runs (not a replay): launch %llu had the same kernel, configuration "
                   "and arguments, not the same inputs, and the events may depend on them (%s)\n",
                   static_cast<unsigned long long>(record.index), static_cast<unsigned long long>(*twin),
                   kernel.dataDependenceProblem->c_str());
    return true;  // (said why)
  }
  repeat.racesOf = *twin;
  if (options_.verbose)
    std::fprintf(stderr, "predatar: launch %llu runs without the detectors: its kernel's events do not depend on the "
                 "data it reads, and launch %llu, with the same configuration and arguments, ran under them: its "
                 "races stand for this launch's (--replay-repeats off checks it)\n",
                 static_cast<unsigned long long>(record.index), static_cast<unsigned long long>(*twin));
  return true;
}

void Runtime::takeRaces(uint64_t twin, LaunchRecord& record) const {
  record.racesOf = twin;
  copyRaces(launches_[twin], record);
}

void Runtime::learnRepeat(const KernelRecord& kernel, const RepeatProbe& repeat, const LaunchRecord& record,
                          const sim::LaunchStats& stats, const absl::Status& status) {
  if (!repeat.eligible || !status.ok() || !stats.warnings.empty() || !stats.deviceLaunches.empty()) return;
  if (record.checked && !repeat.racesOf) repeats_.noteCheckedRun(repeat.key, record.index);
  RepeatedLaunches::Outcome outcome{record.index, record.checked, stats.warpInstructions, stats.threadInstructions};
  if (repeat.probe.hashed) repeats_.learn(repeat.key, repeat.probe, *memory_, outcome);
  if (repeat.footprint) {
    std::vector<sim::DeviceMemory::Range> constants;
    for (const sim::GlobalVariable& g : kernel.module->module->globals())
      if (g.constant) constants.push_back(sim::DeviceMemory::Range{g.address, g.bytes});
    repeats_.learnFootprint(repeat.key, *repeat.footprint, *memory_, constants, outcome);
  }
}

// Under the detectors the events are built anyway: record the launch's
// footprint too, unless the kernel writes without events (surfaces).
void Runtime::recordFootprint(KernelRecord& kernel, const LaunchRecord& record, RepeatProbe& repeat,
                              EventFanout& fanout) {
  if (!repeat.eligible || !record.checked || !feed_ || !repeats_.wantsFootprint(repeat.probe.keyHash)) return;
  if (!kernel.writesAreEvents) kernel.writesAreEvents = sim::writesAreEvents(*kernel.module->module, kernel.mangled);
  if (!*kernel.writesAreEvents) return;
  repeat.footprint = std::make_unique<FootprintRecorder>();
  fanout.add(repeat.footprint.get());
}

}  // namespace predatar::cudart
