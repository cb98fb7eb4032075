// KernelInfo::sources: the source positions that events name by index
// (Origin::source), as reports show them.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

namespace predatar {

// A call site of an inlined function: "inlined into reduce at red.cu:145".
struct InlinedCall {
  std::string function;  // the caller (demangled)
  std::string file;
  uint32_t line = 0;
  uint32_t column = 0;
  bool operator==(const InlinedCall&) const = default;
};

// A source position that reports show: "file:line:col" (the innermost
// position: an inlined function's own line), with the calls it was inlined
// through, innermost first.
struct SourcePosition {
  std::string file;
  uint32_t line = 0;
  uint32_t column = 0;
  std::vector<InlinedCall> inlinedInto = {};
  bool operator==(const SourcePosition&) const = default;
};

// Positions by index: a list (litmus files, traces, tests), or a module's
// positions made when first read and shared by every copy (the emulator's:
// a Thrust module's 12,601 positions, with inlining chains of template names,
// are 69 MB, and making them all took 0.7 s at every launch, to report the
// handful that races name). Positions appended to a copy are its own.
// Reading is thread-safe; appending is not.
class SourceTable {
 public:
  using Resolve = std::function<SourcePosition(uint32_t index)>;

  SourceTable() = default;
  SourceTable(std::vector<SourcePosition> positions) : added_(std::move(positions)) {}
  SourceTable(std::initializer_list<SourcePosition> positions) : added_(positions) {}
  // `size` positions, position i being resolve(i) (called once, when first read).
  static SourceTable resolvedOnUse(uint32_t size, Resolve resolve) {
    SourceTable t;
    t.shared_ = std::make_shared<const Shared>(size, std::move(resolve));
    return t;
  }

  size_t size() const { return sharedSize() + added_.size(); }
  bool empty() const { return size() == 0; }
  const SourcePosition& operator[](size_t i) const {
    return i < sharedSize() ? shared_->at(i) : added_[i - sharedSize()];
  }
  const SourcePosition& at(size_t i) const {
    if (i >= size()) throw std::out_of_range("SourceTable::at");
    return (*this)[i];
  }
  void push_back(SourcePosition p) { added_.push_back(std::move(p)); }
  // Shared positions made so far (by reads through any copy).
  size_t made() const { return shared_ ? shared_->made() : 0; }

 private:
  class Shared {
   public:
    Shared(uint32_t size, Resolve resolve) : resolve_(std::move(resolve)), made_(size) {}
    size_t size() const { return made_.size(); }
    const SourcePosition& at(size_t i) const {
      std::lock_guard lock(mutex_);
      auto& p = made_[i];  // (a unique_ptr: references stay valid)
      if (!p) p = std::make_unique<const SourcePosition>(resolve_(uint32_t(i)));
      return *p;
    }
    size_t made() const {
      std::lock_guard lock(mutex_);
      return size_t(std::count_if(made_.begin(), made_.end(), [](const auto& p) { return p != nullptr; }));
    }

   private:
    Resolve resolve_;
    mutable std::mutex mutex_;
    mutable std::vector<std::unique_ptr<const SourcePosition>> made_;
  };
  size_t sharedSize() const { return shared_ ? shared_->size() : 0; }

  std::shared_ptr<const Shared> shared_;
  std::vector<SourcePosition> added_;
};

}  // namespace predatar
