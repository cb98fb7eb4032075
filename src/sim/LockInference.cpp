#include "sim/LockInference.h"

#include <algorithm>
#include <bit>

namespace predatar::sim {

namespace {
Scope narrower(Scope a, Scope b) { return static_cast<uint8_t>(a) < static_cast<uint8_t>(b) ? a : b; }
template <class F>
void eachLane(LaneMask m, F&& f) {
  while (m) {
    uint32_t l = uint32_t(std::countr_zero(m));
    m &= m - 1;
    f(l);
  }
}
}  // namespace

void LockInference::reset(uint64_t numThreads) {
  numThreads_ = numThreads;
  pages_.clear();
  pages_.resize((numThreads + kPageMask) >> kPageBits);
  pending_ = 0;
  cas_.clear();
  fences_.clear();
  held_.clear();
}

uint8_t* LockInference::stateForWrite(uint64_t thread) {
  if (thread >= numThreads_) return nullptr;
  auto& page = pages_[thread >> kPageBits];
  if (!page) page = std::make_unique<uint8_t[]>(size_t(1) << kPageBits);  // zeroed: kNone
  return &page[thread & kPageMask];
}

void LockInference::clear(uint64_t firstThread, LaneMask lanes) {
  eachLane(lanes, [&](uint32_t l) {
    uint64_t t = firstThread + l;
    uint8_t* s = stateOf(t);
    if (!s || *s == kNone) return;
    if (*s & kCasPending) cas_.erase(t);
    if (*s & kFencePending) fences_.erase(t);
    *s = kNone;
    --pending_;
  });
}

void LockInference::cas(uint64_t firstThread, LaneMask lanes, LaneMask success, const Addresses& address,
                        Scope scope) {
  access(firstThread, lanes);
  eachLane(success & lanes, [&](uint32_t l) {
    uint64_t t = firstThread + l;
    uint8_t* s = stateForWrite(t);
    if (!s) return;
    cas_[t] = Pending{address[l], scope};
    *s = kCasPending;
    ++pending_;
  });
}

LaneMask LockInference::fence(uint64_t firstThread, LaneMask lanes, Scope scope, Addresses& locks,
                              Scope& lockScope) {
  LaneMask acquired = 0;
  lockScope = scope;
  eachLane(lanes, [&](uint32_t l) {
    uint64_t t = firstThread + l;
    uint8_t* state = stateOf(t);
    if (!state) return;  // (no CAS yet: nothing pending, no lock held)
    uint8_t& s = *state;
    if (s & kCasPending) {
      auto it = cas_.find(t);
      Scope sc = narrower(it->second.scope, scope);
      locks[l] = it->second.address;
      lockScope = narrower(lockScope, sc);
      held_[t].emplace_back(it->second.address, sc);
      cas_.erase(it);
      acquired |= 1u << l;
      s &= uint8_t(~kCasPending);
      if (s == kNone) --pending_;
    }
    if (!(s & kFencePending)) {
      if (held_.contains(t)) {  // a release needs a held lock
        if (s == kNone) ++pending_;
        s |= kFencePending;
        fences_[t] = scope;
      }
    } else {
      fences_[t] = scope;
    }
  });
  return acquired;
}

LaneMask LockInference::exch(uint64_t firstThread, LaneMask lanes, const Addresses& address, Scope scope,
                             Addresses& locks, Scope& lockScope) {
  LaneMask released = 0;
  lockScope = scope;
  eachLane(lanes, [&](uint32_t l) {
    uint64_t t = firstThread + l;
    const uint8_t* s = stateOf(t);
    if (!s || !(*s & kFencePending)) return;
    auto h = held_.find(t);
    if (h == held_.end()) return;
    auto& v = h->second;
    auto it = std::find_if(v.begin(), v.end(), [&](auto& p) { return p.first == address[l]; });
    if (it == v.end()) return;
    Scope sc = narrower(narrower(it->second, scope), fences_[t]);
    lockScope = narrower(lockScope, sc);
    locks[l] = address[l];
    v.erase(it);
    if (v.empty()) held_.erase(h);
    released |= 1u << l;
  });
  access(firstThread, lanes);
  return released;
}

std::vector<uint64_t> LockInference::held(uint64_t thread) const {
  std::vector<uint64_t> out;
  auto it = held_.find(thread);
  if (it != held_.end())
    for (auto& p : it->second) out.push_back(p.first);
  return out;
}

}  // namespace predatar::sim
