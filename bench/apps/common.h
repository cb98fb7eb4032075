// Shared helpers of the application benchmarks (bench/apps): error checks,
// the size argument and the PASS/FAIL line that run.sh and ctest look for.
#pragma once
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

#define CHECK(call)                                                                                   \
  do {                                                                                                \
    cudaError_t err_ = (call);                                                                        \
    if (err_ != cudaSuccess) {                                                                        \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(err_));   \
      std::exit(1);                                                                                   \
    }                                                                                                 \
  } while (0)

// The input size: "small" (ctest, seconds on the emulator), "large" (a few
// minutes on two cores), "paper" (the size of the paper's evaluation).
enum class Size { Small, Large, Paper };

inline Size parseSize(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    if (std::strcmp(a, "small") == 0 || std::strcmp(a, "--size=small") == 0) return Size::Small;
    if (std::strcmp(a, "large") == 0 || std::strcmp(a, "--size=large") == 0) return Size::Large;
    if (std::strcmp(a, "paper") == 0 || std::strcmp(a, "--size=paper") == 0) return Size::Paper;
    std::fprintf(stderr, "usage: %s [small|large|paper]\n", argv[0]);
    std::exit(2);
  }
  return Size::Small;
}

template <class T>
inline T pick(Size s, T small, T large, T paper) {
  return s == Size::Small ? small : s == Size::Large ? large : paper;
}

#ifdef RACEY
#define BUILD_NAME "racy"
#else
#define BUILD_NAME "race-free"
#endif

// Prints the verdict and returns the exit code: 0 on PASS, 3 on FAIL.
inline int verdict(const char* app, bool ok, const char* detail) {
  std::printf("%s (%s): %s %s\n", app, BUILD_NAME, ok ? "PASS" : "FAIL", detail);
  return ok ? 0 : 3;
}

inline bool near(double a, double b, double tol) { return std::fabs(a - b) <= tol * (1.0 + std::fabs(b)); }

// A small deterministic generator, so that inputs are the same everywhere.
struct Lcg {
  unsigned state;
  explicit Lcg(unsigned seed) : state(seed * 2654435761u + 1u) {}
  unsigned next() { return state = state * 1664525u + 1013904223u; }
  float uniform() { return float(next() >> 8) / float(1u << 24); }
};
