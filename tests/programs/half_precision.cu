// f16 and bf16 arithmetic, comparisons, conversions and atomics (cuda_fp16.h,
// cuda_bf16.h): scalar and packed (half2/bfloat162) operations, f16 and f16x2
// atomics on shared and global memory (atom.add.noftz.f16/.f16x2, atom.cas.b16).
#include <cstdio>
#include <cuda_fp16.h>
#include <cuda_bf16.h>

__global__ void halves(const float* in, float* out, __half* hsum, __nv_bfloat16* bsum, __half2* h2sum) {
  int t = threadIdx.x;
  __shared__ __half shared;
  if (t == 0) shared = __float2half(0.0f);
  __syncthreads();
  __half a = __float2half(in[t]), b = __float2half(0.5f);
  __nv_bfloat16 c = __float2bfloat16(in[t]), d = __float2bfloat16(2.0f);
  __half2 p = __floats2half2_rn(in[t], -in[t]);
  __nv_bfloat162 q = __floats2bfloat162_rn(in[t], 1.0f);
  float* o = out + t * 12;
  o[0] = __half2float(__hadd(a, b));
  o[1] = __half2float(__hmul(a, b));
  o[2] = __half2float(__hfma(a, b, b));
  o[3] = __half2float(__hsub(a, b)) + (__hlt(a, b) ? 100.0f : 0.0f);
  o[4] = __bfloat162float(__hadd(c, d));
  o[5] = __bfloat162float(__hmul(c, d));
  o[6] = __bfloat162float(__hadd(__hmul(c, d), d));
  __half2 p2 = __hmul2(p, __floats2half2_rn(2.0f, 3.0f));
  o[7] = __low2float(p2) + __high2float(p2);
  __nv_bfloat162 q2 = __hadd2(q, q);
  o[8] = __low2float(q2) * __high2float(q2);
  o[9] = __half2float(__hmax(a, __hneg(b))) + __half2float(__habs(__hneg(a)));
  o[10] = float(__half2int_rn(__hmul(a, __float2half(3.0f)))) + float(__half2uint_rz(a));
  o[11] = __half2float(__int2half_rn(t * 3)) + __bfloat162float(__int2bfloat16_rn(t));
  atomicAdd(&shared, __float2half(1.0f));
  atomicAdd(hsum, __float2half(0.25f));
  if (t == 31) *bsum = __hadd(c, d);  // (bf16 atomicAdd before sm_80 is a CAS loop with a plain read)
  atomicAdd(h2sum, __floats2half2_rn(1.0f, 2.0f));
  __syncthreads();
  if (t == 0) out[32 * 12] = __half2float(shared);
  if (t == 0) {  // 16-bit compare-and-swap: the second fails
    unsigned short* bits = reinterpret_cast<unsigned short*>(h2sum) + 2;
    unsigned short first = atomicCAS(bits, 0, 7), second = atomicCAS(bits, 0, 9);
    out[32 * 12 + 1] = first * 100 + second * 10 + *bits;
  }
}

int main() {
  const int threads = 32;
  float in[threads], out[threads * 12 + 2];
  for (int i = 0; i < threads; ++i) in[i] = 0.25f * i - 3.0f;
  float *din, *dout;
  __half* hsum;
  __nv_bfloat16* bsum;
  __half2* h2sum;
  cudaMalloc(&din, sizeof in);
  cudaMalloc(&dout, sizeof out);
  cudaMalloc(&hsum, sizeof(__half));
  cudaMalloc(&bsum, sizeof(__nv_bfloat16));
  cudaMalloc(&h2sum, 2 * sizeof(__half2));
  cudaMemset(hsum, 0, sizeof(__half));
  cudaMemset(bsum, 0, sizeof(__nv_bfloat16));
  cudaMemset(h2sum, 0, 2 * sizeof(__half2));
  cudaMemcpy(din, in, sizeof in, cudaMemcpyHostToDevice);
  halves<<<1, threads>>>(din, dout, hsum, bsum, h2sum);
  cudaError_t e = cudaMemcpy(out, dout, sizeof out, cudaMemcpyDeviceToHost);
  if (e != cudaSuccess) { printf("error %s\n", cudaGetErrorName(e)); return 1; }
  for (int t = 0; t < threads; t += 5) {
    printf("x=%g:", in[t]);
    for (int i = 0; i < 12; ++i) printf(" %g", out[t * 12 + i]);
    printf("\n");
  }
  __half h;
  __nv_bfloat16 b;
  __half2 h2;
  cudaMemcpy(&h, hsum, sizeof h, cudaMemcpyDeviceToHost);
  cudaMemcpy(&b, bsum, sizeof b, cudaMemcpyDeviceToHost);
  cudaMemcpy(&h2, h2sum, sizeof h2, cudaMemcpyDeviceToHost);
  printf("16-bit cas: %g\n", out[threads * 12 + 1]);
  printf("shared half sum %g, global half sum %g, bf16 store %g, half2 sum (%g, %g)\n", out[threads * 12],
         __half2float(h), __bfloat162float(b), __low2float(h2), __high2float(h2));
  return 0;
}
