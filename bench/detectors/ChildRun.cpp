#include "ChildRun.h"

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <ctime>
#include <stdexcept>

#include "analysis/Detector.h"

namespace predatar::bench {
namespace {

double cpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

}  // namespace

ChildResult runChild(const StreamSpec& spec, const std::string& detector, bool compression) {
  return finishChild(startChild(spec, detector, compression));
}

StartedChild startChild(const StreamSpec& spec, const std::string& detector, bool compression) {
  int fds[2];
  if (pipe(fds) != 0) throw std::runtime_error("pipe");
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    auto d = makeDetector(detector, DetectorOptions{compression, false});
    double start = cpuSeconds();
    ChildResult r;
    r.events = generate(spec, *d);
    r.seconds = cpuSeconds() - start;
    DetectorStats s = d->stats();
    r.threadClockBytes = s.peakThreadClockBytes;
    r.lockClockBytes = s.peakLockClockBytes;
    r.queueBytes = s.peakQueueBytes;
    r.shadowBytes = s.peakShadowBytes;
    r.metadataBytes = r.threadClockBytes + r.lockClockBytes + r.queueBytes + r.shadowBytes;
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    r.maxRssKiB = usage.ru_maxrss;
    if (write(fds[1], &r, sizeof r) != sizeof r) _exit(1);
    _exit(0);
  }
  close(fds[1]);
  return StartedChild{pid, fds[0]};
}

ChildResult finishChild(StartedChild child) {
  ChildResult r;
  ssize_t n = read(child.resultFd, &r, sizeof r);
  close(child.resultFd);
  int status = 0;
  waitpid(child.pid, &status, 0);
  if (n != sizeof r) r = ChildResult{};
  return r;
}

}  // namespace predatar::bench
