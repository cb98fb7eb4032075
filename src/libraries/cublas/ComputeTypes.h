// cudaDataType and cublasComputeType_t as predatar's cuBLAS reads them, shared
// with its cuBLASLt (whose matmul is cuBLAS's gemm): what alpha and beta are
// read as must be the same in both.
#pragma once

#include <cstddef>

namespace predatar::libraries {

enum DataType : int { R_32F = 0, R_64F = 1, R_16F = 2, R_8I = 3, R_32I = 10, R_16BF = 14 };

inline size_t bytesOf(int type) {
  switch (type) {
    case R_32F: case R_32I: return 4;
    case R_64F: return 8;
    case R_16F: case R_16BF: return 2;
    case R_8I: return 1;
    default: return 0;
  }
}

// The type of alpha and beta for a cublasComputeType_t (16F: 16F; 32F and its
// FAST_* kinds: 32F; 64F: 64F; 32I: 32I), -1 for another value.
inline int scalarTypeOf(int computeType) {
  switch (computeType) {
    case 64: case 65: return R_16F;                        // CUBLAS_COMPUTE_16F{,_PEDANTIC}
    case 68: case 69: case 74: case 75: case 77: return R_32F;  // 32F, its FAST_* kinds
    case 70: case 71: return R_64F;                        // CUBLAS_COMPUTE_64F{,_PEDANTIC}
    case 72: case 73: return R_32I;                        // CUBLAS_COMPUTE_32I{,_PEDANTIC}
    default: return -1;
  }
}

}  // namespace predatar::libraries
