// Reference-counted pointers whose counts are plain integers, for data that
// one thread owns at a time. A detector's clocks never leave the detector, and
// a detector runs on one worker thread (ParallelFanout hands it over with a
// lock, which orders its accesses), so std::shared_ptr's atomic counts buy
// nothing there and cost a locked instruction per copy and per release: a
// __syncwarp assigns the joined clock to 32 lanes, a release snapshots H_t,
// and gwcp's critical sections hold several copies each.
#pragma once

#include <cstddef>
#include <cstdint>
#include <new>
#include <type_traits>
#include <utility>

#include "clock/ClockMemory.h"

namespace predatar {
namespace local_shared_detail {

// The counting of a handle to a `Counted`, which has a `refs` member and a
// static destroy(Counted*) for when the last handle goes.
template <class Counted>
class CountedHandle {
 public:
  CountedHandle() = default;
  CountedHandle(std::nullptr_t) {}  // NOLINT: as shared_ptr's
  CountedHandle(const CountedHandle& other) : counted_(other.counted_) {
    if (counted_) ++counted_->refs;
  }
  CountedHandle(CountedHandle&& other) noexcept : counted_(std::exchange(other.counted_, nullptr)) {}
  CountedHandle& operator=(const CountedHandle& other) {
    CountedHandle(other).swap(*this);
    return *this;
  }
  CountedHandle& operator=(CountedHandle&& other) noexcept {
    CountedHandle(std::move(other)).swap(*this);
    return *this;
  }
  ~CountedHandle() {
    if (counted_ && --counted_->refs == 0) Counted::destroy(counted_);
  }

  explicit operator bool() const { return counted_ != nullptr; }
  uint32_t use_count() const { return counted_ ? counted_->refs : 0; }
  void reset() { CountedHandle().swap(*this); }
  void swap(CountedHandle& other) noexcept { std::swap(counted_, other.counted_); }
  friend bool operator==(const CountedHandle& a, const CountedHandle& b) { return a.counted_ == b.counted_; }

 protected:
  explicit CountedHandle(Counted* counted) : counted_(counted) {}
  Counted* counted_ = nullptr;
};

template <class T>
struct Node {
  uint32_t refs;
  T value;
  // (Out of line: GCC's -Wuse-after-free cannot follow the count, and warned
  // at a holder's read after another holder's release.)
  [[gnu::noinline]] static void destroy(Node* node) {
    node->~Node();
    freeClockMemory(node);
  }
};

template <class T>
struct alignas(uint64_t) ArrayHeader {
  uint32_t refs;
  uint32_t size;  // elements, which follow the header
  [[gnu::noinline]] static void destroy(ArrayHeader* header) {  // (as Node::destroy)
    header->~ArrayHeader();
    freeClockMemory(header);
  }
};

}  // namespace local_shared_detail

// A shared object: LocalShared<T>::make(args...) builds one T.
template <class T>
class LocalShared : public local_shared_detail::CountedHandle<local_shared_detail::Node<T>> {
  using Node = local_shared_detail::Node<T>;
  using Base = local_shared_detail::CountedHandle<Node>;

 public:
  using Base::Base;

  template <class... Args>
  static LocalShared make(Args&&... args) {
    static_assert(alignof(Node) <= alignof(std::max_align_t));  // (what allocateClockMemory gives)
    void* memory = allocateClockMemory(sizeof(Node));
    try {
      return LocalShared(new (memory) Node{1, T(std::forward<Args>(args)...)});
    } catch (...) {  // (T's constructor ran out of memory: ours goes back)
      freeClockMemory(memory);
      throw;
    }
  }

  T* get() const { return this->counted_ ? &this->counted_->value : nullptr; }
  T& operator*() const { return this->counted_->value; }
  T* operator->() const { return &this->counted_->value; }

 private:
  explicit LocalShared(Node* node) : Base(node) {}
};

// A shared array of trivially copyable T, its elements left uninitialized by
// make(n): the count and the elements are one allocation.
template <class T>
class LocalSharedArray : public local_shared_detail::CountedHandle<local_shared_detail::ArrayHeader<T>> {
  static_assert(std::is_trivially_copyable_v<T> && alignof(T) <= alignof(uint64_t));
  using Header = local_shared_detail::ArrayHeader<T>;
  using Base = local_shared_detail::CountedHandle<Header>;

 public:
  using Base::Base;

  static LocalSharedArray make(size_t n) {
    return LocalSharedArray(new (allocateClockMemory(sizeof(Header) + n * sizeof(T))) Header{1, uint32_t(n)});
  }

  T* get() const { return this->counted_ ? reinterpret_cast<T*>(this->counted_ + 1) : nullptr; }
  T& operator[](size_t i) const { return get()[i]; }

 private:
  explicit LocalSharedArray(Header* header) : Base(header) {}
};

}  // namespace predatar
