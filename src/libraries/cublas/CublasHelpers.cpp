// predatar's cuBLAS helper functions: cublasSetVector, GetVector, SetMatrix,
// GetMatrix and their Async and _64 forms. They move strided host data to and
// from device memory, as cuBLAS does, through the runtime's copies (on the
// given stream for the Async forms, ordered as any cudaMemcpyAsync there).
#include <cstdint>

#include "cudart/runtime/Api.h"

namespace {

using predatar::cudart::cudaMemcpyDeviceToHost;
using predatar::cudart::cudaMemcpyHostToDevice;
using predatar::cudart::cudaSuccess;

enum cublasStatus : int {
  CUBLAS_STATUS_SUCCESS = 0,
  CUBLAS_STATUS_INVALID_VALUE = 7,
  CUBLAS_STATUS_MAPPING_ERROR = 11,
};

// `height` rows of `width` bytes, `spitch` apart in src and `dpitch` in dst:
// one copy when both are dense. A null stream with async == false is
// cuBLAS's synchronous form.
cublasStatus copyRows(size_t width, size_t height, const void* src, size_t spitch, void* dst, size_t dpitch, int kind,
                      bool async, cudaStream_t stream) {
  if (width == 0 || height == 0) return CUBLAS_STATUS_SUCCESS;
  cudaError_t e;
  if (spitch == width && dpitch == width)
    e = async ? cudaMemcpyAsync(dst, src, width * height, kind, stream) : cudaMemcpy(dst, src, width * height, kind);
  else
    e = async ? cudaMemcpy2DAsync(dst, dpitch, src, spitch, width, height, kind, stream)
              : cudaMemcpy2D(dst, dpitch, src, spitch, width, height, kind);
  return e == cudaSuccess ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_MAPPING_ERROR;
}

// n elements of elemSize bytes, every incx-th of x to every incy-th of y.
cublasStatus vector(int64_t n, int64_t elemSize, const void* x, int64_t incx, void* y, int64_t incy, int kind,
                    bool async, cudaStream_t stream) {
  if (n < 0 || elemSize <= 0 || incx <= 0 || incy <= 0 || (n > 0 && (!x || !y))) return CUBLAS_STATUS_INVALID_VALUE;
  size_t size = size_t(elemSize);
  return copyRows(size, size_t(n), x, size_t(incx) * size, y, size_t(incy) * size, kind, async, stream);
}

// A column-major rows x cols matrix: columns `lda` (ldb) elements apart.
cublasStatus matrix(int64_t rows, int64_t cols, int64_t elemSize, const void* A, int64_t lda, void* B, int64_t ldb,
                    int kind, bool async, cudaStream_t stream) {
  if (rows < 0 || cols < 0 || elemSize <= 0 || lda < (rows > 1 ? rows : 1) || ldb < (rows > 1 ? rows : 1))
    return CUBLAS_STATUS_INVALID_VALUE;
  if (rows == 0 || cols == 0) return CUBLAS_STATUS_SUCCESS;
  if (!A || !B) return CUBLAS_STATUS_INVALID_VALUE;
  size_t size = size_t(elemSize);
  return copyRows(size_t(rows) * size, size_t(cols), A, size_t(lda) * size, B, size_t(ldb) * size, kind, async,
                  stream);
}

}  // namespace

#define CUBLAS_API extern "C" __attribute__((visibility("default")))

// The int and int64_t forms, synchronous and async, of one helper: each
// SetX copies host to device, each GetX device to host.
#define PREDATAR_VECTOR_HELPER(Name, kind)                                                                          \
  CUBLAS_API cublasStatus cublas##Name(int n, int elemSize, const void* x, int incx, void* y, int incy) {           \
    return vector(n, elemSize, x, incx, y, incy, kind, false, nullptr);                                             \
  }                                                                                                                 \
  CUBLAS_API cublasStatus cublas##Name##_64(int64_t n, int64_t elemSize, const void* x, int64_t incx, void* y,      \
                                            int64_t incy) {                                                         \
    return vector(n, elemSize, x, incx, y, incy, kind, false, nullptr);                                             \
  }                                                                                                                 \
  CUBLAS_API cublasStatus cublas##Name##Async(int n, int elemSize, const void* x, int incx, void* y, int incy,      \
                                              cudaStream_t stream) {                                                \
    return vector(n, elemSize, x, incx, y, incy, kind, true, stream);                                               \
  }                                                                                                                 \
  CUBLAS_API cublasStatus cublas##Name##Async_64(int64_t n, int64_t elemSize, const void* x, int64_t incx, void* y, \
                                                 int64_t incy, cudaStream_t stream) {                               \
    return vector(n, elemSize, x, incx, y, incy, kind, true, stream);                                               \
  }

#define PREDATAR_MATRIX_HELPER(Name, kind)                                                                         \
  CUBLAS_API cublasStatus cublas##Name(int rows, int cols, int elemSize, const void* A, int lda, void* B, int ldb) { \
    return matrix(rows, cols, elemSize, A, lda, B, ldb, kind, false, nullptr);                                     \
  }                                                                                                                \
  CUBLAS_API cublasStatus cublas##Name##_64(int64_t rows, int64_t cols, int64_t elemSize, const void* A,           \
                                            int64_t lda, void* B, int64_t ldb) {                                   \
    return matrix(rows, cols, elemSize, A, lda, B, ldb, kind, false, nullptr);                                     \
  }                                                                                                                \
  CUBLAS_API cublasStatus cublas##Name##Async(int rows, int cols, int elemSize, const void* A, int lda, void* B,   \
                                              int ldb, cudaStream_t stream) {                                      \
    return matrix(rows, cols, elemSize, A, lda, B, ldb, kind, true, stream);                                       \
  }                                                                                                                \
  CUBLAS_API cublasStatus cublas##Name##Async_64(int64_t rows, int64_t cols, int64_t elemSize, const void* A,      \
                                                 int64_t lda, void* B, int64_t ldb, cudaStream_t stream) {         \
    return matrix(rows, cols, elemSize, A, lda, B, ldb, kind, true, stream);                                       \
  }

PREDATAR_VECTOR_HELPER(SetVector, cudaMemcpyHostToDevice)
PREDATAR_VECTOR_HELPER(GetVector, cudaMemcpyDeviceToHost)
PREDATAR_MATRIX_HELPER(SetMatrix, cudaMemcpyHostToDevice)
PREDATAR_MATRIX_HELPER(GetMatrix, cudaMemcpyDeviceToHost)
