// predatar's libcusparse.so.12: cuSPARSE's handle and generic descriptors (CSR
// and COO matrices, dense vectors and matrices, sparse vectors), SpMV (CSR,
// COO), SparseToDense (CSR) and Axpby, in f32 and f64 with int32 or int64
// indices, as kernels of CusparseKernels.cu launched on the handle's stream,
// so the detectors check them like any kernel. Sums are in double and in
// order, so results may differ from NVIDIA's in the last bits. A transposed
// product, other value or index types, and everything else cuSPARSE exports
// are refused by name (Stubs.cpp), never computed wrongly.
#include <cstdint>
#include <cstring>
#include <string>

#include "cudart/runtime/Api.h"
#include "libraries/EmbeddedModule.h"
#include "libraries/Refusal.h"

namespace predatar::libraries {
extern const char kCusparseKernelsPtx[];
}

namespace {

using namespace predatar::libraries;
using predatar::cudart::cudaSuccess;

enum Status : int {
  SUCCESS = 0,
  NOT_INITIALIZED = 1,
  ALLOC_FAILED = 2,
  INVALID_VALUE = 3,
  EXECUTION_FAILED = 6,
  NOT_SUPPORTED = 10,
};
constexpr int kVersion = 12600;  // CUSPARSE_VERSION of CUDA 13.0's cuSPARSE (12.6.0)
enum { R_32F = 0, R_64F = 1 };
enum { INDEX_32I = 2, INDEX_64I = 3 };

EmbeddedModule& kernels() {
  static auto* module = new EmbeddedModule(
      kCusparseKernelsPtx, {"predatar_cusparse_spmv_csr", "predatar_cusparse_scale", "predatar_cusparse_spmv_coo",
                            "predatar_cusparse_axpy_sparse", "predatar_cusparse_csr_to_dense"});
  return *module;
}

Status refused(const std::string& what) {
  return refuse(what.c_str(), NOT_SUPPORTED, "CUSPARSE_STATUS_NOT_SUPPORTED");
}

struct Handle {
  cudaStream_t stream = nullptr;
  int pointerMode = 0;  // CUSPARSE_POINTER_MODE_HOST
};

// A descriptor's value type as the kernels take it: the size of a value (f32,
// f64), 0 for any other; an index type's the same way (int32, int64).
int valueSize(int type) { return type == R_32F ? 4 : type == R_64F ? 8 : 0; }
int indexSize(int type) { return type == INDEX_32I ? 4 : type == INDEX_64I ? 8 : 0; }

struct SpMat {
  bool csr;  // else COO
  int64_t rows, cols, nnz;
  void* rowData;  // CSR: row offsets (rows + 1); COO: row indices (nnz)
  void* columns;
  void* values;
  int index, base, value;  // sizes (indexSize, valueSize) and the index base
};
struct DnVec {
  int64_t size;
  void* values;
  int value;
};
struct DnMat {
  int64_t rows, cols, ld;
  void* values;
  int value;
  bool rowMajor;
};
struct SpVec {
  int64_t size, nnz;
  void* indices;
  void* values;
  int index, base, value;
};

template <class T>
Status make(void** out, T descriptor, const char* what, int valueType, int indexType = INDEX_32I) {
  if (out == nullptr) return INVALID_VALUE;
  if (valueSize(valueType) == 0)
    return refused(std::string(what) + " with value type " + std::to_string(valueType) + " (predatar: f32, f64)");
  if (indexSize(indexType) == 0)
    return refused(std::string(what) + " with index type " + std::to_string(indexType) + " (predatar: int32, int64)");
  *out = new T(descriptor);
  return SUCCESS;
}

template <class T>
Status destroy(const void* descriptor) {
  delete static_cast<const T*>(descriptor);
  return SUCCESS;
}

// A scalar for a kernel: its device pointer, or its value read from the host.
struct Scalar {
  const void* pointer = nullptr;
  double value = 0;
};
Scalar scalarOf(const Handle& h, const void* p, int value) {
  if (h.pointerMode == 1) return {p, 0};
  double v = value == 8 ? *static_cast<const double*>(p) : *static_cast<const float*>(p);
  return {nullptr, v};
}

Status launched(cudaError_t e) { return e == cudaSuccess ? SUCCESS : EXECUTION_FAILED; }

Status scale(Handle& h, int64_t n, Scalar beta, int value, void* y) {
  long long count = n;
  return launched(kernels().launch("predatar_cusparse_scale", uint64_t(n), h.stream,
                                   {&count, &beta.pointer, &beta.value, &value, &y}));
}

Status spmv(Handle& h, int op, const void* alphaP, const SpMat& a, const DnVec& x, const void* betaP, DnVec& y,
            int computeType) {
  if (!alphaP || !betaP) return INVALID_VALUE;
  if (op != 0) return refused("cusparseSpMV with a transposed matrix");
  if (valueSize(computeType) != a.value || x.value != a.value || y.value != a.value)
    return refused("cusparseSpMV with mixed value and compute types");
  if (x.size != a.cols || y.size != a.rows) return INVALID_VALUE;
  Scalar alpha = scalarOf(h, alphaP, a.value), beta = scalarOf(h, betaP, a.value);
  long long rows = a.rows, nnz = a.nnz, base = a.base;
  int index = a.index, value = a.value;
  const void *rowData = a.rowData, *columns = a.columns, *values = a.values, *xv = x.values;
  void* yv = y.values;
  if (a.csr)
    return launched(kernels().launch("predatar_cusparse_spmv_csr", uint64_t(a.rows), h.stream,
                                     {&rows, &rowData, &columns, &values, &index, &base, &value, &alpha.pointer,
                                      &alpha.value, &xv, &beta.pointer, &beta.value, &yv}));
  if (Status s = scale(h, a.rows, beta, value, yv); s != SUCCESS || nnz == 0) return s;
  return launched(kernels().launch("predatar_cusparse_spmv_coo", uint64_t(nnz), h.stream,
                                   {&nnz, &rowData, &columns, &values, &index, &base, &value, &alpha.pointer,
                                    &alpha.value, &xv, &yv}));
}

}  // namespace

#define CUSPARSE_API extern "C" __attribute__((visibility("default")))

CUSPARSE_API int cusparseCreate(void** handle) {
  if (handle == nullptr) return INVALID_VALUE;
  *handle = new Handle;
  return SUCCESS;
}
CUSPARSE_API int cusparseDestroy(void* handle) {
  if (handle == nullptr) return NOT_INITIALIZED;
  delete static_cast<Handle*>(handle);
  return SUCCESS;
}
CUSPARSE_API int cusparseSetStream(void* handle, cudaStream_t stream) {
  if (handle == nullptr) return NOT_INITIALIZED;
  static_cast<Handle*>(handle)->stream = stream;
  return SUCCESS;
}
CUSPARSE_API int cusparseGetStream(void* handle, cudaStream_t* stream) {
  if (handle == nullptr) return NOT_INITIALIZED;
  if (stream == nullptr) return INVALID_VALUE;
  *stream = static_cast<Handle*>(handle)->stream;
  return SUCCESS;
}
CUSPARSE_API int cusparseSetPointerMode(void* handle, int mode) {
  if (handle == nullptr) return NOT_INITIALIZED;
  if (mode != 0 && mode != 1) return INVALID_VALUE;
  static_cast<Handle*>(handle)->pointerMode = mode;
  return SUCCESS;
}
CUSPARSE_API int cusparseGetPointerMode(void* handle, int* mode) {
  if (handle == nullptr) return NOT_INITIALIZED;
  if (mode == nullptr) return INVALID_VALUE;
  *mode = static_cast<Handle*>(handle)->pointerMode;
  return SUCCESS;
}
CUSPARSE_API int cusparseGetVersion(void* handle, int* version) {
  if (handle == nullptr) return NOT_INITIALIZED;
  if (version == nullptr) return INVALID_VALUE;
  *version = kVersion;
  return SUCCESS;
}

CUSPARSE_API const char* cusparseGetErrorName(int status) {
  switch (status) {
    case 0: return "CUSPARSE_STATUS_SUCCESS";
    case 1: return "CUSPARSE_STATUS_NOT_INITIALIZED";
    case 2: return "CUSPARSE_STATUS_ALLOC_FAILED";
    case 3: return "CUSPARSE_STATUS_INVALID_VALUE";
    case 4: return "CUSPARSE_STATUS_ARCH_MISMATCH";
    case 5: return "CUSPARSE_STATUS_MAPPING_ERROR";
    case 6: return "CUSPARSE_STATUS_EXECUTION_FAILED";
    case 7: return "CUSPARSE_STATUS_INTERNAL_ERROR";
    case 8: return "CUSPARSE_STATUS_MATRIX_TYPE_NOT_SUPPORTED";
    case 9: return "CUSPARSE_STATUS_ZERO_PIVOT";
    case 10: return "CUSPARSE_STATUS_NOT_SUPPORTED";
    case 11: return "CUSPARSE_STATUS_INSUFFICIENT_RESOURCES";
    default: return "<unrecognized>";
  }
}
CUSPARSE_API const char* cusparseGetErrorString(int status) {
  switch (status) {
    case 0: return "success";
    case 1: return "initialization error";
    case 2: return "out of memory";
    case 3: return "invalid value";
    case 6: return "execution failed";
    case 10: return "operation not supported";
    default: return cusparseGetErrorName(status);
  }
}

CUSPARSE_API int cusparseCreateCsr(void** out, int64_t rows, int64_t cols, int64_t nnz, void* offsets, void* columns,
                                   void* values, int offsetsType, int columnsType, int base, int valueType) {
  if (rows < 0 || cols < 0 || nnz < 0 || (base != 0 && base != 1)) return INVALID_VALUE;
  if (offsetsType != columnsType) return refused("cusparseCreateCsr with offsets and column indices of two types");
  return make(out, SpMat{true, rows, cols, nnz, offsets, columns, values, indexSize(columnsType), base,
                         valueSize(valueType)},
              "cusparseCreateCsr", valueType, columnsType);
}
CUSPARSE_API int cusparseCreateCoo(void** out, int64_t rows, int64_t cols, int64_t nnz, void* rowIndices,
                                   void* columns, void* values, int indexType, int base, int valueType) {
  if (rows < 0 || cols < 0 || nnz < 0 || (base != 0 && base != 1)) return INVALID_VALUE;
  return make(out, SpMat{false, rows, cols, nnz, rowIndices, columns, values, indexSize(indexType), base,
                         valueSize(valueType)},
              "cusparseCreateCoo", valueType, indexType);
}
CUSPARSE_API int cusparseDestroySpMat(const void* descriptor) { return destroy<SpMat>(descriptor); }
CUSPARSE_API int cusparseSpMatGetSize(const void* descriptor, int64_t* rows, int64_t* cols, int64_t* nnz) {
  if (!descriptor || !rows || !cols || !nnz) return INVALID_VALUE;
  const auto& a = *static_cast<const SpMat*>(descriptor);
  *rows = a.rows, *cols = a.cols, *nnz = a.nnz;
  return SUCCESS;
}

CUSPARSE_API int cusparseCreateDnVec(void** out, int64_t size, void* values, int valueType) {
  if (size < 0) return INVALID_VALUE;
  return make(out, DnVec{size, values, valueSize(valueType)}, "cusparseCreateDnVec", valueType);
}
CUSPARSE_API int cusparseDestroyDnVec(const void* descriptor) { return destroy<DnVec>(descriptor); }

CUSPARSE_API int cusparseCreateDnMat(void** out, int64_t rows, int64_t cols, int64_t ld, void* values, int valueType,
                                     int order) {
  bool rowMajor = order == 2;
  if (rows < 0 || cols < 0 || (order != 1 && order != 2) || ld < (rowMajor ? cols : rows)) return INVALID_VALUE;
  return make(out, DnMat{rows, cols, ld, values, valueSize(valueType), rowMajor}, "cusparseCreateDnMat", valueType);
}
CUSPARSE_API int cusparseDestroyDnMat(const void* descriptor) { return destroy<DnMat>(descriptor); }

CUSPARSE_API int cusparseCreateSpVec(void** out, int64_t size, int64_t nnz, void* indices, void* values,
                                     int indexType, int base, int valueType) {
  if (size < 0 || nnz < 0 || nnz > size || (base != 0 && base != 1)) return INVALID_VALUE;
  return make(out, SpVec{size, nnz, indices, values, indexSize(indexType), base, valueSize(valueType)},
              "cusparseCreateSpVec", valueType, indexType);
}
CUSPARSE_API int cusparseDestroySpVec(const void* descriptor) { return destroy<SpVec>(descriptor); }

// (no kernel needs a buffer)
CUSPARSE_API int cusparseSpMV_bufferSize(void* handle, int, const void*, const void* a, const void* x, const void*,
                                         void* y, int, int, size_t* bytes) {
  if (handle == nullptr) return NOT_INITIALIZED;
  if (!a || !x || !y || !bytes) return INVALID_VALUE;
  *bytes = 0;
  return SUCCESS;
}
CUSPARSE_API int cusparseSpMV(void* handle, int op, const void* alpha, const void* a, const void* x, const void* beta,
                              void* y, int computeType, int /*alg*/, void* /*buffer*/) {
  if (handle == nullptr) return NOT_INITIALIZED;
  if (!a || !x || !y) return INVALID_VALUE;
  return spmv(*static_cast<Handle*>(handle), op, alpha, *static_cast<const SpMat*>(a), *static_cast<const DnVec*>(x),
              beta, *static_cast<DnVec*>(y), computeType);
}

CUSPARSE_API int cusparseSparseToDense_bufferSize(void* handle, const void* a, void* b, int, size_t* bytes) {
  if (handle == nullptr) return NOT_INITIALIZED;
  if (!a || !b || !bytes) return INVALID_VALUE;
  *bytes = 0;
  return SUCCESS;
}
CUSPARSE_API int cusparseSparseToDense(void* handle, const void* matA, void* matB, int /*alg*/, void* /*buffer*/) {
  if (handle == nullptr) return NOT_INITIALIZED;
  if (!matA || !matB) return INVALID_VALUE;
  const auto& a = *static_cast<const SpMat*>(matA);
  auto& b = *static_cast<DnMat*>(matB);
  if (!a.csr) return refused("cusparseSparseToDense of a COO matrix");
  if (a.rows != b.rows || a.cols != b.cols || a.value != b.value) return INVALID_VALUE;
  long long rows = a.rows, cols = a.cols, base = a.base, ld = b.ld;
  int index = a.index, value = a.value, rowMajor = b.rowMajor;
  const void *offsets = a.rowData, *columns = a.columns, *values = a.values;
  void* dense = b.values;
  return launched(kernels().launch("predatar_cusparse_csr_to_dense", uint64_t(rows),
                                   static_cast<Handle*>(handle)->stream,
                                   {&rows, &cols, &offsets, &columns, &values, &index, &base, &value, &dense, &ld,
                                    &rowMajor}));
}

// y = alpha x + beta y, x sparse.
CUSPARSE_API int cusparseAxpby(void* handle, const void* alphaP, const void* vecX, const void* betaP, void* vecY) {
  if (handle == nullptr) return NOT_INITIALIZED;
  if (!alphaP || !vecX || !betaP || !vecY) return INVALID_VALUE;
  auto& h = *static_cast<Handle*>(handle);
  const auto& x = *static_cast<const SpVec*>(vecX);
  auto& y = *static_cast<DnVec*>(vecY);
  if (x.size != y.size || x.value != y.value) return INVALID_VALUE;
  Scalar alpha = scalarOf(h, alphaP, x.value), beta = scalarOf(h, betaP, x.value);
  if (Status s = scale(h, y.size, beta, y.value, y.values); s != SUCCESS || x.nnz == 0) return s;
  long long nnz = x.nnz, base = x.base;
  int index = x.index, value = x.value;
  const void *indices = x.indices, *values = x.values;
  void* yv = y.values;
  return launched(kernels().launch("predatar_cusparse_axpy_sparse", uint64_t(nnz), h.stream,
                                   {&nnz, &indices, &values, &index, &base, &value, &alpha.pointer, &alpha.value,
                                    &yv}));
}
