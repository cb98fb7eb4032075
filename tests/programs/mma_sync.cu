// build: -arch=sm_80
// mma.sync and ldmatrix in inline PTX, with the fragment layouts of the PTX
// ISA: m16n8k16 f16 x f16 + f32 with fragments built by hand, the same with
// A loaded by ldmatrix.x4 and B by ldmatrix.x2.trans from shared memory, and
// m8n8k4 f64. Checked against the host; no races.
#include <cstdio>
#include <cuda_fp16.h>

__device__ unsigned pack(half lo, half hi) {
  half2 h = __halves2half2(lo, hi);
  return *reinterpret_cast<unsigned*>(&h);
}

__device__ void mma16816(const unsigned* a, const unsigned* b, float* d) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
      "{%10,%11,%12,%13};"
      : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(1.0f), "f"(1.0f), "f"(1.0f),
        "f"(1.0f));
}

// D (16x8, row-major) = A (16x16 row-major) * B (16x8 row-major) + 1.
__device__ void storeD(float* out, const float* d) {
  int g = threadIdx.x >> 2, t = threadIdx.x & 3;
  for (int i = 0; i < 4; ++i) out[(g + 8 * (i >> 1)) * 8 + t * 2 + (i & 1)] = d[i];
}

__global__ void byHand(const half* A, const half* B, float* out) {
  int g = threadIdx.x >> 2, t = threadIdx.x & 3;
  unsigned a[4], b[2];
  for (int i = 0; i < 8; i += 2) {
    int r = g + 8 * ((i >> 1) & 1), c = t * 2 + 8 * (i >> 2);
    a[i / 2] = pack(A[r * 16 + c], A[r * 16 + c + 1]);
  }
  for (int i = 0; i < 4; i += 2) {
    int k = t * 2 + 8 * (i >> 1);
    b[i / 2] = pack(B[k * 8 + g], B[(k + 1) * 8 + g]);
  }
  float d[4];
  mma16816(a, b, d);
  storeD(out, d);
}

__global__ void byLdmatrix(const half* A, const half* B, float* out) {
  __shared__ __align__(16) half sa[16 * 16], sb[16 * 8];
  for (int i = threadIdx.x; i < 256; i += 32) sa[i] = A[i];
  for (int i = threadIdx.x; i < 128; i += 32) sb[i] = B[i];
  __syncwarp();
  int lane = threadIdx.x;
  unsigned a[4], b[2];
  unsigned rowA = unsigned(__cvta_generic_to_shared(&sa[(lane % 16) * 16 + (lane / 16) * 8]));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
               : "=r"(a[0]), "=r"(a[1]), "=r"(a[2]), "=r"(a[3]) : "r"(rowA));
  unsigned rowB = unsigned(__cvta_generic_to_shared(&sb[(lane % 16) * 8]));
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0,%1}, [%2];" : "=r"(b[0]), "=r"(b[1]) : "r"(rowB));
  float d[4];
  mma16816(a, b, d);
  storeD(out, d);
}

// D (8x8) = A (8x4 row-major) * B (4x8 row-major) + 0.
__global__ void doubles(const double* A, const double* B, double* out) {
  int g = threadIdx.x >> 2, t = threadIdx.x & 3;
  double d0, d1;
  asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%4,%5};"
               : "=d"(d0), "=d"(d1) : "d"(A[g * 4 + t]), "d"(B[t * 8 + g]), "d"(0.0), "d"(0.0));
  out[g * 8 + t * 2] = d0;
  out[g * 8 + t * 2 + 1] = d1;
}

int main() {
  half hA[256], hB[128];
  float fA[256], fB[128], ref[128], got[128];
  for (int i = 0; i < 256; ++i) { fA[i] = float((i * 7) % 11 - 5); hA[i] = __float2half(fA[i]); }
  for (int i = 0; i < 128; ++i) { fB[i] = float((i * 5) % 9 - 4); hB[i] = __float2half(fB[i]); }
  for (int r = 0; r < 16; ++r)
    for (int c = 0; c < 8; ++c) {
      float s = 1.0f;
      for (int k = 0; k < 16; ++k) s += fA[r * 16 + k] * fB[k * 8 + c];
      ref[r * 8 + c] = s;
    }
  half *dA, *dB;
  float* dOut;
  cudaMalloc(&dA, sizeof hA);
  cudaMalloc(&dB, sizeof hB);
  cudaMalloc(&dOut, sizeof got);
  cudaMemcpy(dA, hA, sizeof hA, cudaMemcpyHostToDevice);
  cudaMemcpy(dB, hB, sizeof hB, cudaMemcpyHostToDevice);
  int bad = 0;
  byHand<<<1, 32>>>(dA, dB, dOut);
  cudaMemcpy(got, dOut, sizeof got, cudaMemcpyDeviceToHost);
  int e = 0;
  for (int i = 0; i < 128; ++i) e += got[i] != ref[i];
  printf("mma m16n8k16 f16 (fragments by hand): %s\n", e ? "MISMATCH" : "ok");
  bad += e;
  cudaMemset(dOut, 0, sizeof got);
  byLdmatrix<<<1, 32>>>(dA, dB, dOut);
  cudaMemcpy(got, dOut, sizeof got, cudaMemcpyDeviceToHost);
  e = 0;
  for (int i = 0; i < 128; ++i) e += got[i] != ref[i];
  printf("mma m16n8k16 f16 (ldmatrix x4, x2.trans): %s\n", e ? "MISMATCH" : "ok");
  bad += e;

  double xA[32], xB[32], xr[64], xg[64];
  for (int i = 0; i < 32; ++i) { xA[i] = 0.5 * (i % 7) - 1; xB[i] = 0.25 * (i % 5); }
  for (int r = 0; r < 8; ++r)
    for (int c = 0; c < 8; ++c) {
      double s = 0;
      for (int k = 0; k < 4; ++k) s += xA[r * 4 + k] * xB[k * 8 + c];
      xr[r * 8 + c] = s;
    }
  double *dxA, *dxB, *dxOut;
  cudaMalloc(&dxA, sizeof xA);
  cudaMalloc(&dxB, sizeof xB);
  cudaMalloc(&dxOut, sizeof xg);
  cudaMemcpy(dxA, xA, sizeof xA, cudaMemcpyHostToDevice);
  cudaMemcpy(dxB, xB, sizeof xB, cudaMemcpyHostToDevice);
  doubles<<<1, 32>>>(dxA, dxB, dxOut);
  cudaMemcpy(xg, dxOut, sizeof xg, cudaMemcpyDeviceToHost);
  e = 0;
  for (int i = 0; i < 64; ++i) e += xg[i] != xr[i];
  printf("mma m8n8k4 f64: %s\n", e ? "MISMATCH" : "ok");
  bad += e;
  printf("%s\n", bad ? "FAIL" : "PASS");
  return bad ? 1 : 0;
}
