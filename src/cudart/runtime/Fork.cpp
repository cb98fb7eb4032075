#include "cudart/runtime/Fork.h"

#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <string>

#include "absl/strings/str_cat.h"
#include "cudart/runtime/Runtime.h"

namespace predatar::cudart {

void watchChildProcesses(Runtime& runtime) {
  pthread_atfork(nullptr, nullptr, adoptRuntimeAfterFork);
  // Another CUDA program that the program under test executed inherits its
  // environment: the first process to claim the main report keeps its name.
  const std::string& report = runtime.options().reportPath;
  if (report.empty()) return;
  int fd = ::open((report + ".claim").c_str(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600);
  if (fd >= 0) ::close(fd);
  else if (errno == EEXIST) runtime.becomeChildProcess();
}

void Runtime::becomeChildProcess() {
  std::string pid = std::to_string(::getpid());
  processNote_ = absl::StrCat(" [pid ", pid, "]");
  launches_.clear();  // the parent's, reported by the parent
  lastReportWrite_.reset();
  if (!options_.reportPath.empty()) {
    // Beside the main report: PREDATAR_REPORT.pid<N> (predatar run reads them all).
    std::string main = options_.reportPath;
    size_t mark = main.find(".pid");
    if (mark != std::string::npos) main.resize(mark);
    options_.reportPath = absl::StrCat(main, ".pid", pid);
  }
}

}  // namespace predatar::cudart
