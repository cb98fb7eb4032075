// cuSPARSE's triangular solves and incomplete factorization: SpSV and SpSM
// (CSR, the fill mode and diagonal type set on the matrix), and the legacy
// csrilu02 (ILU(0) of a CSR matrix with sorted columns) with its zero pivot,
// as kernels of CusparseKernels.cu on the handle's stream. The solves run one
// thread per right-hand side, row after row: exact, not fast. A transposed
// sparse matrix is refused by name. The analyses warn of a matrix whose rows
// are not sorted, as cuSPARSE requires them.
#include "absl/strings/str_cat.h"
#include "libraries/Refusal.h"
#include "libraries/cusparse/CusparseTypes.h"

namespace predatar::libraries::cusparse {
namespace {

// SpSV's and SpSM's descriptors hold nothing: the solve needs no analysis.
struct SolveDescr {};
// csrilu02Info_t: the zero pivot the last analysis or factorization found,
// on the device.
struct Ilu0Info {
  int* pivot = nullptr;
};

// Warns (predatarWarning) when a row of the CSR matrix has its columns out of
// order or repeated, which `what` (an analysis) requires sorted: cuSPARSE
// would run it, with an undefined result (HeCBench's bicgstab sorts a matrix
// file's entries by row only). Reads the answer back, as the analysis blocks.
Status warnIfUnsorted(Handle& h, const char* what, int64_t m, const void* offsets, const void* columns, int index,
                      int64_t base) {
  if (m == 0) return SUCCESS;
  int* first = nullptr;
  if (cudaMalloc(reinterpret_cast<void**>(&first), sizeof(int)) != cudaSuccess) return ALLOC_FAILED;
  long long rows = m, indexBase = base;
  Status s = launched(cudaMemsetAsync(first, 0x7f, sizeof(int), h.stream));  // (0x7f7f7f7f: above any row)
  if (s == SUCCESS)
    s = launched(kernels().launch("predatar_cusparse_unsorted_row", uint64_t(m), h.stream,
                                  {&rows, &offsets, &columns, &index, &indexBase, &first}));
  int row = 0x7f7f7f7f;
  if (s == SUCCESS) s = readBack(h, &row, first, sizeof row);
  cudaFree(first);
  if (s == SUCCESS && row != 0x7f7f7f7f)
    predatarWarning(absl::StrCat(what, ": row ", row, " of the CSR matrix has its column indices out of order or ",
                                 "repeated; cuSPARSE requires each row's columns in increasing order, and its result ",
                                 "is undefined (sort them, e.g. with cusparseXcsrsort)")
                        .c_str());
  return s;
}

// Solves op(A) C = alpha B, A n x n triangular, B and C n x nrhs, where element
// (i, j) of B is b[i * bSteps.row + j * bSteps.column] (C's likewise).
Status solve(Handle& h, const char* what, int opA, const void* alphaP, const SpMat& a, int64_t nrhs, const void* b,
             DenseSteps bSteps, int bValue, void* c, DenseSteps cSteps, int cValue, int computeType) {
  if (!alphaP) return INVALID_VALUE;
  if (opA != NON_TRANSPOSE) return refused(std::string(what) + " with a transposed sparse matrix");
  if (!a.csr) return refused(std::string(what) + " of a COO matrix");
  if (valueSize(computeType) != a.value || bValue != a.value || cValue != a.value)
    return refused(std::string(what) + " with mixed value and compute types");
  if (a.rows != a.cols) return INVALID_VALUE;
  Scalar alpha = scalarOf(h, alphaP, a.value);
  long long n = a.rows, count = nrhs, base = a.base;
  int index = a.index, value = a.value, lower = a.fillMode == 0, unit = a.diagType == 1;
  const void *offsets = a.rowData, *columns = a.columns, *values = a.values;
  if (n == 0 || count == 0) return SUCCESS;
  return launched(kernels().launch("predatar_cusparse_triangular_solve", uint64_t(count), h.stream,
                                   {&n, &count, &offsets, &columns, &values, &index, &base, &value, &lower, &unit,
                                    &alpha.pointer, &alpha.value, &b, &bSteps.row, &bSteps.column, &c, &cSteps.row,
                                    &cSteps.column}));
}

Status spsv(Handle& h, int opA, const void* alpha, const SpMat& a, const DnVec& x, DnVec& y, int computeType) {
  if (x.size != a.rows || y.size != a.rows) return INVALID_VALUE;
  DenseSteps column{1, x.size};
  return solve(h, "cusparseSpSV", opA, alpha, a, 1, x.values, column, x.value, y.values, column, y.value, computeType);
}

Status spsm(Handle& h, int opA, int opB, const void* alpha, const SpMat& a, const DnMat& b, DnMat& c,
            int computeType) {
  if (opB != NON_TRANSPOSE && opB != TRANSPOSE) return refused("cusparseSpSM with a conjugate-transposed B");
  int64_t bRows = opB == NON_TRANSPOSE ? b.rows : b.cols, bCols = opB == NON_TRANSPOSE ? b.cols : b.rows;
  if (bRows != a.rows || c.rows != a.rows || c.cols != bCols) return INVALID_VALUE;
  return solve(h, "cusparseSpSM", opA, alpha, a, c.cols, b.values, stepsOf(b, opB), b.value, c.values,
               stepsOf(c, NON_TRANSPOSE), c.value, computeType);
}

// Looks for a zero pivot (factor 0: a missing diagonal; 1: factorizes too).
Status ilu0(Handle& h, int m, int nnz, const MatDescr* descr, void* values, const int* rowPtr, const int* colInd,
            Ilu0Info* info, int value, int factor) {
  if (!descr || !info || m < 0 || nnz < 0 || !rowPtr || (nnz > 0 && (!values || !colInd))) return INVALID_VALUE;
  if (descr->type != 0) return refused("cusparse<t>csrilu02 of a matrix not of CUSPARSE_MATRIX_TYPE_GENERAL");
  if (info->pivot == nullptr && cudaMalloc(reinterpret_cast<void**>(&info->pivot), sizeof(int)) != cudaSuccess)
    return ALLOC_FAILED;
  long long rows = m, base = descr->base;
  int index = 4;
  const void *offsets = rowPtr, *columns = colInd;
  if (!factor)
    if (Status s = warnIfUnsorted(h, value == 8 ? "cusparseDcsrilu02_analysis" : "cusparseScsrilu02_analysis", m,
                                  offsets, columns, index, base);
        s != SUCCESS)
      return s;
  return launched(kernels().launch("predatar_cusparse_ilu0", dim3{1, 1, 1}, dim3{1, 1, 1}, h.stream,
                                   {&rows, &offsets, &columns, &values, &index, &base, &value, &factor,
                                    &info->pivot}));
}

// A solve's analysis: the matrix's rows must be sorted (the solve itself
// reads them in any order, but cuSPARSE's would not).
Status analyse(Handle& h, const char* what, const SpMat& a) {
  if (!a.csr) return SUCCESS;  // (the solve refuses COO)
  return warnIfUnsorted(h, what, a.rows, a.rowData, a.columns, a.index, a.base);
}

Status zeroPivot(Handle& h, Ilu0Info* info, int* position) {
  if (!info || !position) return INVALID_VALUE;
  int found = -1;
  if (info->pivot != nullptr)
    if (Status s = readBack(h, &found, info->pivot, sizeof found); s != SUCCESS) return s;
  if (h.pointerMode == 0) *position = found;
  else if (cudaMemcpyAsync(position, &found, sizeof found, predatar::cudart::cudaMemcpyHostToDevice, h.stream) !=
               cudaSuccess ||
           cudaStreamSynchronize(h.stream) != cudaSuccess)  // `found` is on this stack
    return EXECUTION_FAILED;
  return found < 0 ? SUCCESS : ZERO_PIVOT;
}

}  // namespace
}  // namespace predatar::libraries::cusparse

using namespace predatar::libraries::cusparse;

CUSPARSE_API int cusparseSpSV_createDescr(void** out) {
  if (out == nullptr) return INVALID_VALUE;
  *out = new SolveDescr;
  return SUCCESS;
}
CUSPARSE_API int cusparseSpSV_destroyDescr(void* descr) {
  delete static_cast<SolveDescr*>(descr);
  return SUCCESS;
}
CUSPARSE_API int cusparseSpSV_bufferSize(void* handle, int, const void*, const void* a, const void* x, const void* y,
                                         int, int, void* descr, size_t* bytes) {
  return noBuffer(handle, bytes, {a, x, y, descr});
}
CUSPARSE_API int cusparseSpSV_analysis(void* handle, int, const void*, const void* a, const void* x, const void* y,
                                       int, int, void* descr, void*) {
  if (handle == nullptr) return NOT_INITIALIZED;
  if (!a || !x || !y || !descr) return INVALID_VALUE;
  return analyse(handleOf(handle), "cusparseSpSV_analysis", *static_cast<const SpMat*>(a));
}
CUSPARSE_API int cusparseSpSV_solve(void* handle, int opA, const void* alpha, const void* a, const void* x, void* y,
                                    int computeType, int /*alg*/, void* descr) {
  if (handle == nullptr) return NOT_INITIALIZED;
  if (!a || !x || !y || !descr) return INVALID_VALUE;
  return spsv(handleOf(handle), opA, alpha, *static_cast<const SpMat*>(a), *static_cast<const DnVec*>(x),
              *static_cast<DnVec*>(y), computeType);
}

CUSPARSE_API int cusparseSpSM_createDescr(void** out) {
  if (out == nullptr) return INVALID_VALUE;
  *out = new SolveDescr;
  return SUCCESS;
}
CUSPARSE_API int cusparseSpSM_destroyDescr(void* descr) {
  delete static_cast<SolveDescr*>(descr);
  return SUCCESS;
}
CUSPARSE_API int cusparseSpSM_bufferSize(void* handle, int, int, const void*, const void* a, const void* b,
                                         const void* c, int, int, void* descr, size_t* bytes) {
  return noBuffer(handle, bytes, {a, b, c, descr});
}
CUSPARSE_API int cusparseSpSM_analysis(void* handle, int, int, const void*, const void* a, const void* b,
                                       const void* c, int, int, void* descr, void*) {
  if (handle == nullptr) return NOT_INITIALIZED;
  if (!a || !b || !c || !descr) return INVALID_VALUE;
  return analyse(handleOf(handle), "cusparseSpSM_analysis", *static_cast<const SpMat*>(a));
}
CUSPARSE_API int cusparseSpSM_solve(void* handle, int opA, int opB, const void* alpha, const void* a, const void* b,
                                    void* c, int computeType, int /*alg*/, void* descr) {
  if (handle == nullptr) return NOT_INITIALIZED;
  if (!a || !b || !c || !descr) return INVALID_VALUE;
  return spsm(handleOf(handle), opA, opB, alpha, *static_cast<const SpMat*>(a), *static_cast<const DnMat*>(b),
              *static_cast<DnMat*>(c), computeType);
}

CUSPARSE_API int cusparseCreateCsrilu02Info(void** out) {
  if (out == nullptr) return INVALID_VALUE;
  *out = new Ilu0Info;
  return SUCCESS;
}
CUSPARSE_API int cusparseDestroyCsrilu02Info(void* info) {
  auto* i = static_cast<Ilu0Info*>(info);
  if (i != nullptr && i->pivot != nullptr) cudaFree(i->pivot);
  delete i;
  return SUCCESS;
}
CUSPARSE_API int cusparseScsrilu02_bufferSize(void* handle, int, int, const void*, float*, const int*, const int*,
                                              void*, int* bytes) {
  if (handle == nullptr) return NOT_INITIALIZED;
  if (bytes == nullptr) return INVALID_VALUE;
  *bytes = 4;  // cudaMalloc(0) would hand the program a null buffer
  return SUCCESS;
}
CUSPARSE_API int cusparseDcsrilu02_bufferSize(void* handle, int, int, const void*, double*, const int*, const int*,
                                              void*, int* bytes) {
  return cusparseScsrilu02_bufferSize(handle, 0, 0, nullptr, nullptr, nullptr, nullptr, nullptr, bytes);
}
CUSPARSE_API int cusparseScsrilu02_analysis(void* handle, int m, int nnz, const void* descr, const float* values,
                                            const int* rowPtr, const int* colInd, void* info, int, void*) {
  if (handle == nullptr) return NOT_INITIALIZED;
  return ilu0(handleOf(handle), m, nnz, static_cast<const MatDescr*>(descr), const_cast<float*>(values), rowPtr,
              colInd, static_cast<Ilu0Info*>(info), 4, 0);
}
CUSPARSE_API int cusparseDcsrilu02_analysis(void* handle, int m, int nnz, const void* descr, const double* values,
                                            const int* rowPtr, const int* colInd, void* info, int, void*) {
  if (handle == nullptr) return NOT_INITIALIZED;
  return ilu0(handleOf(handle), m, nnz, static_cast<const MatDescr*>(descr), const_cast<double*>(values), rowPtr,
              colInd, static_cast<Ilu0Info*>(info), 8, 0);
}
CUSPARSE_API int cusparseScsrilu02(void* handle, int m, int nnz, const void* descr, float* values, const int* rowPtr,
                                   const int* colInd, void* info, int, void*) {
  if (handle == nullptr) return NOT_INITIALIZED;
  return ilu0(handleOf(handle), m, nnz, static_cast<const MatDescr*>(descr), values, rowPtr, colInd,
              static_cast<Ilu0Info*>(info), 4, 1);
}
CUSPARSE_API int cusparseDcsrilu02(void* handle, int m, int nnz, const void* descr, double* values, const int* rowPtr,
                                   const int* colInd, void* info, int, void*) {
  if (handle == nullptr) return NOT_INITIALIZED;
  return ilu0(handleOf(handle), m, nnz, static_cast<const MatDescr*>(descr), values, rowPtr, colInd,
              static_cast<Ilu0Info*>(info), 8, 1);
}
CUSPARSE_API int cusparseXcsrilu02_zeroPivot(void* handle, void* info, int* position) {
  if (handle == nullptr) return NOT_INITIALIZED;
  return zeroPivot(handleOf(handle), static_cast<Ilu0Info*>(info), position);
}
