// build: -arch=sm_80
// Tensor cores through the wmma API (wmma.load / wmma.mma / wmma.store):
// f16 x f16 + f32 (m16n16k16, from global and from shared memory, with an
// element-wise scaling of the accumulator), u8 x u8 + s32 (m16n16k16),
// bf16 (m16n16k16), tf32 (m16n16k8) and f64 (m8n8k4). Each product is
// checked against the host. The last kernel has a marked race: two warps
// store their tiles to the same place.
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <mma.h>

using namespace nvcuda;

// D = alpha * (A * B + C): A row-major M x K, B column-major K x N, C/D row-major.
__global__ void gemmHalf(const half* a, const half* b, const float* c, float* d, float alpha) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
  wmma::load_matrix_sync(fa, a, 16);
  wmma::load_matrix_sync(fb, b, 16);
  wmma::load_matrix_sync(acc, c, 16, wmma::mem_row_major);
  wmma::mma_sync(acc, fa, fb, acc);
  for (int i = 0; i < acc.num_elements; ++i) acc.x[i] *= alpha;
  wmma::store_matrix_sync(d, acc, 16, wmma::mem_row_major);
}

// The same through shared memory, with a column-major store of D.
__global__ void gemmHalfShared(const half* a, const half* b, float* d) {
  __shared__ half sa[16 * 16], sb[16 * 16];
  __shared__ float sd[16 * 16];
  for (int i = threadIdx.x; i < 256; i += 32) { sa[i] = a[i]; sb[i] = b[i]; }
  __syncwarp();
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
  wmma::fill_fragment(acc, 0.0f);
  wmma::load_matrix_sync(fa, sa, 16);
  wmma::load_matrix_sync(fb, sb, 16);
  wmma::mma_sync(acc, fa, fb, acc);
  wmma::store_matrix_sync(sd, acc, 16, wmma::mem_col_major);
  __syncwarp();
  for (int i = threadIdx.x; i < 256; i += 32) d[i] = sd[i];
}

__global__ void gemmBytes(const unsigned char* a, const unsigned char* b, int* d) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, unsigned char, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, unsigned char, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, int> acc;
  wmma::fill_fragment(acc, 7);
  wmma::load_matrix_sync(fa, a, 16);
  wmma::load_matrix_sync(fb, b, 16);
  wmma::mma_sync(acc, fa, fb, acc);
  wmma::store_matrix_sync(d, acc, 16, wmma::mem_row_major);
}

__global__ void gemmBf16(const __nv_bfloat16* a, const __nv_bfloat16* b, float* d) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
  wmma::fill_fragment(acc, 0.0f);
  wmma::load_matrix_sync(fa, a, 16);
  wmma::load_matrix_sync(fb, b, 16);
  wmma::mma_sync(acc, fa, fb, acc);
  wmma::store_matrix_sync(d, acc, 16, wmma::mem_row_major);
}

__global__ void gemmTf32(const float* a, const float* b, float* d) {
  wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 8, float> acc;
  wmma::fill_fragment(acc, 0.0f);
  wmma::load_matrix_sync(fa, a, 8);
  wmma::load_matrix_sync(fb, b, 8);
  for (int i = 0; i < fa.num_elements; ++i) fa.x[i] = wmma::__float_to_tf32(fa.x[i]);
  for (int i = 0; i < fb.num_elements; ++i) fb.x[i] = wmma::__float_to_tf32(fb.x[i]);
  wmma::mma_sync(acc, fa, fb, acc);
  wmma::store_matrix_sync(d, acc, 16, wmma::mem_row_major);
}

__global__ void gemmDouble(const double* a, const double* b, double* d) {
  wmma::fragment<wmma::matrix_a, 8, 8, 4, double, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 8, 8, 4, double, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 8, 8, 4, double> acc;
  wmma::fill_fragment(acc, 1.0);
  wmma::load_matrix_sync(fa, a, 4);
  wmma::load_matrix_sync(fb, b, 4);
  wmma::mma_sync(acc, fa, fb, acc);
  wmma::store_matrix_sync(d, acc, 8, wmma::mem_row_major);
}

// Two warps store to the same tile: a race between their stores.
__global__ void racyStore(float* d) {
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
  wmma::fill_fragment(acc, float(threadIdx.x / 32));
  wmma::store_matrix_sync(d, acc, 16, wmma::mem_row_major);
}

template <class T> T* upload(const T* host, size_t n) {
  T* dev;
  cudaMalloc(&dev, n * sizeof(T));
  cudaMemcpy(dev, host, n * sizeof(T), cudaMemcpyHostToDevice);
  return dev;
}
template <class T> void download(T* host, const T* dev, size_t n) {
  cudaMemcpy(host, dev, n * sizeof(T), cudaMemcpyDeviceToHost);
}

// Small integers: every product and sum below is exact in each type.
float value(int i, int j) { return float((i * 3 + j * 5) % 7 - 3); }

int checkFloat(const char* what, const float* got, const float* want, int n) {
  int bad = 0;
  for (int i = 0; i < n; ++i) bad += got[i] != want[i];
  printf("%s: %s\n", what, bad ? "MISMATCH" : "ok");
  return bad;
}

int main() {
  const int n = 16;
  half ha[n * n], hb[n * n];
  float fa[n * n], fb[n * n], fc[n * n], ref[n * n], got[n * n];
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      fa[i * n + j] = value(i, j);   // A row-major
      fb[j * n + i] = value(j, i + 1);  // B column-major: B(k=i, col=j)
      fc[i * n + j] = float(i - j);
      ha[i * n + j] = __float2half(fa[i * n + j]);
      hb[j * n + i] = __float2half(fb[j * n + i]);
    }
  int bad = 0;
  half *da = upload(ha, n * n), *db = upload(hb, n * n);
  float *dc = upload(fc, n * n), *dd;
  cudaMalloc(&dd, sizeof got);
  gemmHalf<<<1, 32>>>(da, db, dc, dd, 2.0f);
  download(got, dd, n * n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      float s = fc[i * n + j];
      for (int k = 0; k < n; ++k) s += fa[i * n + k] * fb[j * n + k];
      ref[i * n + j] = 2.0f * s;
    }
  bad += checkFloat("f16 m16n16k16 (global)", got, ref, n * n);

  gemmHalfShared<<<1, 32>>>(da, db, dd);
  download(got, dd, n * n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      float s = 0;
      for (int k = 0; k < n; ++k) s += fa[i * n + k] * fb[j * n + k];
      ref[j * n + i] = s;  // column-major store
    }
  bad += checkFloat("f16 m16n16k16 (shared, col-major D)", got, ref, n * n);

  unsigned char ua[n * n], ub[n * n];
  int ig[n * n];
  for (int i = 0; i < n * n; ++i) { ua[i] = (unsigned char)(200 + i % 50); ub[i] = (unsigned char)(i * 7 % 256); }
  unsigned char *dua = upload(ua, n * n), *dub = upload(ub, n * n);
  int* di;
  cudaMalloc(&di, sizeof ig);
  gemmBytes<<<1, 32>>>(dua, dub, di);
  download(ig, di, n * n);
  int ibad = 0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      int s = 7;
      for (int k = 0; k < n; ++k) s += ua[i * n + k] * ub[j * n + k];
      ibad += ig[i * n + j] != s;
    }
  printf("u8 m16n16k16: %s\n", ibad ? "MISMATCH" : "ok");
  bad += ibad;

  __nv_bfloat16 ba[n * n], bb[n * n];
  for (int i = 0; i < n * n; ++i) { ba[i] = __float2bfloat16(fa[i]); bb[i] = __float2bfloat16(fb[i]); }
  __nv_bfloat16 *dba = upload(ba, n * n), *dbb = upload(bb, n * n);
  gemmBf16<<<1, 32>>>(dba, dbb, dd);
  download(got, dd, n * n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      float s = 0;
      for (int k = 0; k < n; ++k) s += fa[i * n + k] * fb[j * n + k];
      ref[i * n + j] = s;
    }
  bad += checkFloat("bf16 m16n16k16", got, ref, n * n);

  float ta[16 * 8], tb[8 * 16];
  for (int i = 0; i < 16; ++i)
    for (int k = 0; k < 8; ++k) { ta[i * 8 + k] = value(i, k) + 0.5f; tb[i * 8 + k] = value(k, i) * 0.25f; }
  float *dta = upload(ta, 128), *dtb = upload(tb, 128);
  gemmTf32<<<1, 32>>>(dta, dtb, dd);
  download(got, dd, n * n);
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 16; ++j) {
      float s = 0;
      for (int k = 0; k < 8; ++k) s += ta[i * 8 + k] * tb[j * 8 + k];
      ref[i * 16 + j] = s;
    }
  bad += checkFloat("tf32 m16n16k8", got, ref, n * n);

  double xa[8 * 4], xb[4 * 8], xg[64];
  for (int i = 0; i < 32; ++i) { xa[i] = 0.5 * (i % 9) - 1.0; xb[i] = 0.25 * (i % 5); }
  double *dxa = upload(xa, 32), *dxb = upload(xb, 32), *dxd;
  cudaMalloc(&dxd, sizeof xg);
  gemmDouble<<<1, 32>>>(dxa, dxb, dxd);
  download(xg, dxd, 64);
  int xbad = 0;
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 8; ++j) {
      double s = 1.0;
      for (int k = 0; k < 4; ++k) s += xa[i * 4 + k] * xb[j * 4 + k];
      xbad += xg[i * 8 + j] != s;
    }
  printf("f64 m8n8k4: %s\n", xbad ? "MISMATCH" : "ok");
  bad += xbad;

  racyStore<<<1, 64>>>(dd);
  cudaDeviceSynchronize();
  printf("%s\n", bad ? "FAIL" : "PASS");
  return bad ? 1 : 0;
}
