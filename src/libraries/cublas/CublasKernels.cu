// predatar's cuBLAS kernels (Cublas.cpp launches them through the runtime,
// so the detectors check their accesses like any kernel's). PTX is committed
// beside this file; src/libraries/regenerate_ptx.sh regenerates it.
//
// Matrices are column-major with leading dimensions, as in BLAS. A scalar
// comes by value or, in CUBLAS_POINTER_MODE_DEVICE, through a device pointer
// (non-null). A vector's increment may be negative: element i is then at
// (1 - n + i) * inc from the pointer, as BLAS says. With beta == 0 the output
// is not read (BLAS: it need not be initialized).

typedef long long i64;

template <class T>
__device__ __forceinline__ T scalar(const T* pointer, T value) {
  return pointer ? *pointer : value;
}

__device__ __forceinline__ i64 at(i64 i, i64 n, i64 inc) { return inc >= 0 ? i * inc : (i - n + 1) * inc; }

#define GRID_STRIDE(i, n) \
  for (i64 i = i64(blockIdx.x) * blockDim.x + threadIdx.x; i < (n); i += i64(gridDim.x) * blockDim.x)

// y = alpha op(A) x + beta y; A is m x n; one thread per element of y.
template <class T>
__device__ void gemv(int trans, i64 m, i64 n, const T* alphaP, T alpha, const T* A, i64 lda, const T* x, i64 incx,
                     const T* betaP, T beta, T* y, i64 incy) {
  alpha = scalar(alphaP, alpha);
  beta = scalar(betaP, beta);
  i64 rows = trans ? n : m, cols = trans ? m : n;
  GRID_STRIDE(r, rows) {
    T sum = 0;
    for (i64 c = 0; c < cols; ++c) sum += (trans ? A[c + r * lda] : A[r + c * lda]) * x[at(c, cols, incx)];
    T* out = &y[at(r, rows, incy)];
    *out = beta == T(0) ? alpha * sum : alpha * sum + beta * *out;
  }
}

extern "C" __global__ void predatar_cublas_sgemv(int trans, i64 m, i64 n, const float* alphaP, float alpha,
                                                 const float* A, i64 lda, const float* x, i64 incx,
                                                 const float* betaP, float beta, float* y, i64 incy) {
  gemv(trans, m, n, alphaP, alpha, A, lda, x, incx, betaP, beta, y, incy);
}

extern "C" __global__ void predatar_cublas_dgemv(int trans, i64 m, i64 n, const double* alphaP, double alpha,
                                                 const double* A, i64 lda, const double* x, i64 incx,
                                                 const double* betaP, double beta, double* y, i64 incy) {
  gemv(trans, m, n, alphaP, alpha, A, lda, x, incx, betaP, beta, y, incy);
}

// C = alpha op(A) op(B) + beta C; C is m x n, k the inner dimension; one
// thread per element of C.
template <class T>
__device__ void gemm(int transa, int transb, i64 m, i64 n, i64 k, const T* alphaP, T alpha, const T* A, i64 lda,
                     const T* B, i64 ldb, const T* betaP, T beta, T* C, i64 ldc) {
  alpha = scalar(alphaP, alpha);
  beta = scalar(betaP, beta);
  GRID_STRIDE(e, m * n) {
    i64 i = e % m, j = e / m;
    T sum = 0;
    for (i64 l = 0; l < k; ++l) sum += (transa ? A[l + i * lda] : A[i + l * lda]) * (transb ? B[j + l * ldb] : B[l + j * ldb]);
    T* out = &C[i + j * ldc];
    *out = beta == T(0) ? alpha * sum : alpha * sum + beta * *out;
  }
}

extern "C" __global__ void predatar_cublas_sgemm(int transa, int transb, i64 m, i64 n, i64 k, const float* alphaP,
                                                 float alpha, const float* A, i64 lda, const float* B, i64 ldb,
                                                 const float* betaP, float beta, float* C, i64 ldc) {
  gemm(transa, transb, m, n, k, alphaP, alpha, A, lda, B, ldb, betaP, beta, C, ldc);
}

extern "C" __global__ void predatar_cublas_dgemm(int transa, int transb, i64 m, i64 n, i64 k, const double* alphaP,
                                                 double alpha, const double* A, i64 lda, const double* B, i64 ldb,
                                                 const double* betaP, double beta, double* C, i64 ldc) {
  gemm(transa, transb, m, n, k, alphaP, alpha, A, lda, B, ldb, betaP, beta, C, ldc);
}

// A batch of gemms: matrix b of each operand through an array of pointers
// (Aarray[b]: the arrays are in device memory, as cuBLAS takes them) or at
// b * stride from the first; one thread per element of every C.
template <class T, class Matrix>
__device__ void gemmBatch(int transa, int transb, i64 m, i64 n, i64 k, const T* alphaP, T alpha, Matrix A, i64 lda,
                          Matrix B, i64 ldb, const T* betaP, T beta, Matrix C, i64 ldc, i64 batch) {
  alpha = scalar(alphaP, alpha);
  beta = scalar(betaP, beta);
  GRID_STRIDE(e, m * n * batch) {
    i64 b = e / (m * n), i = e % (m * n) % m, j = e % (m * n) / m;
    const T* a = A.template at<const T>(b);
    const T* bm = B.template at<const T>(b);
    T sum = 0;
    for (i64 l = 0; l < k; ++l)
      sum += (transa ? a[l + i * lda] : a[i + l * lda]) * (transb ? bm[j + l * ldb] : bm[l + j * ldb]);
    T* out = &C.template at<T>(b)[i + j * ldc];
    *out = beta == T(0) ? alpha * sum : alpha * sum + beta * *out;
  }
}

struct PointerArray {  // matrix b is array[b]
  void* const* array;
  template <class T>
  __device__ T* at(i64 b) const { return static_cast<T*>(array[b]); }
};

struct Strided {  // matrix b is at first + b * stride elements
  void* first;
  i64 stride, elementSize;
  template <class T>
  __device__ T* at(i64 b) const { return reinterpret_cast<T*>(static_cast<char*>(first) + b * stride * elementSize); }
};

// (The shapes and scalars first, then the operands: the host side builds the
// first part once for both forms, Cublas.cpp's gemmBatches.)
extern "C" __global__ void predatar_cublas_sgemm_batched(int transa, int transb, i64 m, i64 n, i64 k,
                                                         const float* alphaP, float alpha, const float* betaP,
                                                         float beta, i64 lda, i64 ldb, i64 ldc, i64 batch,
                                                         void* const* A, void* const* B, void* const* C) {
  gemmBatch<float>(transa, transb, m, n, k, alphaP, alpha, PointerArray{A}, lda, PointerArray{B}, ldb, betaP, beta,
                   PointerArray{C}, ldc, batch);
}

extern "C" __global__ void predatar_cublas_dgemm_batched(int transa, int transb, i64 m, i64 n, i64 k,
                                                         const double* alphaP, double alpha, const double* betaP,
                                                         double beta, i64 lda, i64 ldb, i64 ldc, i64 batch,
                                                         void* const* A, void* const* B, void* const* C) {
  gemmBatch<double>(transa, transb, m, n, k, alphaP, alpha, PointerArray{A}, lda, PointerArray{B}, ldb, betaP, beta,
                    PointerArray{C}, ldc, batch);
}

extern "C" __global__ void predatar_cublas_sgemm_strided(int transa, int transb, i64 m, i64 n, i64 k,
                                                         const float* alphaP, float alpha, const float* betaP,
                                                         float beta, i64 lda, i64 ldb, i64 ldc, i64 batch, void* A,
                                                         i64 strideA, void* B, i64 strideB, void* C, i64 strideC) {
  gemmBatch<float>(transa, transb, m, n, k, alphaP, alpha, Strided{A, strideA, 4}, lda, Strided{B, strideB, 4}, ldb,
                   betaP, beta, Strided{C, strideC, 4}, ldc, batch);
}

extern "C" __global__ void predatar_cublas_dgemm_strided(int transa, int transb, i64 m, i64 n, i64 k,
                                                         const double* alphaP, double alpha, const double* betaP,
                                                         double beta, i64 lda, i64 ldb, i64 ldc, i64 batch, void* A,
                                                         i64 strideA, void* B, i64 strideB, void* C, i64 strideC) {
  gemmBatch<double>(transa, transb, m, n, k, alphaP, alpha, Strided{A, strideA, 8}, lda, Strided{B, strideB, 8},
                    ldb, betaP, beta, Strided{C, strideC, 8}, ldc, batch);
}

// LU factorization with partial pivoting of each n x n matrix Aarray[b]
// (LAPACK's getrf, right-looking, one thread per matrix): P A = L U, L's
// unit diagonal implied, pivots[b * n + j] the 1-based row swapped with row
// j at step j (no pivoting when pivots is null); info[b] is 0, or the first
// 1-based j with U(j, j) exactly zero (the factorization still completes).
template <class T>
__device__ void getrfBatch(i64 n, T* const* Aarray, i64 lda, int* pivots, int* info, i64 batch) {
  GRID_STRIDE(b, batch) {
    T* a = Aarray[b];
    int singular = 0;
    for (i64 j = 0; j < n; ++j) {
      i64 p = j;
      if (pivots) {
        for (i64 i = j + 1; i < n; ++i)
          if (fabs(a[i + j * lda]) > fabs(a[p + j * lda])) p = i;
        pivots[b * n + j] = int(p + 1);
        if (p != j)
          for (i64 c = 0; c < n; ++c) {
            T t = a[j + c * lda];
            a[j + c * lda] = a[p + c * lda];
            a[p + c * lda] = t;
          }
      }
      T d = a[j + j * lda];
      if (d == T(0)) {
        if (!singular) singular = int(j + 1);
        continue;
      }
      for (i64 i = j + 1; i < n; ++i) a[i + j * lda] /= d;
      for (i64 c = j + 1; c < n; ++c)
        for (i64 i = j + 1; i < n; ++i) a[i + c * lda] -= a[i + j * lda] * a[j + c * lda];
    }
    info[b] = singular;
  }
}

extern "C" __global__ void predatar_cublas_sgetrf_batched(i64 n, float* const* A, i64 lda, int* pivots, int* info,
                                                          i64 batch) {
  getrfBatch(n, A, lda, pivots, info, batch);
}

extern "C" __global__ void predatar_cublas_dgetrf_batched(i64 n, double* const* A, i64 lda, int* pivots, int* info,
                                                          i64 batch) {
  getrfBatch(n, A, lda, pivots, info, batch);
}

// Least squares min ||C - A X|| of each m x n system (m >= n) with nrhs
// right-hand sides (LAPACK's gels, as cuBLAS's gelsBatched), by Householder
// QR, one thread per system: X in C's first n rows, R in A's upper triangle
// and each reflector's vector below its diagonal. Elements are real, or
// complex as cuComplex (real, imaginary); sums are kept in double (a float
// system's rounding is then its storage's, not a float accumulator's).
// devInfo[b], where given, is 0, or the first 1-based j whose column left no
// norm below the diagonal (R(j, j) zero: A is rank deficient; X is not
// computed).
template <class R>
struct Complex {
  R re, im;
};
struct Wide {  // a complex element in double
  double re, im;
};
__device__ __forceinline__ Wide operator+(Wide a, Wide b) { return {a.re + b.re, a.im + b.im}; }
__device__ __forceinline__ Wide operator-(Wide a, Wide b) { return {a.re - b.re, a.im - b.im}; }
__device__ __forceinline__ Wide operator*(Wide a, Wide b) {
  return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
}
__device__ __forceinline__ Wide operator*(double a, Wide b) { return {a * b.re, a * b.im}; }
__device__ __forceinline__ Wide operator/(Wide a, Wide b) {
  double d = b.re * b.re + b.im * b.im;
  return {(a.re * b.re + a.im * b.im) / d, (a.im * b.re - a.re * b.im) / d};
}
__device__ __forceinline__ double conjOf(double x) { return x; }
__device__ __forceinline__ Wide conjOf(Wide x) { return {x.re, -x.im}; }
__device__ __forceinline__ double abs2(double x) { return x * x; }
__device__ __forceinline__ double abs2(Wide x) { return x.re * x.re + x.im * x.im; }
__device__ __forceinline__ double widen(float x) { return x; }
__device__ __forceinline__ double widen(double x) { return x; }
template <class R>
__device__ __forceinline__ Wide widen(Complex<R> x) {
  return {double(x.re), double(x.im)};
}
template <class T>
__device__ __forceinline__ T narrow(double x) {
  return T(x);
}
template <class T>
__device__ __forceinline__ T narrow(Wide x) {
  return {decltype(T::re)(x.re), decltype(T::im)(x.im)};
}
// x / |x| (1 for 0): a reflector's diagonal takes the sign (phase) that
// keeps its vector's first entry away from cancellation.
__device__ __forceinline__ double phaseOf(double x) { return x < 0 ? -1.0 : 1.0; }
__device__ __forceinline__ Wide phaseOf(Wide x) {
  double a = sqrt(abs2(x));
  return a == 0 ? Wide{1, 0} : Wide{x.re / a, x.im / a};
}

template <class T>
__device__ void gelsBatch(i64 m, i64 n, i64 nrhs, T* const* Aarray, i64 lda, T* const* Carray, i64 ldc,
                          int* devInfo, i64 batch) {
  using W = decltype(widen(T{}));
  GRID_STRIDE(b, batch) {
    T* a = Aarray[b];
    T* c = Carray[b];
    int rankDeficient = 0;
    for (i64 j = 0; j < n && !rankDeficient; ++j) {
      // H = I - 2 u u^H / (u^H u), u = x - beta e1, maps x = A(j:m, j) to beta e1.
      double norm2 = 0;
      for (i64 i = j; i < m; ++i) norm2 += abs2(widen(a[i + j * lda]));
      if (norm2 == 0) {
        rankDeficient = int(j + 1);
        break;
      }
      W alpha = widen(a[j + j * lda]);
      W beta = -sqrt(norm2) * phaseOf(alpha);
      W u0 = alpha - beta;
      double uu = norm2 - abs2(alpha) + abs2(u0);
      auto reflect = [&](T* column) {
        W s = conjOf(u0) * widen(column[j]);
        for (i64 i = j + 1; i < m; ++i) s = s + conjOf(widen(a[i + j * lda])) * widen(column[i]);
        W f = (2.0 / uu) * s;
        column[j] = narrow<T>(widen(column[j]) - f * u0);
        for (i64 i = j + 1; i < m; ++i) column[i] = narrow<T>(widen(column[i]) - f * widen(a[i + j * lda]));
      };
      for (i64 k = j + 1; k < n; ++k) reflect(a + k * lda);
      for (i64 r = 0; r < nrhs; ++r) reflect(c + r * ldc);
      a[j + j * lda] = narrow<T>(beta);
    }
    // R X = (Q^H C)(0:n), by back substitution.
    for (i64 r = 0; r < nrhs && !rankDeficient; ++r)
      for (i64 k = n - 1; k >= 0; --k) {
        W s = widen(c[k + r * ldc]);
        for (i64 col = k + 1; col < n; ++col) s = s - widen(a[k + col * lda]) * widen(c[col + r * ldc]);
        c[k + r * ldc] = narrow<T>(s / widen(a[k + k * lda]));
      }
    if (devInfo) devInfo[b] = rankDeficient;
  }
}

extern "C" __global__ void predatar_cublas_sgels_batched(i64 m, i64 n, i64 nrhs, float* const* A, i64 lda,
                                                         float* const* C, i64 ldc, int* devInfo, i64 batch) {
  gelsBatch(m, n, nrhs, A, lda, C, ldc, devInfo, batch);
}

extern "C" __global__ void predatar_cublas_dgels_batched(i64 m, i64 n, i64 nrhs, double* const* A, i64 lda,
                                                         double* const* C, i64 ldc, int* devInfo, i64 batch) {
  gelsBatch(m, n, nrhs, A, lda, C, ldc, devInfo, batch);
}

extern "C" __global__ void predatar_cublas_cgels_batched(i64 m, i64 n, i64 nrhs, Complex<float>* const* A, i64 lda,
                                                         Complex<float>* const* C, i64 ldc, int* devInfo,
                                                         i64 batch) {
  gelsBatch(m, n, nrhs, A, lda, C, ldc, devInfo, batch);
}

extern "C" __global__ void predatar_cublas_zgels_batched(i64 m, i64 n, i64 nrhs, Complex<double>* const* A,
                                                         i64 lda, Complex<double>* const* C, i64 ldc, int* devInfo,
                                                         i64 batch) {
  gelsBatch(m, n, nrhs, A, lda, C, ldc, devInfo, batch);
}

// y = alpha x + y.
template <class T>
__device__ void axpy(i64 n, const T* alphaP, T alpha, const T* x, i64 incx, T* y, i64 incy) {
  alpha = scalar(alphaP, alpha);
  GRID_STRIDE(i, n) y[at(i, n, incy)] += alpha * x[at(i, n, incx)];
}

extern "C" __global__ void predatar_cublas_saxpy(i64 n, const float* alphaP, float alpha, const float* x, i64 incx,
                                                 float* y, i64 incy) {
  axpy(n, alphaP, alpha, x, incx, y, incy);
}

extern "C" __global__ void predatar_cublas_daxpy(i64 n, const double* alphaP, double alpha, const double* x,
                                                 i64 incx, double* y, i64 incy) {
  axpy(n, alphaP, alpha, x, incx, y, incy);
}

// y = x, elements of `bytes` (4: S, 8: D and C, 16: Z).
extern "C" __global__ void predatar_cublas_copy(i64 n, const void* x, i64 incx, void* y, i64 incy, int bytes) {
  GRID_STRIDE(i, n) {
    i64 from = at(i, n, incx), to = at(i, n, incy);
    if (bytes == 4) static_cast<float*>(y)[to] = static_cast<const float*>(x)[from];
    else if (bytes == 8) static_cast<double*>(y)[to] = static_cast<const double*>(x)[from];
    else static_cast<double2*>(y)[to] = static_cast<const double2*>(x)[from];
  }
}

// x = alpha x (BLAS: a non-positive increment does nothing; the caller checks).
template <class T>
__device__ void scal(i64 n, const T* alphaP, T alpha, T* x, i64 incx) {
  alpha = scalar(alphaP, alpha);
  GRID_STRIDE(i, n) x[i * incx] *= alpha;
}

extern "C" __global__ void predatar_cublas_sscal(i64 n, const float* alphaP, float alpha, float* x, i64 incx) {
  scal(n, alphaP, alpha, x, incx);
}

extern "C" __global__ void predatar_cublas_dscal(i64 n, const double* alphaP, double alpha, double* x, i64 incx) {
  scal(n, alphaP, alpha, x, incx);
}

// A sum over one or two vectors by one block of 256 threads: strided partial
// sums of term(i), then a tree in shared memory (barriers order every step).
template <class T, class Term>
__device__ T blockSum(i64 n, Term term) {
  __shared__ T partial[256];
  T sum = 0;
  for (i64 i = threadIdx.x; i < n; i += blockDim.x) sum += term(i);
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (unsigned half = blockDim.x / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) partial[threadIdx.x] += partial[threadIdx.x + half];
    __syncthreads();
  }
  return partial[0];
}

// *result = x . y
template <class T>
__device__ void dot(i64 n, const T* x, i64 incx, const T* y, i64 incy, T* result) {
  T sum = blockSum<T>(n, [&](i64 i) { return x[at(i, n, incx)] * y[at(i, n, incy)]; });
  if (threadIdx.x == 0) *result = sum;
}

// *result = sqrt(sum of x[i]^2): each term scaled by max |x[i]| (a first
// pass), so that squares of large or tiny elements neither overflow nor
// vanish, as BLAS's nrm2 promises. incx > 0 (the host side answers 0 else).
template <class T>
__device__ void nrm2(i64 n, const T* x, i64 incx, T* result) {
  __shared__ T largest[256];
  T m = 0;
  for (i64 i = threadIdx.x; i < n; i += blockDim.x) m = fmax(m, fabs(x[i * incx]));
  largest[threadIdx.x] = m;
  __syncthreads();
  for (unsigned half = blockDim.x / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) largest[threadIdx.x] = fmax(largest[threadIdx.x], largest[threadIdx.x + half]);
    __syncthreads();
  }
  T scale = largest[0];
  if (scale == T(0) || isinf(scale)) {  // all zero, or an infinity: the norm is that
    if (threadIdx.x == 0) *result = scale;
    return;
  }
  T sum = blockSum<T>(n, [&](i64 i) {
    T v = x[i * incx] / scale;
    return v * v;
  });
  if (threadIdx.x == 0) *result = scale * sqrt(sum);
}

// *result = the 1-based index of the first element of largest |x[i]|
// (BLAS's i?amax). incx > 0 (the host side answers 0 else).
template <class T>
__device__ void iamax(i64 n, const T* x, i64 incx, int* result) {
  __shared__ T best[256];
  __shared__ i64 where[256];
  T b = -1;  // (below any |x[i]|: a thread with no element never wins)
  i64 w = 0;
  for (i64 i = threadIdx.x; i < n; i += blockDim.x) {
    T v = fabs(x[i * incx]);
    if (v > b) b = v, w = i;
  }
  best[threadIdx.x] = b;
  where[threadIdx.x] = w;
  __syncthreads();
  for (unsigned half = blockDim.x / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) {
      T other = best[threadIdx.x + half];
      i64 otherAt = where[threadIdx.x + half];
      if (other > best[threadIdx.x] || (other == best[threadIdx.x] && otherAt < where[threadIdx.x]))
        best[threadIdx.x] = other, where[threadIdx.x] = otherAt;
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) *result = int(where[0] + 1);
}

extern "C" __global__ void predatar_cublas_isamax(i64 n, const float* x, i64 incx, int* result) {
  iamax(n, x, incx, result);
}

extern "C" __global__ void predatar_cublas_idamax(i64 n, const double* x, i64 incx, int* result) {
  iamax(n, x, incx, result);
}

// *result = sum of |x[i]|. incx > 0.
template <class T>
__device__ void asum(i64 n, const T* x, i64 incx, T* result) {
  T sum = blockSum<T>(n, [&](i64 i) { return fabs(x[i * incx]); });
  if (threadIdx.x == 0) *result = sum;
}

extern "C" __global__ void predatar_cublas_sdot(i64 n, const float* x, i64 incx, const float* y, i64 incy,
                                                float* result) {
  dot(n, x, incx, y, incy, result);
}

extern "C" __global__ void predatar_cublas_ddot(i64 n, const double* x, i64 incx, const double* y, i64 incy,
                                                double* result) {
  dot(n, x, incx, y, incy, result);
}

extern "C" __global__ void predatar_cublas_snrm2(i64 n, const float* x, i64 incx, float* result) {
  nrm2(n, x, incx, result);
}

extern "C" __global__ void predatar_cublas_dnrm2(i64 n, const double* x, i64 incx, double* result) {
  nrm2(n, x, incx, result);
}

extern "C" __global__ void predatar_cublas_sasum(i64 n, const float* x, i64 incx, float* result) {
  asum(n, x, incx, result);
}

extern "C" __global__ void predatar_cublas_dasum(i64 n, const double* x, i64 incx, double* result) {
  asum(n, x, incx, result);
}

// ---------------------------------------------------------------- mixed types (cublasGemmEx, cublasDotEx)

// Operand and result types as cudaDataType numbers them.
enum DataType : int { kR32F = 0, kR64F = 1, kR16F = 2, kR8I = 3, kR32I = 10, kR16BF = 14 };

// f16 and bf16 by their bits: cuda_fp16.h and cuda_bf16.h would put their
// internal functions in the PTX under names that depend on where this file
// is, and the committed PTX must not (regenerate_ptx.sh --check).
__device__ float halfToFloat(unsigned short bits) {
  float f;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(bits));
  return f;
}
__device__ unsigned short floatToHalf(float v) {
  unsigned short bits;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(bits) : "f"(v));
  return bits;
}
__device__ float bf16ToFloat(unsigned short bits) { return __uint_as_float(unsigned(bits) << 16); }
__device__ unsigned short floatToBf16(float v) {  // to nearest even
  unsigned x = __float_as_uint(v);
  if ((x & 0x7FFFFFFFu) > 0x7F800000u) return 0x7FFF;  // NaN
  return (unsigned short)((x + 0x7FFFu + ((x >> 16) & 1u)) >> 16);
}

__device__ double loadAs(const void* p, i64 i, int type) {
  switch (type) {
    case kR32F: return static_cast<const float*>(p)[i];
    case kR64F: return static_cast<const double*>(p)[i];
    case kR16F: return halfToFloat(static_cast<const unsigned short*>(p)[i]);
    case kR16BF: return bf16ToFloat(static_cast<const unsigned short*>(p)[i]);
    case kR8I: return static_cast<const signed char*>(p)[i];
    default: return static_cast<const int*>(p)[i];  // kR32I
  }
}

__device__ void storeAs(void* p, i64 i, int type, double v) {
  switch (type) {
    case kR32F: static_cast<float*>(p)[i] = float(v); break;
    case kR64F: static_cast<double*>(p)[i] = v; break;
    case kR16F: static_cast<unsigned short*>(p)[i] = floatToHalf(float(v)); break;
    case kR16BF: static_cast<unsigned short*>(p)[i] = floatToBf16(float(v)); break;
    default: static_cast<int*>(p)[i] = int(v); break;  // kR32I
  }
}

// A scalar of `type`: through the device pointer, else its bits, passed by value.
__device__ double scalarAs(const void* pointer, const unsigned long long& bits, int type) {
  return loadAs(pointer ? pointer : &bits, 0, type);
}

__device__ i64 bytesOf(int type) {
  switch (type) {
    case kR64F: return 8;
    case kR16F: case kR16BF: return 2;
    case kR8I: return 1;
    default: return 4;  // kR32F, kR32I
  }
}

// Matrix b of a batch: through an array of pointers in device memory
// (arrays, as cublasGemmBatchedEx takes them) or at b * stride elements of
// `type` from the first.
struct BatchOperand {
  const void* first;
  int type, arrays;
  i64 stride;
  __device__ void* at(i64 b) const {
    if (arrays) return static_cast<void* const*>(first)[b];
    return const_cast<char*>(static_cast<const char*>(first)) + b * stride * bytesOf(type);
  }
};

// C = alpha op(A) op(B) + beta C for each matrix of the batch, with each
// operand of its own type, products summed in Acc (float for the 32F and 16F
// compute types, double for 64F, int for 32I); one thread per element of
// every C.
template <class Acc>
__device__ void gemmEx(int transa, int transb, i64 m, i64 n, i64 k, Acc alpha, Acc beta, BatchOperand A, i64 lda,
                       BatchOperand B, i64 ldb, BatchOperand C, i64 ldc, i64 batch) {
  GRID_STRIDE(e, m * n * batch) {
    i64 b = e / (m * n), i = e % (m * n) % m, j = e % (m * n) / m;
    const void *a = A.at(b), *bm = B.at(b);
    void* c = C.at(b);
    Acc sum = 0;
    for (i64 l = 0; l < k; ++l)
      sum += Acc(loadAs(a, transa ? l + i * lda : i + l * lda, A.type)) *
             Acc(loadAs(bm, transb ? j + l * ldb : l + j * ldb, B.type));
    Acc out = beta == Acc(0) ? alpha * sum : alpha * sum + beta * Acc(loadAs(c, i + j * ldc, C.type));
    storeAs(c, i + j * ldc, C.type, double(out));
  }
}

// accumulate: 0 float, 1 double, 2 int. A single gemm is a batch of one.
extern "C" __global__ void predatar_cublas_gemm_ex(int transa, int transb, i64 m, i64 n, i64 k, const void* alphaP,
                                                   unsigned long long alphaBits, const void* betaP,
                                                   unsigned long long betaBits, int scalarType, const void* A,
                                                   int aType, i64 lda, i64 strideA, const void* B, int bType, i64 ldb,
                                                   i64 strideB, void* C, int cType, i64 ldc, i64 strideC,
                                                   int accumulate, i64 batch, int arrays) {
  double alpha = scalarAs(alphaP, alphaBits, scalarType), beta = scalarAs(betaP, betaBits, scalarType);
  BatchOperand a{A, aType, arrays, strideA}, b{B, bType, arrays, strideB}, c{C, cType, arrays, strideC};
  if (accumulate == 0)
    gemmEx<float>(transa, transb, m, n, k, float(alpha), float(beta), a, lda, b, ldb, c, ldc, batch);
  else if (accumulate == 1)
    gemmEx<double>(transa, transb, m, n, k, alpha, beta, a, lda, b, ldb, c, ldc, batch);
  else
    gemmEx<int>(transa, transb, m, n, k, int(alpha), int(beta), a, lda, b, ldb, c, ldc, batch);
}

// *result = x . y, the products summed in float (execution type 32F) or double.
extern "C" __global__ void predatar_cublas_dot_ex(i64 n, const void* x, int xType, i64 incx, const void* y,
                                                  int yType, i64 incy, int resultType, int inDouble, void* result) {
  auto term = [&](i64 i) { return loadAs(x, at(i, n, incx), xType) * loadAs(y, at(i, n, incy), yType); };
  double sum = inDouble ? blockSum<double>(n, term) : double(blockSum<float>(n, [&](i64 i) { return float(term(i)); }));
  if (threadIdx.x == 0) storeAs(result, 0, resultType, sum);
}

// cuBLASLt's epilogue on D (rows x cols, each of `batch` matrices at strideD
// elements): a bias per row (its own type, at biasStride elements a matrix),
// then ReLU or GELU (tanh form) as `epilogue` asks (CUBLASLT_EPILOGUE_* bits:
// 2 ReLU, 4 bias, 32 GELU). Applied to D as the matmul stored it, so a half
// D is rounded twice where cuBLASLt rounds once.
extern "C" __global__ void predatar_cublaslt_epilogue(i64 rows, i64 cols, i64 batch, void* D, int dType, i64 ldd,
                                                      i64 strideD, int epilogue, const void* bias, int biasType,
                                                      i64 biasStride) {
  GRID_STRIDE(e, rows * cols * batch) {
    i64 row = e % rows, col = (e / rows) % cols, b = e / (rows * cols);
    i64 at = b * strideD + row + col * ldd;
    double x = loadAs(D, at, dType);
    if (epilogue & 4) x += loadAs(bias, b * biasStride + row, biasType);
    if (epilogue & 2) x = x > 0 ? x : 0;
    if (epilogue & 32) x = 0.5 * x * (1 + tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
    storeAs(D, at, dType, x);
  }
}
