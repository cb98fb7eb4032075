#include "sim/Livelock.h"

#include <algorithm>
#include <cstring>

namespace predatar::sim {
namespace {

// Steps without a memory change before fingerprints are taken: loops that
// compute in registers for a while are common and must not pay for hashing.
constexpr uint64_t kQuietStepsBeforeChecking = uint64_t(1) << 16;
constexpr size_t kMaxFingerprints = size_t(1) << 16;
constexpr uint64_t kStepsPerHashedWord = 8;

struct Hash2 {
  uint64_t a = 0x9E3779B97F4A7C15ull, b = 0xC2B2AE3D27D4EB4Full;
  void add(uint64_t x) {
    a = (a ^ x) * 0x100000001B3ull;
    a ^= a >> 29;
    b = ((b + x) * 0xFF51AFD7ED558CCDull);
    b ^= b >> 31;
  }
  template <typename T>
  void addAll(const T* p, size_t n) {
    for (size_t i = 0; i < n; ++i) add(uint64_t(p[i]));
  }
  // Register files (most of a fingerprint): four independent chains per hash,
  // so the multiplies overlap, then folded in.
  void addWords(const uint64_t* p, size_t n) {
    uint64_t ca[4] = {a, a + 1, a + 2, a + 3}, cb[4] = {b, b + 1, b + 2, b + 3};
    size_t i = 0;
    for (; i + 4 <= n; i += 4)
      for (size_t j = 0; j < 4; ++j) {
        ca[j] = (ca[j] ^ p[i + j]) * 0x100000001B3ull;
        ca[j] ^= ca[j] >> 29;
        cb[j] = (cb[j] + p[i + j]) * 0xFF51AFD7ED558CCDull;
        cb[j] ^= cb[j] >> 31;
      }
    for (size_t j = 0; j < 4; ++j) {
      add(ca[j]);
      add(cb[j]);
    }
    for (; i < n; ++i) add(p[i]);
  }
};

}  // namespace

std::pair<uint64_t, uint64_t> LivelockDetector::fingerprint(const Launch& L,
                                                            const std::vector<uint32_t>& order) const {
  Hash2 h;
  for (uint32_t i : order) {
    const Warp& w = L.warps[i];
    h.add(i);
    h.add(w.exited);
    h.add(w.waiting);
    h.add(w.rotate);
    h.add(w.groupSteps);
    h.add(w.busyWindows);
    h.add(w.lastPc);
    h.addAll(w.pc, 32);
    h.addAll(w.waitKind, 32);
    h.addAll(w.barrierId, 32);
    h.addAll(w.depth, 32);
    h.addAll(w.frameBase, 32);
    if (w.regs) h.addWords(w.regs.get(), size_t(L.slotsPerWarp) * 32);
    for (const CallFrame& f : w.calls) {
      h.add(f.returnPc);
      h.add(f.frameBase);
    }
    const Block& b = L.blocks[w.block];
    h.add(b.exitedThreads);
    if (b.barriers)
      for (uint32_t id = 0; id < kBlockBarriers; ++id) h.add(b.barriers[id].arrived);
  }
  return {h.a, h.b};
}

bool LivelockDetector::afterRound(const Launch& L, const std::vector<uint32_t>& order) {
  // Space the fingerprints so that hashing costs a few percent of the
  // emulation: a fingerprint reads every register of every live warp, and a
  // warp step costs about as much as hashing 32 words (one per lane). The
  // first fingerprint after a memory change is spaced the same way: the MC_*
  // samples change memory every few 10^5 steps with a thousand warps live,
  // and hashed all their registers after each change (6% of their time).
  // Kernels that store values memory already holds (matrixMul's constant
  // inputs) stay "quiet" for their whole run and pay this all along.
  // Constant spacing (not growing) keeps the guarantee: a cycle of period P
  // rounds repeats a sampled state within P samples.
  uint64_t words = uint64_t(order.size()) * (uint64_t(L.slotsPerWarp) * 32 + 256);
  uint64_t spacing = std::max<uint64_t>(1, words * kStepsPerHashedWord);
  if (L.memoryChanges != lastChanges_) {
    lastChanges_ = L.memoryChanges;
    nextCheckAt_ = L.steps + std::max(kQuietStepsBeforeChecking, spacing);
    seen_.clear();
    return false;
  }
  if (L.steps < nextCheckAt_) return false;
  nextCheckAt_ = L.steps + spacing;
  if (seen_.size() >= kMaxFingerprints) seen_.clear();
  return !seen_.insert(fingerprint(L, order)).second;
}

std::string hostHandOffNote(const Launch& L) {
  std::vector<std::string> labels;
  for (size_t at = 0; at + sizeof(uint64_t) <= L.params.size(); at += sizeof(uint64_t)) {
    uint64_t value;
    std::memcpy(&value, L.params.data() + at, sizeof value);
    auto a = value ? L.memory.find(value) : std::nullopt;
    if (a && a->placement == DeviceMemory::Placement::HostShared &&
        std::find(labels.begin(), labels.end(), a->label) == labels.end())
      labels.push_back(a->label);
  }
  if (labels.empty()) return "";
  std::string names;
  for (const std::string& l : labels) names += (names.empty() ? "" : ", ") + l;
  std::string note = "; its arguments point into host memory the host may write while a kernel runs (" + names + "): ";
  if (L.cfg.schedule.waitForHost)
    return note +
           "the launch waited for the host, and the host then waited for the launch (a synchronizing call) "
           "without writing what the kernel waits for, so neither can go on";
  return note +
         "predatar runs each launch to completion when it is issued, before the host goes on, so a kernel "
         "that waits for a host write made after its launch (a latch, a flag) cannot finish here (it relies on "
         "the host and the kernel running at once)";
}

std::optional<std::chrono::steady_clock::duration> waitForHost(const Launch& L) {
  if (!L.cfg.schedule.waitForHost || hostHandOffNote(L).empty()) return std::nullopt;
  auto before = std::chrono::steady_clock::now();
  if (!L.cfg.schedule.waitForHost()) return std::nullopt;
  return std::chrono::steady_clock::now() - before;
}

}  // namespace predatar::sim
