// What predatar's cuSPARSE files share: its status codes, the handle, the
// descriptors behind cuSPARSE's opaque pointers, the kernels' module, and the
// ways a routine refuses, reads a scalar, and launches.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "cudart/runtime/Api.h"
#include "libraries/EmbeddedModule.h"

namespace predatar::libraries::cusparse {

using predatar::cudart::cudaSuccess;

enum Status : int {
  SUCCESS = 0,
  NOT_INITIALIZED = 1,
  ALLOC_FAILED = 2,
  INVALID_VALUE = 3,
  EXECUTION_FAILED = 6,
  ZERO_PIVOT = 9,
  NOT_SUPPORTED = 10,
};
enum { R_32F = 0, R_64F = 1 };
enum { INDEX_32I = 2, INDEX_64I = 3 };
enum { NON_TRANSPOSE = 0, TRANSPOSE = 1 };

EmbeddedModule& kernels();
Status refused(const std::string& what);
inline Status launched(cudaError_t e) { return e == cudaSuccess ? SUCCESS : EXECUTION_FAILED; }

struct Handle {
  cudaStream_t stream = nullptr;
  int pointerMode = 0;  // CUSPARSE_POINTER_MODE_HOST
};
inline Handle& handleOf(void* handle) { return *static_cast<Handle*>(handle); }

// A descriptor's value type as the kernels take it: the size of a value (f32,
// f64), 0 for any other; an index type's the same way (int32, int64).
inline int valueSize(int type) { return type == R_32F ? 4 : type == R_64F ? 8 : 0; }
inline int indexSize(int type) { return type == INDEX_32I ? 4 : type == INDEX_64I ? 8 : 0; }

// Strided batches (cusparse*SetStridedBatch): batch b's arrays start
// b * stride elements after batch 0's.
struct Batches {
  int count = 1;
  int64_t offsetsStride = 0, valuesStride = 0;  // SpMat: row data, then columns and values
};

struct SpMat {
  bool csr;  // else COO
  int64_t rows, cols, nnz;
  void* rowData;  // CSR: row offsets (rows + 1); COO: row indices (nnz)
  void* columns;
  void* values;
  int index, base, value;  // sizes (indexSize, valueSize) and the index base
  int fillMode = 0, diagType = 0;  // CUSPARSE_SPMAT_FILL_MODE (lower), _DIAG_TYPE (non-unit)
  Batches batches{};
};
struct DnVec {
  int64_t size;
  void* values;
  int value;
};
struct DnMat {
  int64_t rows, cols, ld;
  void* values;
  int value;
  bool rowMajor;
  Batches batches{};
};
struct SpVec {
  int64_t size, nnz;
  void* indices;
  void* values;
  int index, base, value;
};
// The legacy API's cusparseMatDescr_t.
struct MatDescr {
  int type = 0, fillMode = 0, diagType = 0, base = 0;
};

// A scalar for a kernel: its device pointer, or its value read from the host.
struct Scalar {
  const void* pointer = nullptr;
  double value = 0;
};
inline Scalar scalarOf(const Handle& h, const void* p, int value) {
  if (h.pointerMode == 1) return {p, 0};
  double v = value == 8 ? *static_cast<const double*>(p) : *static_cast<const float*>(p);
  return {nullptr, v};
}

// Where a dense matrix's element (i, j) of op(M) is: the kernels take a row
// step and a column step, which also transpose.
struct DenseSteps {
  long long row, column;
};
inline DenseSteps stepsOf(const DnMat& m, int op) {
  DenseSteps s = m.rowMajor ? DenseSteps{m.ld, 1} : DenseSteps{1, m.ld};
  return op == NON_TRANSPOSE ? s : DenseSteps{s.column, s.row};
}
// A pointer `elements` of `size` bytes further on.
inline void* advanced(const void* p, int64_t elements, int size) {
  return static_cast<char*>(const_cast<void*>(p)) + elements * size;
}

// Batch b of a strided batch (batch 0 when there is one).
inline SpMat batchOf(const SpMat& a, int b) {
  SpMat m = a;
  m.rowData = advanced(a.rowData, b * a.batches.offsetsStride, a.index);
  m.columns = advanced(a.columns, b * a.batches.valuesStride, a.index);
  m.values = advanced(a.values, b * a.batches.valuesStride, a.value);
  return m;
}
inline DnMat batchOf(const DnMat& d, int b) {
  DnMat m = d;
  m.values = advanced(d.values, b * d.batches.valuesStride, d.value);
  return m;
}

Status scale(Handle& h, int64_t n, Scalar beta, int value, void* y);

// Reads `bytes` of a device result into `host` after the handle's stream's work.
Status readBack(Handle& h, void* host, const void* device, size_t bytes);

// Turns the row counts at offsets[1..rows] (CSR row offsets of `index`
// bytes) into the offsets, in place, and reads back the count of all into
// *nnz (DenseToSparse's analysis and SpGEMM's compute: the host must know it).
Status offsetsFromCounts(Handle& h, int64_t rows, void* offsets, int index, int64_t base, int64_t* nnz);

// A bufferSize query of a routine that needs no work buffer: 0 bytes, once
// the handle and every operand are there.
inline Status noBuffer(void* handle, size_t* bytes, std::initializer_list<const void*> operands) {
  if (handle == nullptr) return NOT_INITIALIZED;
  if (bytes == nullptr) return INVALID_VALUE;
  for (const void* p : operands)
    if (p == nullptr) return INVALID_VALUE;
  *bytes = 0;
  return SUCCESS;
}

}  // namespace predatar::libraries::cusparse

#define CUSPARSE_API extern "C" __attribute__((visibility("default")))
