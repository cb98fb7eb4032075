// Our own implementation of the seven functions of the CUDA 2-era SDK's cutil library that the
// Barracuda suite's gpu-tm programs (hashtable, interac) call; the suite's checkout ships cutil's
// header but not the library. Declarations are cutil.h's (extern "C"); behaviour as cutil
// documented it: flags are "-name" or "--name", integer arguments "-name=value", timers in ms.
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>

extern "C" {
enum CUTBoolean { CUTFalse = 0, CUTTrue = 1 };

namespace {
// The value text of "-name=value" / "--name=value" (or "" for a bare "-name"), null if absent.
const char* argumentValue(int argc, const char** argv, const char* name) {
  size_t length = std::strlen(name);
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    if (*a != '-') continue;
    a += a[1] == '-' ? 2 : 1;
    if (std::strncmp(a, name, length) != 0) continue;
    if (a[length] == '\0') return a + length;
    if (a[length] == '=') return a + length + 1;
  }
  return nullptr;
}

struct Timer {
  std::chrono::steady_clock::time_point started;
  double elapsedMs = 0;
  bool running = false;
};
std::map<unsigned, Timer> timers;
unsigned nextTimer = 1;
}  // namespace

CUTBoolean cutCheckCmdLineFlag(const int argc, const char** argv, const char* flag) {
  return argumentValue(argc, argv, flag) ? CUTTrue : CUTFalse;
}

CUTBoolean cutGetCmdLineArgumenti(const int argc, const char** argv, const char* name, int* value) {
  const char* text = argumentValue(argc, argv, name);
  if (!text || !*text) return CUTFalse;
  char* end = nullptr;
  long parsed = std::strtol(text, &end, 10);
  if (*end != '\0') return CUTFalse;
  *value = int(parsed);
  return CUTTrue;
}

CUTBoolean cutCreateTimer(unsigned* name) {
  *name = nextTimer++;
  timers[*name] = {};
  return CUTTrue;
}

CUTBoolean cutDeleteTimer(unsigned name) { return timers.erase(name) ? CUTTrue : CUTFalse; }

CUTBoolean cutStartTimer(const unsigned name) {
  Timer& t = timers[name];
  t.started = std::chrono::steady_clock::now();
  t.running = true;
  return CUTTrue;
}

CUTBoolean cutStopTimer(const unsigned name) {
  Timer& t = timers[name];
  if (t.running)
    t.elapsedMs += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t.started).count();
  t.running = false;
  return CUTTrue;
}

float cutGetTimerValue(const unsigned name) {
  const Timer& t = timers[name];
  double ms = t.elapsedMs;
  if (t.running)
    ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t.started).count();
  return float(ms);
}
}
