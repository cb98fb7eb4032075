// A test's size from the environment (seed counts of the randomized tests:
// CI runs the defaults, a longer hunt sets more).
#pragma once

#include <cstdint>
#include <cstdlib>

namespace predatar::testsupport {

// The decimal number in environment variable `name`, or `fallback` when it is unset or not a number.
inline uint64_t envNumber(const char* name, uint64_t fallback) {
  const char* v = std::getenv(name);
  if (!v || !*v) return fallback;
  char* end = nullptr;
  unsigned long long n = std::strtoull(v, &end, 10);
  return end && *end == '\0' ? uint64_t(n) : fallback;
}

}  // namespace predatar::testsupport
