// cuSPARSE's generic API on predatar's own libcusparse (src/libraries/cusparse):
// SpMV of one 4 x 5 matrix as CSR (f32, int32, base 0) and as COO (f64,
// int64, base 1, entries out of order), SparseToDense in both orders, Axpby
// of a sparse vector, each checked against loops on the host. A transposed
// SpMV is refused by name (the report lists it, predatar exits 3) and the
// program goes on. And a race: a kernel on another stream reads what SpMV
// writes (line 20).
#include <cusparse.h>

#include <cmath>
#include <cstdio>
#include <vector>

#define CHECK(call)                                           \
  do {                                                        \
    int e_ = int(call);                                       \
    if (e_ != 0) { printf("%s: %d\n", #call, e_); return 1; } \
  } while (0)

__global__ void sum(const float* x, float* out, int n) { if (threadIdx.x < n) atomicAdd(out, x[threadIdx.x]); }

static const char* yes(bool b) { return b ? "yes" : "no"; }

template <class T>
static T* device(const std::vector<T>& host) {
  T* d = nullptr;
  cudaMalloc(&d, host.size() * sizeof(T));
  cudaMemcpy(d, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice);
  return d;
}
template <class T>
static std::vector<T> host(const T* d, size_t n) {
  std::vector<T> h(n);
  cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost);
  return h;
}

// The matrix, row by row: (0,1)=2 (0,4)=-1 (1,0)=3 (2,2)=0.5 (2,3)=4 (3,1)=-2 (3,4)=1.
const int kRows = 4, kCols = 5, kNnz = 7;
const int kRowOf[kNnz] = {0, 0, 1, 2, 2, 3, 3}, kColOf[kNnz] = {1, 4, 0, 2, 3, 1, 4};
const double kValue[kNnz] = {2, -1, 3, 0.5, 4, -2, 1};
const double kX[kCols] = {1, -1, 2, 0.5, 3}, kY[kRows] = {1, 2, 3, 4};

static bool spmvRight(const std::vector<double>& y, double alpha, double beta) {
  bool ok = true;
  for (int r = 0; r < kRows; ++r) {
    double s = 0;
    for (int e = 0; e < kNnz; ++e)
      if (kRowOf[e] == r) s += kValue[e] * kX[kColOf[e]];
    ok &= std::fabs(y[r] - (alpha * s + beta * kY[r])) < 1e-5;
  }
  return ok;
}

static int spmv(cusparseHandle_t h) {
  // CSR, f32, int32 offsets and columns, base 0; y = 2 A x + 0.5 y.
  std::vector<int> offsets{0, 2, 3, 5, 7}, columns(kColOf, kColOf + kNnz);
  std::vector<float> values(kValue, kValue + kNnz), x(kX, kX + kCols), y(kY, kY + kRows);
  int *dOffsets = device(offsets), *dColumns = device(columns);
  float *dValues = device(values), *dx = device(x), *dy = device(y);
  cusparseSpMatDescr_t a;
  cusparseDnVecDescr_t vx, vy;
  CHECK(cusparseCreateCsr(&a, kRows, kCols, kNnz, dOffsets, dColumns, dValues, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                          CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
  CHECK(cusparseCreateDnVec(&vx, kCols, dx, CUDA_R_32F));
  CHECK(cusparseCreateDnVec(&vy, kRows, dy, CUDA_R_32F));
  const float alpha = 2, beta = 0.5f;
  size_t bytes = 1;
  CHECK(cusparseSpMV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, a, vx, &beta, vy, CUDA_R_32F,
                                CUSPARSE_SPMV_ALG_DEFAULT, &bytes));
  CHECK(cusparseSpMV(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, a, vx, &beta, vy, CUDA_R_32F,
                     CUSPARSE_SPMV_ALG_DEFAULT, nullptr));
  std::vector<float> yf = host(dy, kRows);
  bool csr = bytes == 0 && spmvRight(std::vector<double>(yf.begin(), yf.end()), 2, 0.5);
  int transposed = cusparseSpMV(h, CUSPARSE_OPERATION_TRANSPOSE, &alpha, a, vx, &beta, vy, CUDA_R_32F,
                                CUSPARSE_SPMV_ALG_DEFAULT, nullptr);
  CHECK(cusparseDestroySpMat(a));
  CHECK(cusparseDestroyDnVec(vx));
  CHECK(cusparseDestroyDnVec(vy));
  // COO, f64, int64, base 1, entries last to first; y = A x (beta 0).
  std::vector<long long> rows, cols;
  std::vector<double> dvalues;
  for (int e = kNnz - 1; e >= 0; --e) {
    rows.push_back(kRowOf[e] + 1);
    cols.push_back(kColOf[e] + 1);
    dvalues.push_back(kValue[e]);
  }
  std::vector<double> xd(kX, kX + kCols), yd(kRows, 99);
  long long *dRows = device(rows), *dCols = device(cols);
  double *dv = device(dvalues), *dxd = device(xd), *dyd = device(yd);
  CHECK(cusparseCreateCoo(&a, kRows, kCols, kNnz, dRows, dCols, dv, CUSPARSE_INDEX_64I, CUSPARSE_INDEX_BASE_ONE,
                          CUDA_R_64F));
  CHECK(cusparseCreateDnVec(&vx, kCols, dxd, CUDA_R_64F));
  CHECK(cusparseCreateDnVec(&vy, kRows, dyd, CUDA_R_64F));
  const double one = 1, zero = 0;
  CHECK(cusparseSpMV(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, a, vx, &zero, vy, CUDA_R_64F,
                     CUSPARSE_SPMV_ALG_DEFAULT, nullptr));
  bool coo = spmvRight(host(dyd, kRows), 1, 0);
  printf("SpMV: CSR f32 %s, COO f64 int64 base 1 %s; transposed: %d\n", yes(csr), yes(coo), transposed);
  CHECK(cusparseDestroySpMat(a));
  CHECK(cusparseDestroyDnVec(vx));
  CHECK(cusparseDestroyDnVec(vy));
  for (void* p : {(void*)dOffsets, (void*)dColumns, (void*)dValues, (void*)dx, (void*)dy, (void*)dRows, (void*)dCols,
                  (void*)dv, (void*)dxd, (void*)dyd})
    CHECK(cudaFree(p));
  return 0;
}

static int toDense(cusparseHandle_t h) {
  std::vector<int> offsets{0, 2, 3, 5, 7}, columns(kColOf, kColOf + kNnz);
  std::vector<float> values(kValue, kValue + kNnz), dense(kRows * kCols, 7);
  int *dOffsets = device(offsets), *dColumns = device(columns);
  float *dValues = device(values), *dDense = device(dense);
  cusparseSpMatDescr_t a;
  CHECK(cusparseCreateCsr(&a, kRows, kCols, kNnz, dOffsets, dColumns, dValues, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                          CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
  bool ok[2] = {true, true};
  for (int rowMajor = 0; rowMajor < 2; ++rowMajor) {
    cusparseDnMatDescr_t b;
    CHECK(cusparseCreateDnMat(&b, kRows, kCols, rowMajor ? kCols : kRows, dDense, CUDA_R_32F,
                              rowMajor ? CUSPARSE_ORDER_ROW : CUSPARSE_ORDER_COL));
    CHECK(cusparseSparseToDense(h, a, b, CUSPARSE_SPARSETODENSE_ALG_DEFAULT, nullptr));
    std::vector<float> d = host(dDense, kRows * kCols);
    for (int r = 0; r < kRows; ++r)
      for (int c = 0; c < kCols; ++c) {
        double want = 0;
        for (int e = 0; e < kNnz; ++e)
          if (kRowOf[e] == r && kColOf[e] == c) want = kValue[e];
        ok[rowMajor] &= d[rowMajor ? r * kCols + c : r + c * kRows] == float(want);
      }
    CHECK(cusparseDestroyDnMat(b));
  }
  printf("SparseToDense: column-major %s, row-major %s\n", yes(ok[0]), yes(ok[1]));
  CHECK(cusparseDestroySpMat(a));
  for (void* p : {(void*)dOffsets, (void*)dColumns, (void*)dValues, (void*)dDense}) CHECK(cudaFree(p));
  return 0;
}

// y = 3 x + 2 y, x sparse (3 of 6).
static int axpby(cusparseHandle_t h) {
  std::vector<int> indices{5, 0, 3};
  std::vector<float> xv{1, 2, -1}, y{1, 1, 1, 1, 1, 1};
  int* dIndices = device(indices);
  float *dxv = device(xv), *dy = device(y);
  cusparseSpVecDescr_t x;
  cusparseDnVecDescr_t vy;
  CHECK(cusparseCreateSpVec(&x, 6, 3, dIndices, dxv, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
  CHECK(cusparseCreateDnVec(&vy, 6, dy, CUDA_R_32F));
  const float alpha = 3, beta = 2;
  CHECK(cusparseAxpby(h, &alpha, x, &beta, vy));
  std::vector<float> got = host(dy, 6), want{8, 2, 2, -1, 2, 5};
  printf("Axpby: %s\n", yes(got == want));
  CHECK(cusparseDestroySpVec(x));
  CHECK(cusparseDestroyDnVec(vy));
  for (void* p : {(void*)dIndices, (void*)dxv, (void*)dy}) CHECK(cudaFree(p));
  return 0;
}

// The race: SpMV on s1 writes y while sum on s2 reads it.
static int race(cusparseHandle_t h) {
  std::vector<int> offsets{0, 2, 3, 5, 7}, columns(kColOf, kColOf + kNnz);
  std::vector<float> values(kValue, kValue + kNnz), x(kX, kX + kCols), y(kY, kY + kRows);
  int *dOffsets = device(offsets), *dColumns = device(columns);
  float *dValues = device(values), *dx = device(x), *dy = device(y), *out = device(std::vector<float>(1));
  cusparseSpMatDescr_t a;
  cusparseDnVecDescr_t vx, vy;
  CHECK(cusparseCreateCsr(&a, kRows, kCols, kNnz, dOffsets, dColumns, dValues, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                          CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
  CHECK(cusparseCreateDnVec(&vx, kCols, dx, CUDA_R_32F));
  CHECK(cusparseCreateDnVec(&vy, kRows, dy, CUDA_R_32F));
  cudaStream_t s1, s2;
  CHECK(cudaStreamCreate(&s1));
  CHECK(cudaStreamCreate(&s2));
  CHECK(cusparseSetStream(h, s1));
  const float one = 1, zero = 0;
  CHECK(cusparseSpMV(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, a, vx, &zero, vy, CUDA_R_32F,
                     CUSPARSE_SPMV_ALG_DEFAULT, nullptr));
  sum<<<1, kRows, 0, s2>>>(dy, out, kRows);
  CHECK(cudaDeviceSynchronize());
  CHECK(cusparseDestroySpMat(a));
  CHECK(cusparseDestroyDnVec(vx));
  CHECK(cusparseDestroyDnVec(vy));
  for (void* p : {(void*)dOffsets, (void*)dColumns, (void*)dValues, (void*)dx, (void*)dy, (void*)out})
    CHECK(cudaFree(p));
  return 0;
}

int main() {
  cusparseHandle_t h;
  CHECK(cusparseCreate(&h));
  if (spmv(h) || toDense(h) || axpby(h) || race(h)) return 1;
  CHECK(cusparseDestroy(h));
  printf("done\n");
  return 0;
}
