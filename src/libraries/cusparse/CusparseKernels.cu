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

__device__ __forceinline__ void storeIndex(void* p, i64 i, int index, i64 v) {
  if (index == 8) static_cast<long long*>(p)[i] = v;
  else static_cast<int*>(p)[i] = int(v);
}

// Dense matrices are read through a row step and a column step: element
// (i, j) of op(M) is M[i * rowStep + j * columnStep], which covers row- and
// column-major storage and their transposes.

// C = alpha A op(B) + beta C, A in CSR (rows x k), C rows x n: one thread per
// element of C.
extern "C" __global__ void predatar_cusparse_spmm_csr(i64 rows, i64 n, const void* offsets, const void* columns,
                                                      const void* values, int index, i64 base, int value,
                                                      const void* alphaP, double alpha, const void* b, i64 bRow,
                                                      i64 bColumn, const void* betaP, double beta, void* c, i64 cRow,
                                                      i64 cColumn) {
  alpha = scalar(alphaP, alpha, value);
  beta = scalar(betaP, beta, value);
  GRID_STRIDE(at, rows * n) {
    i64 r = at / n, j = at % n;
    double sum = 0;
    for (i64 e = loadIndex(offsets, r, index, base), end = loadIndex(offsets, r + 1, index, base); e < end; ++e)
      sum += loadValue(values, e, value) * loadValue(b, loadIndex(columns, e, index, base) * bRow + j * bColumn, value);
    i64 to = r * cRow + j * cColumn;
    storeValue(c, to, value, beta == 0 ? alpha * sum : alpha * sum + beta * loadValue(c, to, value));
  }
}

// C += alpha A op(B), A in COO, after C = beta C: one thread per entry of A
// and column of C, added atomically.
extern "C" __global__ void predatar_cusparse_spmm_coo(i64 nnz, i64 n, const void* rowIndices, const void* columns,
                                                      const void* values, int index, i64 base, int value,
                                                      const void* alphaP, double alpha, const void* b, i64 bRow,
                                                      i64 bColumn, void* c, i64 cRow, i64 cColumn) {
  alpha = scalar(alphaP, alpha, value);
  GRID_STRIDE(at, nnz * n) {
    i64 e = at / n, j = at % n;
    double add = alpha * loadValue(values, e, value) *
                 loadValue(b, loadIndex(columns, e, index, base) * bRow + j * bColumn, value);
    i64 to = loadIndex(rowIndices, e, index, base) * cRow + j * cColumn;
    if (value == 8) addTo(static_cast<double*>(c) + to, add);
    else addTo(static_cast<float*>(c) + to, float(add));
  }
}

// C = beta C for a dense rows x cols matrix (beta 0: C is not read).
extern "C" __global__ void predatar_cusparse_scale_dense(i64 rows, i64 cols, const void* betaP, double beta, int value,
                                                         void* c, i64 cRow, i64 cColumn) {
  beta = scalar(betaP, beta, value);
  GRID_STRIDE(at, rows * cols) {
    i64 to = (at / cols) * cRow + (at % cols) * cColumn;
    storeValue(c, to, value, beta == 0 ? 0.0 : beta * loadValue(c, to, value));
  }
}

// C = alpha (op(A) op(B)) at C's pattern + beta C, C in CSR (rows x cols),
// op(A) rows x k, op(B) k x cols: one thread per row of C.
extern "C" __global__ void predatar_cusparse_sddmm_csr(i64 rows, i64 k, const void* offsets, const void* columns,
                                                       void* values, int index, i64 base, int value,
                                                       const void* alphaP, double alpha, const void* a, i64 aRow,
                                                       i64 aColumn, const void* b, i64 bRow, i64 bColumn,
                                                       const void* betaP, double beta) {
  alpha = scalar(alphaP, alpha, value);
  beta = scalar(betaP, beta, value);
  GRID_STRIDE(r, rows) {
    for (i64 e = loadIndex(offsets, r, index, base), end = loadIndex(offsets, r + 1, index, base); e < end; ++e) {
      i64 col = loadIndex(columns, e, index, base);
      double dot = 0;
      for (i64 t = 0; t < k; ++t) dot += loadValue(a, r * aRow + t * aColumn, value) * loadValue(b, t * bRow + col * bColumn, value);
      storeValue(values, e, value, beta == 0 ? alpha * dot : alpha * dot + beta * loadValue(values, e, value));
    }
  }
}

// The nonzeros of each of `lines` lines of a dense matrix (element j of line
// i at m[i * lineStep + j * elementStep]), stored at out[i + outOffset].
extern "C" __global__ void predatar_cusparse_count_nonzeros(i64 lines, i64 length, const void* m, i64 lineStep,
                                                            i64 elementStep, int value, void* out, int outIndex,
                                                            i64 outOffset) {
  GRID_STRIDE(i, lines) {
    i64 count = 0;
    for (i64 j = 0; j < length; ++j) count += loadValue(m, i * lineStep + j * elementStep, value) != 0;
    storeIndex(out, i + outOffset, outIndex, count);
  }
}

// CSR row offsets from the row counts at offsets[1..rows], in place: one thread.
extern "C" __global__ void predatar_cusparse_offsets_from_counts(i64 rows, void* offsets, int index, i64 base) {
  if (blockIdx.x != 0 || threadIdx.x != 0) return;
  i64 at = base;
  storeIndex(offsets, 0, index, at);
  for (i64 r = 1; r <= rows; ++r) {
    at += loadIndex(offsets, r, index, 0);
    storeIndex(offsets, r, index, at);
  }
}

// The CSR form of a dense matrix whose row offsets are known: one thread per row.
extern "C" __global__ void predatar_cusparse_dense_to_csr(i64 rows, i64 cols, const void* m, i64 mRow, i64 mColumn,
                                                          int value, const void* offsets, void* columns, void* values,
                                                          int index, i64 base) {
  GRID_STRIDE(r, rows) {
    i64 at = loadIndex(offsets, r, index, base);
    for (i64 c = 0; c < cols; ++c) {
      double v = loadValue(m, r * mRow + c * mColumn, value);
      if (v == 0) continue;
      storeIndex(columns, at, index, c + base);
      storeValue(values, at, value, v);
      ++at;
    }
  }
}

// total = the sum of n int counts: one thread.
extern "C" __global__ void predatar_cusparse_count_total(i64 n, const int* counts, int* total) {
  if (blockIdx.x != 0 || threadIdx.x != 0) return;
  int sum = 0;
  for (i64 i = 0; i < n; ++i) sum += counts[i];
  *total = sum;
}

// Copies value e of `from` to value d of `to`, values of `bytes` bytes (2, 4, 8 or 16).
__device__ __forceinline__ void copyValue(void* to, i64 d, const void* from, i64 e, int bytes) {
  if (bytes == 2) static_cast<short*>(to)[d] = static_cast<const short*>(from)[e];
  else if (bytes == 4) static_cast<int*>(to)[d] = static_cast<const int*>(from)[e];
  else if (bytes == 8) static_cast<long long*>(to)[d] = static_cast<const long long*>(from)[e];
  else static_cast<longlong2*>(to)[d] = static_cast<const longlong2*>(from)[e];
}

// The CSC form of an m x n CSR matrix, int32 indices, by counting sort: one
// thread, so each column's rows come in order. colPtr serves as the columns'
// cursors, then is shifted back.
extern "C" __global__ void predatar_cusparse_csr_to_csc(int m, int n, const int* rowPtr, const int* colInd,
                                                        const void* csrVal, int* colPtr, int* rowInd, void* cscVal,
                                                        int valueBytes, int numeric, int base) {
  if (blockIdx.x != 0 || threadIdx.x != 0) return;
  for (int c = 0; c <= n; ++c) colPtr[c] = 0;
  int nnz = rowPtr[m] - rowPtr[0];
  for (int e = 0; e < nnz; ++e) ++colPtr[colInd[e] - base + 1];
  for (int c = 0; c < n; ++c) colPtr[c + 1] += colPtr[c];
  for (int r = 0; r < m; ++r)
    for (int e = rowPtr[r] - base; e < rowPtr[r + 1] - base; ++e) {
      int to = colPtr[colInd[e] - base]++;
      rowInd[to] = r + base;
      if (numeric) copyValue(cscVal, to, csrVal, e, valueBytes);
    }
  for (int c = n; c > 0; --c) colPtr[c] = colPtr[c - 1] + base;
  colPtr[0] = base;
}

// p = 0, 1, ..., n - 1.
extern "C" __global__ void predatar_cusparse_identity(i64 n, int* p) { GRID_STRIDE(i, n) p[i] = int(i); }

// Sorts each row's column indices, carrying the permutation p along: one
// thread per row, by insertion (a row's entries are few).
extern "C" __global__ void predatar_cusparse_csr_sort(int m, const int* rowPtr, int* colInd, int* p, int base) {
  GRID_STRIDE(r, m) {
    int begin = rowPtr[r] - base, end = rowPtr[r + 1] - base;
    for (int e = begin + 1; e < end; ++e) {
      int column = colInd[e], from = p[e], at = e;
      for (; at > begin && colInd[at - 1] > column; --at) {
        colInd[at] = colInd[at - 1];
        p[at] = p[at - 1];
      }
      colInd[at] = column;
      p[at] = from;
    }
  }
}

// x = y at x's indices (gather), or y at x's indices = x (scatter).
extern "C" __global__ void predatar_cusparse_gather(i64 nnz, const void* indices, int index, i64 base, int value,
                                                    const void* y, void* x) {
  GRID_STRIDE(i, nnz) storeValue(x, i, value, loadValue(y, loadIndex(indices, i, index, base), value));
}
extern "C" __global__ void predatar_cusparse_scatter(i64 nnz, const void* indices, int index, i64 base, int value,
                                                     const void* x, void* y) {
  GRID_STRIDE(i, nnz) storeValue(y, loadIndex(indices, i, index, base), value, loadValue(x, i, value));
}

// Solves op(A) C = alpha B for a triangular A in CSR (n x n; the other
// triangle's entries are ignored, as cuSPARSE does; `unit`: the diagonal is
// taken as ones; else a missing diagonal entry is a zero one, a structural
// zero, and the division by it gives inf or NaN as on a GPU), B and C
// n x nrhs: one thread per column of C, in order of the rows. C may be B.
extern "C" __global__ void predatar_cusparse_triangular_solve(i64 n, i64 nrhs, const void* offsets,
                                                              const void* columns, const void* values, int index,
                                                              i64 base, int value, int lower, int unit,
                                                              const void* alphaP, double alpha, const void* b,
                                                              i64 bRow, i64 bColumn, void* c, i64 cRow, i64 cColumn) {
  alpha = scalar(alphaP, alpha, value);
  GRID_STRIDE(j, nrhs) {
    for (i64 step = 0; step < n; ++step) {
      i64 i = lower ? step : n - 1 - step;
      double sum = alpha * loadValue(b, i * bRow + j * bColumn, value), diagonal = 0;
      for (i64 e = loadIndex(offsets, i, index, base), end = loadIndex(offsets, i + 1, index, base); e < end; ++e) {
        i64 col = loadIndex(columns, e, index, base);
        if (col == i) diagonal = loadValue(values, e, value);
        else if (lower ? col < i : col > i) sum -= loadValue(values, e, value) * loadValue(c, col * cRow + j * cColumn, value);
      }
      storeValue(c, i * cRow + j * cColumn, value, unit ? sum : sum / diagonal);
    }
  }
}

// The incomplete LU factorization with no fill (ILU(0)) of a CSR matrix whose
// rows have sorted columns, in place: L's unit diagonal is implied, U holds
// the diagonal. One thread, row by row. *zeroPivot gets the first row whose
// diagonal is missing or zero (in the matrix's base), or stays -1. With
// `factor` 0 the values are neither changed nor read: only a missing
// diagonal (a structural zero) is looked for.
extern "C" __global__ void predatar_cusparse_ilu0(i64 m, const void* offsets, const void* columns, void* values,
                                                  int index, i64 base, int value, int factor, int* zeroPivot) {
  if (blockIdx.x != 0 || threadIdx.x != 0) return;
  *zeroPivot = -1;
  for (i64 i = 0; i < m; ++i) {
    i64 begin = loadIndex(offsets, i, index, base), end = loadIndex(offsets, i + 1, index, base);
    for (i64 e = begin; e < end && factor; ++e) {
      i64 k = loadIndex(columns, e, index, base);
      if (k >= i) break;
      // a_ik /= u_kk, then row i less a_ik times row k, where row i has entries.
      i64 kBegin = loadIndex(offsets, k, index, base), kEnd = loadIndex(offsets, k + 1, index, base), kk = kBegin;
      while (kk < kEnd && loadIndex(columns, kk, index, base) < k) ++kk;
      double pivot = kk < kEnd && loadIndex(columns, kk, index, base) == k ? loadValue(values, kk, value) : 0;
      if (pivot == 0) continue;  // reported when row k was done
      double factor = loadValue(values, e, value) / pivot;
      storeValue(values, e, value, factor);
      i64 f = e + 1;
      for (i64 g = kk + 1; g < kEnd && f < end; ++g) {
        i64 col = loadIndex(columns, g, index, base);
        while (f < end && loadIndex(columns, f, index, base) < col) ++f;
        if (f < end && loadIndex(columns, f, index, base) == col)
          storeValue(values, f, value, loadValue(values, f, value) - factor * loadValue(values, g, value));
      }
    }
    bool pivotFound = false;
    for (i64 e = begin; e < end; ++e)
      if (loadIndex(columns, e, index, base) == i) pivotFound = !factor || loadValue(values, e, value) != 0;
    if (!pivotFound && *zeroPivot < 0) *zeroPivot = int(i + base);
  }
}

// C = alpha A B, all three CSR: each thread takes rows (grid-stride) with its
// own dense accumulator and marks, `cols` of each in `scratch`. With `fill` 0
// it stores each row's count of columns at cOffsets[r + 1]; with 1, the row's
// columns in order and their values at the row's place in C.
extern "C" __global__ void predatar_cusparse_spgemm_rows(i64 rows, i64 cols, const void* aOffsets,
                                                         const void* aColumns, const void* aValues, i64 aBase,
                                                         const void* bOffsets, const void* bColumns,
                                                         const void* bValues, i64 bBase, int index, int value,
                                                         const void* alphaP, double alpha, void* cOffsets,
                                                         void* cColumns, void* cValues, i64 cBase, int fill,
                                                         double* scratch) {
  alpha = scalar(alphaP, alpha, value);
  i64 thread = i64(blockIdx.x) * blockDim.x + threadIdx.x;
  double* sum = scratch + thread * 2 * cols;
  double* marked = sum + cols;
  for (i64 j = 0; j < cols; ++j) marked[j] = 0;
  GRID_STRIDE(r, rows) {
    for (i64 e = loadIndex(aOffsets, r, index, aBase), end = loadIndex(aOffsets, r + 1, index, aBase); e < end; ++e) {
      i64 k = loadIndex(aColumns, e, index, aBase);
      double a = loadValue(aValues, e, value);
      for (i64 f = loadIndex(bOffsets, k, index, bBase), fEnd = loadIndex(bOffsets, k + 1, index, bBase); f < fEnd;
           ++f) {
        i64 j = loadIndex(bColumns, f, index, bBase);
        if (marked[j] == 0) marked[j] = 1, sum[j] = 0;
        sum[j] += a * loadValue(bValues, f, value);
      }
    }
    i64 at = fill ? loadIndex(cOffsets, r, index, cBase) : 0;
    for (i64 j = 0; j < cols; ++j) {
      if (marked[j] == 0) continue;
      marked[j] = 0;
      if (fill) {
        storeIndex(cColumns, at, index, j + cBase);
        storeValue(cValues, at, value, alpha * sum[j]);
      }
      ++at;
    }
    if (!fill) storeIndex(cOffsets, r + 1, index, at);
  }
}

// *firstUnsorted = the least row whose column indices are not strictly
// increasing (out of order, or one repeated), if it is less than before: one
// thread per row. cuSPARSE's routines that need sorted rows (csrilu02, SpSV,
// SpSM) give undefined results for such a matrix.
extern "C" __global__ void predatar_cusparse_unsorted_row(i64 m, const void* offsets, const void* columns, int index,
                                                          i64 base, int* firstUnsorted) {
  GRID_STRIDE(r, m) {
    i64 begin = loadIndex(offsets, r, index, base), end = loadIndex(offsets, r + 1, index, base);
    for (i64 e = begin + 1; e < end; ++e)
      if (loadIndex(columns, e, index, base) <= loadIndex(columns, e - 1, index, base)) {
        asm volatile("red.global.min.s32 [%0], %1;" ::"l"(firstUnsorted), "r"(int(r)) : "memory");
        break;
      }
  }
}
