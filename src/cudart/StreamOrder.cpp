#include "cudart/StreamOrder.h"

#include <algorithm>
#include <utility>

namespace predatar::cudart {

void StreamOrder::join(Frontier& into, const Frontier& from) {
  for (const auto& [stream, last] : from) {
    uint64_t& mine = into[stream];
    mine = std::max(mine, last);
  }
}

bool StreamOrder::ordered(const Frontier& f, const LiveLaunch& l) {
  auto it = f.find(l.stream);
  return it != f.end() && it->second > l.id;
}

StreamOrder::Stream& StreamOrder::stream(uintptr_t handle) {
  if (handle == kDefault) handle = kLegacy;
  auto it = streams_.find(handle);
  if (it != streams_.end()) return it->second;
  // The legacy stream, the per-thread default stream, or a stream created
  // before this object knew of it: blocking streams.
  Stream s;
  s.number = handle == kLegacy ? 0 : nextNumber_++;
  s.frontier = host_;
  return streams_.emplace(handle, std::move(s)).first->second;
}

bool StreamOrder::createStream(uintptr_t handle, bool nonBlocking) {
  Stream s;
  s.number = nextNumber_++;
  s.blocking = !nonBlocking;
  s.frontier = host_;
  streams_[handle] = std::move(s);
  // Whether a launch forgotten before the host ordered it may race with this
  // stream's work (forgetCompleted).
  return nonBlocking && std::any_of(forgotten_.begin(), forgotten_.end(), [&](const auto& entry) {
    auto host = host_.find(entry.first);
    return host == host_.end() || host->second <= entry.second;
  });
}

void StreamOrder::destroyStream(uintptr_t handle) {
  if (handle > kPerThread) streams_.erase(handle);
  forgetCompleted();
}

void StreamOrder::materialize(uintptr_t handle) {
  Stream& s = stream(handle);
  join(s.frontier, host_);
  if (s.number == 0) {
    for (const auto& [h, other] : streams_)
      if (other.blocking && &other != &s) join(s.frontier, other.frontier);
  } else if (s.blocking) {
    join(s.frontier, stream(kLegacy).frontier);
  }
}

StreamOrder::Launch StreamOrder::launch(uintptr_t handle, uint32_t id, bool programmatic) {
  materialize(handle);
  Stream& s = stream(handle);
  Launch result;
  uint32_t previous = std::exchange(s.dependentsOf, UINT32_MAX);
  for (const LiveLaunch& l : live_) {
    result.live.push_back(l.id);
    if (!ordered(s.frontier, l)) result.unordered.push_back(l.id);
  }
  s.frontier[s.number] = uint64_t(id) + 1;
  live_.push_back(LiveLaunch{id, s.number, handle == kDefault ? kLegacy : handle});
  forgetCompleted();
  // Keep only what is still live after this launch (it may order earlier ones
  // before every stream).
  std::erase_if(result.live, [&](uint32_t l) {
    return std::none_of(live_.begin(), live_.end(), [&](const LiveLaunch& x) { return x.id == l; });
  });
  if (programmatic && previous != UINT32_MAX) {
    result.overlapped = previous;
    if (std::find(result.live.begin(), result.live.end(), previous) == result.live.end()) result.live.push_back(previous);
  }
  return result;
}

void StreamOrder::keptForDependents(uintptr_t handle, uint32_t launch) { stream(handle).dependentsOf = launch; }

void StreamOrder::legacyOperation(bool blocking) {
  materialize(kLegacy);
  if (blocking) join(host_, stream(kLegacy).frontier);
  forgetCompleted();
}

void StreamOrder::recordEvent(uintptr_t event, uintptr_t handle) {
  materialize(handle);
  events_[event] = stream(handle).frontier;
}

void StreamOrder::waitEvent(uintptr_t handle, uintptr_t event) {
  auto it = events_.find(event);
  if (it == events_.end()) return;  // never recorded: nothing to wait for
  join(stream(handle).frontier, it->second);
  forgetCompleted();
}

void StreamOrder::synchronizeStream(uintptr_t handle) {
  materialize(handle);
  join(host_, stream(handle).frontier);
  forgetCompleted();
}

void StreamOrder::synchronizeEvent(uintptr_t event) {
  auto it = events_.find(event);
  if (it != events_.end()) join(host_, it->second);
  forgetCompleted();
}

void StreamOrder::synchronizeDevice() {
  for (const auto& [h, s] : streams_) join(host_, s.frontier);
  forgetCompleted();
}

// A launch is complete for the detectors when whatever any stream issues
// next is ordered after it: no later launch can race with it. That includes
// the blocking streams the program has yet to create (or first name, like
// cudaStreamPerThread): they start from the host's frontier and the legacy
// stream's. A launch only they could race with stays live, but its repeats
// may still be replayed (mayRaceWithExistingStreams).
//
// Non-blocking streams yet to create start from the host's frontier alone:
// holding launches for them would keep every launch of the legacy stream
// live until the host synchronizes (the detectors' records of each, across
// the launches of a program that synchronizes once at the end). Instead
// `forgotten_` remembers, per stream, the latest launch forgotten before the
// host ordered it, and createStream says when a non-blocking stream may race
// with such a launch unchecked.
void StreamOrder::forgetCompleted() {
  if (live_.empty()) return;
  std::vector<Frontier> next;
  for (const auto& [h, s] : streams_) {
    Frontier f = s.frontier;
    join(f, host_);
    if (s.number == 0) {
      for (const auto& [h2, other] : streams_)
        if (other.blocking) join(f, other.frontier);
    } else if (s.blocking) {
      if (auto legacy = streams_.find(kLegacy); legacy != streams_.end()) join(f, legacy->second.frontier);
    }
    next.push_back(std::move(f));
  }
  Frontier yetToCreate = host_;  // a blocking stream created now
  if (auto legacy = streams_.find(kLegacy); legacy != streams_.end()) join(yetToCreate, legacy->second.frontier);
  std::erase_if(live_, [&](LiveLaunch& l) {
    if (ordered(host_, l)) return true;
    l.onlyNewStreamsMayRace = std::all_of(next.begin(), next.end(), [&](const Frontier& f) { return ordered(f, l); });
    if (!l.onlyNewStreamsMayRace || !ordered(yetToCreate, l)) return false;
    uint64_t& latest = forgotten_[l.stream];
    latest = std::max(latest, uint64_t(l.id));
    return true;
  });
}

std::string StreamOrder::streamName(uintptr_t handle) const {
  if (handle == kDefault || handle == kLegacy) return "the default stream";
  auto it = streams_.find(handle);
  if (handle == kPerThread) return "the per-thread default stream";
  if (it == streams_.end()) return "a destroyed stream";
  return "stream " + std::to_string(it->second.number);
}

}  // namespace predatar::cudart
