// cuBLAS on predatar's own cuBLAS (src/libraries/cublas): gemv and gemm with
// every transpose, axpy, scal and dot in both pointer modes, checked against
// loops on the host; a refusal by name; and a race: gemv writes y on one
// stream while a kernel on another stream reads it (line 19).
#include <cublas_v2.h>

#include <cmath>
#include <cstdio>
#include <vector>

#define CHECK(call)                                                                         \
  do {                                                                                      \
    int e_ = int(call);                                                                     \
    if (e_ != 0) { printf("%s: %d\n", #call, e_); return 1; }                               \
  } while (0)

__global__ void copy(const float* y, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = y[i];
}

template <class T>
T* toDevice(const std::vector<T>& h) {
  T* d = nullptr;
  cudaMalloc(&d, h.size() * sizeof(T));
  cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice);
  return d;
}

template <class T>
std::vector<T> toHost(const T* d, size_t n) {
  std::vector<T> h(n);
  cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost);
  return h;
}

template <class T>
bool near(const std::vector<T>& a, const std::vector<T>& b) {
  for (size_t i = 0; i < a.size(); ++i)
    if (std::fabs(double(a[i] - b[i])) > 1e-4 * (1 + std::fabs(double(b[i])))) return false;
  return a.size() == b.size();
}

static const char* yes(bool b) { return b ? "yes" : "no"; }

int main() {
  cublasHandle_t h;
  CHECK(cublasCreate(&h));
  const int m = 37, n = 23, k = 11;
  std::vector<float> A(m * n), x(n), y(m), xt(m), yt(n);
  for (int i = 0; i < m * n; ++i) A[i] = float((i * 7) % 13) - 6;
  for (int i = 0; i < n; ++i) x[i] = float(i % 5) - 2, yt[i] = 1;
  for (int i = 0; i < m; ++i) y[i] = float(i % 3), xt[i] = float(i % 4) - 1;
  float *dA = toDevice(A), *dx = toDevice(x), *dy = toDevice(y), *dxt = toDevice(xt), *dyt = toDevice(yt);
  const float alpha = 2, beta = -1;
  CHECK(cublasSgemv(h, CUBLAS_OP_N, m, n, &alpha, dA, m, dx, 1, &beta, dy, 1));
  CHECK(cublasSgemv(h, CUBLAS_OP_T, m, n, &alpha, dA, m, dxt, 1, &beta, dyt, 1));
  std::vector<float> wantY(m), wantYt(n);
  for (int i = 0; i < m; ++i) {
    float s = 0;
    for (int j = 0; j < n; ++j) s += A[i + j * m] * x[j];
    wantY[i] = alpha * s + beta * y[i];
  }
  for (int j = 0; j < n; ++j) {
    float s = 0;
    for (int i = 0; i < m; ++i) s += A[i + j * m] * xt[i];
    wantYt[j] = alpha * s + beta * yt[j];
  }
  printf("sgemv N: %s, T: %s\n", yes(near(toHost(dy, m), wantY)), yes(near(toHost(dyt, n), wantYt)));

  // C (m x n) = alpha op(P) op(Q) + beta C, every combination of transposes.
  bool gemmOk = true;
  for (int ta = 0; ta < 2; ++ta)
    for (int tb = 0; tb < 2; ++tb) {
      std::vector<double> P(m * k), Q(k * n), C(m * n, 0.5);
      for (size_t i = 0; i < P.size(); ++i) P[i] = double((i * 5) % 7) - 3;
      for (size_t i = 0; i < Q.size(); ++i) Q[i] = double((i * 3) % 11) - 5;
      int lda = ta ? k : m, ldb = tb ? n : k;
      double *dP = toDevice(P), *dQ = toDevice(Q), *dC = toDevice(C);
      const double one = 1.5, half = 0.5;
      CHECK(cublasDgemm(h, ta ? CUBLAS_OP_T : CUBLAS_OP_N, tb ? CUBLAS_OP_T : CUBLAS_OP_N, m, n, k, &one, dP, lda,
                        dQ, ldb, &half, dC, m));
      std::vector<double> want(m * n);
      for (int i = 0; i < m; ++i)
        for (int j = 0; j < n; ++j) {
          double s = 0;
          for (int l = 0; l < k; ++l) s += (ta ? P[l + i * lda] : P[i + l * lda]) * (tb ? Q[j + l * ldb] : Q[l + j * ldb]);
          want[i + j * m] = one * s + half * C[i + j * m];
        }
      gemmOk = gemmOk && near(toHost(dC, m * n), want);
      cudaFree(dP), cudaFree(dQ), cudaFree(dC);
    }
  printf("dgemm NN, NT, TN, TT: %s\n", yes(gemmOk));

  // axpy and scal, then dot with the result on the host and on the device.
  std::vector<float> u(100), v(100);
  for (int i = 0; i < 100; ++i) u[i] = float(i), v[i] = float(100 - i);
  float *du = toDevice(u), *dv = toDevice(v);
  const float three = 3, half = 0.5f;
  CHECK(cublasSaxpy(h, 100, &three, du, 1, dv, 1));  // v = 3u + v
  CHECK(cublasSscal(h, 50, &half, du, 2));           // u[even] /= 2
  std::vector<float> wantV(100), wantU = u;
  for (int i = 0; i < 100; ++i) wantV[i] = 3 * u[i] + v[i];
  for (int i = 0; i < 100; i += 2) wantU[i] = u[i] / 2;
  float dotHost = 0;
  CHECK(cublasSdot(h, 100, du, 1, dv, 1, &dotHost));
  double wantDot = 0;
  for (int i = 0; i < 100; ++i) wantDot += double(wantU[i]) * wantV[i];
  float* dDot;
  CHECK(cudaMalloc(&dDot, sizeof(float)));
  CHECK(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_DEVICE));
  CHECK(cublasSdot(h, 100, du, 1, dv, 1, dDot));
  CHECK(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST));
  float dotDevice = toHost(dDot, 1)[0];
  printf("saxpy: %s, sscal: %s, sdot host: %s, device: %s\n", yes(near(toHost(dv, 100), wantV)),
         yes(near(toHost(du, 100), wantU)), yes(std::fabs(dotHost - wantDot) < 1e-2),
         yes(std::fabs(dotDevice - wantDot) < 1e-2));

  // Norms of u (now u[even] halved): nrm2 and asum, single and double.
  float norm2 = 0, norm1 = 0;
  double wantNorm2 = 0, wantNorm1 = 0;
  for (int i = 0; i < 100; ++i) wantNorm2 += double(wantU[i]) * wantU[i], wantNorm1 += std::fabs(wantU[i]);
  wantNorm2 = std::sqrt(wantNorm2);
  CHECK(cublasSnrm2(h, 100, du, 1, &norm2));
  CHECK(cublasSasum(h, 100, du, 1, &norm1));
  std::vector<double> big = {3e200, -4e200};  // squares overflow: nrm2 scales
  double* dBig = toDevice(big);
  double bigNorm = 0, bigSum = 0;
  CHECK(cublasDnrm2(h, 2, dBig, 1, &bigNorm));
  CHECK(cublasDasum(h, 2, dBig, 1, &bigSum));
  printf("snrm2: %s, sasum: %s, dnrm2 without overflow: %s, dasum: %s\n",
         yes(std::fabs(norm2 - wantNorm2) < 1e-2 * wantNorm2), yes(std::fabs(norm1 - wantNorm1) < 1e-3 * wantNorm1),
         yes(std::fabs(bigNorm / 5e200 - 1) < 1e-12), yes(std::fabs(bigSum / 7e200 - 1) < 1e-12));

  // Not implemented by predatar: refused by name, with CUBLAS_STATUS_NOT_SUPPORTED.
  // Written to standard error: NVIDIA's cuBLAS has it (and returns 0), and
  // standard output is compared with the same program on a GPU.
  const float c = 1, sn = 0;
  fprintf(stderr, "srot: %d\n", int(cublasSrot(h, 100, du, 1, dv, 1, &c, &sn)));

  // The race: gemv on stream a writes y, a kernel on stream b reads it.
  cudaStream_t a, b;
  CHECK(cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking));
  float* out;
  CHECK(cudaMalloc(&out, m * sizeof(float)));
  CHECK(cublasSetStream(h, a));
  cudaStream_t got;
  cublasPointerMode_t mode;
  CHECK(cublasGetStream(h, &got));
  CHECK(cublasGetPointerMode(h, &mode));
  printf("handle settings: stream %s, host pointer mode %s\n", yes(got == a), yes(mode == CUBLAS_POINTER_MODE_HOST));
  CHECK(cublasSgemv(h, CUBLAS_OP_N, m, n, &alpha, dA, m, dx, 1, &beta, dy, 1));
  copy<<<1, 64, 0, b>>>(dy, out, m);
  CHECK(cudaDeviceSynchronize());
  CHECK(cublasDestroy(h));
  printf("done\n");
  return 0;
}
