// What the library feature programs (cusparse_routines.cu, cusparse_solves.cu)
// share: a status check that ends the test, and device copies of host vectors.
#pragma once

#include <cmath>
#include <cstdio>
#include <vector>

// Ends the test (returns 1) when a library or runtime call does not succeed.
#define CHECK(call)                                           \
  do {                                                        \
    int e_ = int(call);                                       \
    if (e_ != 0) { printf("%s: %d\n", #call, e_); return 1; } \
  } while (0)

static const char* yes(bool b) { return b ? "yes" : "no"; }

template <class T>
static T* device(const std::vector<T>& host) {
  T* d = nullptr;
  cudaMalloc(&d, host.size() * sizeof(T));
  cudaMemcpy(d, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice);
  return d;
}
template <class T>
static std::vector<T> host(const T* d, size_t n) {
  std::vector<T> h(n);
  cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost);
  return h;
}
static bool near(double a, double b) { return std::fabs(a - b) < 1e-4 * (1 + std::fabs(b)); }
