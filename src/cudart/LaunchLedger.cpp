#include "cudart/LaunchLedger.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <array>
#include <atomic>

namespace predatar::cudart {
namespace {
constexpr size_t kLedgerBytes = 2 * sizeof(uint64_t);
}  // namespace

std::string launchLedgerPath(const std::string& reportPath) { return reportPath + ".launches"; }

bool createLaunchLedger(const std::string& reportPath) {
  int fd = ::open(launchLedgerPath(reportPath).c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return false;
  std::array<uint64_t, 2> zero{};
  bool ok = ::write(fd, zero.data(), kLedgerBytes) == ssize_t(kLedgerBytes);
  ::close(fd);
  return ok;
}

std::optional<uint64_t> readLaunchLedger(const std::string& reportPath) {
  int fd = ::open(launchLedgerPath(reportPath).c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  uint64_t count = 0;
  bool ok = ::pread(fd, &count, sizeof count, 0) == ssize_t(sizeof count);
  ::close(fd);
  if (!ok) return std::nullopt;
  return count;
}

LaunchLedger::LaunchLedger(const std::string& reportPath) {
  if (reportPath.empty()) return;
  int fd = ::open(launchLedgerPath(reportPath).c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) return;
  void* mapped = ::mmap(nullptr, kLedgerBytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  ::close(fd);
  if (mapped != MAP_FAILED) words_ = static_cast<uint64_t*>(mapped);
}

LaunchLedger::~LaunchLedger() {
  if (words_) ::munmap(words_, kLedgerBytes);
}

// Atomic: a fork() child and its parent, or two programs, count into one word.
void LaunchLedger::countLaunch() {
  if (words_) std::atomic_ref<uint64_t>(words_[0]).fetch_add(1, std::memory_order_relaxed);
}

bool LaunchLedger::claimMainReport() {
  if (!words_) return true;
  uint64_t self = uint64_t(::getpid()), none = 0;
  std::atomic_ref<uint64_t> owner(words_[1]);
  return owner.compare_exchange_strong(none, self) || none == self;
}

}  // namespace predatar::cudart
