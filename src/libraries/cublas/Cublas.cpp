// predatar's libcublas.so.13: the cuBLAS handle API and the level-1/2/3
// routines of CublasKernels.cu (gemv, gemm, axpy, copy, scal, dot, nrm2, asum, iamax,
// batched and strided-batched gemm, batched LU (getrf); single and double
// precision; batched least squares (gelsBatched), real and complex; and the
// mixed-type cublasGemmEx, its strided and pointer-array batches, and
// cublasDotEx: f16, bf16, f32, f64 and int8 operands; cublasHgemm and its
// batches), launched on the handle's stream so the detectors check
// their accesses like any kernel's. Results are those of a plain loop in
// order, so they may differ from NVIDIA's in the last bits (its order of
// summation differs). Everything else cuBLAS exports is refused by name
// (Stubs.cpp).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "cudart/runtime/Api.h"
#include "libraries/EmbeddedModule.h"
#include "libraries/cublas/ComputeTypes.h"
#include "libraries/Refusal.h"

namespace predatar::libraries {
extern const char kCublasKernelsPtx[];
}

namespace {

using namespace predatar::libraries;
using predatar::cudart::cudaSuccess;

enum cublasStatus : int {
  CUBLAS_STATUS_SUCCESS = 0,
  CUBLAS_STATUS_NOT_INITIALIZED = 1,
  CUBLAS_STATUS_INVALID_VALUE = 7,
  CUBLAS_STATUS_EXECUTION_FAILED = 13,
  CUBLAS_STATUS_NOT_SUPPORTED = 15,
};
constexpr int kVersion = 130100;  // CUBLAS_VERSION of CUDA 13.0's cuBLAS (13.1.0)
enum { CUBLAS_OP_N = 0, CUBLAS_OP_T = 1, CUBLAS_OP_C = 2 };
enum { CUBLAS_POINTER_MODE_HOST = 0, CUBLAS_POINTER_MODE_DEVICE = 1 };

EmbeddedModule& kernels() {
  static auto* module = new EmbeddedModule(
      kCublasKernelsPtx, {"predatar_cublas_sgemv", "predatar_cublas_dgemv", "predatar_cublas_sgemm",
                          "predatar_cublas_dgemm", "predatar_cublas_saxpy", "predatar_cublas_daxpy",
                          "predatar_cublas_sscal", "predatar_cublas_dscal", "predatar_cublas_sdot",
                          "predatar_cublas_ddot", "predatar_cublas_snrm2", "predatar_cublas_dnrm2",
                          "predatar_cublas_sasum", "predatar_cublas_dasum", "predatar_cublas_sgemm_batched",
                          "predatar_cublas_dgemm_batched", "predatar_cublas_sgemm_strided",
                          "predatar_cublas_dgemm_strided", "predatar_cublas_sgetrf_batched",
                          "predatar_cublas_dgetrf_batched", "predatar_cublas_gemm_ex", "predatar_cublas_dot_ex",
                          "predatar_cublas_sgels_batched", "predatar_cublas_dgels_batched",
                          "predatar_cublas_cgels_batched", "predatar_cublas_zgels_batched",
                          "predatar_cublas_copy", "predatar_cublas_isamax", "predatar_cublas_idamax"});
  return *module;
}

}  // namespace

struct cublasContext {
  cudaStream_t stream = nullptr;
  int pointerMode = CUBLAS_POINTER_MODE_HOST;
  int mathMode = 0;
};
using cublasHandle_t = cublasContext*;

namespace {

// A scalar argument as the kernels take it: a device pointer in device
// pointer mode, else its value (read here, as cuBLAS reads host scalars at
// the call).
template <class T>
struct Scalar {
  const T* pointer = nullptr;
  T value = 0;
  Scalar(cublasHandle_t h, const T* p) {
    if (h->pointerMode == CUBLAS_POINTER_MODE_DEVICE) pointer = p;
    else value = *p;
  }
};

// Real routines: CUBLAS_OP_C is CUBLAS_OP_T. -1: not an operation.
int transposed(int op) { return op == CUBLAS_OP_N ? 0 : op == CUBLAS_OP_T || op == CUBLAS_OP_C ? 1 : -1; }

cublasStatus launched(cudaError_t error) {
  return error == cudaSuccess ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_EXECUTION_FAILED;
}

template <class T>
cublasStatus gemv(const char* kernel, cublasHandle_t h, int trans, int m, int n, const T* alpha, const T* A, int lda,
                  const T* x, int incx, const T* beta, T* y, int incy) {
  if (h == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;
  int t = transposed(trans);
  if (t < 0 || m < 0 || n < 0 || lda < std::max(1, m) || incx == 0 || incy == 0 || !alpha || !beta)
    return CUBLAS_STATUS_INVALID_VALUE;
  if (m == 0 || n == 0) return CUBLAS_STATUS_SUCCESS;
  Scalar<T> a(h, alpha), b(h, beta);
  long long mm = m, nn = n, ld = lda, ix = incx, iy = incy;
  return launched(kernels().launch(kernel, uint64_t(t ? n : m), h->stream,
                                   {&t, &mm, &nn, &a.pointer, &a.value, &A, &ld, &x, &ix, &b.pointer, &b.value, &y,
                                    &iy}));
}

// The operands' shapes of a gemm, as BLAS checks them (batched forms too).
bool gemmShapeValid(int ta, int tb, int m, int n, int k, int lda, int ldb, int ldc) {
  return ta >= 0 && tb >= 0 && m >= 0 && n >= 0 && k >= 0 && lda >= std::max(1, ta ? k : m) &&
         ldb >= std::max(1, tb ? n : k) && ldc >= std::max(1, m);
}

template <class T>
cublasStatus gemm(const char* kernel, cublasHandle_t h, int transa, int transb, int m, int n, int k, const T* alpha,
                  const T* A, int lda, const T* B, int ldb, const T* beta, T* C, int ldc) {
  if (h == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;
  int ta = transposed(transa), tb = transposed(transb);
  if (!gemmShapeValid(ta, tb, m, n, k, lda, ldb, ldc) || !alpha || !beta) return CUBLAS_STATUS_INVALID_VALUE;
  if (m == 0 || n == 0) return CUBLAS_STATUS_SUCCESS;
  Scalar<T> a(h, alpha), b(h, beta);
  long long mm = m, nn = n, kk = k, la = lda, lb = ldb, lc = ldc;
  return launched(kernels().launch(kernel, uint64_t(m) * uint64_t(n), h->stream,
                                   {&ta, &tb, &mm, &nn, &kk, &a.pointer, &a.value, &A, &la, &B, &lb, &b.pointer,
                                    &b.value, &C, &lc}));
}

template <class T>
cublasStatus axpy(const char* kernel, cublasHandle_t h, int n, const T* alpha, const T* x, int incx, T* y,
                  int incy) {
  if (h == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!alpha) return CUBLAS_STATUS_INVALID_VALUE;
  if (n <= 0) return CUBLAS_STATUS_SUCCESS;
  Scalar<T> a(h, alpha);
  long long nn = n, ix = incx, iy = incy;
  return launched(kernels().launch(kernel, uint64_t(n), h->stream, {&nn, &a.pointer, &a.value, &x, &ix, &y, &iy}));
}

// y = x, `bytes` an element.
cublasStatus copy(cublasHandle_t h, int n, const void* x, int incx, void* y, int incy, int bytes) {
  if (h == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (n <= 0) return CUBLAS_STATUS_SUCCESS;
  long long nn = n, ix = incx, iy = incy;
  return launched(kernels().launch("predatar_cublas_copy", uint64_t(n), h->stream, {&nn, &x, &ix, &y, &iy, &bytes}));
}

template <class T>
cublasStatus scal(const char* kernel, cublasHandle_t h, int n, const T* alpha, T* x, int incx) {
  if (h == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!alpha) return CUBLAS_STATUS_INVALID_VALUE;
  if (n <= 0 || incx <= 0) return CUBLAS_STATUS_SUCCESS;  // BLAS: nothing to do
  Scalar<T> a(h, alpha);
  long long nn = n, ix = incx;
  return launched(kernels().launch(kernel, uint64_t(n), h->stream, {&nn, &a.pointer, &a.value, &x, &ix}));
}

// A reduction's launch (one block of 256 threads) writing one T to `result`.
// In host pointer mode the result comes back to the host at the call's end
// (cuBLAS waits for it too); in device mode it stays on the stream. `args`
// are the kernel's arguments before the result's pointer.
cublasStatus reduction(const char* kernel, cublasHandle_t h, int n, void* result, size_t bytes,
                       std::vector<void*> args) {
  if (h == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!result) return CUBLAS_STATUS_INVALID_VALUE;
  bool host = h->pointerMode == CUBLAS_POINTER_MODE_HOST;
  if (n <= 0) {
    if (host) std::memset(result, 0, bytes);
    else if (cudaMemsetAsync(result, 0, bytes, h->stream) != cudaSuccess) return CUBLAS_STATUS_EXECUTION_FAILED;
    return CUBLAS_STATUS_SUCCESS;
  }
  void* target = result;
  if (host && cudaMalloc(&target, bytes) != cudaSuccess) return CUBLAS_STATUS_EXECUTION_FAILED;
  args.push_back(&target);
  cudaError_t e = kernels().launch(kernel, dim3{1, 1, 1}, dim3{256, 1, 1}, h->stream, args);
  if (host) {
    if (e == cudaSuccess)
      e = cudaMemcpyAsync(result, target, bytes, predatar::cudart::cudaMemcpyDeviceToHost, h->stream);
    if (e == cudaSuccess) e = cudaStreamSynchronize(h->stream);
    cudaFree(target);
  }
  return launched(e);
}
template <class T>
cublasStatus reduction(const char* kernel, cublasHandle_t h, int n, T* result, std::vector<void*> args) {
  return reduction(kernel, h, n, result, sizeof(T), std::move(args));
}

template <class T>
cublasStatus dot(const char* kernel, cublasHandle_t h, int n, const T* x, int incx, const T* y, int incy, T* result) {
  long long nn = n, ix = incx, iy = incy;
  return reduction(kernel, h, n, result, {&nn, &x, &ix, &y, &iy});
}

// nrm2, asum and i?amax: BLAS answers 0 for an increment that is not positive.
template <class T, class R>
cublasStatus norm(const char* kernel, cublasHandle_t h, int n, const T* x, int incx, R* result) {
  long long nn = n, ix = incx;
  return reduction(kernel, h, incx > 0 ? n : 0, result, {&nn, &x, &ix});
}

// gemm over `batch` matrices: the checks and the launch both forms share.
// `operands` are the kernel's last arguments (each matrix's device array of
// pointers, or its first element and stride).
template <class T>
cublasStatus gemmBatches(const char* kernel, cublasHandle_t h, int transa, int transb, int m, int n, int k,
                         const T* alpha, int lda, int ldb, const T* beta, int ldc, int batch,
                         const std::vector<void*>& operands) {
  if (h == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;
  int ta = transposed(transa), tb = transposed(transb);
  if (!gemmShapeValid(ta, tb, m, n, k, lda, ldb, ldc) || batch < 0 || !alpha || !beta)
    return CUBLAS_STATUS_INVALID_VALUE;
  if (m == 0 || n == 0 || batch == 0) return CUBLAS_STATUS_SUCCESS;
  Scalar<T> a(h, alpha), b(h, beta);
  long long mm = m, nn = n, kk = k, la = lda, lb = ldb, lc = ldc, count = batch;
  std::vector<void*> args{&ta, &tb, &mm, &nn, &kk, &a.pointer, &a.value, &b.pointer, &b.value, &la, &lb, &lc, &count};
  args.insert(args.end(), operands.begin(), operands.end());
  return launched(kernels().launch(kernel, uint64_t(m) * uint64_t(n) * uint64_t(batch), h->stream, std::move(args)));
}

// Matrix b of each operand through a device array of device pointers.
template <class T>
cublasStatus gemmBatched(const char* kernel, cublasHandle_t h, int transa, int transb, int m, int n, int k,
                         const T* alpha, const T* const* A, int lda, const T* const* B, int ldb, const T* beta,
                         T* const* C, int ldc, int batch) {
  return gemmBatches(kernel, h, transa, transb, m, n, k, alpha, lda, ldb, beta, ldc, batch, {&A, &B, &C});
}

// Matrix b of each operand at b times its stride (in elements) from the first.
template <class T>
cublasStatus gemmStrided(const char* kernel, cublasHandle_t h, int transa, int transb, int m, int n, int k,
                         const T* alpha, const T* A, int lda, long long strideA, const T* B, int ldb,
                         long long strideB, const T* beta, T* C, int ldc, long long strideC, int batch) {
  return gemmBatches(kernel, h, transa, transb, m, n, k, alpha, lda, ldb, beta, ldc, batch,
                     {&A, &strideA, &B, &strideB, &C, &strideC});
}

// LU factorization of `batch` n x n matrices (one thread each); pivots may be
// null (no pivoting), info may not.
template <class T>
cublasStatus getrfBatched(const char* kernel, cublasHandle_t h, int n, T* const* A, int lda, int* pivots, int* info,
                          int batch) {
  if (h == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (n < 0 || lda < std::max(1, n) || batch < 0 || !info) return CUBLAS_STATUS_INVALID_VALUE;
  if (n == 0 || batch == 0) return CUBLAS_STATUS_SUCCESS;
  long long nn = n, la = lda, count = batch;
  return launched(kernels().launch(kernel, uint64_t(batch), h->stream, {&nn, &A, &la, &pivots, &info, &count}));
}

// Least squares of `batch` m x n systems with nrhs right-hand sides (one
// thread each). cuBLAS solves only overdetermined systems without transpose
// (NOT_SUPPORTED otherwise); *info, a host int, is 0 or minus the position
// (after the handle) of the first bad argument; devInfo may be null.
cublasStatus gelsBatched(const char* kernel, cublasHandle_t h, int trans, int m, int n, int nrhs, void* const* A,
                         int lda, void* const* C, int ldc, int* info, int* devInfo, int batch) {
  if (h == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (info == nullptr) return CUBLAS_STATUS_INVALID_VALUE;
  int bad = trans != CUBLAS_OP_N ? 1 : m < 0 ? 2 : n < 0 || n > m ? 3 : nrhs < 0 ? 4 : lda < std::max(1, m) ? 6
            : ldc < std::max(1, m) ? 8 : batch < 0 ? 11 : 0;
  *info = -bad;
  if (trans != CUBLAS_OP_N || n > m) return CUBLAS_STATUS_NOT_SUPPORTED;
  if (bad) return CUBLAS_STATUS_INVALID_VALUE;
  if (batch == 0) return CUBLAS_STATUS_SUCCESS;
  long long mm = m, nn = n, rhs = nrhs, la = lda, lc = ldc, count = batch;
  return launched(kernels().launch(kernel, uint64_t(batch), h->stream, {&mm, &nn, &rhs, &A, &la, &C, &lc, &devInfo, &count}));
}

// A handle's setting, answered to `out`.
template <class T>
cublasStatus get(cublasHandle_t h, T* out, T cublasContext::*setting) {
  if (h == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (out == nullptr) return CUBLAS_STATUS_INVALID_VALUE;
  *out = h->*setting;
  return CUBLAS_STATUS_SUCCESS;
}

}  // namespace

#define CUBLAS_API extern "C" __attribute__((visibility("default")))

CUBLAS_API cublasStatus cublasCreate_v2(cublasHandle_t* handle) {
  if (handle == nullptr) return CUBLAS_STATUS_INVALID_VALUE;
  *handle = new cublasContext{};
  return CUBLAS_STATUS_SUCCESS;
}

CUBLAS_API cublasStatus cublasDestroy_v2(cublasHandle_t handle) {
  if (handle == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;
  delete handle;
  return CUBLAS_STATUS_SUCCESS;
}

CUBLAS_API cublasStatus cublasGetVersion_v2(cublasHandle_t handle, int* version) {
  if (handle == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (version == nullptr) return CUBLAS_STATUS_INVALID_VALUE;
  *version = kVersion;
  return CUBLAS_STATUS_SUCCESS;
}

CUBLAS_API cublasStatus cublasGetProperty(int type, int* value) {
  if (value == nullptr || type < 0 || type > 2) return CUBLAS_STATUS_INVALID_VALUE;
  *value = type == 0 ? kVersion / 10000 : type == 1 ? kVersion / 100 % 100 : kVersion % 100;
  return CUBLAS_STATUS_SUCCESS;
}

CUBLAS_API cublasStatus cublasSetStream_v2(cublasHandle_t handle, cudaStream_t stream) {
  if (handle == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;
  handle->stream = stream;
  return CUBLAS_STATUS_SUCCESS;
}

CUBLAS_API cublasStatus cublasGetStream_v2(cublasHandle_t handle, cudaStream_t* stream) {
  return get(handle, stream, &cublasContext::stream);
}

CUBLAS_API cublasStatus cublasSetPointerMode_v2(cublasHandle_t handle, int mode) {
  if (handle == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (mode != CUBLAS_POINTER_MODE_HOST && mode != CUBLAS_POINTER_MODE_DEVICE) return CUBLAS_STATUS_INVALID_VALUE;
  handle->pointerMode = mode;
  return CUBLAS_STATUS_SUCCESS;
}

CUBLAS_API cublasStatus cublasGetPointerMode_v2(cublasHandle_t handle, int* mode) {
  return get(handle, mode, &cublasContext::pointerMode);
}

// Math modes (tensor op, TF32) choose NVIDIA's kernels; here every mode runs the same loops.
CUBLAS_API cublasStatus cublasSetMathMode(cublasHandle_t handle, int mode) {
  if (handle == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;
  handle->mathMode = mode;
  return CUBLAS_STATUS_SUCCESS;
}

CUBLAS_API cublasStatus cublasGetMathMode(cublasHandle_t handle, int* mode) {
  return get(handle, mode, &cublasContext::mathMode);
}

CUBLAS_API const char* cublasGetStatusName(int status) {
  switch (status) {
    case CUBLAS_STATUS_SUCCESS: return "CUBLAS_STATUS_SUCCESS";
    case CUBLAS_STATUS_NOT_INITIALIZED: return "CUBLAS_STATUS_NOT_INITIALIZED";
    case CUBLAS_STATUS_INVALID_VALUE: return "CUBLAS_STATUS_INVALID_VALUE";
    case CUBLAS_STATUS_EXECUTION_FAILED: return "CUBLAS_STATUS_EXECUTION_FAILED";
    case CUBLAS_STATUS_NOT_SUPPORTED: return "CUBLAS_STATUS_NOT_SUPPORTED";
    default: return "CUBLAS_STATUS_UNKNOWN";
  }
}

CUBLAS_API const char* cublasGetStatusString(int status) {
  switch (status) {
    case CUBLAS_STATUS_SUCCESS: return "success";
    case CUBLAS_STATUS_NOT_INITIALIZED: return "the library was not initialized";
    case CUBLAS_STATUS_INVALID_VALUE: return "an invalid value was used as an argument";
    case CUBLAS_STATUS_EXECUTION_FAILED: return "the GPU program failed to execute";
    case CUBLAS_STATUS_NOT_SUPPORTED: return "the functionality requested is not supported";
    default: return "unknown error";
  }
}

CUBLAS_API cublasStatus cublasSgemv_v2(cublasHandle_t h, int trans, int m, int n, const float* alpha, const float* A,
                                       int lda, const float* x, int incx, const float* beta, float* y, int incy) {
  return gemv("predatar_cublas_sgemv", h, trans, m, n, alpha, A, lda, x, incx, beta, y, incy);
}

CUBLAS_API cublasStatus cublasDgemv_v2(cublasHandle_t h, int trans, int m, int n, const double* alpha,
                                       const double* A, int lda, const double* x, int incx, const double* beta,
                                       double* y, int incy) {
  return gemv("predatar_cublas_dgemv", h, trans, m, n, alpha, A, lda, x, incx, beta, y, incy);
}

CUBLAS_API cublasStatus cublasSgemm_v2(cublasHandle_t h, int transa, int transb, int m, int n, int k,
                                       const float* alpha, const float* A, int lda, const float* B, int ldb,
                                       const float* beta, float* C, int ldc) {
  return gemm("predatar_cublas_sgemm", h, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

CUBLAS_API cublasStatus cublasDgemm_v2(cublasHandle_t h, int transa, int transb, int m, int n, int k,
                                       const double* alpha, const double* A, int lda, const double* B, int ldb,
                                       const double* beta, double* C, int ldc) {
  return gemm("predatar_cublas_dgemm", h, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

CUBLAS_API cublasStatus cublasSaxpy_v2(cublasHandle_t h, int n, const float* alpha, const float* x, int incx,
                                       float* y, int incy) {
  return axpy("predatar_cublas_saxpy", h, n, alpha, x, incx, y, incy);
}

CUBLAS_API cublasStatus cublasDaxpy_v2(cublasHandle_t h, int n, const double* alpha, const double* x, int incx,
                                       double* y, int incy) {
  return axpy("predatar_cublas_daxpy", h, n, alpha, x, incx, y, incy);
}

CUBLAS_API cublasStatus cublasScopy_v2(cublasHandle_t h, int n, const float* x, int incx, float* y, int incy) {
  return copy(h, n, x, incx, y, incy, 4);
}
CUBLAS_API cublasStatus cublasDcopy_v2(cublasHandle_t h, int n, const double* x, int incx, double* y, int incy) {
  return copy(h, n, x, incx, y, incy, 8);
}
CUBLAS_API cublasStatus cublasCcopy_v2(cublasHandle_t h, int n, const void* x, int incx, void* y, int incy) {
  return copy(h, n, x, incx, y, incy, 8);
}
CUBLAS_API cublasStatus cublasZcopy_v2(cublasHandle_t h, int n, const void* x, int incx, void* y, int incy) {
  return copy(h, n, x, incx, y, incy, 16);
}

CUBLAS_API cublasStatus cublasSscal_v2(cublasHandle_t h, int n, const float* alpha, float* x, int incx) {
  return scal("predatar_cublas_sscal", h, n, alpha, x, incx);
}

CUBLAS_API cublasStatus cublasDscal_v2(cublasHandle_t h, int n, const double* alpha, double* x, int incx) {
  return scal("predatar_cublas_dscal", h, n, alpha, x, incx);
}

CUBLAS_API cublasStatus cublasSdot_v2(cublasHandle_t h, int n, const float* x, int incx, const float* y, int incy,
                                      float* result) {
  return dot("predatar_cublas_sdot", h, n, x, incx, y, incy, result);
}

CUBLAS_API cublasStatus cublasDdot_v2(cublasHandle_t h, int n, const double* x, int incx, const double* y, int incy,
                                      double* result) {
  return dot("predatar_cublas_ddot", h, n, x, incx, y, incy, result);
}

CUBLAS_API cublasStatus cublasIsamax_v2(cublasHandle_t h, int n, const float* x, int incx, int* result) {
  return norm("predatar_cublas_isamax", h, n, x, incx, result);
}
CUBLAS_API cublasStatus cublasIdamax_v2(cublasHandle_t h, int n, const double* x, int incx, int* result) {
  return norm("predatar_cublas_idamax", h, n, x, incx, result);
}

CUBLAS_API cublasStatus cublasSnrm2_v2(cublasHandle_t h, int n, const float* x, int incx, float* result) {
  return norm("predatar_cublas_snrm2", h, n, x, incx, result);
}

CUBLAS_API cublasStatus cublasDnrm2_v2(cublasHandle_t h, int n, const double* x, int incx, double* result) {
  return norm("predatar_cublas_dnrm2", h, n, x, incx, result);
}

CUBLAS_API cublasStatus cublasSasum_v2(cublasHandle_t h, int n, const float* x, int incx, float* result) {
  return norm("predatar_cublas_sasum", h, n, x, incx, result);
}

CUBLAS_API cublasStatus cublasDasum_v2(cublasHandle_t h, int n, const double* x, int incx, double* result) {
  return norm("predatar_cublas_dasum", h, n, x, incx, result);
}

CUBLAS_API cublasStatus cublasSgemmBatched(cublasHandle_t h, int transa, int transb, int m, int n, int k,
                                           const float* alpha, const float* const A[], int lda,
                                           const float* const B[], int ldb, const float* beta, float* const C[],
                                           int ldc, int batch) {
  return gemmBatched("predatar_cublas_sgemm_batched", h, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C,
                     ldc, batch);
}

CUBLAS_API cublasStatus cublasDgemmBatched(cublasHandle_t h, int transa, int transb, int m, int n, int k,
                                           const double* alpha, const double* const A[], int lda,
                                           const double* const B[], int ldb, const double* beta, double* const C[],
                                           int ldc, int batch) {
  return gemmBatched("predatar_cublas_dgemm_batched", h, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C,
                     ldc, batch);
}

CUBLAS_API cublasStatus cublasSgemmStridedBatched(cublasHandle_t h, int transa, int transb, int m, int n, int k,
                                                  const float* alpha, const float* A, int lda, long long strideA,
                                                  const float* B, int ldb, long long strideB, const float* beta,
                                                  float* C, int ldc, long long strideC, int batch) {
  return gemmStrided("predatar_cublas_sgemm_strided", h, transa, transb, m, n, k, alpha, A, lda, strideA, B, ldb,
                     strideB, beta, C, ldc, strideC, batch);
}

CUBLAS_API cublasStatus cublasDgemmStridedBatched(cublasHandle_t h, int transa, int transb, int m, int n, int k,
                                                  const double* alpha, const double* A, int lda, long long strideA,
                                                  const double* B, int ldb, long long strideB, const double* beta,
                                                  double* C, int ldc, long long strideC, int batch) {
  return gemmStrided("predatar_cublas_dgemm_strided", h, transa, transb, m, n, k, alpha, A, lda, strideA, B, ldb,
                     strideB, beta, C, ldc, strideC, batch);
}

CUBLAS_API cublasStatus cublasSgetrfBatched(cublasHandle_t h, int n, float* const A[], int lda, int* pivots,
                                            int* info, int batch) {
  return getrfBatched("predatar_cublas_sgetrf_batched", h, n, A, lda, pivots, info, batch);
}

CUBLAS_API cublasStatus cublasDgetrfBatched(cublasHandle_t h, int n, double* const A[], int lda, int* pivots,
                                            int* info, int batch) {
  return getrfBatched("predatar_cublas_dgetrf_batched", h, n, A, lda, pivots, info, batch);
}

CUBLAS_API cublasStatus cublasSgelsBatched(cublasHandle_t h, int trans, int m, int n, int nrhs, float* const A[],
                                           int lda, float* const C[], int ldc, int* info, int* devInfo, int batch) {
  return gelsBatched("predatar_cublas_sgels_batched", h, trans, m, n, nrhs, reinterpret_cast<void* const*>(A), lda,
                     reinterpret_cast<void* const*>(C), ldc, info, devInfo, batch);
}

CUBLAS_API cublasStatus cublasDgelsBatched(cublasHandle_t h, int trans, int m, int n, int nrhs, double* const A[],
                                           int lda, double* const C[], int ldc, int* info, int* devInfo, int batch) {
  return gelsBatched("predatar_cublas_dgels_batched", h, trans, m, n, nrhs, reinterpret_cast<void* const*>(A), lda,
                     reinterpret_cast<void* const*>(C), ldc, info, devInfo, batch);
}

// (cuComplex and cuDoubleComplex arrays: the kernels read their layout)
CUBLAS_API cublasStatus cublasCgelsBatched(cublasHandle_t h, int trans, int m, int n, int nrhs, void* const A[],
                                           int lda, void* const C[], int ldc, int* info, int* devInfo, int batch) {
  return gelsBatched("predatar_cublas_cgels_batched", h, trans, m, n, nrhs, A, lda, C, ldc, info, devInfo, batch);
}

CUBLAS_API cublasStatus cublasZgelsBatched(cublasHandle_t h, int trans, int m, int n, int nrhs, void* const A[],
                                           int lda, void* const C[], int ldc, int* info, int* devInfo, int batch) {
  return gelsBatched("predatar_cublas_zgels_batched", h, trans, m, n, nrhs, A, lda, C, ldc, info, devInfo, batch);
}

// ---------------------------------------------------------------- mixed types

namespace {

// What a cublasComputeType_t (or, as older code passes, a cudaDataType)
// means here: the type of alpha and beta and what the products are summed in
// (the kernel's `accumulate`: 0 float, 1 double, 2 int). The 16F compute
// types sum in float, not half: results may differ from NVIDIA's in the last
// bits of a half.
struct Compute {
  int scalarType = -1;
  int accumulate = 0;
};
Compute computeOf(int computeType) {
  int scalar = scalarTypeOf(computeType);
  if (scalar < 0 && (computeType == R_16F || computeType == R_32F || computeType == R_64F || computeType == R_32I))
    scalar = computeType;  // (a cudaDataType, as older code passes)
  switch (scalar) {
    case R_16F: case R_32F: return {scalar, 0};
    case R_64F: return {scalar, 1};
    case R_32I: return {scalar, 2};
    default: return {};
  }
}

bool isOperandType(int t) { return t == R_16F || t == R_16BF || t == R_32F || t == R_64F || t == R_8I; }
bool isResultType(int t) { return t == R_16F || t == R_16BF || t == R_32F || t == R_64F || t == R_32I; }

// A host scalar's bytes, as the kernel takes them by value.
unsigned long long bitsOf(const void* value, int type) {
  unsigned long long bits = 0;
  std::memcpy(&bits, value, bytesOf(type));
  return bits;
}

// The operands of a batch of mixed-type gemms: each matrix through an array
// of device pointers (arrays) or at a stride from the first; a single gemm is
// a batch of one.
struct GemmExOperands {
  const void* A;
  int aType;
  long long lda, strideA;
  const void* B;
  int bType;
  long long ldb, strideB;
  void* C;
  int cType;
  long long ldc, strideC;
};

cublasStatus gemmEx(const char* routine, cublasHandle_t h, int transa, int transb, int m, int n, int k,
                    const void* alpha, const void* beta, GemmExOperands o, int computeType, int batch, int arrays) {
  if (h == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;
  int ta = transposed(transa), tb = transposed(transb);
  if (!gemmShapeValid(ta, tb, m, n, k, int(o.lda), int(o.ldb), int(o.ldc)) || !alpha || !beta || batch < 0)
    return CUBLAS_STATUS_INVALID_VALUE;
  Compute compute = computeOf(computeType);
  bool integer = compute.accumulate == 2;
  if (compute.scalarType < 0 || !isOperandType(o.aType) || !isOperandType(o.bType) || !isResultType(o.cType) ||
      (o.aType == R_8I) != integer || (o.bType == R_8I) != integer || (o.cType == R_32I) != integer)
    return refuse((std::string(routine) + " with these data and compute types").c_str(),
                  CUBLAS_STATUS_NOT_SUPPORTED, "CUBLAS_STATUS_NOT_SUPPORTED");
  if (m == 0 || n == 0 || batch == 0) return CUBLAS_STATUS_SUCCESS;
  bool device = h->pointerMode == CUBLAS_POINTER_MODE_DEVICE;
  const void* alphaP = device ? alpha : nullptr;
  const void* betaP = device ? beta : nullptr;
  unsigned long long alphaBits = device ? 0 : bitsOf(alpha, compute.scalarType);
  unsigned long long betaBits = device ? 0 : bitsOf(beta, compute.scalarType);
  long long mm = m, nn = n, kk = k, count = batch;
  return launched(kernels().launch(
      "predatar_cublas_gemm_ex", uint64_t(m) * uint64_t(n) * uint64_t(batch), h->stream,
      {&ta, &tb, &mm, &nn, &kk, &alphaP, &alphaBits, &betaP, &betaBits, &compute.scalarType, &o.A, &o.aType, &o.lda,
       &o.strideA, &o.B, &o.bType, &o.ldb, &o.strideB, &o.C, &o.cType, &o.ldc, &o.strideC, &compute.accumulate,
       &count, &arrays}));
}

}  // namespace

CUBLAS_API cublasStatus cublasGemmEx(cublasHandle_t h, int transa, int transb, int m, int n, int k, const void* alpha,
                                     const void* A, int aType, int lda, const void* B, int bType, int ldb,
                                     const void* beta, void* C, int cType, int ldc, int computeType, int /*algo*/) {
  return gemmEx("cublasGemmEx", h, transa, transb, m, n, k, alpha, beta,
                {A, aType, lda, 0, B, bType, ldb, 0, C, cType, ldc, 0}, computeType, 1, 0);
}

CUBLAS_API cublasStatus cublasGemmStridedBatchedEx(cublasHandle_t h, int transa, int transb, int m, int n, int k,
                                                   const void* alpha, const void* A, int aType, int lda,
                                                   long long strideA, const void* B, int bType, int ldb,
                                                   long long strideB, const void* beta, void* C, int cType, int ldc,
                                                   long long strideC, int batch, int computeType, int /*algo*/) {
  return gemmEx("cublasGemmStridedBatchedEx", h, transa, transb, m, n, k, alpha, beta,
                {A, aType, lda, strideA, B, bType, ldb, strideB, C, cType, ldc, strideC}, computeType, batch, 0);
}

CUBLAS_API cublasStatus cublasGemmBatchedEx(cublasHandle_t h, int transa, int transb, int m, int n, int k,
                                            const void* alpha, const void* const A[], int aType, int lda,
                                            const void* const B[], int bType, int ldb, const void* beta,
                                            void* const C[], int cType, int ldc, int batch, int computeType,
                                            int /*algo*/) {
  return gemmEx("cublasGemmBatchedEx", h, transa, transb, m, n, k, alpha, beta,
                {A, aType, lda, 0, B, bType, ldb, 0, const_cast<void**>(C), cType, ldc, 0}, computeType, batch, 1);
}

// Half-precision gemms: the mixed-type gemm with f16 operands, scalars and
// result (summed in float, as computeOf says of the 16F compute type).
CUBLAS_API cublasStatus cublasHgemm(cublasHandle_t h, int transa, int transb, int m, int n, int k, const void* alpha,
                                    const void* A, int lda, const void* B, int ldb, const void* beta, void* C,
                                    int ldc) {
  return gemmEx("cublasHgemm", h, transa, transb, m, n, k, alpha, beta,
                {A, R_16F, lda, 0, B, R_16F, ldb, 0, C, R_16F, ldc, 0}, R_16F, 1, 0);
}

CUBLAS_API cublasStatus cublasHgemmStridedBatched(cublasHandle_t h, int transa, int transb, int m, int n, int k,
                                                  const void* alpha, const void* A, int lda, long long strideA,
                                                  const void* B, int ldb, long long strideB, const void* beta,
                                                  void* C, int ldc, long long strideC, int batch) {
  return gemmEx("cublasHgemmStridedBatched", h, transa, transb, m, n, k, alpha, beta,
                {A, R_16F, lda, strideA, B, R_16F, ldb, strideB, C, R_16F, ldc, strideC}, R_16F, batch, 0);
}

CUBLAS_API cublasStatus cublasHgemmBatched(cublasHandle_t h, int transa, int transb, int m, int n, int k,
                                           const void* alpha, const void* const A[], int lda, const void* const B[],
                                           int ldb, const void* beta, void* const C[], int ldc, int batch) {
  return gemmEx("cublasHgemmBatched", h, transa, transb, m, n, k, alpha, beta,
                {A, R_16F, lda, 0, B, R_16F, ldb, 0, const_cast<void**>(C), R_16F, ldc, 0}, R_16F, batch, 1);
}

CUBLAS_API cublasStatus cublasDotEx(cublasHandle_t h, int n, const void* x, int xType, int incx, const void* y,
                                    int yType, int incy, void* result, int resultType, int executionType) {
  if (!isOperandType(xType) || xType == R_8I || !isOperandType(yType) || yType == R_8I || !isResultType(resultType) || resultType == R_32I ||
      (executionType != R_32F && executionType != R_64F))
    return refuse("cublasDotEx with these data and execution types", CUBLAS_STATUS_NOT_SUPPORTED,
                  "CUBLAS_STATUS_NOT_SUPPORTED");
  long long nn = n, ix = incx, iy = incy;
  int inDouble = executionType == R_64F;
  return reduction("predatar_cublas_dot_ex", h, n, result, bytesOf(resultType),
                   {&nn, &x, &xType, &ix, &y, &yType, &iy, &resultType, &inDouble});
}
