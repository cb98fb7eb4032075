#include "TraceLitmus.h"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <map>
#include <optional>
#include <sstream>
#include <type_traits>
#include <utility>
#include <variant>

namespace predatar::testsupport {
namespace {

// ".block", ".device", ".system"
std::string scopeSuffix(Scope s) { return std::string(".") + toString(s); }

std::string hexMask(LaneMask mask) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08x", unsigned(mask));
  return buf;
}

std::string hex(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

// The symbol holding a word and the word's index in it.
std::optional<std::pair<const MemorySymbol*, uint64_t>> symbolOf(const KernelInfo& kernel, MemorySpace space,
                                                                 uint64_t word) {
  for (const MemorySymbol& s : kernel.symbols) {
    if (s.space != space) continue;
    uint64_t bytes = std::max<uint64_t>(s.bytes, 4);
    if (word >= s.base / 4 * 4 && word < s.base + bytes) return std::pair{&s, (word - s.base / 4 * 4) / 4};
  }
  return std::nullopt;
}

std::string indexed(const std::string& name, uint64_t index) {
  return index == 0 ? name : name + "[" + std::to_string(index) + "]";
}

std::string who(uint32_t block, uint32_t tid) { return "b" + std::to_string(block) + ".t" + std::to_string(tid); }

std::string who(const WarpLanes& lanes) {
  if (std::popcount(lanes.mask) == 1)
    return who(lanes.block, lanes.warp * kWarpSize + uint32_t(std::countr_zero(lanes.mask)));
  return "b" + std::to_string(lanes.block) + ".w" + std::to_string(lanes.warp) + "[" + hexMask(lanes.mask) + "]";
}

class LitmusWriter {
 public:
  explicit LitmusWriter(const Trace& trace) : trace_(trace), k_(trace.kernel) {
    exited_.assign(k_.numBlocks(), std::vector<bool>(k_.threadsPerBlock(), false));
  }

  std::string write(const std::vector<LitmusExpectation>& expectations) {
    for (const Event& event : trace_.events) std::visit([&](const auto& e) { line(e); }, event);
    std::ostringstream out;
    out << "# " << (k_.name.empty() ? "trace" : k_.name) << ": " << trace_.events.size() << " events\n";
    out << "launch blocks=" << k_.numBlocks() << " threads=" << k_.threadsPerBlock() << "\n";
    std::set<std::string> shared = extraShared_;
    for (const MemorySymbol& s : k_.symbols)
      if (s.space == MemorySpace::Shared) shared.insert(s.name);
    if (!shared.empty()) {
      out << "shared ";
      bool first = true;
      for (const std::string& n : shared) out << (first ? "" : ", ") << n, first = false;
      out << "\n";
    }
    out << body_.str();
    for (const LitmusExpectation& x : expectations) {
      std::set<std::string> names;
      for (const LocationKey& loc : x.locations) names.insert(litmusLocation(k_, loc.space, loc.address));
      out << "expect " << x.detector << ":";
      if (names.empty()) out << " norace";
      else {
        out << " race ";
        bool first = true;
        for (const std::string& n : names) out << (first ? "" : ", ") << n, first = false;
      }
      out << "\n";
    }
    return out.str();
  }

 private:
  const Trace& trace_;
  const KernelInfo& k_;
  std::ostringstream body_;
  std::set<std::string> extraShared_;
  std::vector<std::vector<bool>> exited_;

  std::string location(MemorySpace space, uint64_t address) {
    std::string name = litmusLocation(k_, space, address / 4 * 4);
    if (space == MemorySpace::Shared && !symbolOf(k_, space, address / 4 * 4)) extraShared_.insert(name);
    return name;
  }

  static std::string memoryOp(const MemoryEvent& e) {
    if (e.type == AccessType::AtomicRmw) return std::string("atom") + scopeSuffix(e.scope);
    if (e.strong) return std::string(e.type == AccessType::Read ? "ard" : "awr") + scopeSuffix(e.scope);
    return e.type == AccessType::Read ? "rd" : "wr";
  }

  // `name[lane+k]` / `name[tid+k]` when every lane's address fits, else nothing.
  std::optional<std::string> perLaneForm(const MemoryEvent& e) {
    for (const char* var : {"lane", "tid"}) {
      const MemorySymbol* sym = nullptr;
      std::optional<int64_t> k;
      bool ok = true;
      for (uint32_t lane = 0; lane < kWarpSize && ok; ++lane) {
        if (!(e.lanes.mask & (LaneMask(1) << lane))) continue;
        if (e.address[lane] % 4 != 0) { ok = false; break; }
        auto s = symbolOf(k_, e.space, e.address[lane]);
        if (!s || (sym && s->first != sym)) { ok = false; break; }
        sym = s->first;
        int64_t idx = int64_t(s->second);
        int64_t v = std::string(var) == "lane" ? int64_t(lane) : int64_t(e.lanes.warp * kWarpSize + lane);
        if (k && *k != idx - v) ok = false;
        k = idx - v;
      }
      if (!ok || !sym) continue;
      std::string index = var;
      if (*k > 0) index += "+" + std::to_string(*k);
      if (*k < 0) index += "-" + std::to_string(-*k);
      return sym->name + "[" + index + "]";
    }
    return std::nullopt;
  }

  void line(const MemoryEvent& e) {
    if (e.size != 4) body_ << "# warning: " << unsigned(e.size) << "-byte access, written as a word access\n";
    std::optional<uint64_t> uniform;
    bool isUniform = true;
    for (uint32_t lane = 0; lane < kWarpSize; ++lane) {
      if (!(e.lanes.mask & (LaneMask(1) << lane))) continue;
      if (uniform && *uniform != e.address[lane] / 4 * 4) isUniform = false;
      uniform = e.address[lane] / 4 * 4;
    }
    if (!uniform) {
      body_ << "# warning: memory event with no lane at position " << e.origin.seq << "\n";
      return;
    }
    if (isUniform) {
      body_ << who(e.lanes) << ": " << memoryOp(e) << " " << location(e.space, *uniform) << "\n";
      return;
    }
    if (auto form = perLaneForm(e)) {
      body_ << who(e.lanes) << ": " << memoryOp(e) << " " << *form << "\n";
      return;
    }
    body_ << "# warning: per-lane addresses with no litmus form; lanes written one by one\n";
    for (uint32_t lane = 0; lane < kWarpSize; ++lane)
      if (e.lanes.mask & (LaneMask(1) << lane))
        body_ << who(e.lanes.block, e.lanes.warp * kWarpSize + lane) << ": " << memoryOp(e) << " "
              << location(e.space, e.address[lane]) << "\n";
  }

  std::string lockName(uint64_t id) const {
    if (id < k_.lockNames.size() && !k_.lockNames[id].empty()) return k_.lockNames[id];
    return "lock" + std::to_string(id);
  }

  void lockLine(const LockEvent& e, const char* op) {
    std::optional<uint64_t> lock;
    bool same = true;
    for (uint32_t lane = 0; lane < kWarpSize; ++lane) {
      if (!(e.lanes.mask & (LaneMask(1) << lane))) continue;
      if (lock && *lock != e.lock[lane]) same = false;
      lock = e.lock[lane];
    }
    if (!lock) return;
    std::string opName = std::string(op) + (e.scope == Scope::Block ? ".block" : ".device");
    if (e.scope == Scope::System) body_ << "# warning: system-scoped lock written as device\n";
    if (same) {
      body_ << who(e.lanes) << ": " << opName << " " << lockName(*lock) << "\n";
      return;
    }
    body_ << "# warning: per-lane lock ids; lanes written one by one\n";
    for (uint32_t lane = 0; lane < kWarpSize; ++lane)
      if (e.lanes.mask & (LaneMask(1) << lane))
        body_ << who(e.lanes.block, e.lanes.warp * kWarpSize + lane) << ": " << opName << " "
              << lockName(e.lock[lane]) << "\n";
  }

  void line(const AcquireEvent& e) { lockLine(e, "acq"); }
  void line(const ReleaseEvent& e) { lockLine(e, "rel"); }

  void line(const FenceEvent& e) { body_ << who(e.lanes) << ": fence" << scopeSuffix(e.scope) << "\n"; }

  void line(const BarrierEvent& e) {
    std::vector<uint32_t> live;
    if (e.block < exited_.size())
      for (uint32_t tid = 0; tid < exited_[e.block].size(); ++tid)
        if (!exited_[e.block][tid]) live.push_back(tid);
    if (live != e.threads || !e.arrivers.empty() || !e.complete)
      body_ << "# warning: barrier threads are not the block's non-exited threads\n";
    body_ << "b" << e.block << ": bar\n";
  }

  void line(const SyncWarpEvent& e) {
    body_ << "b" << e.lanes.block << ".w" << e.lanes.warp << "[" << hexMask(e.lanes.mask) << "]: syncwarp\n";
  }

  void line(const ExitEvent& e) {
    body_ << who(e.lanes) << ": exit\n";
    for (uint32_t lane = 0; lane < kWarpSize; ++lane) {
      uint32_t tid = e.lanes.warp * kWarpSize + lane;
      if ((e.lanes.mask & (LaneMask(1) << lane)) && e.lanes.block < exited_.size() &&
          tid < exited_[e.lanes.block].size())
        exited_[e.lanes.block][tid] = true;
    }
  }
};

}  // namespace

std::string toLitmus(const Trace& trace, const std::vector<LitmusExpectation>& expectations) {
  return LitmusWriter(trace).write(expectations);
}

std::string litmusLocation(const KernelInfo& kernel, MemorySpace space, uint64_t wordAddress) {
  if (auto s = symbolOf(kernel, space, wordAddress)) return indexed(s->first->name, s->second);
  return std::string(space == MemorySpace::Shared ? "shared_" : "global_") + hex(wordAddress);
}

std::string describeLocations(const KernelInfo& kernel, const std::set<LocationKey>& locations) {
  if (locations.empty()) return "norace";
  std::string out;
  for (const LocationKey& loc : locations) {
    if (!out.empty()) out += ", ";
    out += litmusLocation(kernel, loc.space, loc.address);
    if (loc.space == MemorySpace::Shared) out += "@b" + std::to_string(loc.sharedBlock);
  }
  return out;
}

}  // namespace predatar::testsupport
