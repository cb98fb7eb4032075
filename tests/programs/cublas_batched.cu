// cuBLAS's helpers and batched routines on predatar's own cuBLAS
// (src/libraries/cublas): Set/GetVector and Set/GetMatrix with strides (and
// their Async forms), gemmBatched through device arrays of pointers,
// gemmStridedBatched, getrfBatched (LU with and without pivoting, a
// singular matrix's info) and gelsBatched (least squares, real and complex,
// a rank-deficient system's devInfo), each checked against loops on the host;
// bad arguments answered CUBLAS_STATUS_INVALID_VALUE (or NOT_SUPPORTED, as
// cuBLAS answers gels for m < n or a transpose); and a race: a kernel on
// one stream reads what gemmStridedBatched writes on another (line 20).
#include <cublas_v2.h>

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
bool near(const T* a, const T* b, size_t n, double tolerance) {
  for (size_t i = 0; i < n; ++i)
    if (std::fabs(double(a[i]) - double(b[i])) > tolerance * (1 + std::fabs(double(b[i])))) return false;
  return true;
}

// Strided copies both ways: a vector every 3rd host element to every 2nd
// device element, a 5 x 4 matrix of leading dimension 7 to one of 6.
static int helpers() {
  std::vector<float> x(30), back(30, -1);
  for (int i = 0; i < 30; ++i) x[i] = float(i);
  float* d = nullptr;
  CHECK(cudaMalloc(&d, 64 * sizeof(float)));
  CHECK(cublasSetVector(10, sizeof(float), x.data(), 3, d, 2));
  CHECK(cublasGetVector(10, sizeof(float), d, 2, back.data(), 1));
  bool vectorOk = true;
  for (int i = 0; i < 10; ++i) vectorOk &= back[i] == x[3 * i];
  std::vector<double> A(7 * 4), B(7 * 4, -1);
  for (int i = 0; i < 28; ++i) A[i] = 0.5 * i;
  double* dm = nullptr;
  CHECK(cudaMalloc(&dm, 6 * 4 * sizeof(double)));
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  CHECK(cublasSetMatrixAsync(5, 4, sizeof(double), A.data(), 7, dm, 6, s));
  CHECK(cublasGetMatrixAsync(5, 4, sizeof(double), dm, 6, B.data(), 7, s));
  CHECK(cudaStreamSynchronize(s));
  bool matrixOk = true;
  for (int c = 0; c < 4; ++c)
    for (int r = 0; r < 7; ++r) matrixOk &= B[r + 7 * c] == (r < 5 ? A[r + 7 * c] : -1);
  bool refused = cublasSetMatrix(5, 4, sizeof(double), A.data(), 4, dm, 6) == CUBLAS_STATUS_INVALID_VALUE &&
                 cublasSetVector(3, sizeof(float), x.data(), 0, d, 1) == CUBLAS_STATUS_INVALID_VALUE;
  printf("set/get vector: %s, matrix async: %s, bad leading dimension or increment refused: %s\n", yes(vectorOk),
         yes(matrixOk), yes(refused));
  CHECK(cudaFree(d));
  CHECK(cudaFree(dm));
  CHECK(cudaStreamDestroy(s));
  return 0;
}

// C_b = A_b B_b for 3 matrices (4 x 3 times 3 x 2), through pointer arrays
// (single precision) and at strides (double).
static int batchedGemm(cublasHandle_t h) {
  const int m = 4, n = 2, k = 3, batch = 3;
  std::vector<float> A(m * k * batch), B(k * n * batch), C(m * n * batch), want(m * n * batch);
  for (size_t i = 0; i < A.size(); ++i) A[i] = float(i % 7) - 3;
  for (size_t i = 0; i < B.size(); ++i) B[i] = float(i % 5) - 1;
  for (int b = 0; b < batch; ++b)
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < m; ++i) {
        float s = 0;
        for (int l = 0; l < k; ++l) s += A[b * m * k + i + l * m] * B[b * k * n + l + j * k];
        want[b * m * n + i + j * m] = s;
      }
  float *dA, *dB, *dC;
  CHECK(cudaMalloc(&dA, A.size() * sizeof(float)));
  CHECK(cudaMalloc(&dB, B.size() * sizeof(float)));
  CHECK(cudaMalloc(&dC, C.size() * sizeof(float)));
  CHECK(cublasSetVector(int(A.size()), sizeof(float), A.data(), 1, dA, 1));
  CHECK(cublasSetVector(int(B.size()), sizeof(float), B.data(), 1, dB, 1));
  std::vector<float*> pointers;
  for (int b = 0; b < batch; ++b) pointers.push_back(dA + b * m * k);
  for (int b = 0; b < batch; ++b) pointers.push_back(dB + b * k * n);
  for (int b = 0; b < batch; ++b) pointers.push_back(dC + b * m * n);
  float** dPointers;
  CHECK(cudaMalloc(&dPointers, pointers.size() * sizeof(float*)));
  CHECK(cudaMemcpy(dPointers, pointers.data(), pointers.size() * sizeof(float*), cudaMemcpyHostToDevice));
  const float one = 1, zero = 0;
  CHECK(cublasSgemmBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, dPointers, m, dPointers + batch, k, &zero,
                           dPointers + 2 * batch, m, batch));
  CHECK(cublasGetVector(int(C.size()), sizeof(float), dC, 1, C.data(), 1));
  bool pointersOk = near(C.data(), want.data(), C.size(), 1e-5);
  std::vector<double> Ad(A.begin(), A.end()), Bd(B.begin(), B.end()), Cd(C.size(), 7);
  std::vector<double> wantd(want.begin(), want.end());
  double *dAd, *dBd, *dCd;
  CHECK(cudaMalloc(&dAd, Ad.size() * sizeof(double)));
  CHECK(cudaMalloc(&dBd, Bd.size() * sizeof(double)));
  CHECK(cudaMalloc(&dCd, Cd.size() * sizeof(double)));
  CHECK(cudaMemcpy(dAd, Ad.data(), Ad.size() * sizeof(double), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dBd, Bd.data(), Bd.size() * sizeof(double), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dCd, Cd.data(), Cd.size() * sizeof(double), cudaMemcpyHostToDevice));
  const double oneD = 1, twoD = 2;  // C = A B + 2 C (C starts at 7)
  CHECK(cublasDgemmStridedBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &oneD, dAd, m, m * k, dBd, k, k * n, &twoD,
                                  dCd, m, m * n, batch));
  CHECK(cudaMemcpy(Cd.data(), dCd, Cd.size() * sizeof(double), cudaMemcpyDeviceToHost));
  for (double& w : wantd) w += 14;
  bool stridedOk = near(Cd.data(), wantd.data(), Cd.size(), 1e-12);
  printf("sgemmBatched: %s, dgemmStridedBatched: %s\n", yes(pointersOk), yes(stridedOk));
  for (void* p : {(void*)dA, (void*)dB, (void*)dC, (void*)dPointers, (void*)dAd, (void*)dBd, (void*)dCd})
    CHECK(cudaFree(p));
  return 0;
}

// P A = L U for three 3 x 3 matrices (one needs a row swap at every step, one
// is singular in its second column), with pivoting; and without pivoting.
static int batchedLu(cublasHandle_t h) {
  const int n = 3, batch = 3;
  const double input[batch][9] = {{1, 4, 7, 2, 5, 8, 3, 6, 10},   // columns: needs swaps
                                  {1, 2, 3, 2, 4, 6, 1, 0, 1},    // column 2 = 2 * column 1: U(2,2) = 0
                                  {4, 1, 0, 1, 4, 1, 0, 1, 4}};   // diagonally dominant: no swap
  double* dA;
  CHECK(cudaMalloc(&dA, sizeof input));
  double* pointers[batch];
  for (int b = 0; b < batch; ++b) pointers[b] = dA + b * 9;
  double** dPointers;
  int *dPivots, *dInfo;
  CHECK(cudaMalloc(&dPointers, sizeof pointers));
  CHECK(cudaMalloc(&dPivots, n * batch * sizeof(int)));
  CHECK(cudaMalloc(&dInfo, batch * sizeof(int)));
  CHECK(cudaMemcpy(dPointers, pointers, sizeof pointers, cudaMemcpyHostToDevice));
  bool pivotedOk = true;
  int info[batch], pivots[n * batch];
  for (bool pivoting : {true, false}) {
    CHECK(cudaMemcpy(dA, input, sizeof input, cudaMemcpyHostToDevice));
    CHECK(cublasDgetrfBatched(h, n, dPointers, n, pivoting ? dPivots : nullptr, dInfo, batch));
    double lu[batch][9];
    CHECK(cudaMemcpy(lu, dA, sizeof lu, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(info, dInfo, sizeof info, cudaMemcpyDeviceToHost));
    if (pivoting) CHECK(cudaMemcpy(pivots, dPivots, sizeof pivots, cudaMemcpyDeviceToHost));
    for (int b = 0; b < batch; ++b) {
      if (info[b] != 0) continue;
      int row[n] = {0, 1, 2};  // row i of P A is row row[i] of A
      for (int j = 0; pivoting && j < n; ++j) std::swap(row[j], row[pivots[b * n + j] - 1]);
      for (int i = 0; i < n; ++i)
        for (int c = 0; c < n; ++c) {
          double s = 0;
          for (int l = 0; l <= std::min(i, c); ++l) s += (l == i ? 1 : lu[b][i + l * n]) * lu[b][l + c * n];
          pivotedOk &= std::fabs(s - input[b][row[i] + c * n]) < 1e-12;
        }
    }
    if (pivoting)
      printf("dgetrfBatched pivoted: P A = L U %s, pivots %d %d %d, info %d %d %d\n", yes(pivotedOk), pivots[0],
             pivots[1], pivots[2], info[0], info[1], info[2]);
    else
      printf("dgetrfBatched unpivoted: L U = A %s, info %d %d %d\n", yes(pivotedOk), info[0], info[1], info[2]);
  }
  for (void* p : {(void*)dA, (void*)dPointers, (void*)dPivots, (void*)dInfo}) CHECK(cudaFree(p));
  return 0;
}

// Host least squares in double, by the normal equations: x = (A^T A)^-1 A^T c
// (n x n Gauss-Jordan; the systems below are well conditioned).
static std::vector<double> normalEquations(const std::vector<double>& A, int m, int n, int lda,
                                           const std::vector<double>& c) {
  std::vector<double> M(n * (n + 1));
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j)
      for (int r = 0; r < m; ++r) M[i * (n + 1) + j] += A[r + i * lda] * A[r + j * lda];
    for (int r = 0; r < m; ++r) M[i * (n + 1) + n] += A[r + i * lda] * c[r];
  }
  for (int p = 0; p < n; ++p)
    for (int i = 0; i < n; ++i) {
      if (i == p) continue;
      double f = M[i * (n + 1) + p] / M[p * (n + 1) + p];
      for (int j = 0; j <= n; ++j) M[i * (n + 1) + j] -= f * M[p * (n + 1) + j];
    }
  std::vector<double> x(n);
  for (int i = 0; i < n; ++i) x[i] = M[i * (n + 1) + n] / M[i * (n + 1) + i];
  return x;
}

// gelsBatched: two 6 x 3 single-precision systems with 2 right-hand sides
// (leading dimension 7), one consistent (C = A X, X known) and one not (the
// least squares answer of the normal equations); a complex double 4 x 2
// system; a double one whose second column is twice its first (devInfo 2);
// and bad arguments (status and *info).
static int batchedLeastSquares(cublasHandle_t h) {
  const int m = 6, n = 3, nrhs = 2, ld = 7, batch = 2;
  std::vector<float> A(ld * n * batch, 99), C(ld * nrhs * batch, 99);
  for (int b = 0; b < batch; ++b)
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < m; ++i) A[b * ld * n + i + j * ld] = float((i * 3 + j * 5 + b) % 7) - 2 + (i == j ? 4 : 0);
  const float X[n * nrhs] = {1, -2, 0.5f, 3, 0.25f, -1};
  for (int r = 0; r < nrhs; ++r)
    for (int i = 0; i < m; ++i) {
      float s = 0;
      for (int j = 0; j < n; ++j) s += A[i + j * ld] * X[j + r * n];
      C[i + r * ld] = s;                                                  // system 0: consistent
      C[ld * nrhs + i + r * ld] = float((i * i + r) % 5) - 1.5f;          // system 1: not
    }
  std::vector<float> A1(A.begin() + ld * n, A.end()), C1(C.begin() + ld * nrhs, C.end());
  float *dA, *dC;
  CHECK(cudaMalloc(&dA, A.size() * sizeof(float)));
  CHECK(cudaMalloc(&dC, C.size() * sizeof(float)));
  CHECK(cudaMemcpy(dA, A.data(), A.size() * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dC, C.data(), C.size() * sizeof(float), cudaMemcpyHostToDevice));
  float* pointers[2 * batch] = {dA, dA + ld * n, dC, dC + ld * nrhs};
  float** dPointers;
  int* dInfo;
  CHECK(cudaMalloc(&dPointers, sizeof pointers));
  CHECK(cudaMalloc(&dInfo, 4 * sizeof(int)));
  CHECK(cudaMemcpy(dPointers, pointers, sizeof pointers, cudaMemcpyHostToDevice));
  int info = 1, devInfo[batch] = {-1, -1};
  CHECK(cublasSgelsBatched(h, CUBLAS_OP_N, m, n, nrhs, dPointers, ld, dPointers + batch, ld, &info, dInfo, batch));
  CHECK(cudaMemcpy(C.data(), dC, C.size() * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(devInfo, dInfo, sizeof devInfo, cudaMemcpyDeviceToHost));
  bool consistent = info == 0 && devInfo[0] == 0 && devInfo[1] == 0, squares = consistent;
  for (int r = 0; r < nrhs; ++r) {
    std::vector<double> a(A1.begin(), A1.end()), c(C1.begin() + r * ld, C1.begin() + r * ld + m);
    std::vector<double> want = normalEquations(a, m, n, ld, c);
    for (int j = 0; j < n; ++j) {
      consistent &= std::fabs(C[j + r * ld] - X[j + r * n]) < 1e-5;
      squares &= std::fabs(C[ld * nrhs + j + r * ld] - want[j]) < 1e-5 * (1 + std::fabs(want[j]));
    }
  }
  // Complex double, 4 x 2: C = A X with X = (1 + 2i, -1 + 0.5i).
  const double2 Az[8] = {{2, 1}, {0, 1}, {1, -1}, {0.5, 0}, {1, 0}, {3, -2}, {0, 0.5}, {1, 1}};
  const double2 Xz[2] = {{1, 2}, {-1, 0.5}};
  double2 Cz[4];
  for (int i = 0; i < 4; ++i) {
    double2 s{0, 0};
    for (int j = 0; j < 2; ++j) {
      double2 a = Az[i + 4 * j], x = Xz[j];
      s.x += a.x * x.x - a.y * x.y;
      s.y += a.x * x.y + a.y * x.x;
    }
    Cz[i] = s;
  }
  double2 *dAz, *dCz, **dZ;
  CHECK(cudaMalloc(&dAz, sizeof Az));
  CHECK(cudaMalloc(&dCz, sizeof Cz));
  CHECK(cudaMemcpy(dAz, Az, sizeof Az, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dCz, Cz, sizeof Cz, cudaMemcpyHostToDevice));
  double2* zPointers[2] = {dAz, dCz};
  CHECK(cudaMalloc(&dZ, sizeof zPointers));
  CHECK(cudaMemcpy(dZ, zPointers, sizeof zPointers, cudaMemcpyHostToDevice));
  CHECK(cublasZgelsBatched(h, CUBLAS_OP_N, 4, 2, 1, reinterpret_cast<cuDoubleComplex**>(dZ), 4,
                           reinterpret_cast<cuDoubleComplex**>(dZ + 1), 4, &info, nullptr, 1));
  CHECK(cudaMemcpy(Cz, dCz, sizeof Cz, cudaMemcpyDeviceToHost));
  bool complexOk = info == 0;
  for (int j = 0; j < 2; ++j) complexOk &= std::fabs(Cz[j].x - Xz[j].x) < 1e-12 && std::fabs(Cz[j].y - Xz[j].y) < 1e-12;
  // Rank deficient: column 2 = 2 * column 1.
  const double Ad[8] = {1, 2, 3, 4, 2, 4, 6, 8}, Cd[4] = {1, 1, 1, 1};
  double *dAd, *dCd, **dD;
  CHECK(cudaMalloc(&dAd, sizeof Ad));
  CHECK(cudaMalloc(&dCd, sizeof Cd));
  CHECK(cudaMemcpy(dAd, Ad, sizeof Ad, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dCd, Cd, sizeof Cd, cudaMemcpyHostToDevice));
  double* dPointersD[2] = {dAd, dCd};
  CHECK(cudaMalloc(&dD, sizeof dPointersD));
  CHECK(cudaMemcpy(dD, dPointersD, sizeof dPointersD, cudaMemcpyHostToDevice));
  CHECK(cublasDgelsBatched(h, CUBLAS_OP_N, 4, 2, 1, dD, 4, dD + 1, 4, &info, dInfo, 1));
  CHECK(cudaMemcpy(devInfo, dInfo, sizeof(int), cudaMemcpyDeviceToHost));
  int rankInfo = devInfo[0];
  int fewerRows = cublasDgelsBatched(h, CUBLAS_OP_N, 2, 3, 1, dD, 4, dD + 1, 4, &info, dInfo, 1), fewerInfo = info;
  int shortLd = cublasDgelsBatched(h, CUBLAS_OP_N, 4, 2, 1, dD, 3, dD + 1, 4, &info, dInfo, 1), shortInfo = info;
  int transposed = cublasDgelsBatched(h, CUBLAS_OP_T, 4, 2, 1, dD, 4, dD + 1, 4, &info, dInfo, 1);
  printf("sgelsBatched: consistent %s, least squares %s; zgelsBatched %s; dgelsBatched rank deficient: devInfo %d\n",
         yes(consistent), yes(squares), yes(complexOk), rankInfo);
  printf("gelsBatched refused: m < n %d (info %d), lda < m %d (info %d), transposed %d (info %d)\n", fewerRows,
         fewerInfo, shortLd, shortInfo, transposed, info);
  for (void* p : {(void*)dA, (void*)dC, (void*)dPointers, (void*)dInfo, (void*)dAz, (void*)dCz, (void*)dZ,
                  (void*)dAd, (void*)dCd, (void*)dD})
    CHECK(cudaFree(p));
  return 0;
}

// The race: gemmStridedBatched on s1 writes C while sum on s2 reads it.
static int race(cublasHandle_t h) {
  float *a, *c, *out;
  CHECK(cudaMalloc(&a, 32 * sizeof(float)));
  CHECK(cudaMalloc(&c, 32 * sizeof(float)));
  CHECK(cudaMalloc(&out, sizeof(float)));
  CHECK(cudaMemset(a, 0, 32 * sizeof(float)));
  CHECK(cudaMemset(out, 0, sizeof(float)));
  cudaStream_t s1, s2;
  CHECK(cudaStreamCreate(&s1));
  CHECK(cudaStreamCreate(&s2));
  CHECK(cublasSetStream(h, s1));
  const float one = 1, zero = 0;  // 32 1 x 1 products
  CHECK(cublasSgemmStridedBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, 1, 1, 1, &one, a, 1, 1, a, 1, 1, &zero, c, 1, 1, 32));
  sum<<<1, 32, 0, s2>>>(c, out, 32);
  CHECK(cudaDeviceSynchronize());
  for (void* p : {(void*)a, (void*)c, (void*)out}) CHECK(cudaFree(p));
  return 0;
}

int main() {
  cublasHandle_t h;
  CHECK(cublasCreate(&h));
  if (helpers() || batchedGemm(h) || batchedLu(h) || batchedLeastSquares(h) || race(h)) return 1;
  CHECK(cublasDestroy(h));
  printf("done\n");
  return 0;
}
