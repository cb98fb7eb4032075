// build: -arch=sm_90
// cuda_fp16.h's math functions (hsin, hcos, hexp, hexp10, hlog2, hlog and
// their half2 forms) and __hisnan for f16 and bf16. Their inline PTX declares
// registers as `.reg.b16 h, r;` (one token, .reg.b16), corrects special
// inputs with `set.eq.f16.f16` / `set.eq.f16x2.f16x2` (1.0 or 0.0 per half)
// and tests NaN with `set.nan.{f16,bf16}{,x2}`. Each result must be within
// one unit in the last place of the host's correctly rounded value.
#include <cmath>
#include <cstdio>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

constexpr int kFunctions = 6;

__global__ void halfMath(const __half* in, __half* out, __half* pairs, int* nan) {
  int t = threadIdx.x;
  __half x = in[t];
  __half* o = out + t * kFunctions;
  o[0] = hsin(x);
  o[1] = hcos(x);
  o[2] = hexp(x);
  o[3] = hexp10(x);
  o[4] = hlog2(__habs(x));
  o[5] = hlog(__habs(x));
  __half2 p = __halves2half2(x, __hneg(x));
  __half2 s = h2sin(p), e = h2exp(p);
  pairs[t * 4 + 0] = __low2half(s);
  pairs[t * 4 + 1] = __high2half(s);
  pairs[t * 4 + 2] = __low2half(e);
  pairs[t * 4 + 3] = __high2half(e);
  __half q = __hdiv(x, x);  // NaN at 0
  __half2 q2 = __halves2half2(q, x);
  __nv_bfloat16 b = __float2bfloat16(__half2float(q));
  nan[t] = (__hisnan(q) ? 1 : 0) | (__hisnan2(q2) == __halves2half2(__float2half(1.0f), __float2half(0.0f)) ? 2 : 0) |
           (__hisnan(b) ? 4 : 0);
}

// The packed conversions (sm_80+), with the modifiers cuda_fp8.h and
// activation code use: .relu and .satfinite, and toward zero.
__global__ void packs(const float* in, unsigned* out) {
  float a = in[0], b = in[1], big = in[2], third = in[3];
  asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(out[0]) : "f"(a), "f"(b));
  asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(out[1]) : "f"(a), "f"(b));
  asm("cvt.rn.relu.satfinite.f16x2.f32 %0, %1, %2;" : "=r"(out[2]) : "f"(b), "f"(big));
  asm("cvt.rz.f16x2.f32 %0, %1, %2;" : "=r"(out[3]) : "f"(big), "f"(third));
  asm("cvt.rn.satfinite.bf16x2.f32 %0, %1, %2;" : "=r"(out[4]) : "f"(__int_as_float(0x7f800000)), "f"(third));
  unsigned short h;
  asm("cvt.rn.relu.f16.f32 %0, %1;" : "=h"(h) : "f"(b));
  out[5] = h;
}

float reference(int f, float x) {
  switch (f) {
    case 0: return std::sin(x);
    case 1: return std::cos(x);
    case 2: return std::exp(x);
    case 3: return std::pow(10.0f, x);
    case 4: return std::log2(std::fabs(x));
    default: return std::log(std::fabs(x));
  }
}

// Within one unit in the last place of a half (or both infinite alike).
bool close(__half got, float want) {
  float g = __half2float(got), w = __half2float(__float2half(want));
  if (std::isinf(w) || std::isinf(g)) return g == w;
  float ulp = std::fmax(std::ldexp(1.0f, std::ilogb(std::fmax(std::fabs(w), 6.1e-5f)) - 10), 6e-8f);
  return std::fabs(g - w) <= ulp;
}

int main() {
  // Special inputs the functions correct (their set.eq.f16 constants) and ordinary ones.
  const unsigned short special[] = {0x32B3, 0x5CB0, 0x2B7C, 0x1F79, 0x25CF, 0xC13B, 0xC1EF, 0x34DE, 0x9766, 0x9972,
                                    0xA5C4, 0xBF0A, 0x0000};
  const int n = 64;
  __half h[n];
  for (int i = 0; i < n; ++i) {
    if (i < int(sizeof special / sizeof special[0])) {
      __half_raw r;
      r.x = special[i];
      h[i] = r;
    } else {
      h[i] = __float2half(-4.0f + 8.0f * float(i) / n);
    }
  }
  __half *in, *out, *pairs;
  int* nan;
  cudaMalloc(&in, sizeof h);
  cudaMalloc(&out, n * kFunctions * sizeof(__half));
  cudaMalloc(&pairs, n * 4 * sizeof(__half));
  cudaMalloc(&nan, n * sizeof(int));
  cudaMemcpy(in, h, sizeof h, cudaMemcpyHostToDevice);
  halfMath<<<1, n>>>(in, out, pairs, nan);
  if (cudaGetLastError() != cudaSuccess) {
    printf("halfMath failed to launch\n");
    return 1;
  }
  __half o[n * kFunctions], p[n * 4];
  int isNan[n];
  cudaMemcpy(o, out, sizeof o, cudaMemcpyDeviceToHost);
  cudaMemcpy(p, pairs, sizeof p, cudaMemcpyDeviceToHost);
  if (cudaMemcpy(isNan, nan, sizeof isNan, cudaMemcpyDeviceToHost) != cudaSuccess) {
    printf("kernel failed: %s\n", cudaGetErrorString(cudaGetLastError()));
    return 1;
  }
  const char* names[kFunctions] = {"hsin", "hcos", "hexp", "hexp10", "hlog2", "hlog"};
  for (int f = 0; f < kFunctions; ++f) {
    int wrong = 0;
    for (int i = 0; i < n; ++i) {
      float x = __half2float(h[i]);
      if (f >= 4 && x == 0.0f) continue;  // -inf
      if (!close(o[i * kFunctions + f], reference(f, x))) {
        if (wrong++ < 3) printf("  %s(%g) = %g, want %g\n", names[f], x, __half2float(o[i * kFunctions + f]),
                                reference(f, x));
      }
    }
    printf("%s: %d of %d wrong\n", names[f], wrong, n);
  }
  int wrongPairs = 0;
  for (int i = 0; i < n; ++i) {
    float x = __half2float(h[i]);
    wrongPairs += !close(p[i * 4 + 0], std::sin(x)) + !close(p[i * 4 + 1], std::sin(-x)) +
                  !close(p[i * 4 + 2], std::exp(x)) + !close(p[i * 4 + 3], std::exp(-x));
  }
  printf("h2sin, h2exp: %d of %d wrong\n", wrongPairs, 4 * n);
  int nanWrong = 0;
  for (int i = 0; i < n; ++i) nanWrong += isNan[i] != (__half2float(h[i]) == 0.0f ? 7 : 0);  // (x / x: NaN at 0 only)
  printf("__hisnan: %d of %d wrong\n", nanWrong, n);

  const float values[4] = {1.0f, -2.0f, 1.0e6f, 1.0f / 3.0f};
  float* packIn;
  unsigned* packOut;
  unsigned packed[6];
  cudaMalloc(&packIn, sizeof values);
  cudaMalloc(&packOut, sizeof packed);
  cudaMemcpy(packIn, values, sizeof values, cudaMemcpyHostToDevice);
  packs<<<1, 1>>>(packIn, packOut);
  if (cudaMemcpy(packed, packOut, sizeof packed, cudaMemcpyDeviceToHost) != cudaSuccess) {
    printf("packs failed\n");
    return 1;
  }
  // {1, -2}: f16 3c00 c000, bf16 3f80 c000; relu+satfinite {-2, 1e6}: 0 7bff;
  // toward zero {1e6, 1/3}: 7bff 3555; satfinite bf16 {inf, 1/3}: 7f7f 3eab; relu(-2): 0
  for (unsigned p : packed) printf("%08x ", p);
  printf("\n");
  return 0;
}
