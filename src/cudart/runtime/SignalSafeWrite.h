// Writing to stderr from a signal handler or a new-handler: write(2) alone,
// no stdio (which may hold its lock or need memory at that point).
#pragma once

#include <unistd.h>

#include <cstring>

namespace predatar::cudart {

inline void writeToStderr(const char* text) {
  size_t n = std::strlen(text);
  while (n > 0) {
    ssize_t w = ::write(STDERR_FILENO, text, n);
    if (w <= 0) return;
    text += w;
    n -= size_t(w);
  }
}

}  // namespace predatar::cudart
