// cuSPARSE's products: SpMV (CSR, COO), SpMM (CSR, COO, strided batches),
// SDDMM (CSR, strided batches), SpGEMM (CSR) and Axpby, as kernels of
// CusparseKernels.cu on the handle's stream. None needs the program's work
// buffer (their bufferSize answers 0; SpGEMM's a few bytes, see below).
// A transposed sparse operand is refused by name; dense operands may be
// transposed and in either order.
#include <algorithm>
#include <string>

#include "libraries/cusparse/CusparseTypes.h"

namespace predatar::libraries::cusparse {
namespace {

Status spmv(Handle& h, int op, const void* alphaP, const SpMat& a, const DnVec& x, const void* betaP, DnVec& y,
            int computeType) {
  if (!alphaP || !betaP) return INVALID_VALUE;
  if (op != NON_TRANSPOSE) return refused("cusparseSpMV with a transposed matrix");
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

Status scaleDense(Handle& h, const DnMat& c, Scalar beta) {
  long long rows = c.rows, cols = c.cols;
  int value = c.value;
  DenseSteps steps = stepsOf(c, NON_TRANSPOSE);
  void* values = c.values;
  return launched(kernels().launch("predatar_cusparse_scale_dense", uint64_t(rows * cols), h.stream,
                                   {&rows, &cols, &beta.pointer, &beta.value, &value, &values, &steps.row,
                                    &steps.column}));
}

// One batch of C = alpha A op(B) + beta C.
Status spmmBatch(Handle& h, const SpMat& a, const DnMat& b, int opB, DnMat& c, Scalar alpha, Scalar beta) {
  long long rows = a.rows, n = c.cols, nnz = a.nnz, base = a.base;
  int index = a.index, value = a.value;
  const void *rowData = a.rowData, *columns = a.columns, *values = a.values, *bv = b.values;
  void* cv = c.values;
  DenseSteps bs = stepsOf(b, opB), cs = stepsOf(c, NON_TRANSPOSE);
  if (a.csr)
    return launched(kernels().launch("predatar_cusparse_spmm_csr", uint64_t(rows * n), h.stream,
                                     {&rows, &n, &rowData, &columns, &values, &index, &base, &value, &alpha.pointer,
                                      &alpha.value, &bv, &bs.row, &bs.column, &beta.pointer, &beta.value, &cv,
                                      &cs.row, &cs.column}));
  if (Status s = scaleDense(h, c, beta); s != SUCCESS || nnz == 0) return s;
  return launched(kernels().launch("predatar_cusparse_spmm_coo", uint64_t(nnz * n), h.stream,
                                   {&nnz, &n, &rowData, &columns, &values, &index, &base, &value, &alpha.pointer,
                                    &alpha.value, &bv, &bs.row, &bs.column, &cv, &cs.row, &cs.column}));
}

// Whether a batch count fits C's: the same, or one operand used by every batch.
bool batchesFit(int operand, int c) { return operand == c || operand == 1; }

Status spmm(Handle& h, int opA, int opB, const void* alphaP, const SpMat& a, const DnMat& b, const void* betaP,
            DnMat& c, int computeType) {
  if (!alphaP || !betaP) return INVALID_VALUE;
  if (opA != NON_TRANSPOSE) return refused("cusparseSpMM with a transposed sparse matrix");
  if (opB != NON_TRANSPOSE && opB != TRANSPOSE) return refused("cusparseSpMM with a conjugate-transposed B");
  if (valueSize(computeType) != a.value || b.value != a.value || c.value != a.value)
    return refused("cusparseSpMM with mixed value and compute types");
  int64_t bRows = opB == NON_TRANSPOSE ? b.rows : b.cols, bCols = opB == NON_TRANSPOSE ? b.cols : b.rows;
  if (a.cols != bRows || c.rows != a.rows || c.cols != bCols) return INVALID_VALUE;
  int batches = c.batches.count;
  if (!batchesFit(a.batches.count, batches) || !batchesFit(b.batches.count, batches)) return INVALID_VALUE;
  Scalar alpha = scalarOf(h, alphaP, a.value), beta = scalarOf(h, betaP, a.value);
  for (int i = 0; i < batches; ++i) {
    DnMat ci = batchOf(c, i);
    Status s = spmmBatch(h, batchOf(a, a.batches.count == 1 ? 0 : i), batchOf(b, b.batches.count == 1 ? 0 : i), opB,
                         ci, alpha, beta);
    if (s != SUCCESS) return s;
  }
  return SUCCESS;
}

Status sddmm(Handle& h, int opA, int opB, const void* alphaP, const DnMat& a, const DnMat& b, const void* betaP,
             SpMat& c, int computeType) {
  if (!alphaP || !betaP) return INVALID_VALUE;
  if (opA > TRANSPOSE || opB > TRANSPOSE) return refused("cusparseSDDMM with a conjugate-transposed operand");
  if (!c.csr) return refused("cusparseSDDMM into a COO matrix");
  if (valueSize(computeType) != c.value || a.value != c.value || b.value != c.value)
    return refused("cusparseSDDMM with mixed value and compute types");
  int64_t aRows = opA == NON_TRANSPOSE ? a.rows : a.cols, k = opA == NON_TRANSPOSE ? a.cols : a.rows;
  int64_t bRows = opB == NON_TRANSPOSE ? b.rows : b.cols, bCols = opB == NON_TRANSPOSE ? b.cols : b.rows;
  if (aRows != c.rows || k != bRows || bCols != c.cols) return INVALID_VALUE;
  int batches = c.batches.count;
  if (!batchesFit(a.batches.count, batches) || !batchesFit(b.batches.count, batches)) return INVALID_VALUE;
  Scalar alpha = scalarOf(h, alphaP, c.value), beta = scalarOf(h, betaP, c.value);
  long long rows = c.rows, depth = k, base = c.base;
  int index = c.index, value = c.value;
  DenseSteps as = stepsOf(a, opA), bs = stepsOf(b, opB);
  for (int i = 0; i < batches; ++i) {
    SpMat ci = batchOf(c, i);
    const void *offsets = ci.rowData, *columns = ci.columns;
    const void* av = batchOf(a, a.batches.count == 1 ? 0 : i).values;
    const void* bv = batchOf(b, b.batches.count == 1 ? 0 : i).values;
    void* values = ci.values;
    Status s = launched(kernels().launch(
        "predatar_cusparse_sddmm_csr", uint64_t(rows), h.stream,
        {&rows, &depth, &offsets, &columns, &values, &index, &base, &value, &alpha.pointer, &alpha.value, &av,
         &as.row, &as.column, &bv, &bs.row, &bs.column, &beta.pointer, &beta.value}));
    if (s != SUCCESS) return s;
  }
  return SUCCESS;
}

// SpGEMM's descriptor: C, computed by cusparseSpGEMM_compute into device
// arrays of predatar's own, then copied into the arrays the program gives C.
struct SpGemm {
  void *offsets = nullptr, *columns = nullptr, *values = nullptr;
  int64_t rows = 0, nnz = 0;
  int index = 4, value = 4;
  void release() {
    for (void* p : {offsets, columns, values}) cudaFree(p);
    offsets = columns = values = nullptr;
  }
};

// The bytes one SpGEMM kernel thread's accumulator and marks take, and the
// kernel's threads: as many as rows, within 64 MiB of them.
constexpr uint64_t kSpGemmScratch = uint64_t(64) << 20;
constexpr uint32_t kSpGemmBlock = 64;

Status spgemmPass(Handle& h, const SpMat& a, const SpMat& b, Scalar alpha, SpGemm& c, int fill, double* scratch,
                  uint32_t blocks) {
  long long rows = a.rows, cols = b.cols, aBase = a.base, bBase = b.base, cBase = a.base;
  int index = a.index, value = a.value;
  const void *aOffsets = a.rowData, *aColumns = a.columns, *aValues = a.values, *bOffsets = b.rowData,
             *bColumns = b.columns, *bValues = b.values;
  return launched(kernels().launch("predatar_cusparse_spgemm_rows", dim3{blocks, 1, 1}, dim3{kSpGemmBlock, 1, 1},
                                   h.stream,
                                   {&rows, &cols, &aOffsets, &aColumns, &aValues, &aBase, &bOffsets, &bColumns,
                                    &bValues, &bBase, &index, &value, &alpha.pointer, &alpha.value, &c.offsets,
                                    &c.columns, &c.values, &cBase, &fill, &scratch}));
}

// C's row counts, then its offsets and nnz (read back), then its columns and values.
Status spgemmCompute(Handle& h, const SpMat& a, const SpMat& b, Scalar alpha, SpGemm& c) {
  uint64_t perThread = 2 * sizeof(double) * uint64_t(std::max<int64_t>(b.cols, 1));
  uint64_t threads = std::clamp<uint64_t>(kSpGemmScratch / perThread, 1, uint64_t(std::max<int64_t>(a.rows, 1)));
  uint32_t blocks = uint32_t((threads + kSpGemmBlock - 1) / kSpGemmBlock);
  double* scratch = nullptr;
  c.release();
  c.rows = a.rows, c.index = a.index, c.value = a.value;
  if (cudaMalloc(reinterpret_cast<void**>(&scratch), blocks * kSpGemmBlock * perThread) != cudaSuccess ||
      cudaMalloc(&c.offsets, (a.rows + 1) * a.index) != cudaSuccess) {
    cudaFree(scratch);
    return ALLOC_FAILED;
  }
  Status s = spgemmPass(h, a, b, alpha, c, 0, scratch, blocks);
  if (s == SUCCESS) s = offsetsFromCounts(h, a.rows, c.offsets, a.index, a.base, &c.nnz);
  if (s == SUCCESS && (cudaMalloc(&c.columns, std::max<int64_t>(c.nnz, 1) * c.index) != cudaSuccess ||
                       cudaMalloc(&c.values, std::max<int64_t>(c.nnz, 1) * c.value) != cudaSuccess))
    s = ALLOC_FAILED;
  if (s == SUCCESS) s = spgemmPass(h, a, b, alpha, c, 1, scratch, blocks);
  cudaFree(scratch);
  return s;
}

Status spgemmOperands(Handle& h, int opA, int opB, const void* alphaP, const SpMat& a, const SpMat& b,
                      const void* betaP, const SpMat& c, int computeType) {
  if (!alphaP || !betaP) return INVALID_VALUE;
  if (opA != NON_TRANSPOSE || opB != NON_TRANSPOSE) return refused("cusparseSpGEMM with a transposed matrix");
  if (!a.csr || !b.csr || !c.csr) return refused("cusparseSpGEMM of COO matrices");
  if (valueSize(computeType) != a.value || b.value != a.value || c.value != a.value || b.index != a.index ||
      c.index != a.index)
    return refused("cusparseSpGEMM with mixed value, index and compute types");
  if (h.pointerMode == 0 && scalarOf(h, betaP, a.value).value != 0)
    return refused("cusparseSpGEMM with beta != 0");
  if (a.cols != b.rows || c.rows != a.rows || c.cols != b.cols) return INVALID_VALUE;
  return SUCCESS;
}

}  // namespace
}  // namespace predatar::libraries::cusparse

using namespace predatar::libraries::cusparse;

CUSPARSE_API int cusparseSpMV_bufferSize(void* handle, int, const void*, const void* a, const void* x, const void*,
                                         void* y, int, int, size_t* bytes) {
  return noBuffer(handle, bytes, {a, x, y});
}
CUSPARSE_API int cusparseSpMV(void* handle, int op, const void* alpha, const void* a, const void* x, const void* beta,
                              void* y, int computeType, int /*alg*/, void* /*buffer*/) {
  if (handle == nullptr) return NOT_INITIALIZED;
  if (!a || !x || !y) return INVALID_VALUE;
  return spmv(*static_cast<Handle*>(handle), op, alpha, *static_cast<const SpMat*>(a), *static_cast<const DnVec*>(x),
              beta, *static_cast<DnVec*>(y), computeType);
}

CUSPARSE_API int cusparseSpMM_bufferSize(void* handle, int, int, const void*, const void* a, const void* b,
                                         const void*, void* c, int, int, size_t* bytes) {
  return noBuffer(handle, bytes, {a, b, c});
}
CUSPARSE_API int cusparseSpMM_preprocess(void* handle, int, int, const void*, const void* a, const void* b,
                                         const void*, void* c, int, int, void*) {
  if (handle == nullptr) return NOT_INITIALIZED;
  return a && b && c ? SUCCESS : INVALID_VALUE;
}
CUSPARSE_API int cusparseSpMM(void* handle, int opA, int opB, const void* alpha, const void* a, const void* b,
                              const void* beta, void* c, int computeType, int /*alg*/, void* /*buffer*/) {
  if (handle == nullptr) return NOT_INITIALIZED;
  if (!a || !b || !c) return INVALID_VALUE;
  return spmm(*static_cast<Handle*>(handle), opA, opB, alpha, *static_cast<const SpMat*>(a),
              *static_cast<const DnMat*>(b), beta, *static_cast<DnMat*>(c), computeType);
}

CUSPARSE_API int cusparseSDDMM_bufferSize(void* handle, int, int, const void*, const void* a, const void* b,
                                          const void*, void* c, int, int, size_t* bytes) {
  return noBuffer(handle, bytes, {a, b, c});
}
CUSPARSE_API int cusparseSDDMM_preprocess(void* handle, int, int, const void*, const void* a, const void* b,
                                          const void*, void* c, int, int, void*) {
  if (handle == nullptr) return NOT_INITIALIZED;
  return a && b && c ? SUCCESS : INVALID_VALUE;
}
CUSPARSE_API int cusparseSDDMM(void* handle, int opA, int opB, const void* alpha, const void* a, const void* b,
                               const void* beta, void* c, int computeType, int /*alg*/, void* /*buffer*/) {
  if (handle == nullptr) return NOT_INITIALIZED;
  if (!a || !b || !c) return INVALID_VALUE;
  return sddmm(*static_cast<Handle*>(handle), opA, opB, alpha, *static_cast<const DnMat*>(a),
               *static_cast<const DnMat*>(b), beta, *static_cast<SpMat*>(c), computeType);
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

// SpGEMM: the work estimation does nothing; the compute, when given a buffer,
// computes C (both ask a few bytes, so that a program's cudaMalloc of them
// is not a null buffer, which would read as another size query); the copy
// moves C into the program's arrays.
CUSPARSE_API int cusparseSpGEMM_createDescr(void** out) {
  if (out == nullptr) return INVALID_VALUE;
  *out = new SpGemm;
  return SUCCESS;
}
CUSPARSE_API int cusparseSpGEMM_destroyDescr(void* descr) {
  auto* d = static_cast<SpGemm*>(descr);
  if (d != nullptr) d->release();
  delete d;
  return SUCCESS;
}
CUSPARSE_API int cusparseSpGEMM_workEstimation(void* handle, int opA, int opB, const void* alpha, const void* a,
                                               const void* b, const void* beta, void* c, int computeType, int,
                                               void* descr, size_t* bytes, void* buffer) {
  if (handle == nullptr) return NOT_INITIALIZED;
  if (!a || !b || !c || !descr || !bytes) return INVALID_VALUE;
  if (Status s = spgemmOperands(handleOf(handle), opA, opB, alpha, *static_cast<const SpMat*>(a),
                                *static_cast<const SpMat*>(b), beta, *static_cast<const SpMat*>(c), computeType);
      s != SUCCESS)
    return s;
  if (buffer == nullptr) *bytes = 8;
  return SUCCESS;
}
CUSPARSE_API int cusparseSpGEMM_compute(void* handle, int opA, int opB, const void* alpha, const void* a,
                                        const void* b, const void* beta, void* c, int computeType, int, void* descr,
                                        size_t* bytes, void* buffer) {
  if (handle == nullptr) return NOT_INITIALIZED;
  if (!a || !b || !c || !descr || !bytes) return INVALID_VALUE;
  Handle& h = handleOf(handle);
  const auto &ma = *static_cast<const SpMat*>(a), &mb = *static_cast<const SpMat*>(b);
  auto& mc = *static_cast<SpMat*>(c);
  if (Status s = spgemmOperands(h, opA, opB, alpha, ma, mb, beta, mc, computeType); s != SUCCESS) return s;
  if (buffer == nullptr) {
    *bytes = 8;
    return SUCCESS;
  }
  auto& d = *static_cast<SpGemm*>(descr);
  if (Status s = spgemmCompute(h, ma, mb, scalarOf(h, alpha, ma.value), d); s != SUCCESS) return s;
  mc.nnz = d.nnz;
  return SUCCESS;
}
CUSPARSE_API int cusparseSpGEMM_copy(void* handle, int opA, int opB, const void* alpha, const void* a, const void* b,
                                     const void* beta, void* c, int computeType, int, void* descr) {
  if (handle == nullptr) return NOT_INITIALIZED;
  if (!a || !b || !c || !descr) return INVALID_VALUE;
  Handle& h = handleOf(handle);
  auto& mc = *static_cast<SpMat*>(c);
  if (Status s = spgemmOperands(h, opA, opB, alpha, *static_cast<const SpMat*>(a), *static_cast<const SpMat*>(b),
                                beta, mc, computeType);
      s != SUCCESS)
    return s;
  const auto& d = *static_cast<const SpGemm*>(descr);
  if (d.offsets == nullptr || d.rows != mc.rows) return INVALID_VALUE;  // no compute before
  if (!mc.rowData || (d.nnz > 0 && (!mc.columns || !mc.values))) return INVALID_VALUE;
  constexpr int kToDevice = predatar::cudart::cudaMemcpyDeviceToDevice;
  cudaError_t e = cudaMemcpyAsync(mc.rowData, d.offsets, (d.rows + 1) * d.index, kToDevice, h.stream);
  if (e == cudaSuccess && d.nnz > 0) e = cudaMemcpyAsync(mc.columns, d.columns, d.nnz * d.index, kToDevice, h.stream);
  if (e == cudaSuccess && d.nnz > 0) e = cudaMemcpyAsync(mc.values, d.values, d.nnz * d.value, kToDevice, h.stream);
  mc.nnz = d.nnz;
  return launched(e);
}
