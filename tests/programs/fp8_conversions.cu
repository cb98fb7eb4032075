// build: -arch=sm_90
// cuda_fp8.h's conversions, which sm_89+ code does with cvt:
// cvt.rn.satfinite.{e4m3x2,e5m2x2}.f32 d, a, b and .f16x2 (to fp8), and
// cvt.rn.f16x2.{e4m3x2,e5m2x2} (back). Each device result must equal the
// header's own host conversion, bit for bit: rounding to nearest even,
// saturation at 448 / 57344, NaN, subnormals, signed zero.
#include <cmath>
#include <cstdio>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

__global__ void toFp8(const float* in, int n, unsigned char* e4, unsigned char* e5, unsigned short* e4pair,
                      unsigned short* e5halves, float* back4, float* back5) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = in[i], w = in[n - 1 - i];
  __nv_fp8_e4m3 a(v);
  __nv_fp8_e5m2 b(v);
  e4[i] = a.__x;
  e5[i] = b.__x;
  e4pair[i] = __nv_fp8x2_e4m3(make_float2(v, w)).__x;
  e5halves[i] = __nv_fp8x2_e5m2(__floats2half2_rn(v, w)).__x;
  back4[i] = float(a);
  back5[i] = float(b);
}

bool sameFloat(float a, float b) {
  return (std::isnan(a) && std::isnan(b)) || (a == b && std::signbit(a) == std::signbit(b));
}

int main() {
  // Edge cases, then a sweep of magnitudes with their negatives.
  float edge[] = {0.0f, -0.0f, 1.0f, -1.0f, 448.0f, 449.0f, 464.0f, 480.0f, 500.0f, 57344.0f, 61440.0f, 65000.0f,
                  1e6f, INFINITY, -INFINITY, NAN, 0.0019531f, 0.0009765f, 0.00048828f, 1.5e-5f, 3e-8f,
                  1.0625f, 1.1875f, 1.125f, 0.3333f, -2.75f, 240.0f, 248.0f, 256.0f, 272.0f};
  const int nEdge = sizeof edge / sizeof edge[0];
  const int n = nEdge + 2 * 200;
  float h[n];
  for (int i = 0; i < nEdge; ++i) h[i] = edge[i];
  for (int i = 0; i < 200; ++i) {
    h[nEdge + 2 * i] = std::ldexp(1.0f + (i % 17) / 17.0f, i / 6 - 18);
    h[nEdge + 2 * i + 1] = -h[nEdge + 2 * i];
  }
  float *in, *back4, *back5;
  unsigned char *e4, *e5;
  unsigned short *e4pair, *e5halves;
  cudaMalloc(&in, sizeof h);
  cudaMalloc(&e4, n);
  cudaMalloc(&e5, n);
  cudaMalloc(&e4pair, n * 2);
  cudaMalloc(&e5halves, n * 2);
  cudaMalloc(&back4, n * 4);
  cudaMalloc(&back5, n * 4);
  cudaMemcpy(in, h, sizeof h, cudaMemcpyHostToDevice);
  toFp8<<<(n + 127) / 128, 128>>>(in, n, e4, e5, e4pair, e5halves, back4, back5);
  if (cudaGetLastError() != cudaSuccess) {
    printf("toFp8 failed to launch\n");
    return 1;
  }
  unsigned char g4[n], g5[n];
  unsigned short g4pair[n], g5halves[n];
  float gb4[n], gb5[n];
  cudaMemcpy(g4, e4, n, cudaMemcpyDeviceToHost);
  cudaMemcpy(g5, e5, n, cudaMemcpyDeviceToHost);
  cudaMemcpy(g4pair, e4pair, n * 2, cudaMemcpyDeviceToHost);
  cudaMemcpy(g5halves, e5halves, n * 2, cudaMemcpyDeviceToHost);
  cudaMemcpy(gb4, back4, n * 4, cudaMemcpyDeviceToHost);
  if (cudaMemcpy(gb5, back5, n * 4, cudaMemcpyDeviceToHost) != cudaSuccess) {
    printf("toFp8 failed\n");
    return 1;
  }
  int wrong[6] = {};
  for (int i = 0; i < n; ++i) {
    float v = h[i], w = h[n - 1 - i];
    __nv_fp8_e4m3 a(v);  // (the host conversion: cuda_fp8.hpp's software path)
    __nv_fp8_e5m2 b(v);
    if (g4[i] != a.__x && wrong[0]++ < 3) printf("  e4m3(%g): %02x, want %02x\n", v, g4[i], a.__x);
    if (g5[i] != b.__x && wrong[1]++ < 3) printf("  e5m2(%g): %02x, want %02x\n", v, g5[i], b.__x);
    unsigned short pair = __nv_fp8x2_e4m3(make_float2(v, w)).__x;
    if (g4pair[i] != pair && wrong[2]++ < 3) printf("  e4m3x2(%g, %g): %04x, want %04x\n", v, w, g4pair[i], pair);
    unsigned short halves = __nv_fp8x2_e5m2(__floats2half2_rn(v, w)).__x;
    if (g5halves[i] != halves && wrong[3]++ < 3)
      printf("  e5m2x2(half2 %g, %g): %04x, want %04x\n", v, w, g5halves[i], halves);
    if (!sameFloat(gb4[i], float(a)) && wrong[4]++ < 3)
      printf("  float(e4m3 %02x): %g, want %g\n", a.__x, gb4[i], float(a));
    if (!sameFloat(gb5[i], float(b)) && wrong[5]++ < 3)
      printf("  float(e5m2 %02x): %g, want %g\n", b.__x, gb5[i], float(b));
  }
  const char* names[6] = {"e4m3", "e5m2", "e4m3x2 from float2", "e5m2x2 from half2", "e4m3 to float", "e5m2 to float"};
  for (int k = 0; k < 6; ++k) printf("%s: %d of %d differ from the host conversion\n", names[k], wrong[k], n);
  return 0;
}
