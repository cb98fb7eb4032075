// cuSPARSE's conversions: SparseToDense and DenseToSparse (CSR), Csr2cscEx2,
// the legacy nnz counts, csrsort with its permutation, and Gather and Scatter
// of sparse vectors, as kernels of CusparseKernels.cu on the handle's stream.
// None needs a work buffer (their bufferSize answers 0). DenseToSparse's
// analysis reads the count of nonzeros back to the host, as cuSPARSE's does.
#include <string>

#include "libraries/cusparse/CusparseTypes.h"

namespace predatar::libraries::cusparse {
namespace {

// Counts each row's nonzeros of a dense matrix into b's offsets[1..rows],
// then makes them offsets, and b's nnz the count of all.
Status denseToSparseAnalysis(Handle& h, const DnMat& a, SpMat& b) {
  if (!b.csr) return refused("cusparseDenseToSparse into a COO matrix");
  if (a.rows != b.rows || a.cols != b.cols || a.value != b.value || b.rowData == nullptr) return INVALID_VALUE;
  long long rows = a.rows, cols = a.cols, one = 1;
  DenseSteps steps = stepsOf(a, NON_TRANSPOSE);
  const void* dense = a.values;
  void* offsets = b.rowData;
  int value = a.value, index = b.index;
  Status s = launched(kernels().launch("predatar_cusparse_count_nonzeros", uint64_t(rows), h.stream,
                                       {&rows, &cols, &dense, &steps.row, &steps.column, &value, &offsets, &index,
                                        &one}));
  return s == SUCCESS ? offsetsFromCounts(h, b.rows, b.rowData, b.index, b.base, &b.nnz) : s;
}

Status denseToSparseConvert(Handle& h, const DnMat& a, SpMat& b) {
  if (!b.csr) return refused("cusparseDenseToSparse into a COO matrix");
  if (a.rows != b.rows || a.cols != b.cols || a.value != b.value) return INVALID_VALUE;
  if (b.nnz > 0 && (b.columns == nullptr || b.values == nullptr)) return INVALID_VALUE;
  long long rows = a.rows, cols = a.cols, base = b.base;
  DenseSteps steps = stepsOf(a, NON_TRANSPOSE);
  const void *dense = a.values, *offsets = b.rowData;
  void *columns = b.columns, *values = b.values;
  int value = a.value, index = b.index;
  return launched(kernels().launch("predatar_cusparse_dense_to_csr", uint64_t(rows), h.stream,
                                   {&rows, &cols, &dense, &steps.row, &steps.column, &value, &offsets, &columns,
                                    &values, &index, &base}));
}

// The legacy nnz: each row's or column's nonzeros of a column-major m x n
// matrix, and their total, on the host or the device by the pointer mode.
Status nnz(Handle& h, int direction, int m, int n, const MatDescr* descr, const void* a, int lda, int value,
           int* perLine, int* total) {
  if (!descr || !a || !perLine || !total || m < 0 || n < 0 || lda < m || (direction != 0 && direction != 1))
    return INVALID_VALUE;
  if (descr->type != 0) return refused("cusparse<t>nnz of a matrix not of CUSPARSE_MATRIX_TYPE_GENERAL");
  bool rows = direction == 0;
  long long lines = rows ? m : n, length = rows ? n : m, lineStep = rows ? 1 : lda, elementStep = rows ? lda : 1,
            zero = 0, count = lines;
  int four = 4;
  void* out = perLine;
  Status s = launched(kernels().launch("predatar_cusparse_count_nonzeros", uint64_t(lines), h.stream,
                                       {&lines, &length, &a, &lineStep, &elementStep, &value, &out, &four, &zero}));
  if (s != SUCCESS) return s;
  int* target = total;
  if (h.pointerMode == 0 && cudaMalloc(reinterpret_cast<void**>(&target), sizeof(int)) != cudaSuccess)
    return ALLOC_FAILED;
  s = launched(kernels().launch("predatar_cusparse_count_total", dim3{1, 1, 1}, dim3{1, 1, 1}, h.stream,
                                {&count, &perLine, &target}));
  if (h.pointerMode == 0) {
    if (s == SUCCESS) s = readBack(h, total, target, sizeof(int));
    cudaFree(target);
  }
  return s;
}

// The size of a value of a cudaDataType that Csr2cscEx2 moves, 0 for others.
int movedValueSize(int type) {
  switch (type) {
    case 2: case 14: return 2;           // CUDA_R_16F, CUDA_R_16BF
    case 0: case 6: case 10: return 4;   // CUDA_R_32F, CUDA_C_16F, CUDA_R_32I
    case 1: case 4: return 8;            // CUDA_R_64F, CUDA_C_32F
    case 5: return 16;                   // CUDA_C_64F
    default: return 0;
  }
}

Status csr2csc(Handle& h, int m, int n, int nnz, const void* csrVal, const int* rowPtr, const int* colInd,
               void* cscVal, int* colPtr, int* rowInd, int valType, int action, int base) {
  if (m < 0 || n < 0 || nnz < 0 || !rowPtr || !colPtr || (base != 0 && base != 1) || (action != 0 && action != 1))
    return INVALID_VALUE;
  if (nnz > 0 && (!colInd || !rowInd || (action == 1 && (!csrVal || !cscVal)))) return INVALID_VALUE;
  int bytes = movedValueSize(valType);
  if (bytes == 0) return refused("cusparseCsr2cscEx2 with value type " + std::to_string(valType));
  return launched(kernels().launch("predatar_cusparse_csr_to_csc", dim3{1, 1, 1}, dim3{1, 1, 1}, h.stream,
                                   {&m, &n, &rowPtr, &colInd, &csrVal, &colPtr, &rowInd, &cscVal, &bytes, &action,
                                    &base}));
}

// Gather (x = y at x's indices) or scatter (y at x's indices = x).
Status gatherOrScatter(Handle& h, bool gather, const SpVec& x, const DnVec& y) {
  if (x.value != y.value || x.size > y.size) return INVALID_VALUE;
  if (x.nnz == 0) return SUCCESS;
  long long nnz = x.nnz, base = x.base;
  int index = x.index, value = x.value;
  const void *indices = x.indices, *from = gather ? y.values : x.values;
  void* to = gather ? x.values : y.values;
  return launched(kernels().launch(gather ? "predatar_cusparse_gather" : "predatar_cusparse_scatter", uint64_t(nnz),
                                   h.stream, {&nnz, &indices, &index, &base, &value, &from, &to}));
}

}  // namespace
}  // namespace predatar::libraries::cusparse

using namespace predatar::libraries::cusparse;

CUSPARSE_API int cusparseSparseToDense_bufferSize(void* handle, const void* a, void* b, int, size_t* bytes) {
  return noBuffer(handle, bytes, {a, b});
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


CUSPARSE_API int cusparseDenseToSparse_bufferSize(void* handle, const void* a, void* b, int, size_t* bytes) {
  return noBuffer(handle, bytes, {a, b});
}
CUSPARSE_API int cusparseDenseToSparse_analysis(void* handle, const void* a, void* b, int, void*) {
  if (handle == nullptr) return NOT_INITIALIZED;
  if (!a || !b) return INVALID_VALUE;
  return denseToSparseAnalysis(handleOf(handle), *static_cast<const DnMat*>(a), *static_cast<SpMat*>(b));
}
CUSPARSE_API int cusparseDenseToSparse_convert(void* handle, const void* a, void* b, int, void*) {
  if (handle == nullptr) return NOT_INITIALIZED;
  if (!a || !b) return INVALID_VALUE;
  return denseToSparseConvert(handleOf(handle), *static_cast<const DnMat*>(a), *static_cast<SpMat*>(b));
}

CUSPARSE_API int cusparseSnnz(void* handle, int direction, int m, int n, const void* descr, const float* a, int lda,
                              int* perLine, int* total) {
  if (handle == nullptr) return NOT_INITIALIZED;
  return nnz(handleOf(handle), direction, m, n, static_cast<const MatDescr*>(descr), a, lda, 4, perLine, total);
}
CUSPARSE_API int cusparseDnnz(void* handle, int direction, int m, int n, const void* descr, const double* a, int lda,
                              int* perLine, int* total) {
  if (handle == nullptr) return NOT_INITIALIZED;
  return nnz(handleOf(handle), direction, m, n, static_cast<const MatDescr*>(descr), a, lda, 8, perLine, total);
}

CUSPARSE_API int cusparseCsr2cscEx2_bufferSize(void* handle, int, int, int, const void*, const int*, const int*,
                                               void*, int*, int*, int, int, int, int, size_t* bytes) {
  return noBuffer(handle, bytes, {});
}
CUSPARSE_API int cusparseCsr2cscEx2(void* handle, int m, int n, int nnz, const void* csrVal, const int* rowPtr,
                                    const int* colInd, void* cscVal, int* colPtr, int* rowInd, int valType, int action,
                                    int base, int /*alg*/, void* /*buffer*/) {
  if (handle == nullptr) return NOT_INITIALIZED;
  return csr2csc(handleOf(handle), m, n, nnz, csrVal, rowPtr, colInd, cscVal, colPtr, rowInd, valType, action, base);
}

CUSPARSE_API int cusparseXcsrsort_bufferSizeExt(void* handle, int m, int n, int nnz, const int* rowPtr,
                                                const int* colInd, size_t* bytes) {
  if (handle == nullptr) return NOT_INITIALIZED;
  if (m < 0 || n < 0 || nnz < 0 || !rowPtr || !colInd || !bytes) return INVALID_VALUE;
  *bytes = 0;
  return SUCCESS;
}
CUSPARSE_API int cusparseXcsrsort(void* handle, int m, int n, int nnz, const void* descr, const int* rowPtr,
                                  int* colInd, int* p, void* /*buffer*/) {
  if (handle == nullptr) return NOT_INITIALIZED;
  if (m < 0 || n < 0 || nnz < 0 || !descr || !rowPtr || (nnz > 0 && (!colInd || !p))) return INVALID_VALUE;
  int base = static_cast<const MatDescr*>(descr)->base;
  return launched(kernels().launch("predatar_cusparse_csr_sort", uint64_t(m), handleOf(handle).stream,
                                   {&m, &rowPtr, &colInd, &p, &base}));
}
CUSPARSE_API int cusparseCreateIdentityPermutation(void* handle, int n, int* p) {
  if (handle == nullptr) return NOT_INITIALIZED;
  if (n < 0 || (n > 0 && !p)) return INVALID_VALUE;
  long long count = n;
  if (n == 0) return SUCCESS;
  return launched(kernels().launch("predatar_cusparse_identity", uint64_t(n), handleOf(handle).stream, {&count, &p}));
}

CUSPARSE_API int cusparseGather(void* handle, const void* y, void* x) {
  if (handle == nullptr) return NOT_INITIALIZED;
  if (!x || !y) return INVALID_VALUE;
  return gatherOrScatter(handleOf(handle), true, *static_cast<const SpVec*>(x),
                         *static_cast<const DnVec*>(y));
}
CUSPARSE_API int cusparseScatter(void* handle, const void* x, void* y) {
  if (handle == nullptr) return NOT_INITIALIZED;
  if (!x || !y) return INVALID_VALUE;
  return gatherOrScatter(handleOf(handle), false, *static_cast<const SpVec*>(x),
                         *static_cast<const DnVec*>(y));
}
