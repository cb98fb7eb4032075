// cuBLASLt's matmul on predatar's own libcublasLt (src/libraries/cublasLt):
// D = alpha op(A) op(B) + beta C with A transposed and C apart from D; the
// bias, ReLU and GELU epilogues; half operands in float compute, two
// matrices at strides; descriptors in the program's own storage (the Init
// forms); each checked against loops on the host. A row-major layout is
// refused by name (the report lists it, predatar exits 3), and the program
// goes on. And a race: a kernel on another stream reads D (line 23).
#include <cublasLt.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstdio>
#include <vector>

#define CHECK(call)                                           \
  do {                                                        \
    int e_ = int(call);                                       \
    if (e_ != 0) { printf("%s: %d\n", #call, e_); return 1; } \
  } while (0)

static const char* yes(bool b) { return b ? "yes" : "no"; }

__global__ void sum(const float* x, float* out, int n) { if (threadIdx.x < n) atomicAdd(out, x[threadIdx.x]); }

static float gelu(float x) { return 0.5f * x * (1 + std::tanh(0.7978845608f * (x + 0.044715f * x * x * x))); }

template <class T>
static T* device(const std::vector<T>& host) {
  T* d = nullptr;
  cudaMalloc(&d, host.size() * sizeof(T));
  cudaMemcpy(d, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice);
  return d;
}

// One f32 matmul, m x n = op(A) B with op(A) = A^T (A is k x m), through
// descriptors created by the library; `epilogue` with a bias per row.
static int f32(cublasLtHandle_t lt, cublasLtEpilogue_t epilogue, float beta, const char* name) {
  const int m = 5, n = 4, k = 3;
  std::vector<float> A(k * m), B(k * n), C(m * n), D(m * n, -7), bias(m);
  for (int i = 0; i < k * m; ++i) A[i] = float(i % 5) - 2;
  for (int i = 0; i < k * n; ++i) B[i] = float(i % 3) + 0.5f;
  for (int i = 0; i < m * n; ++i) C[i] = float(i) * 0.25f;
  for (int i = 0; i < m; ++i) bias[i] = float(i) - 2.5f;
  float *dA = device(A), *dB = device(B), *dC = device(C), *dD = device(D), *dBias = device(bias);
  cublasLtMatmulDesc_t desc;
  cublasLtMatrixLayout_t la, lb, lc, ld;
  CHECK(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  cublasOperation_t t = CUBLAS_OP_T;
  CHECK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &t, sizeof t));
  CHECK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, sizeof epilogue));
  CHECK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &dBias, sizeof dBias));
  CHECK(cublasLtMatrixLayoutCreate(&la, CUDA_R_32F, k, m, k));
  CHECK(cublasLtMatrixLayoutCreate(&lb, CUDA_R_32F, k, n, k));
  CHECK(cublasLtMatrixLayoutCreate(&lc, CUDA_R_32F, m, n, m));
  CHECK(cublasLtMatrixLayoutCreate(&ld, CUDA_R_32F, m, n, m));
  const float alpha = 2;
  CHECK(cublasLtMatmul(lt, desc, &alpha, dA, la, dB, lb, &beta, dC, lc, dD, ld, nullptr, nullptr, 0, 0));
  CHECK(cudaMemcpy(D.data(), dD, D.size() * sizeof(float), cudaMemcpyDeviceToHost));
  bool ok = true;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) {
      float s = 0;
      for (int l = 0; l < k; ++l) s += A[l + i * k] * B[l + j * k];
      float x = alpha * s + beta * C[i + j * m];
      if (epilogue & CUBLASLT_EPILOGUE_BIAS) x += bias[i];
      if (epilogue & CUBLASLT_EPILOGUE_RELU) x = x > 0 ? x : 0;
      if (epilogue & CUBLASLT_EPILOGUE_GELU) x = gelu(x);
      ok &= std::fabs(D[i + j * m] - x) < 1e-4f * (1 + std::fabs(x));
    }
  printf("%s: %s\n", name, yes(ok));
  for (auto l : {la, lb, lc, ld}) CHECK(cublasLtMatrixLayoutDestroy(l));
  CHECK(cublasLtMatmulDescDestroy(desc));
  for (void* p : {(void*)dA, (void*)dB, (void*)dC, (void*)dD, (void*)dBias}) CHECK(cudaFree(p));
  return 0;
}

// Two half matmuls at strides, in float compute, C = D (in place, beta 1),
// with descriptors in the program's storage and the heuristic's algorithm.
static int halfBatch(cublasLtHandle_t lt) {
  const int m = 4, n = 3, k = 8, batch = 2;
  std::vector<__half> A(m * k * batch), B(k * n * batch), D(m * n * batch);
  for (int i = 0; i < m * k * batch; ++i) A[i] = __float2half(float(i % 7) * 0.5f - 1);
  for (int i = 0; i < k * n * batch; ++i) B[i] = __float2half(float(i % 4) - 1.5f);
  for (int i = 0; i < m * n * batch; ++i) D[i] = __float2half(float(i % 3));
  std::vector<__half> D0 = D;
  __half *dA = device(A), *dB = device(B), *dD = device(D);
  cublasLtMatmulDescOpaque_t desc;
  cublasLtMatrixLayoutOpaque_t la, lb, ld;
  cublasLtMatmulPreferenceOpaque_t pref;
  CHECK(cublasLtMatmulDescInit(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  CHECK(cublasLtMatrixLayoutInit(&la, CUDA_R_16F, m, k, m));
  CHECK(cublasLtMatrixLayoutInit(&lb, CUDA_R_16F, k, n, k));
  CHECK(cublasLtMatrixLayoutInit(&ld, CUDA_R_16F, m, n, m));
  CHECK(cublasLtMatmulPreferenceInit(&pref));
  int32_t count = batch;
  int64_t strides[3] = {m * k, k * n, m * n};
  cublasLtMatrixLayout_t layouts[3] = {&la, &lb, &ld};
  for (int i = 0; i < 3; ++i) {
    CHECK(cublasLtMatrixLayoutSetAttribute(layouts[i], CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof count));
    CHECK(cublasLtMatrixLayoutSetAttribute(layouts[i], CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &strides[i],
                                           sizeof strides[i]));
  }
  size_t workspace = 1 << 20;
  CHECK(cublasLtMatmulPreferenceSetAttribute(&pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace,
                                             sizeof workspace));
  cublasLtMatmulHeuristicResult_t heuristic;
  int found = 0;
  CHECK(cublasLtMatmulAlgoGetHeuristic(lt, &desc, &la, &lb, &ld, &ld, &pref, 1, &heuristic, &found));
  const float alpha = 1, beta = 1;
  CHECK(cublasLtMatmul(lt, &desc, &alpha, dA, &la, dB, &lb, &beta, dD, &ld, dD, &ld, &heuristic.algo, nullptr, 0,
                       0));
  CHECK(cudaMemcpy(D.data(), dD, D.size() * sizeof(__half), cudaMemcpyDeviceToHost));
  bool ok = found == 1 && heuristic.state == CUBLAS_STATUS_SUCCESS;
  for (int b = 0; b < batch; ++b)
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < m; ++i) {
        float s = __half2float(D0[b * m * n + i + j * m]);
        for (int l = 0; l < k; ++l)
          s += __half2float(A[b * m * k + i + l * m]) * __half2float(B[b * k * n + l + j * k]);
        ok &= std::fabs(__half2float(D[b * m * n + i + j * m]) - s) < 1e-2f * (1 + std::fabs(s));
      }
  printf("half, 2 at strides, in place, Init descriptors: %s (heuristic: %d)\n", yes(ok), found);
  // A row-major layout: refused by name, and the program goes on.
  cublasLtOrder_t row = CUBLASLT_ORDER_ROW;
  int refused = cublasLtMatrixLayoutSetAttribute(&la, CUBLASLT_MATRIX_LAYOUT_ORDER, &row, sizeof row);
  printf("row-major layout: %d\n", refused);
  for (void* p : {(void*)dA, (void*)dB, (void*)dD}) CHECK(cudaFree(p));
  return 0;
}

// The race: the matmul on s1 writes D while sum on s2 reads it.
static int race(cublasLtHandle_t lt) {
  std::vector<float> one(32, 1);
  float *a = device(one), *d = device(one), *out = device(std::vector<float>(1));
  cublasLtMatmulDesc_t desc;
  cublasLtMatrixLayout_t la, lb, ld;
  CHECK(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  CHECK(cublasLtMatrixLayoutCreate(&la, CUDA_R_32F, 32, 1, 32));
  CHECK(cublasLtMatrixLayoutCreate(&lb, CUDA_R_32F, 1, 1, 1));
  CHECK(cublasLtMatrixLayoutCreate(&ld, CUDA_R_32F, 32, 1, 32));
  cudaStream_t s1, s2;
  CHECK(cudaStreamCreate(&s1));
  CHECK(cudaStreamCreate(&s2));
  const float alpha = 1, beta = 0;
  CHECK(cublasLtMatmul(lt, desc, &alpha, a, la, a, lb, &beta, d, ld, d, ld, nullptr, nullptr, 0, s1));
  sum<<<1, 32, 0, s2>>>(d, out, 32);
  CHECK(cudaDeviceSynchronize());
  for (auto l : {la, lb, ld}) CHECK(cublasLtMatrixLayoutDestroy(l));
  CHECK(cublasLtMatmulDescDestroy(desc));
  for (void* p : {(void*)a, (void*)d, (void*)out}) CHECK(cudaFree(p));
  return 0;
}

int main() {
  cublasLtHandle_t lt;
  CHECK(cublasLtCreate(&lt));
  if (f32(lt, CUBLASLT_EPILOGUE_DEFAULT, 0.5f, "f32, A transposed, C apart from D") ||
      f32(lt, CUBLASLT_EPILOGUE_RELU_BIAS, 0, "f32, bias and ReLU") ||
      f32(lt, CUBLASLT_EPILOGUE_GELU_BIAS, 1, "f32, bias and GELU") || halfBatch(lt) || race(lt))
    return 1;
  CHECK(cublasLtDestroy(lt));
  printf("done\n");
  return 0;
}
