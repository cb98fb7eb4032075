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

// `count` elements of `elemSize` bytes from src (every srcStride-th) to dst
// (every dstStride-th), strides in elements: one copy when both are dense.
// A null stream with async == false is cuBLAS's synchronous form.
cublasStatus copyStrided(int64_t count, int64_t elemSize, const void* src, int64_t srcStride, void* dst,
                         int64_t dstStride, int kind, bool async, cudaStream_t stream) {
  if (count == 0) return CUBLAS_STATUS_SUCCESS;
  cudaError_t e;
  if (srcStride == 1 && dstStride == 1) {
    size_t bytes = size_t(count) * size_t(elemSize);
    e = async ? cudaMemcpyAsync(dst, src, bytes, kind, stream) : cudaMemcpy(dst, src, bytes, kind);
  } else {
    size_t dpitch = size_t(dstStride) * size_t(elemSize), spitch = size_t(srcStride) * size_t(elemSize);
    e = async ? cudaMemcpy2DAsync(dst, dpitch, src, spitch, size_t(elemSize), size_t(count), kind, stream)
              : cudaMemcpy2D(dst, dpitch, src, spitch, size_t(elemSize), size_t(count), kind);
  }
  return e == cudaSuccess ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_MAPPING_ERROR;
}

cublasStatus vector(int64_t n, int64_t elemSize, const void* x, int64_t incx, void* y, int64_t incy, int kind,
                    bool async, cudaStream_t stream) {
  if (n < 0 || elemSize <= 0 || incx <= 0 || incy <= 0 || (n > 0 && (!x || !y))) return CUBLAS_STATUS_INVALID_VALUE;
  return copyStrided(n, elemSize, x, incx, y, incy, kind, async, stream);
}

// A column-major rows x cols matrix: columns `lda` (ldb) elements apart.
cublasStatus matrix(int64_t rows, int64_t cols, int64_t elemSize, const void* A, int64_t lda, void* B, int64_t ldb,
                    int kind, bool async, cudaStream_t stream) {
  if (rows < 0 || cols < 0 || elemSize <= 0 || lda < (rows > 1 ? rows : 1) || ldb < (rows > 1 ? rows : 1))
    return CUBLAS_STATUS_INVALID_VALUE;
  if (rows == 0 || cols == 0) return CUBLAS_STATUS_SUCCESS;
  if (!A || !B) return CUBLAS_STATUS_INVALID_VALUE;
  if (lda == rows && ldb == rows) return copyStrided(rows * cols, elemSize, A, 1, B, 1, kind, async, stream);
  size_t width = size_t(rows) * size_t(elemSize);
  cudaError_t e = async ? cudaMemcpy2DAsync(B, size_t(ldb) * size_t(elemSize), A, size_t(lda) * size_t(elemSize),
                                            width, size_t(cols), kind, stream)
                        : cudaMemcpy2D(B, size_t(ldb) * size_t(elemSize), A, size_t(lda) * size_t(elemSize), width,
                                       size_t(cols), kind);
  return e == cudaSuccess ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_MAPPING_ERROR;
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
