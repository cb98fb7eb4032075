// More of cuSPARSE on predatar's own libcusparse (src/libraries/cusparse), each
// checked against loops on the host: SpMM (CSR, row-major; COO, f64, B
// transposed), SpGEMM, SDDMM in two strided batches, DenseToSparse (int64 indices),
// the legacy Snnz by rows and by columns, Csr2cscEx2, and Xcsrsort with
// Gather. (The solves are cusparse_solves.cu.)
#include <cusparse.h>

#include <vector>

#include "library_test_helpers.h"

// The matrix A, row by row: (0,1)=2 (0,4)=-1 (1,0)=3 (2,2)=0.5 (2,3)=4 (3,1)=-2 (3,4)=1.
const int kRows = 4, kCols = 5, kNnz = 7;
const int kRowOf[kNnz] = {0, 0, 1, 2, 2, 3, 3}, kColOf[kNnz] = {1, 4, 0, 2, 3, 1, 4};
const int kOffsets[kRows + 1] = {0, 2, 3, 5, 7};
const double kValue[kNnz] = {2, -1, 3, 0.5, 4, -2, 1};

static double denseA(int r, int c) {
  for (int e = 0; e < kNnz; ++e)
    if (kRowOf[e] == r && kColOf[e] == c) return kValue[e];
  return 0;
}
// A small dense operand: element (i, j) of a matrix numbered `which`.
static double operand(int which, int i, int j) { return (which + 1) * 0.5 + i - 0.25 * j; }

// The CSR descriptor of A in f32 (int32, base 0) over the given device arrays.
static cusparseSpMatDescr_t csrOfA(int* offsets, int* columns, float* values) {
  cusparseSpMatDescr_t a = nullptr;
  cusparseCreateCsr(&a, kRows, kCols, kNnz, offsets, columns, values, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                    CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F);
  return a;
}

// C = 2 A B + C (CSR, B 5 x 3 and C 4 x 3 row-major); then C = A op(B) with A
// in COO (f64) and B stored 3 x 5 column-major, transposed.
static int spmm(cusparseHandle_t h) {
  const int n = 3;
  std::vector<float> b(kCols * n), c(kRows * n, 1);
  for (int i = 0; i < kCols; ++i)
    for (int j = 0; j < n; ++j) b[i * n + j] = float(operand(0, i, j));
  int *dOffsets = device(std::vector<int>(kOffsets, kOffsets + kRows + 1)),
      *dColumns = device(std::vector<int>(kColOf, kColOf + kNnz));
  float *dValues = device(std::vector<float>(kValue, kValue + kNnz)), *db = device(b), *dc = device(c);
  cusparseSpMatDescr_t a = csrOfA(dOffsets, dColumns, dValues);
  cusparseDnMatDescr_t mb, mc;
  CHECK(cusparseCreateDnMat(&mb, kCols, n, n, db, CUDA_R_32F, CUSPARSE_ORDER_ROW));
  CHECK(cusparseCreateDnMat(&mc, kRows, n, n, dc, CUDA_R_32F, CUSPARSE_ORDER_ROW));
  const float two = 2, one = 1;
  size_t bytes = 1;
  CHECK(cusparseSpMM_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &two, a, mb,
                                &one, mc, CUDA_R_32F, CUSPARSE_SPMM_ALG_DEFAULT, &bytes));
  CHECK(cusparseSpMM(h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &two, a, mb, &one, mc,
                     CUDA_R_32F, CUSPARSE_SPMM_ALG_DEFAULT, nullptr));
  std::vector<float> got = host(dc, kRows * n);
  bool csr = bytes == 0;
  for (int r = 0; r < kRows; ++r)
    for (int j = 0; j < n; ++j) {
      double s = 0;
      for (int k = 0; k < kCols; ++k) s += denseA(r, k) * operand(0, k, j);
      csr &= near(got[r * n + j], 2 * s + 1);
    }
  CHECK(cusparseDestroySpMat(a));
  CHECK(cusparseDestroyDnMat(mb));
  CHECK(cusparseDestroyDnMat(mc));
  // COO f64; B^T is 3 x 5 column-major (ld 3): B(k, j) = bt[j + k * 3].
  std::vector<int> rows(kRowOf, kRowOf + kNnz);
  std::vector<double> bt(n * kCols), cd(kRows * n, 99);
  for (int k = 0; k < kCols; ++k)
    for (int j = 0; j < n; ++j) bt[j + k * n] = operand(1, k, j);
  int* dRows = device(rows);
  double *dv = device(std::vector<double>(kValue, kValue + kNnz)), *dbt = device(bt), *dcd = device(cd);
  CHECK(cusparseCreateCoo(&a, kRows, kCols, kNnz, dRows, dColumns, dv, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                          CUDA_R_64F));
  CHECK(cusparseCreateDnMat(&mb, n, kCols, n, dbt, CUDA_R_64F, CUSPARSE_ORDER_COL));
  CHECK(cusparseCreateDnMat(&mc, kRows, n, kRows, dcd, CUDA_R_64F, CUSPARSE_ORDER_COL));
  const double done = 1, dzero = 0;
  CHECK(cusparseSpMM(h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_TRANSPOSE, &done, a, mb, &dzero, mc,
                     CUDA_R_64F, CUSPARSE_SPMM_ALG_DEFAULT, nullptr));
  std::vector<double> gotd = host(dcd, kRows * n);
  bool coo = true;
  for (int r = 0; r < kRows; ++r)
    for (int j = 0; j < n; ++j) {
      double s = 0;
      for (int k = 0; k < kCols; ++k) s += denseA(r, k) * operand(1, k, j);
      coo &= near(gotd[r + j * kRows], s);
    }
  printf("SpMM: CSR %s, COO with B transposed %s\n", yes(csr), yes(coo));
  CHECK(cusparseDestroySpMat(a));
  CHECK(cusparseDestroyDnMat(mb));
  CHECK(cusparseDestroyDnMat(mc));
  for (void* p : {(void*)dOffsets, (void*)dColumns, (void*)dValues, (void*)db, (void*)dc, (void*)dRows, (void*)dv,
                  (void*)dbt, (void*)dcd})
    CHECK(cudaFree(p));
  return 0;
}

// C = 2 A B with B sparse too (5 x 3), through SpGEMM's protocol: work
// estimation and compute, each asked its buffer size first, then C's nnz, its
// arrays, and the copy. C's pattern is every (r, j) some A(r, k) B(k, j) reaches.
static int spgemm(cusparseHandle_t h) {
  const int n = 3, bNnz = 6;
  std::vector<int> bOffsets{0, 1, 2, 3, 5, 6}, bColumns{0, 2, 1, 0, 2, 1};
  std::vector<float> bValues{1, 2, -1, 0.5f, 1, 3};
  int *dOffsets = device(std::vector<int>(kOffsets, kOffsets + kRows + 1)),
      *dColumns = device(std::vector<int>(kColOf, kColOf + kNnz)), *dbOffsets = device(bOffsets),
      *dbColumns = device(bColumns), *dcOffsets = device(std::vector<int>(kRows + 1));
  float *dValues = device(std::vector<float>(kValue, kValue + kNnz)), *dbValues = device(bValues);
  cusparseSpMatDescr_t a = csrOfA(dOffsets, dColumns, dValues), b, c;
  CHECK(cusparseCreateCsr(&b, kCols, n, bNnz, dbOffsets, dbColumns, dbValues, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                          CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
  CHECK(cusparseCreateCsr(&c, kRows, n, 0, nullptr, nullptr, nullptr, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                          CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
  const cusparseOperation_t op = CUSPARSE_OPERATION_NON_TRANSPOSE;
  const float two = 2, zero = 0;
  cusparseSpGEMMDescr_t descr;
  CHECK(cusparseSpGEMM_createDescr(&descr));
  size_t bytes1 = 0, bytes2 = 0;
  void *buffer1 = nullptr, *buffer2 = nullptr;
  CHECK(cusparseSpGEMM_workEstimation(h, op, op, &two, a, b, &zero, c, CUDA_R_32F, CUSPARSE_SPGEMM_DEFAULT, descr,
                                      &bytes1, nullptr));
  CHECK(cudaMalloc(&buffer1, bytes1));
  CHECK(cusparseSpGEMM_workEstimation(h, op, op, &two, a, b, &zero, c, CUDA_R_32F, CUSPARSE_SPGEMM_DEFAULT, descr,
                                      &bytes1, buffer1));
  CHECK(cusparseSpGEMM_compute(h, op, op, &two, a, b, &zero, c, CUDA_R_32F, CUSPARSE_SPGEMM_DEFAULT, descr, &bytes2,
                               nullptr));
  CHECK(cudaMalloc(&buffer2, bytes2));
  CHECK(cusparseSpGEMM_compute(h, op, op, &two, a, b, &zero, c, CUDA_R_32F, CUSPARSE_SPGEMM_DEFAULT, descr, &bytes2,
                               buffer2));
  int64_t rows, cols, nnz;
  CHECK(cusparseSpMatGetSize(c, &rows, &cols, &nnz));
  int* dcColumns = device(std::vector<int>(nnz));
  float* dcValues = device(std::vector<float>(nnz));
  CHECK(cusparseCsrSetPointers(c, dcOffsets, dcColumns, dcValues));
  CHECK(cusparseSpGEMM_copy(h, op, op, &two, a, b, &zero, c, CUDA_R_32F, CUSPARSE_SPGEMM_DEFAULT, descr));
  std::vector<int> offsets = host(dcOffsets, kRows + 1), columns = host(dcColumns, nnz);
  std::vector<float> values = host(dcValues, nnz);
  bool ok = offsets[0] == 0 && offsets[kRows] == nnz;
  for (int r = 0, at = 0; ok && r < kRows; ++r)
    for (int j = 0; j < n; ++j) {
      bool reached = false;
      double s = 0;
      for (int e = kOffsets[r]; e < kOffsets[r + 1]; ++e)
        for (int f = bOffsets[kColOf[e]]; f < bOffsets[kColOf[e] + 1]; ++f)
          if (bColumns[f] == j) reached = true, s += kValue[e] * bValues[f];
      if (!reached) continue;
      ok &= at < offsets[r + 1] && columns[at] == j && near(values[at], 2 * s);
      ++at;
    }
  printf("SpGEMM: nnz %lld, C %s\n", (long long)nnz, yes(ok));
  CHECK(cusparseSpGEMM_destroyDescr(descr));
  for (cusparseSpMatDescr_t m : {a, b, c}) CHECK(cusparseDestroySpMat(m));
  for (void* p : {(void*)dOffsets, (void*)dColumns, (void*)dValues, (void*)dbOffsets, (void*)dbColumns,
                  (void*)dbValues, (void*)dcOffsets, (void*)dcColumns, (void*)dcValues, buffer1, buffer2})
    CHECK(cudaFree(p));
  return 0;
}

// Two batches of C = (A_b B_b) at C's pattern + 0.5 C, A_b 4 x 3 and B_b
// 3 x 5 row-major; the batches share C's offsets (stride 0), and each has
// its own columns and values (the same stride for both, as cuSPARSE takes it).
static int sddmm(cusparseHandle_t h) {
  const int k = 3, batches = 2;
  std::vector<float> a(batches * kRows * k), b(batches * k * kCols), c;
  std::vector<int> columns;
  for (int t = 0; t < batches; ++t) {
    columns.insert(columns.end(), kColOf, kColOf + kNnz);
    for (int i = 0; i < kRows * k; ++i) a[t * kRows * k + i] = float(operand(2 * t, i / k, i % k));
    for (int i = 0; i < k * kCols; ++i) b[t * k * kCols + i] = float(operand(2 * t + 1, i / kCols, i % kCols));
    c.insert(c.end(), kValue, kValue + kNnz);
  }
  int *dOffsets = device(std::vector<int>(kOffsets, kOffsets + kRows + 1)), *dColumns = device(columns);
  float *da = device(a), *db = device(b), *dc = device(c);
  cusparseDnMatDescr_t ma, mb;
  cusparseSpMatDescr_t mc = csrOfA(dOffsets, dColumns, dc);
  CHECK(cusparseCreateDnMat(&ma, kRows, k, k, da, CUDA_R_32F, CUSPARSE_ORDER_ROW));
  CHECK(cusparseDnMatSetStridedBatch(ma, batches, kRows * k));
  CHECK(cusparseCreateDnMat(&mb, k, kCols, kCols, db, CUDA_R_32F, CUSPARSE_ORDER_ROW));
  CHECK(cusparseDnMatSetStridedBatch(mb, batches, k * kCols));
  CHECK(cusparseCsrSetStridedBatch(mc, batches, 0, kNnz));
  const float one = 1, half = 0.5f;
  CHECK(cusparseSDDMM_preprocess(h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, ma, mb,
                                 &half, mc, CUDA_R_32F, CUSPARSE_SDDMM_ALG_DEFAULT, nullptr));
  CHECK(cusparseSDDMM(h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, ma, mb, &half, mc,
                      CUDA_R_32F, CUSPARSE_SDDMM_ALG_DEFAULT, nullptr));
  std::vector<float> got = host(dc, batches * kNnz);
  bool ok = true;
  for (int t = 0; t < batches; ++t)
    for (int e = 0; e < kNnz; ++e) {
      double dot = 0;
      for (int i = 0; i < k; ++i) dot += operand(2 * t, kRowOf[e], i) * operand(2 * t + 1, i, kColOf[e]);
      ok &= near(got[t * kNnz + e], dot + 0.5 * kValue[e]);
    }
  printf("SDDMM: two batches %s\n", yes(ok));
  CHECK(cusparseDestroyDnMat(ma));
  CHECK(cusparseDestroyDnMat(mb));
  CHECK(cusparseDestroySpMat(mc));
  for (void* p : {(void*)dOffsets, (void*)dColumns, (void*)da, (void*)db, (void*)dc}) CHECK(cudaFree(p));
  return 0;
}

// A, dense row-major, to CSR with int64 indices (nnz learned at the
// analysis); then the legacy Snnz of A column-major, by rows and by columns.
static int fromDense(cusparseHandle_t h) {
  std::vector<float> rowMajor(kRows * kCols), columnMajor(kRows * kCols);
  for (int r = 0; r < kRows; ++r)
    for (int c = 0; c < kCols; ++c) rowMajor[r * kCols + c] = columnMajor[r + c * kRows] = float(denseA(r, c));
  float* dDense = device(rowMajor);
  long long* dOffsets = device(std::vector<long long>(kRows + 1));
  cusparseDnMatDescr_t ma;
  cusparseSpMatDescr_t mb;
  CHECK(cusparseCreateDnMat(&ma, kRows, kCols, kCols, dDense, CUDA_R_32F, CUSPARSE_ORDER_ROW));
  CHECK(cusparseCreateCsr(&mb, kRows, kCols, 0, dOffsets, nullptr, nullptr, CUSPARSE_INDEX_64I, CUSPARSE_INDEX_64I,
                          CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
  size_t bytes = 1;
  CHECK(cusparseDenseToSparse_bufferSize(h, ma, mb, CUSPARSE_DENSETOSPARSE_ALG_DEFAULT, &bytes));
  CHECK(cusparseDenseToSparse_analysis(h, ma, mb, CUSPARSE_DENSETOSPARSE_ALG_DEFAULT, nullptr));
  int64_t rows, cols, nnz;
  CHECK(cusparseSpMatGetSize(mb, &rows, &cols, &nnz));
  long long* dColumns = device(std::vector<long long>(nnz));
  float* dValues = device(std::vector<float>(nnz));
  CHECK(cusparseCsrSetPointers(mb, dOffsets, dColumns, dValues));
  CHECK(cusparseDenseToSparse_convert(h, ma, mb, CUSPARSE_DENSETOSPARSE_ALG_DEFAULT, nullptr));
  std::vector<long long> offsets = host(dOffsets, kRows + 1), columns = host(dColumns, nnz);
  std::vector<float> values = host(dValues, nnz);
  bool ok = nnz == kNnz && offsets == std::vector<long long>(kOffsets, kOffsets + kRows + 1);
  for (int e = 0; ok && e < kNnz; ++e) ok &= columns[e] == kColOf[e] && values[e] == float(kValue[e]);
  printf("DenseToSparse: nnz %lld, CSR %s\n", (long long)nnz, yes(ok));
  CHECK(cusparseDestroyDnMat(ma));
  CHECK(cusparseDestroySpMat(mb));
  // Snnz, column-major (lda 4).
  cusparseMatDescr_t descr;
  CHECK(cusparseCreateMatDescr(&descr));
  float* dColumnMajor = device(columnMajor);
  int* dCounts = device(std::vector<int>(kCols));
  int total[2] = {0, 0};
  std::vector<int> perRow, perColumn;
  CHECK(cusparseSnnz(h, CUSPARSE_DIRECTION_ROW, kRows, kCols, descr, dColumnMajor, kRows, dCounts, &total[0]));
  perRow = host(dCounts, kRows);
  CHECK(cusparseSnnz(h, CUSPARSE_DIRECTION_COLUMN, kRows, kCols, descr, dColumnMajor, kRows, dCounts, &total[1]));
  perColumn = host(dCounts, kCols);
  printf("Snnz: rows %s, columns %s, totals %d %d\n", yes(perRow == std::vector<int>{2, 1, 2, 2}),
         yes(perColumn == std::vector<int>{1, 2, 1, 1, 2}), total[0], total[1]);
  CHECK(cusparseDestroyMatDescr(descr));
  for (void* p : {(void*)dDense, (void*)dOffsets, (void*)dColumns, (void*)dValues, (void*)dColumnMajor, (void*)dCounts})
    CHECK(cudaFree(p));
  return 0;
}

// A to CSC; then A's rows with their columns shuffled, sorted by Xcsrsort,
// the values following through the permutation (Gather).
static int reorder(cusparseHandle_t h) {
  int *dOffsets = device(std::vector<int>(kOffsets, kOffsets + kRows + 1)),
      *dColumns = device(std::vector<int>(kColOf, kColOf + kNnz));
  float* dValues = device(std::vector<float>(kValue, kValue + kNnz));
  int *dColPtr = device(std::vector<int>(kCols + 1)), *dRowInd = device(std::vector<int>(kNnz));
  float* dCscVal = device(std::vector<float>(kNnz));
  size_t bytes = 1;
  CHECK(cusparseCsr2cscEx2_bufferSize(h, kRows, kCols, kNnz, dValues, dOffsets, dColumns, dCscVal, dColPtr, dRowInd,
                                      CUDA_R_32F, CUSPARSE_ACTION_NUMERIC, CUSPARSE_INDEX_BASE_ZERO,
                                      CUSPARSE_CSR2CSC_ALG1, &bytes));
  CHECK(cusparseCsr2cscEx2(h, kRows, kCols, kNnz, dValues, dOffsets, dColumns, dCscVal, dColPtr, dRowInd, CUDA_R_32F,
                           CUSPARSE_ACTION_NUMERIC, CUSPARSE_INDEX_BASE_ZERO, CUSPARSE_CSR2CSC_ALG1, nullptr));
  std::vector<int> colPtr = host(dColPtr, kCols + 1), rowInd = host(dRowInd, kNnz);
  std::vector<float> cscVal = host(dCscVal, kNnz);
  bool csc = colPtr == std::vector<int>{0, 1, 3, 4, 5, 7};
  for (int c = 0, e = 0; csc && c < kCols; ++c)
    for (int r = 0; r < kRows; ++r)
      if (denseA(r, c) != 0) csc &= rowInd[e] == r && cscVal[e++] == float(denseA(r, c));
  // Rows 0, 2 and 3 with their two columns swapped.
  std::vector<int> shuffled{4, 1, 0, 3, 2, 4, 1};
  std::vector<float> values{-1, 2, 3, 4, 0.5f, 1, -2};
  int *dShuffled = device(shuffled), *dPermutation = device(std::vector<int>(kNnz));
  float *dShuffledValues = device(values), *dSorted = device(std::vector<float>(kNnz));
  cusparseMatDescr_t descr;
  CHECK(cusparseCreateMatDescr(&descr));
  CHECK(cusparseXcsrsort_bufferSizeExt(h, kRows, kCols, kNnz, dOffsets, dShuffled, &bytes));
  CHECK(cusparseCreateIdentityPermutation(h, kNnz, dPermutation));
  CHECK(cusparseXcsrsort(h, kRows, kCols, kNnz, descr, dOffsets, dShuffled, dPermutation, nullptr));
  cusparseSpVecDescr_t permuted;
  cusparseDnVecDescr_t original;
  CHECK(cusparseCreateSpVec(&permuted, kNnz, kNnz, dPermutation, dSorted, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                            CUDA_R_32F));
  CHECK(cusparseCreateDnVec(&original, kNnz, dShuffledValues, CUDA_R_32F));
  CHECK(cusparseGather(h, original, permuted));
  std::vector<int> sorted = host(dShuffled, kNnz);
  std::vector<float> sortedValues = host(dSorted, kNnz);
  bool sort = sorted == std::vector<int>(kColOf, kColOf + kNnz);
  for (int e = 0; e < kNnz; ++e) sort &= sortedValues[e] == float(kValue[e]);
  printf("Csr2cscEx2: %s; Xcsrsort and Gather: %s\n", yes(csc), yes(sort));
  CHECK(cusparseDestroySpVec(permuted));
  CHECK(cusparseDestroyDnVec(original));
  CHECK(cusparseDestroyMatDescr(descr));
  for (void* p : {(void*)dOffsets, (void*)dColumns, (void*)dValues, (void*)dColPtr, (void*)dRowInd, (void*)dCscVal,
                  (void*)dShuffled, (void*)dPermutation, (void*)dShuffledValues, (void*)dSorted})
    CHECK(cudaFree(p));
  return 0;
}

int main() {
  cusparseHandle_t h;
  CHECK(cusparseCreate(&h));
  if (spmm(h) || spgemm(h) || sddmm(h) || fromDense(h) || reorder(h)) return 1;
  CHECK(cusparseDestroy(h));
  printf("done\n");
  return 0;
}
