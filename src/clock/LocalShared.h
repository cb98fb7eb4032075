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

namespace predatar {

// A shared object: LocalShared<T>::make(args...) builds one T.
template <class T>
class LocalShared {
 public:
  LocalShared() = default;
  LocalShared(std::nullptr_t) {}  // NOLINT: as shared_ptr's
  LocalShared(const LocalShared& other) : node_(other.node_) {
    if (node_) ++node_->refs;
  }
  LocalShared(LocalShared&& other) noexcept : node_(std::exchange(other.node_, nullptr)) {}
  LocalShared& operator=(const LocalShared& other) {
    LocalShared(other).swap(*this);
    return *this;
  }
  LocalShared& operator=(LocalShared&& other) noexcept {
    LocalShared(std::move(other)).swap(*this);
    return *this;
  }
  ~LocalShared() { release(); }

  template <class... Args>
  static LocalShared make(Args&&... args) {
    LocalShared p;
    p.node_ = new Node{1, T(std::forward<Args>(args)...)};
    return p;
  }

  T* get() const { return node_ ? &node_->value : nullptr; }
  T& operator*() const { return node_->value; }
  T* operator->() const { return &node_->value; }
  explicit operator bool() const { return node_ != nullptr; }
  uint32_t use_count() const { return node_ ? node_->refs : 0; }
  void reset() { LocalShared().swap(*this); }
  void swap(LocalShared& other) noexcept { std::swap(node_, other.node_); }
  friend bool operator==(const LocalShared& a, const LocalShared& b) { return a.node_ == b.node_; }

 private:
  struct Node {
    uint32_t refs;
    T value;
  };
  void release() {
    if (node_ && --node_->refs == 0) destroy(node_);
  }
  // (Out of line: GCC's -Wuse-after-free cannot follow the count, and warned
  // at a holder's read after another holder's release.)
  [[gnu::noinline]] static void destroy(Node* node) { delete node; }
  Node* node_ = nullptr;
};

// A shared array of trivially copyable T, its elements left uninitialized by
// make(n): the count and the elements are one allocation.
template <class T>
class LocalSharedArray {
  static_assert(std::is_trivially_copyable_v<T> && alignof(T) <= alignof(uint64_t));

 public:
  LocalSharedArray() = default;
  LocalSharedArray(std::nullptr_t) {}  // NOLINT: as shared_ptr's
  LocalSharedArray(const LocalSharedArray& other) : header_(other.header_) {
    if (header_) ++header_->refs;
  }
  LocalSharedArray(LocalSharedArray&& other) noexcept : header_(std::exchange(other.header_, nullptr)) {}
  LocalSharedArray& operator=(const LocalSharedArray& other) {
    LocalSharedArray(other).swap(*this);
    return *this;
  }
  LocalSharedArray& operator=(LocalSharedArray&& other) noexcept {
    LocalSharedArray(std::move(other)).swap(*this);
    return *this;
  }
  ~LocalSharedArray() { release(); }

  static LocalSharedArray make(size_t n) {
    LocalSharedArray a;
    a.header_ = new (::operator new(sizeof(Header) + n * sizeof(T))) Header{1};
    return a;
  }

  T* get() const { return header_ ? reinterpret_cast<T*>(header_ + 1) : nullptr; }
  T& operator[](size_t i) const { return get()[i]; }
  explicit operator bool() const { return header_ != nullptr; }
  uint32_t use_count() const { return header_ ? header_->refs : 0; }
  void reset() { LocalSharedArray().swap(*this); }
  void swap(LocalSharedArray& other) noexcept { std::swap(header_, other.header_); }
  friend bool operator==(const LocalSharedArray& a, const LocalSharedArray& b) { return a.header_ == b.header_; }

 private:
  struct alignas(uint64_t) Header {
    uint32_t refs;
  };
  void release() {
    if (header_ && --header_->refs == 0) destroy(header_);
  }
  [[gnu::noinline]] static void destroy(Header* header) {  // (as LocalShared::destroy)
    header->~Header();
    ::operator delete(header);
  }
  Header* header_ = nullptr;
};

}  // namespace predatar
