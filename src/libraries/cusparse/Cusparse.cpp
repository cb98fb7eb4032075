// predatar's libcusparse.so.12: cuSPARSE's handle, generic descriptors (CSR
// and COO matrices, dense vectors and matrices, sparse vectors, strided
// batches, fill mode and diagonal type) and the legacy matrix descriptor.
// The routines are in Products.cpp (SpMV, SpMM, SDDMM, SpGEMM, Axpby), Conversions.cpp
// (dense <-> CSR, CSR -> CSC, nnz, csrsort, gather and scatter) and
// TriangularSolves.cpp (SpSV, SpSM, csrilu02), as kernels of
// CusparseKernels.cu launched on the handle's stream, so the detectors check
// them like any kernel. Sums are in double and in order, so results may differ
// from NVIDIA's in the last bits. Other value or index types, transposes the
// kernels do not take, and everything else cuSPARSE exports are refused by
// name (Stubs.cpp), never computed wrongly.
#include <cstring>
#include <string>

#include "libraries/Refusal.h"
#include "libraries/cusparse/CusparseTypes.h"

namespace predatar::libraries {
extern const char kCusparseKernelsPtx[];
}

namespace predatar::libraries::cusparse {

EmbeddedModule& kernels() {
  static auto* module = new EmbeddedModule(
      kCusparseKernelsPtx,
      {"predatar_cusparse_spmv_csr", "predatar_cusparse_scale", "predatar_cusparse_spmv_coo",
       "predatar_cusparse_axpy_sparse", "predatar_cusparse_csr_to_dense", "predatar_cusparse_spmm_csr",
       "predatar_cusparse_spmm_coo", "predatar_cusparse_scale_dense", "predatar_cusparse_sddmm_csr",
       "predatar_cusparse_count_nonzeros", "predatar_cusparse_offsets_from_counts", "predatar_cusparse_dense_to_csr",
       "predatar_cusparse_count_total", "predatar_cusparse_csr_to_csc", "predatar_cusparse_identity",
       "predatar_cusparse_csr_sort", "predatar_cusparse_gather", "predatar_cusparse_scatter",
       "predatar_cusparse_triangular_solve", "predatar_cusparse_ilu0", "predatar_cusparse_spgemm_rows",
       "predatar_cusparse_unsorted_row"});
  return *module;
}

Status refused(const std::string& what) {
  return refuse(what.c_str(), NOT_SUPPORTED, "CUSPARSE_STATUS_NOT_SUPPORTED");
}

Status scale(Handle& h, int64_t n, Scalar beta, int value, void* y) {
  long long count = n;
  return launched(kernels().launch("predatar_cusparse_scale", uint64_t(n), h.stream,
                                   {&count, &beta.pointer, &beta.value, &value, &y}));
}

Status readBack(Handle& h, void* host, const void* device, size_t bytes) {
  cudaError_t e = cudaMemcpyAsync(host, device, bytes, predatar::cudart::cudaMemcpyDeviceToHost, h.stream);
  if (e == cudaSuccess) e = cudaStreamSynchronize(h.stream);
  return launched(e);
}

Status offsetsFromCounts(Handle& h, int64_t rows, void* offsets, int index, int64_t base, int64_t* nnz) {
  long long count = rows, indexBase = base;
  Status s = launched(kernels().launch("predatar_cusparse_offsets_from_counts", dim3{1, 1, 1}, dim3{1, 1, 1}, h.stream,
                                       {&count, &offsets, &index, &indexBase}));
  long long last = 0;  // (an int32 offset lands in its low half)
  if (s == SUCCESS) s = readBack(h, &last, advanced(offsets, rows, index), size_t(index));
  if (index == 4) last = static_cast<int>(last);
  *nnz = last - base;
  return s;
}

namespace {

constexpr int kVersion = 12600;  // CUSPARSE_VERSION of CUDA 13.0's cuSPARSE (12.6.0)

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

}  // namespace
}  // namespace predatar::libraries::cusparse

using namespace predatar::libraries::cusparse;

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

CUSPARSE_API int cusparseCsrSetPointers(void* descriptor, void* offsets, void* columns, void* values) {
  if (!descriptor || !offsets) return INVALID_VALUE;
  auto& a = *static_cast<SpMat*>(descriptor);
  if (!a.csr) return INVALID_VALUE;
  a.rowData = offsets, a.columns = columns, a.values = values;
  return SUCCESS;
}
CUSPARSE_API int cusparseCooSetPointers(void* descriptor, void* rows, void* columns, void* values) {
  if (!descriptor) return INVALID_VALUE;
  auto& a = *static_cast<SpMat*>(descriptor);
  if (a.csr) return INVALID_VALUE;
  a.rowData = rows, a.columns = columns, a.values = values;
  return SUCCESS;
}
CUSPARSE_API int cusparseSpMatGetValues(void* descriptor, void** values) {
  if (!descriptor || !values) return INVALID_VALUE;
  *values = static_cast<SpMat*>(descriptor)->values;
  return SUCCESS;
}
CUSPARSE_API int cusparseSpMatSetValues(void* descriptor, void* values) {
  if (!descriptor) return INVALID_VALUE;
  static_cast<SpMat*>(descriptor)->values = values;
  return SUCCESS;
}
CUSPARSE_API int cusparseSpMatGetIndexBase(const void* descriptor, int* base) {
  if (!descriptor || !base) return INVALID_VALUE;
  *base = static_cast<const SpMat*>(descriptor)->base;
  return SUCCESS;
}
CUSPARSE_API int cusparseCsrSetStridedBatch(void* descriptor, int count, int64_t offsetsStride,
                                            int64_t valuesStride) {
  if (!descriptor || count <= 0 || offsetsStride < 0 || valuesStride < 0) return INVALID_VALUE;
  auto& a = *static_cast<SpMat*>(descriptor);
  if (!a.csr) return INVALID_VALUE;
  a.batches = {count, offsetsStride, valuesStride};
  return SUCCESS;
}
CUSPARSE_API int cusparseCooSetStridedBatch(void* descriptor, int count, int64_t stride) {
  if (!descriptor || count <= 0 || stride < 0) return INVALID_VALUE;
  auto& a = *static_cast<SpMat*>(descriptor);
  if (a.csr) return INVALID_VALUE;
  a.batches = {count, stride, stride};
  return SUCCESS;
}
CUSPARSE_API int cusparseDnMatSetStridedBatch(void* descriptor, int count, int64_t stride) {
  if (!descriptor || count <= 0 || stride < 0) return INVALID_VALUE;
  static_cast<DnMat*>(descriptor)->batches = {count, stride, stride};
  return SUCCESS;
}
CUSPARSE_API int cusparseSpMatGetStridedBatch(const void* descriptor, int* count) {
  if (!descriptor || !count) return INVALID_VALUE;
  *count = static_cast<const SpMat*>(descriptor)->batches.count;
  return SUCCESS;
}
CUSPARSE_API int cusparseDnMatGetStridedBatch(const void* descriptor, int* count, int64_t* stride) {
  if (!descriptor || !count || !stride) return INVALID_VALUE;
  const auto& m = *static_cast<const DnMat*>(descriptor);
  *count = m.batches.count, *stride = m.batches.valuesStride;
  return SUCCESS;
}

// CUSPARSE_SPMAT_FILL_MODE (0) and CUSPARSE_SPMAT_DIAG_TYPE (1), as the
// triangular solves read them.
CUSPARSE_API int cusparseSpMatSetAttribute(void* descriptor, int attribute, const void* data, size_t size) {
  if (!descriptor || !data || size != sizeof(int) || (attribute != 0 && attribute != 1)) return INVALID_VALUE;
  int v;
  std::memcpy(&v, data, sizeof v);
  if (v != 0 && v != 1) return INVALID_VALUE;
  auto& a = *static_cast<SpMat*>(descriptor);
  (attribute == 0 ? a.fillMode : a.diagType) = v;
  return SUCCESS;
}
CUSPARSE_API int cusparseSpMatGetAttribute(const void* descriptor, int attribute, void* data, size_t size) {
  if (!descriptor || !data || size != sizeof(int) || (attribute != 0 && attribute != 1)) return INVALID_VALUE;
  const auto& a = *static_cast<const SpMat*>(descriptor);
  int v = attribute == 0 ? a.fillMode : a.diagType;
  std::memcpy(data, &v, sizeof v);
  return SUCCESS;
}

// The legacy API's matrix descriptor: general, symmetric, Hermitian or
// triangular; fill mode, diagonal type and index base.
CUSPARSE_API int cusparseCreateMatDescr(void** out) {
  if (out == nullptr) return INVALID_VALUE;
  *out = new MatDescr;
  return SUCCESS;
}
CUSPARSE_API int cusparseDestroyMatDescr(void* descriptor) { return destroy<MatDescr>(descriptor); }
CUSPARSE_API int cusparseSetMatType(void* descriptor, int type) {
  if (!descriptor || type < 0 || type > 3) return INVALID_VALUE;
  static_cast<MatDescr*>(descriptor)->type = type;
  return SUCCESS;
}
CUSPARSE_API int cusparseGetMatType(const void* descriptor) { return static_cast<const MatDescr*>(descriptor)->type; }
CUSPARSE_API int cusparseSetMatFillMode(void* descriptor, int mode) {
  if (!descriptor || (mode != 0 && mode != 1)) return INVALID_VALUE;
  static_cast<MatDescr*>(descriptor)->fillMode = mode;
  return SUCCESS;
}
CUSPARSE_API int cusparseGetMatFillMode(const void* descriptor) {
  return static_cast<const MatDescr*>(descriptor)->fillMode;
}
CUSPARSE_API int cusparseSetMatDiagType(void* descriptor, int type) {
  if (!descriptor || (type != 0 && type != 1)) return INVALID_VALUE;
  static_cast<MatDescr*>(descriptor)->diagType = type;
  return SUCCESS;
}
CUSPARSE_API int cusparseGetMatDiagType(const void* descriptor) {
  return static_cast<const MatDescr*>(descriptor)->diagType;
}
CUSPARSE_API int cusparseSetMatIndexBase(void* descriptor, int base) {
  if (!descriptor || (base != 0 && base != 1)) return INVALID_VALUE;
  static_cast<MatDescr*>(descriptor)->base = base;
  return SUCCESS;
}
CUSPARSE_API int cusparseGetMatIndexBase(const void* descriptor) {
  return static_cast<const MatDescr*>(descriptor)->base;
}
