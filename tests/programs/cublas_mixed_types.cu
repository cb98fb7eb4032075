// cuBLAS's mixed-type routines: cublasGemmEx (f16, bf16, f32, f64 and int8
// operands; 16F/32F/64F/32I compute types; host and device scalars),
// their strided and pointer-array batches, cublasHgemm and its batches and
// cublasDotEx, each checked against the same product
// computed on the host.
#include <cmath>
#include <cstdio>
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#define CHECK(call)                                                                      \
  do {                                                                                   \
    auto s_ = (call);                                                                    \
    if (int(s_) != 0) { printf("%s: status %d\n", #call, int(s_)); return 1; }         \
  } while (0)

const int M = 24, N = 20, K = 36;

// A[i][l] and B[l][j] as small exact values (column-major), the same in every type.
float a(int i, int l) { return float((i * 3 + l * 5) % 9 - 4) / 4.0f; }
float b(int l, int j) { return float((l * 7 + j * 2) % 11 - 5) / 8.0f; }
float want(int i, int j) {  // exact in float: sums of multiples of 1/32
  float s = 0;
  for (int l = 0; l < K; ++l) s += a(i, l) * b(l, j);
  return s;
}

template <class T, class Convert>
void* upload(Convert convert, bool isA) {
  static T host[M * K > K * N ? M * K : K * N];
  int rows = isA ? M : K, cols = isA ? K : N;
  for (int c = 0; c < cols; ++c)
    for (int r = 0; r < rows; ++r) host[r + c * rows] = convert(isA ? a(r, c) : b(r, c));
  void* device;
  cudaMalloc(&device, sizeof(T) * rows * cols);
  cudaMemcpy(device, host, sizeof(T) * rows * cols, cudaMemcpyHostToDevice);
  return device;
}

// Largest |C - want| over C (read back as `T`, converted by `toFloat`).
template <class T, class ToFloat>
float error(void* C, ToFloat toFloat) {
  static T host[M * N];
  cudaMemcpy(host, C, sizeof host, cudaMemcpyDeviceToHost);
  float worst = 0;
  for (int j = 0; j < N; ++j)
    for (int i = 0; i < M; ++i) worst = std::fmax(worst, std::fabs(toFloat(host[i + j * M]) - want(i, j)));
  return worst;
}

int main() {
  cublasHandle_t h;
  CHECK(cublasCreate(&h));
  void *C32, *C16, *C64, *Ci;
  cudaMalloc(&C32, M * N * 4);
  cudaMalloc(&C16, M * N * 2);
  cudaMalloc(&C64, M * N * 8);
  cudaMalloc(&Ci, M * N * 4);
  auto toHalf = [](float v) { return __float2half(v); };
  auto toBf16 = [](float v) { return __float2bfloat16(v); };
  void *A16 = upload<__half>(toHalf, true), *B16 = upload<__half>(toHalf, false);
  void *Abf = upload<__nv_bfloat16>(toBf16, true), *Bbf = upload<__nv_bfloat16>(toBf16, false);
  auto same = [](float v) { return v; };
  void *A32 = upload<float>(same, true), *B32 = upload<float>(same, false);
  auto toDouble = [](float v) { return double(v); };
  void *A64 = upload<double>(toDouble, true), *B64 = upload<double>(toDouble, false);
  // int8: a * 4 and b * 8 are integers (so C is A B * 32)
  void* A8 = upload<signed char>([](float v) { return (signed char)(v * 4); }, true);
  void* B8 = upload<signed char>([](float v) { return (signed char)(v * 8); }, false);

  float one = 1, zero = 0;
  CHECK(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &one, A16, CUDA_R_16F, M, B16, CUDA_R_16F, K, &zero, C32,
                     CUDA_R_32F, M, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  printf("f16 x f16 -> f32: error %g\n", error<float>(C32, same));
  CHECK(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &one, Abf, CUDA_R_16BF, M, Bbf, CUDA_R_16BF, K, &zero, C16,
                     CUDA_R_16BF, M, CUBLAS_COMPUTE_32F_FAST_16BF, CUBLAS_GEMM_DEFAULT));
  printf("bf16 x bf16 -> bf16: error %g\n",
         error<__nv_bfloat16>(C16, [](__nv_bfloat16 v) { return __bfloat162float(v); }));
  __half hOne = __float2half(1.0f), hZero = __float2half(0.0f);
  CHECK(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &hOne, A16, CUDA_R_16F, M, B16, CUDA_R_16F, K, &hZero, C16,
                     CUDA_R_16F, M, CUBLAS_COMPUTE_16F, CUBLAS_GEMM_DEFAULT));
  printf("f16 x f16 -> f16 (16F): error %g\n", error<__half>(C16, [](__half v) { return __half2float(v); }));
  CHECK(cublasHgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &hOne, static_cast<__half*>(A16), M,
                    static_cast<__half*>(B16), K, &hZero, static_cast<__half*>(C16), M));
  printf("cublasHgemm: error %g\n", error<__half>(C16, [](__half v) { return __half2float(v); }));
  double dOne = 1, dHalf = 0.5;
  CHECK(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &dOne, A64, CUDA_R_64F, M, B64, CUDA_R_64F, K, &zero, C64,
                     CUDA_R_64F, M, CUBLAS_COMPUTE_64F, CUBLAS_GEMM_DEFAULT));
  printf("f64: error %g\n", error<double>(C64, [](double v) { return float(v); }));
  // beta: C = 1 * A B + 0.5 * C, C holding A B already: 1.5 A B, halved back on the host.
  CHECK(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &dOne, A64, CUDA_R_64F, M, B64, CUDA_R_64F, K, &dHalf, C64,
                     CUDA_R_64F, M, CUBLAS_COMPUTE_64F, CUBLAS_GEMM_DEFAULT));
  printf("f64 with beta: error %g\n", error<double>(C64, [](double v) { return float(v / 1.5); }));
  int iOne = 1, iZero = 0;
  CHECK(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &iOne, A8, CUDA_R_8I, M, B8, CUDA_R_8I, K, &iZero, Ci,
                     CUDA_R_32I, M, CUBLAS_COMPUTE_32I, CUBLAS_GEMM_DEFAULT));
  printf("int8 x int8 -> int32: error %g\n", error<int>(Ci, [](int v) { return float(v) / 32.0f; }));
  // alpha and beta in device memory (CUBLAS_POINTER_MODE_DEVICE).
  float* dOneP;
  cudaMalloc(&dOneP, sizeof(float));
  cudaMemcpy(dOneP, &one, sizeof one, cudaMemcpyHostToDevice);
  float* dZeroP;
  cudaMalloc(&dZeroP, sizeof(float));
  cudaMemcpy(dZeroP, &zero, sizeof zero, cudaMemcpyHostToDevice);
  CHECK(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_DEVICE));
  CHECK(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, dOneP, A32, CUDA_R_32F, M, B32, CUDA_R_32F, K, dZeroP, C32,
                     CUDA_R_32F, M, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  printf("f32, device scalars: error %g\n", error<float>(C32, same));
  CHECK(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST));

  // Batches of three: C_s = (s + 1) A B, as strided matrices (A and B with
  // stride 0, so every s reads the same) and as arrays of device pointers.
  const int batch = 3;
  void* Cs;
  cudaMalloc(&Cs, M * N * 2 * batch);
  __half scales[batch] = {__float2half(1.0f), __float2half(2.0f), __float2half(3.0f)};
  for (int s = 0; s < batch; ++s)  // one call per scale: alpha is one value for the whole batch
    CHECK(cublasHgemmStridedBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &scales[s], static_cast<__half*>(A16), M,
                                    0, static_cast<__half*>(B16), K, 0, &hZero,
                                    static_cast<__half*>(Cs) + s * M * N, M, M * N, 1));
  CHECK(cublasHgemmStridedBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &hOne, static_cast<__half*>(A16), M, 0,
                                  static_cast<__half*>(B16), K, 0, &hOne, static_cast<__half*>(Cs), M, M * N, batch));
  for (int s = 0; s < batch; ++s)  // C_s = (s + 2) A B now
    printf("cublasHgemmStridedBatched, matrix %d: error %g\n", s,
           error<__half>(static_cast<__half*>(Cs) + s * M * N,
                         [s](__half v) { return __half2float(v) / float(s + 2); }));
  CHECK(cublasGemmStridedBatchedEx(h, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &one, A16, CUDA_R_16F, M, 0, B16,
                                   CUDA_R_16F, K, 0, &zero, C32, CUDA_R_32F, M, 0, 1, CUBLAS_COMPUTE_32F,
                                   CUBLAS_GEMM_DEFAULT));
  printf("cublasGemmStridedBatchedEx: error %g\n", error<float>(C32, same));
  const void *as[batch] = {A32, A32, A32}, *bs[batch] = {B32, B32, B32};
  void* cs[batch];
  for (int s = 0; s < batch; ++s) cudaMalloc(&cs[s], M * N * 4);
  void *asDevice, *bsDevice, *csDevice;  // cuBLAS takes the pointer arrays in device memory
  cudaMalloc(&asDevice, sizeof as);
  cudaMalloc(&bsDevice, sizeof bs);
  cudaMalloc(&csDevice, sizeof cs);
  cudaMemcpy(asDevice, as, sizeof as, cudaMemcpyHostToDevice);
  cudaMemcpy(bsDevice, bs, sizeof bs, cudaMemcpyHostToDevice);
  cudaMemcpy(csDevice, cs, sizeof cs, cudaMemcpyHostToDevice);
  CHECK(cublasGemmBatchedEx(h, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &one, static_cast<const void**>(asDevice),
                            CUDA_R_32F, M, static_cast<const void**>(bsDevice), CUDA_R_32F, K, &zero,
                            static_cast<void**>(csDevice), CUDA_R_32F, M, batch, CUBLAS_COMPUTE_32F,
                            CUBLAS_GEMM_DEFAULT));
  for (int s = 0; s < batch; ++s) printf("cublasGemmBatchedEx, matrix %d: error %g\n", s, error<float>(cs[s], same));
  const __half *ahs[batch] = {static_cast<__half*>(A16)}, *bhs[batch] = {static_cast<__half*>(B16)};
  __half* chs[batch] = {static_cast<__half*>(C16)};
  cudaMemcpy(asDevice, ahs, sizeof(void*), cudaMemcpyHostToDevice);
  cudaMemcpy(bsDevice, bhs, sizeof(void*), cudaMemcpyHostToDevice);
  cudaMemcpy(csDevice, chs, sizeof(void*), cudaMemcpyHostToDevice);
  CHECK(cublasHgemmBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &hOne, static_cast<const __half**>(asDevice), M,
                           static_cast<const __half**>(bsDevice), K, &hZero, static_cast<__half**>(csDevice), M, 1));
  printf("cublasHgemmBatched: error %g\n", error<__half>(C16, [](__half v) { return __half2float(v); }));

  // Dot of column 0 of A (f16) with column 0 of B (f16), in f32 and f64.
  float dot = 0;
  CHECK(cublasDotEx(h, M < K ? M : K, A16, CUDA_R_16F, 1, B16, CUDA_R_16F, 1, &dot, CUDA_R_32F, CUDA_R_32F));
  float hostDot = 0;
  for (int i = 0; i < (M < K ? M : K); ++i) hostDot += a(i, 0) * b(i, 0);
  printf("dot f16 -> f32: %g (host %g)\n", dot, hostDot);
  double dDot = 0;
  CHECK(cublasDotEx(h, M, A64, CUDA_R_64F, 1, A64, CUDA_R_64F, 1, &dDot, CUDA_R_64F, CUDA_R_64F));
  double hostSquares = 0;
  for (int i = 0; i < M; ++i) hostSquares += double(a(i, 0)) * a(i, 0);
  printf("dot f64: %g (host %g)\n", dDot, hostSquares);
  CHECK(cublasDestroy(h));
  return 0;
}
