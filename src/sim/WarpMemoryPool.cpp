#include "sim/WarpMemoryPool.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstring>
#include <mutex>
#include <vector>

namespace predatar::sim {

void LocalMemoryRelease::operator()(uint8_t* p) const {
  if (mappedBytes) munmap(p, mappedBytes);
  else delete[] p;
}

LocalMemory allocateLocalMemory(size_t bytes) {
  constexpr size_t kMapFrom = 256 << 10;
  if (bytes >= kMapFrom) {
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p != MAP_FAILED) return LocalMemory(static_cast<uint8_t*>(p), LocalMemoryRelease{bytes});
  }
  return LocalMemory(new uint8_t[bytes](), LocalMemoryRelease{});
}

namespace {

// Buffers of one size only (the launches of a program mostly repeat one
// kernel); a buffer of another size empties the pool, so buffers a later
// launch cannot use are not kept alive. At most kMaxPooledBytes are held.
constexpr size_t kMaxPooledBytes = size_t(1) << 30;

constexpr size_t kMaxPooledWarpBytes = size_t(256) << 20;

struct Pool {
  std::mutex mutex;
  size_t words = 0;
  std::vector<std::unique_ptr<uint64_t[]>> free;
  std::vector<Warp> warps;
};

Pool& pool() {
  static Pool* p = new Pool;  // never destroyed: warps may retire during static destruction
  return *p;
}

}  // namespace

std::unique_ptr<uint64_t[]> WarpMemoryPool::take(size_t words, size_t uninitialized) {
  std::unique_ptr<uint64_t[]> buffer;
  {
    Pool& p = pool();
    std::lock_guard<std::mutex> lock(p.mutex);
    if (p.words != words) {  // another kernel: buffers of the old size would only hold memory
      p.free.clear();
      p.words = words;
    } else if (!p.free.empty()) {
      buffer = std::move(p.free.back());
      p.free.pop_back();
    }
  }
  if (!buffer) return std::make_unique<uint64_t[]>(words);  // zeroed: every word holds a value
  uninitialized = std::min(uninitialized, words);
  std::memset(buffer.get() + uninitialized, 0, (words - uninitialized) * sizeof(uint64_t));
  return buffer;
}

void WarpMemoryPool::giveBack(std::unique_ptr<uint64_t[]> buffer, size_t words) {
  if (!buffer || words == 0) return;
  Pool& p = pool();
  std::lock_guard<std::mutex> lock(p.mutex);
  if (p.words != words) {
    p.free.clear();
    p.words = words;
  }
  if ((p.free.size() + 1) * words * sizeof(uint64_t) > kMaxPooledBytes) return;
  p.free.push_back(std::move(buffer));
}

std::vector<Warp> WarpMemoryPool::takeWarps() {
  Pool& p = pool();
  std::lock_guard<std::mutex> lock(p.mutex);
  return std::move(p.warps);
}

void WarpMemoryPool::giveBackWarps(std::vector<Warp> warps) {
  warps.clear();  // frees what the warps own; the table's capacity stays
  if (warps.capacity() * sizeof(Warp) > kMaxPooledWarpBytes) return;
  Pool& p = pool();
  std::lock_guard<std::mutex> lock(p.mutex);
  if (warps.capacity() > p.warps.capacity()) p.warps = std::move(warps);
}

}  // namespace predatar::sim
