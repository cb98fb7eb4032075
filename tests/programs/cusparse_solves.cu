// cuSPARSE's triangular solves and ILU(0) on predatar's own libcusparse
// (src/libraries/cusparse), each checked on the host: SpSV with a lower
// triangle (f64; the matrix's upper entries are ignored), SpSM with an upper
// triangle and a unit diagonal (f32, two right-hand sides, row-major), and
// csrilu02 of a tridiagonal matrix (no fill, so L U is A) with its zero
// pivots, structural and numerical. A transposed SpSV is refused by name (the
// report lists it, predatar exits 3) and the program goes on; the analysis of
// a matrix whose row lists its columns out of order is warned of.
#include <cusparse.h>

#include <algorithm>
#include <vector>

#include "library_test_helpers.h"

// T, 4 x 4, every entry but (0,3) and (3,0): rows 0..3.
const int kN = 4, kNnz = 14;
const int kOffsets[kN + 1] = {0, 3, 7, 11, 14};
const int kColumns[kNnz] = {0, 1, 2, 0, 1, 2, 3, 0, 1, 2, 3, 1, 2, 3};
const double kValues[kNnz] = {2, 1, -1, 0.5, 4, 2, 1, -1, 1, 5, 0.5, 2, -0.5, 3};

static double entry(int r, int c) {
  for (int e = kOffsets[r]; e < kOffsets[r + 1]; ++e)
    if (kColumns[e] == c) return kValues[e];
  return 0;
}

// Lower: L y = 2 x (non-unit diagonal), and the refused transposed solve.
static int spsv(cusparseHandle_t h) {
  std::vector<double> x{1, -2, 0.5, 3};
  int *dOffsets = device(std::vector<int>(kOffsets, kOffsets + kN + 1)),
      *dColumns = device(std::vector<int>(kColumns, kColumns + kNnz));
  double *dValues = device(std::vector<double>(kValues, kValues + kNnz)), *dx = device(x),
         *dy = device(std::vector<double>(kN));
  cusparseSpMatDescr_t a;
  cusparseDnVecDescr_t vx, vy;
  CHECK(cusparseCreateCsr(&a, kN, kN, kNnz, dOffsets, dColumns, dValues, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                          CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
  cusparseFillMode_t lower = CUSPARSE_FILL_MODE_LOWER;
  cusparseDiagType_t nonUnit = CUSPARSE_DIAG_TYPE_NON_UNIT;
  CHECK(cusparseSpMatSetAttribute(a, CUSPARSE_SPMAT_FILL_MODE, &lower, sizeof lower));
  CHECK(cusparseSpMatSetAttribute(a, CUSPARSE_SPMAT_DIAG_TYPE, &nonUnit, sizeof nonUnit));
  CHECK(cusparseCreateDnVec(&vx, kN, dx, CUDA_R_64F));
  CHECK(cusparseCreateDnVec(&vy, kN, dy, CUDA_R_64F));
  cusparseSpSVDescr_t descr;
  CHECK(cusparseSpSV_createDescr(&descr));
  const double two = 2;
  size_t bytes = 1;
  CHECK(cusparseSpSV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &two, a, vx, vy, CUDA_R_64F,
                                CUSPARSE_SPSV_ALG_DEFAULT, descr, &bytes));
  CHECK(cusparseSpSV_analysis(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &two, a, vx, vy, CUDA_R_64F,
                              CUSPARSE_SPSV_ALG_DEFAULT, descr, nullptr));
  CHECK(cusparseSpSV_solve(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &two, a, vx, vy, CUDA_R_64F,
                           CUSPARSE_SPSV_ALG_DEFAULT, descr));
  std::vector<double> y = host(dy, kN);
  bool ok = true;
  for (int r = 0; r < kN; ++r) {
    double s = 0;
    for (int c = 0; c <= r; ++c) s += entry(r, c) * y[c];
    ok &= near(s, 2 * x[r]);
  }
  int transposed = cusparseSpSV_solve(h, CUSPARSE_OPERATION_TRANSPOSE, &two, a, vx, vy, CUDA_R_64F,
                                      CUSPARSE_SPSV_ALG_DEFAULT, descr);
  printf("SpSV: lower %s; transposed: %d\n", yes(ok), transposed);
  CHECK(cusparseSpSV_destroyDescr(descr));
  CHECK(cusparseDestroySpMat(a));
  CHECK(cusparseDestroyDnVec(vx));
  CHECK(cusparseDestroyDnVec(vy));
  for (void* p : {(void*)dOffsets, (void*)dColumns, (void*)dValues, (void*)dx, (void*)dy}) CHECK(cudaFree(p));
  return 0;
}

// Upper, unit diagonal: U C = B for two right-hand sides, row-major (f32).
static int spsm(cusparseHandle_t h) {
  const int nrhs = 2;
  std::vector<float> b{1, 2, -1, 0, 3, 1, 0.5f, -2};
  int *dOffsets = device(std::vector<int>(kOffsets, kOffsets + kN + 1)),
      *dColumns = device(std::vector<int>(kColumns, kColumns + kNnz));
  float *dValues = device(std::vector<float>(kValues, kValues + kNnz)), *db = device(b),
        *dc = device(std::vector<float>(kN * nrhs));
  cusparseSpMatDescr_t a;
  cusparseDnMatDescr_t mb, mc;
  CHECK(cusparseCreateCsr(&a, kN, kN, kNnz, dOffsets, dColumns, dValues, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                          CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
  cusparseFillMode_t upper = CUSPARSE_FILL_MODE_UPPER;
  cusparseDiagType_t unit = CUSPARSE_DIAG_TYPE_UNIT;
  CHECK(cusparseSpMatSetAttribute(a, CUSPARSE_SPMAT_FILL_MODE, &upper, sizeof upper));
  CHECK(cusparseSpMatSetAttribute(a, CUSPARSE_SPMAT_DIAG_TYPE, &unit, sizeof unit));
  CHECK(cusparseCreateDnMat(&mb, kN, nrhs, nrhs, db, CUDA_R_32F, CUSPARSE_ORDER_ROW));
  CHECK(cusparseCreateDnMat(&mc, kN, nrhs, nrhs, dc, CUDA_R_32F, CUSPARSE_ORDER_ROW));
  cusparseSpSMDescr_t descr;
  CHECK(cusparseSpSM_createDescr(&descr));
  const float one = 1;
  size_t bytes = 1;
  CHECK(cusparseSpSM_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, a, mb,
                                mc, CUDA_R_32F, CUSPARSE_SPSM_ALG_DEFAULT, descr, &bytes));
  CHECK(cusparseSpSM_analysis(h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, a, mb, mc,
                              CUDA_R_32F, CUSPARSE_SPSM_ALG_DEFAULT, descr, nullptr));
  CHECK(cusparseSpSM_solve(h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, a, mb, mc,
                           CUDA_R_32F, CUSPARSE_SPSM_ALG_DEFAULT, descr));
  std::vector<float> c = host(dc, kN * nrhs);
  bool ok = true;
  for (int j = 0; j < nrhs; ++j)
    for (int r = 0; r < kN; ++r) {
      double s = c[r * nrhs + j];
      for (int k = r + 1; k < kN; ++k) s += entry(r, k) * c[k * nrhs + j];
      ok &= near(s, b[r * nrhs + j]);
    }
  printf("SpSM: upper, unit diagonal, two right-hand sides %s\n", yes(ok));
  CHECK(cusparseSpSM_destroyDescr(descr));
  CHECK(cusparseDestroySpMat(a));
  CHECK(cusparseDestroyDnMat(mb));
  CHECK(cusparseDestroyDnMat(mc));
  for (void* p : {(void*)dOffsets, (void*)dColumns, (void*)dValues, (void*)db, (void*)dc}) CHECK(cudaFree(p));
  return 0;
}

// One ILU(0): the zero pivots after the analysis and after the factorization
// (-1: none), and the factors, in place.
static int factor(cusparseHandle_t h, const std::vector<int>& offsets, const std::vector<int>& columns,
                  std::vector<double>& values, int pivots[2]) {
  int m = int(offsets.size()) - 1, nnz = int(columns.size());
  int *dOffsets = device(offsets), *dColumns = device(columns);
  double* dValues = device(values);
  cusparseMatDescr_t descr;
  csrilu02Info_t info;
  CHECK(cusparseCreateMatDescr(&descr));
  CHECK(cusparseCreateCsrilu02Info(&info));
  int bytes = 0;
  void* buffer = nullptr;
  CHECK(cusparseDcsrilu02_bufferSize(h, m, nnz, descr, dValues, dOffsets, dColumns, info, &bytes));
  CHECK(cudaMalloc(&buffer, bytes));
  CHECK(cusparseDcsrilu02_analysis(h, m, nnz, descr, dValues, dOffsets, dColumns, info,
                                   CUSPARSE_SOLVE_POLICY_USE_LEVEL, buffer));
  int status[2];
  status[0] = cusparseXcsrilu02_zeroPivot(h, info, &pivots[0]);
  CHECK(cusparseDcsrilu02(h, m, nnz, descr, dValues, dOffsets, dColumns, info, CUSPARSE_SOLVE_POLICY_USE_LEVEL,
                          buffer));
  status[1] = cusparseXcsrilu02_zeroPivot(h, info, &pivots[1]);
  values = host(dValues, nnz);
  for (int i = 0; i < 2; ++i)  // CUSPARSE_STATUS_ZERO_PIVOT exactly when there is one
    if ((status[i] == CUSPARSE_STATUS_ZERO_PIVOT) != (pivots[i] >= 0)) return 1;
  CHECK(cusparseDestroyCsrilu02Info(info));
  CHECK(cusparseDestroyMatDescr(descr));
  for (void* p : {(void*)dOffsets, (void*)dColumns, (void*)dValues, buffer}) CHECK(cudaFree(p));
  return 0;
}

static int ilu(cusparseHandle_t h) {
  // Tridiagonal, 5 x 5: diagonal 4, off-diagonals -1 and 2.
  const int m = 5;
  std::vector<int> offsets{0}, columns;
  std::vector<double> values;
  for (int r = 0; r < m; ++r) {
    for (int c = r - 1; c <= r + 1; ++c)
      if (c >= 0 && c < m) columns.push_back(c), values.push_back(c < r ? -1 : c == r ? 4 : 2);
    offsets.push_back(int(columns.size()));
  }
  std::vector<double> lu = values;
  int pivots[2];
  if (factor(h, offsets, columns, lu, pivots)) return 1;
  // (L U)(r, c) for c in r-1..r+1: L unit lower, U upper, both in `lu`.
  auto at = [&](int r, int c) {
    for (int e = offsets[r]; e < offsets[r + 1]; ++e)
      if (columns[e] == c) return lu[e];
    return 0.0;
  };
  bool ok = pivots[0] < 0 && pivots[1] < 0;
  for (int r = 0; r < m; ++r)
    for (int e = offsets[r]; e < offsets[r + 1]; ++e) {
      int c = columns[e];
      double s = 0;
      for (int k = 0; k <= std::min(r, c); ++k) s += (k == r ? 1 : at(r, k)) * at(k, c);
      ok &= near(s, values[e]);
    }
  // Row 1 without its diagonal (structural); then row 1's diagonal 0.5, which
  // row 0's elimination (a_10 / a_00 * a_01 = 0.5) makes zero (numerical).
  std::vector<int> noDiagonalOffsets{0, 2, 3, 5}, noDiagonalColumns{0, 1, 2, 1, 2};
  std::vector<double> noDiagonalValues{1, 1, 1, 1, 1};
  int structural[2], numerical[2];
  if (factor(h, noDiagonalOffsets, noDiagonalColumns, noDiagonalValues, structural)) return 1;
  std::vector<int> fullOffsets{0, 2, 4}, fullColumns{0, 1, 0, 1};
  std::vector<double> fullValues{2, 1, 1, 0.5};
  if (factor(h, fullOffsets, fullColumns, fullValues, numerical)) return 1;
  printf("csrilu02: L U = A %s; zero pivots: structural %d %d, numerical %d %d\n", yes(ok), structural[0],
         structural[1], numerical[0], numerical[1]);
  return 0;
}

// A matrix whose row 1 lists its columns out of order: cuSPARSE runs the
// analysis and the solve, with an undefined result; predatar warns (.stderr).
static int unsorted(cusparseHandle_t h) {
  int *dOffsets = device(std::vector<int>{0, 1, 3}), *dColumns = device(std::vector<int>{0, 1, 0});
  double *dValues = device(std::vector<double>{2, 4, 1}), *dx = device(std::vector<double>{1, 1}),
         *dy = device(std::vector<double>(2));
  cusparseSpMatDescr_t a;
  cusparseDnVecDescr_t vx, vy;
  CHECK(cusparseCreateCsr(&a, 2, 2, 3, dOffsets, dColumns, dValues, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                          CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
  CHECK(cusparseCreateDnVec(&vx, 2, dx, CUDA_R_64F));
  CHECK(cusparseCreateDnVec(&vy, 2, dy, CUDA_R_64F));
  cusparseSpSVDescr_t descr;
  CHECK(cusparseSpSV_createDescr(&descr));
  const double one = 1;
  int status = cusparseSpSV_analysis(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, a, vx, vy, CUDA_R_64F,
                                     CUSPARSE_SPSV_ALG_DEFAULT, descr, nullptr);
  printf("SpSV analysis of unsorted rows: %d\n", status);
  CHECK(cusparseSpSV_destroyDescr(descr));
  CHECK(cusparseDestroySpMat(a));
  CHECK(cusparseDestroyDnVec(vx));
  CHECK(cusparseDestroyDnVec(vy));
  for (void* p : {(void*)dOffsets, (void*)dColumns, (void*)dValues, (void*)dx, (void*)dy}) CHECK(cudaFree(p));
  return 0;
}

int main() {
  cusparseHandle_t h;
  CHECK(cusparseCreate(&h));
  if (spsv(h) || spsm(h) || ilu(h) || unsorted(h)) return 1;
  CHECK(cusparseDestroy(h));
  printf("done\n");
  return 0;
}
