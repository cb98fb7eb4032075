// predatar's cuSPARSE kernels (Cusparse.cpp launches them through the runtime,
// so the detectors check their accesses like any kernel's). PTX is committed
// beside this file; src/libraries/regenerate_ptx.sh regenerates it.
//
// Values are f32 or f64 (`value`: 4 or 8, their size), indices int32 or
// int64 (`index`: 4 or 8), less the matrix's index base. Sums are in double.

typedef long long i64;

#define GRID_STRIDE(i, n) \
  for (i64 i = i64(blockIdx.x) * blockDim.x + threadIdx.x; i < (n); i += i64(gridDim.x) * blockDim.x)

__device__ __forceinline__ double loadValue(const void* p, i64 i, int value) {
  return value == 8 ? static_cast<const double*>(p)[i] : static_cast<const float*>(p)[i];
}
__device__ __forceinline__ void storeValue(void* p, i64 i, int value, double v) {
  if (value == 8) static_cast<double*>(p)[i] = v;
  else static_cast<float*>(p)[i] = float(v);
}
__device__ __forceinline__ i64 loadIndex(const void* p, i64 i, int index, i64 base) {
  return (index == 8 ? static_cast<const long long*>(p)[i] : static_cast<const int*>(p)[i]) - base;
}
__device__ __forceinline__ double scalar(const void* pointer, double value, int type) {
  return pointer ? loadValue(pointer, 0, type) : value;
}

// y = alpha A x + beta y, A in CSR (rows x cols): one thread per row.
extern "C" __global__ void predatar_cusparse_spmv_csr(i64 rows, const void* offsets, const void* columns,
                                                      const void* values, int index, i64 base, int value,
                                                      const void* alphaP, double alpha, const void* x,
                                                      const void* betaP, double beta, void* y) {
  alpha = scalar(alphaP, alpha, value);
  beta = scalar(betaP, beta, value);
  GRID_STRIDE(r, rows) {
    double sum = 0;
    for (i64 e = loadIndex(offsets, r, index, base), end = loadIndex(offsets, r + 1, index, base); e < end; ++e)
      sum += loadValue(values, e, value) * loadValue(x, loadIndex(columns, e, index, base), value);
    storeValue(y, r, value, beta == 0 ? alpha * sum : alpha * sum + beta * loadValue(y, r, value));
  }
}

// Atomic adds as PTX: CUDA's atomicAdd is a static function of its headers,
// named in the PTX's debug information after where this file is
// (regenerate_ptx.sh --check compares the PTX wherever the repository is).
__device__ __forceinline__ void addTo(double* p, double v) {
  asm volatile("red.global.add.f64 [%0], %1;" ::"l"(p), "d"(v) : "memory");
}
__device__ __forceinline__ void addTo(float* p, float v) {
  asm volatile("red.global.add.f32 [%0], %1;" ::"l"(p), "f"(v) : "memory");
}

// y = beta y (beta 0: y is not read), before the entries of a COO product
// or a sparse vector are added.
extern "C" __global__ void predatar_cusparse_scale(i64 n, const void* betaP, double beta, int value, void* y) {
  beta = scalar(betaP, beta, value);
  GRID_STRIDE(i, n) storeValue(y, i, value, beta == 0 ? 0.0 : beta * loadValue(y, i, value));
}

// y += alpha A x, A in COO: one thread per entry, added atomically (entries
// of a row may be anywhere in the list).
extern "C" __global__ void predatar_cusparse_spmv_coo(i64 nnz, const void* rowIndices, const void* columns,
                                                      const void* values, int index, i64 base, int value,
                                                      const void* alphaP, double alpha, const void* x, void* y) {
  alpha = scalar(alphaP, alpha, value);
  GRID_STRIDE(e, nnz) {
    double add = alpha * loadValue(values, e, value) * loadValue(x, loadIndex(columns, e, index, base), value);
    i64 r = loadIndex(rowIndices, e, index, base);
    if (value == 8) addTo(static_cast<double*>(y) + r, add);
    else addTo(static_cast<float*>(y) + r, float(add));
  }
}

// y[indices[i]] += alpha x[i] for a sparse vector x (its indices distinct).
extern "C" __global__ void predatar_cusparse_axpy_sparse(i64 nnz, const void* indices, const void* values, int index,
                                                         i64 base, int value, const void* alphaP, double alpha,
                                                         void* y) {
  alpha = scalar(alphaP, alpha, value);
  GRID_STRIDE(i, nnz) {
    i64 at = loadIndex(indices, i, index, base);
    storeValue(y, at, value, loadValue(y, at, value) + alpha * loadValue(values, i, value));
  }
}

// The dense form of a CSR matrix (rows x cols, leading dimension ld, column-
// or row-major): one thread per row, which clears it and writes its entries.
extern "C" __global__ void predatar_cusparse_csr_to_dense(i64 rows, i64 cols, const void* offsets,
                                                          const void* columns, const void* values, int index, i64 base,
                                                          int value, void* dense, i64 ld, int rowMajor) {
  GRID_STRIDE(r, rows) {
    i64 rowStep = rowMajor ? ld : 1, columnStep = rowMajor ? 1 : ld;
    for (i64 c = 0; c < cols; ++c) storeValue(dense, r * rowStep + c * columnStep, value, 0);
    for (i64 e = loadIndex(offsets, r, index, base), end = loadIndex(offsets, r + 1, index, base); e < end; ++e)
      storeValue(dense, r * rowStep + loadIndex(columns, e, index, base) * columnStep, value, loadValue(values, e, value));
  }
}
