#include <cstdint>
#include <cuda_fp16.h>
// 3D grid/blocks, warp votes, matching, f64 math and conversions.
extern "C" __global__ void index3d(int* out) {
  int bx = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  int tx = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  int id = bx * (blockDim.x * blockDim.y * blockDim.z) + tx;
  out[id] = threadIdx.x * 10000 + threadIdx.y * 1000 + threadIdx.z * 100 + blockIdx.x * 10 + blockIdx.y + blockIdx.z * 7;
}

extern "C" __global__ void votes(const int* in, unsigned* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = in[i];
  unsigned ballot = __ballot_sync(0xffffffffu, v > 10);
  int all = __all_sync(0xffffffffu, v >= 0);
  int any = __any_sync(0xffffffffu, v == 42);
  unsigned same = __match_any_sync(0xffffffffu, v & 3);
  out[i * 4 + 0] = ballot;
  out[i * 4 + 1] = all;
  out[i * 4 + 2] = any;
  out[i * 4 + 3] = same;
}

extern "C" __global__ void mathOps(const double* in, double* out, int* iout) {
  int i = threadIdx.x;
  double x = in[i];
  float f = (float)x;
  out[i * 6 + 0] = sqrt(x * x + 1.0);
  out[i * 6 + 1] = x / 3.0;
  out[i * 6 + 2] = (double)(f * 0.25f + 1.5f);
  out[i * 6 + 3] = fmin(x, 2.0) + fmax(x, -1.0);
  out[i * 6 + 4] = (double)__half2float(__float2half_rn(f));
  out[i * 6 + 5] = floor(x) + (double)(int64_t)(x * 1000.0);
  iout[i * 4 + 0] = (int)x;
  iout[i * 4 + 1] = __float2int_rn(f);
  iout[i * 4 + 2] = (int)(unsigned char)(i * 37);
  iout[i * 4 + 3] = __popc(i * 2654435761u) + __clz(i + 1) + (__brev(i) >> 28);
}

// Half precision arithmetic (f16 and f16x2).
extern "C" __global__ void halfOps(const float* in, float* out) {
  int i = threadIdx.x;
  __half x = __float2half(in[i]);
  __half y = __hadd(x, __float2half(1.5f));
  y = __hmul(y, x);
  y = __hfma(y, x, y);
  __half2 p = __halves2half2(x, y);
  p = __hadd2(p, p);
  p = __hmul2(p, __halves2half2(y, x));
  out[i * 5 + 0] = __half2float(y);
  out[i * 5 + 1] = __half2float(__low2half(p));
  out[i * 5 + 2] = __half2float(__high2half(p));
  out[i * 5 + 3] = __half2float(__hneg(__hmax(x, y)));
  out[i * 5 + 4] = __hlt(x, y) ? 1.f : 0.f;
}
