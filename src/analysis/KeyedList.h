// Entries by a 64-bit key, for the few keys one critical section or one
// thread touches: a short list searched linearly, held inline, and indexed
// by a hash map (allocated then) once it grows past kLinear. Entries stay in
// insertion order; a reference to one stays valid until the next insert.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"

namespace predatar {

// `Entry` is an aggregate whose first member is `uint64_t key`.
template <class Entry, size_t kInline, size_t kLinear>
class KeyedList {
 public:
  Entry& operator[](uint64_t key) {
    if (!index_) {
      if (Entry* e = linearFind(key)) return *e;
      if (list_.size() < kLinear) return list_.emplace_back(Entry{key});
      index_ = std::make_unique<absl::flat_hash_map<uint64_t, uint32_t>>();
      for (uint32_t i = 0; i < list_.size(); ++i) index_->emplace(list_[i].key, i);
    }
    auto [it, inserted] = index_->try_emplace(key, uint32_t(list_.size()));
    if (inserted) list_.emplace_back(Entry{key});
    return list_[it->second];
  }
  const Entry* find(uint64_t key) const {
    if (!index_) return const_cast<KeyedList*>(this)->linearFind(key);
    auto it = index_->find(key);
    return it == index_->end() ? nullptr : &list_[it->second];
  }
  auto begin() const { return list_.begin(); }
  auto end() const { return list_.end(); }
  // Heap beyond the object itself (the list once it outgrew its inline
  // entries, and the index).
  uint64_t heapBytes() const {
    uint64_t total = list_.capacity() > kInline ? list_.capacity() * sizeof(Entry) : 0;
    if (index_) total += sizeof(*index_) + index_->capacity() * (sizeof(uint64_t) + sizeof(uint32_t) + 1);
    return total;
  }

 private:
  Entry* linearFind(uint64_t key) {
    for (Entry& e : list_)
      if (e.key == key) return &e;
    return nullptr;
  }
  absl::InlinedVector<Entry, kInline> list_;
  std::unique_ptr<absl::flat_hash_map<uint64_t, uint32_t>> index_;  // key -> position in list_, past kLinear
};

}  // namespace predatar
