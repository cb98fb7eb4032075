// predatar's libcublasLt.so.13: cublasLtMatmul and the descriptors it reads
// (matmul, matrix layout, preference, heuristics), as D = epilogue(alpha
// op(A) op(B) + beta C): the product is predatar's cuBLAS's
// cublasGemmStridedBatchedEx (f16, bf16, f32, f64, int8 operands; batches at
// strides), the epilogue (bias, ReLU, GELU) a kernel of its own, both
// launched on the caller's stream so the detectors check them like any
// kernel. Column-major layouts only; what else cuBLASLt offers (row-major and
// tiled orders, fp8 scales, auxiliary outputs, gradients, matrix transforms)
// is refused by name, never computed wrongly.
#include <cstdint>
#include <cstring>
#include <iterator>
#include <new>
#include <string>

#include "cudart/runtime/Api.h"
#include "libraries/EmbeddedModule.h"
#include "libraries/cublas/ComputeTypes.h"
#include "libraries/Refusal.h"

namespace predatar::libraries {
extern const char kCublasKernelsPtx[];
}

// predatar's cuBLAS (libcublas.so.13), whose gemm the matmul is.
extern "C" {
int cublasCreate_v2(void** handle);
int cublasDestroy_v2(void* handle);
int cublasSetStream_v2(void* handle, cudaStream_t stream);
int cublasSetPointerMode_v2(void* handle, int mode);
int cublasGemmStridedBatchedEx(void* h, int transa, int transb, int m, int n, int k, const void* alpha,
                               const void* A, int aType, int lda, long long strideA, const void* B, int bType,
                               int ldb, long long strideB, const void* beta, void* C, int cType, int ldc,
                               long long strideC, int batch, int computeType, int algo);
}

namespace {

using namespace predatar::libraries;
using predatar::cudart::cudaSuccess;

enum Status : int {
  SUCCESS = 0,
  NOT_INITIALIZED = 1,
  ALLOC_FAILED = 3,
  INVALID_VALUE = 7,
  EXECUTION_FAILED = 13,
  NOT_SUPPORTED = 15,
};
constexpr int kVersion = 130100;  // as predatar's cuBLAS (CUDA 13.0's 13.1.0)
enum Epilogue : int { kDefault = 1, kRelu = 2, kBias = 4, kGelu = 32 };

EmbeddedModule& kernels() {
  static auto* module = new EmbeddedModule(kCublasKernelsPtx, {"predatar_cublaslt_epilogue"});
  return *module;
}

Status refused(const std::string& what) { return refuse(what.c_str(), NOT_SUPPORTED, "CUBLAS_STATUS_NOT_SUPPORTED"); }

struct Handle {
  void* cublas = nullptr;
};

// The descriptors, each within the size of cuBLASLt's opaque structure for it
// (cublasLt*Opaque_t), which a program may hold and pass to *Init.
struct MatmulDesc {
  int computeType, scaleType, pointerMode = 0, transa = 0, transb = 0, epilogue = kDefault;
  const void* bias = nullptr;
  int biasType = -1;  // D's unless set
  long long biasStride = 0;
};
struct Layout {
  int type;
  uint64_t rows, cols;
  int64_t ld;
  int batch = 1;
  int64_t stride = 0;
};
struct Preference {
  uint64_t maxWorkspace = 0;
};
static_assert(sizeof(MatmulDesc) <= 256 && sizeof(Layout) <= 64 && sizeof(Preference) <= 64);

template <class T, class... Args>
Status create(void** out, Args... args) {
  if (out == nullptr) return INVALID_VALUE;
  *out = new (std::nothrow) T{args...};
  return *out ? SUCCESS : ALLOC_FAILED;
}
template <class T, class... Args>
Status init(void* storage, size_t size, Args... args) {
  if (storage == nullptr || size < sizeof(T)) return INVALID_VALUE;
  new (storage) T{args...};
  return SUCCESS;
}
template <class T>
Status destroy(void* p) {
  delete static_cast<T*>(p);
  return SUCCESS;
}

// An attribute's value of type V, when the buffer holds exactly one.
template <class V>
bool read(const void* buf, size_t size, V& out) {
  if (buf == nullptr || size != sizeof(V)) return false;
  std::memcpy(&out, buf, sizeof(V));
  return true;
}

// The names of what setDesc refuses (CUBLASLT_MATMUL_DESC_*), for its message.
std::string descAttributeName(int attr) {
  static const char* const names[] = {
      nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, "FILL_MODE", nullptr, nullptr, nullptr, nullptr,
      "EPILOGUE_AUX_POINTER", "EPILOGUE_AUX_LD", "EPILOGUE_AUX_BATCH_STRIDE", "ALPHA_VECTOR_BATCH_STRIDE", nullptr,
      nullptr, "A_SCALE_POINTER", "B_SCALE_POINTER", "C_SCALE_POINTER", "D_SCALE_POINTER", "AMAX_D_POINTER",
      "EPILOGUE_AUX_DATA_TYPE", "EPILOGUE_AUX_SCALE_POINTER", "EPILOGUE_AUX_AMAX_POINTER", nullptr, nullptr, nullptr,
      nullptr, nullptr, nullptr, "A_SCALE_MODE", "B_SCALE_MODE", "C_SCALE_MODE", "D_SCALE_MODE",
      "EPILOGUE_AUX_SCALE_MODE", "D_OUT_SCALE_POINTER", "D_OUT_SCALE_MODE", "EMULATION_DESCRIPTOR"};
  if (attr >= 0 && attr < int(std::size(names)) && names[attr]) return std::string("CUBLASLT_MATMUL_DESC_") + names[attr];
  return "attribute " + std::to_string(attr);
}

Status setDesc(MatmulDesc& d, int attr, const void* buf, size_t size) {
  int32_t i = 0;
  switch (attr) {
    case 0: return read(buf, size, d.computeType) ? SUCCESS : INVALID_VALUE;
    case 1: return read(buf, size, d.scaleType) ? SUCCESS : INVALID_VALUE;
    case 2:  // host or device scalars; the vector modes (alpha per row) are not predatar's
      if (!read(buf, size, d.pointerMode) || d.pointerMode < 0 || d.pointerMode > 4) return INVALID_VALUE;
      if (d.pointerMode <= 1) return SUCCESS;
      return refused("cublasLtMatmul with pointer mode " + std::to_string(d.pointerMode) + " (alpha vectors)");
    case 3: return read(buf, size, d.transa) ? SUCCESS : INVALID_VALUE;
    case 4: return read(buf, size, d.transb) ? SUCCESS : INVALID_VALUE;
    case 5:  // TRANSC
      if (!read(buf, size, i)) return INVALID_VALUE;
      return i == 0 ? SUCCESS : refused("cublasLtMatmul with CUBLASLT_MATMUL_DESC_TRANSC");
    case 7:
      if (!read(buf, size, i)) return INVALID_VALUE;
      if (i != kDefault && (i & ~(kRelu | kBias | kGelu)) == 0 && !((i & kRelu) && (i & kGelu))) {
        d.epilogue = i;
        return SUCCESS;
      }
      if (i == kDefault) return d.epilogue = i, SUCCESS;
      return refused("cublasLtMatmul with epilogue " + std::to_string(i) +
                     " (auxiliary outputs, gradients; predatar has bias, ReLU and GELU)");
    case 8: return read(buf, size, d.bias) ? SUCCESS : INVALID_VALUE;
    case 10: return read(buf, size, d.biasStride) ? SUCCESS : INVALID_VALUE;
    case 26: return read(buf, size, d.biasType) ? SUCCESS : INVALID_VALUE;
    case 15: case 25: return SUCCESS;  // SM_COUNT_TARGET, FAST_ACCUM: hints
    default:
      return refused("cublasLtMatmulDescSetAttribute of " + descAttributeName(attr));
  }
}

Status setLayout(Layout& l, int attr, const void* buf, size_t size) {
  int32_t order = 0;
  switch (attr) {
    case 0: return read(buf, size, l.type) ? SUCCESS : INVALID_VALUE;
    case 1:
      if (!read(buf, size, order)) return INVALID_VALUE;
      if (order == 0) return SUCCESS;
      return refused("cublasLtMatrixLayoutSetAttribute with an order other than CUBLASLT_ORDER_COL");
    case 2: return read(buf, size, l.rows) ? SUCCESS : INVALID_VALUE;
    case 3: return read(buf, size, l.cols) ? SUCCESS : INVALID_VALUE;
    case 4: return read(buf, size, l.ld) ? SUCCESS : INVALID_VALUE;
    case 5: return read(buf, size, l.batch) && l.batch >= 1 ? SUCCESS : INVALID_VALUE;
    case 6: return read(buf, size, l.stride) ? SUCCESS : INVALID_VALUE;
    default: return refused("cublasLtMatrixLayoutSetAttribute of attribute " + std::to_string(attr));
  }
}

bool isZero(const void* value, size_t bytes) {
  unsigned char zero[8] = {};
  return bytes <= sizeof zero && std::memcmp(value, zero, bytes) == 0;
}

// D = alpha op(A) op(B) + beta C: C is copied into D first where they differ
// and beta is not zero (the gemm scales D in place), then the gemm, then the
// epilogue.
Status matmul(Handle& h, const MatmulDesc& d, const void* alpha, const void* A, const Layout& a, const void* B,
              const Layout& b, const void* beta, const void* C, const Layout& c, void* D, const Layout& o,
              cudaStream_t stream) {
  uint64_t m = o.rows, n = o.cols, k = d.transa ? a.rows : a.cols;
  bool shapes = (d.transa ? a.cols : a.rows) == m && (d.transb ? b.rows : b.cols) == n &&
                (d.transb ? b.cols : b.rows) == k && c.rows == m && c.cols == n && c.type == o.type;
  if (!shapes || !alpha || !beta || !A || !B || !D || (!C && c.rows)) return INVALID_VALUE;
  if (a.batch != o.batch || b.batch != o.batch || c.batch != o.batch)
    return refused("cublasLtMatmul with operands of different batch counts");
  if (m > INT32_MAX || n > INT32_MAX || k > INT32_MAX) return refused("cublasLtMatmul of more than 2^31 rows");
  size_t element = bytesOf(o.type);
  if (element == 0) return refused("cublasLtMatmul with data type " + std::to_string(o.type));
  if (d.scaleType != scalarTypeOf(d.computeType))
    return refused("cublasLtMatmul with scale type " + std::to_string(d.scaleType) + " for compute type " +
                   std::to_string(d.computeType));
  bool betaZero = d.pointerMode == 0 && isZero(beta, bytesOf(d.scaleType));  // (C is not read: need not be set)
  if (!betaZero && (C != D || c.ld != o.ld || c.stride != o.stride))
    for (int i = 0; i < o.batch; ++i)
      if (cudaMemcpy2DAsync(static_cast<char*>(D) + i * o.stride * element, o.ld * element,
                            static_cast<const char*>(C) + i * c.stride * element, c.ld * element, m * element, n,
                            predatar::cudart::cudaMemcpyDeviceToDevice, stream) != cudaSuccess)
        return EXECUTION_FAILED;
  cublasSetStream_v2(h.cublas, stream);
  cublasSetPointerMode_v2(h.cublas, d.pointerMode);
  int status = cublasGemmStridedBatchedEx(h.cublas, d.transa, d.transb, int(m), int(n), int(k), alpha, A, a.type,
                                          int(a.ld), a.stride, B, b.type, int(b.ld), b.stride, beta, D, o.type,
                                          int(o.ld), o.stride, o.batch, d.computeType, 0);
  if (status != SUCCESS || d.epilogue == kDefault) return Status(status);
  if ((d.epilogue & kBias) && !d.bias) return INVALID_VALUE;
  long long rows = (long long)m, cols = (long long)n, batch = o.batch, ld = o.ld, stride = o.stride;
  int dType = o.type, epilogue = d.epilogue, biasType = d.biasType < 0 ? o.type : d.biasType;
  long long biasStride = d.biasStride;
  const void* bias = d.bias;
  cudaError_t e = kernels().launch("predatar_cublaslt_epilogue", m * n * uint64_t(batch), stream,
                                   {&rows, &cols, &batch, &D, &dType, &ld, &stride, &epilogue, &bias, &biasType,
                                    &biasStride});
  return e == cudaSuccess ? SUCCESS : EXECUTION_FAILED;
}

}  // namespace

#define CUBLASLT_API extern "C" __attribute__((visibility("default")))

CUBLASLT_API int cublasLtCreate(void** handle) {
  if (handle == nullptr) return INVALID_VALUE;
  auto* h = new Handle;
  if (int s = cublasCreate_v2(&h->cublas); s != SUCCESS) {
    delete h;
    return s;
  }
  *handle = h;
  return SUCCESS;
}

CUBLASLT_API int cublasLtDestroy(void* handle) {
  if (handle == nullptr) return NOT_INITIALIZED;
  auto* h = static_cast<Handle*>(handle);
  cublasDestroy_v2(h->cublas);
  delete h;
  return SUCCESS;
}

CUBLASLT_API size_t cublasLtGetVersion() { return kVersion; }

CUBLASLT_API int cublasLtMatmulDescCreate(void** desc, int computeType, int scaleType) {
  return create<MatmulDesc>(desc, computeType, scaleType);
}
CUBLASLT_API int cublasLtMatmulDescInit_internal(void* desc, size_t size, int computeType, int scaleType) {
  return init<MatmulDesc>(desc, size, computeType, scaleType);
}
CUBLASLT_API int cublasLtMatmulDescDestroy(void* desc) { return destroy<MatmulDesc>(desc); }
CUBLASLT_API int cublasLtMatmulDescSetAttribute(void* desc, int attr, const void* buf, size_t size) {
  return desc ? setDesc(*static_cast<MatmulDesc*>(desc), attr, buf, size) : INVALID_VALUE;
}

CUBLASLT_API int cublasLtMatrixLayoutCreate(void** layout, int type, uint64_t rows, uint64_t cols, int64_t ld) {
  return create<Layout>(layout, type, rows, cols, ld);
}
CUBLASLT_API int cublasLtMatrixLayoutInit_internal(void* layout, size_t size, int type, uint64_t rows, uint64_t cols,
                                                   int64_t ld) {
  return init<Layout>(layout, size, type, rows, cols, ld);
}
CUBLASLT_API int cublasLtMatrixLayoutDestroy(void* layout) { return destroy<Layout>(layout); }
CUBLASLT_API int cublasLtMatrixLayoutSetAttribute(void* layout, int attr, const void* buf, size_t size) {
  return layout ? setLayout(*static_cast<Layout*>(layout), attr, buf, size) : INVALID_VALUE;
}

CUBLASLT_API int cublasLtMatmulPreferenceCreate(void** pref) { return create<Preference>(pref); }
CUBLASLT_API int cublasLtMatmulPreferenceInit_internal(void* pref, size_t size) {
  return init<Preference>(pref, size);
}
CUBLASLT_API int cublasLtMatmulPreferenceDestroy(void* pref) { return destroy<Preference>(pref); }
// (preferences are hints to the algorithm search, which predatar does not make)
CUBLASLT_API int cublasLtMatmulPreferenceSetAttribute(void* pref, int attr, const void* buf, size_t size) {
  if (pref == nullptr || buf == nullptr) return INVALID_VALUE;
  if (attr == 1) read(buf, size, static_cast<Preference*>(pref)->maxWorkspace);
  return SUCCESS;
}

// One algorithm, which needs no workspace: the one cublasLtMatmul runs.
struct HeuristicResult {
  uint64_t algo[8];
  size_t workspaceSize;
  int state;
  float wavesCount;
  int reserved[4];
};
CUBLASLT_API int cublasLtMatmulAlgoGetHeuristic(void* handle, void* desc, void* a, void* b, void* c, void* d,
                                                void* pref, int requested, HeuristicResult results[],
                                                int* returned) {
  if (handle == nullptr) return NOT_INITIALIZED;
  if (!desc || !a || !b || !c || !d || !pref || requested <= 0 || !results || !returned) return INVALID_VALUE;
  results[0] = HeuristicResult{};
  results[0].state = SUCCESS;
  results[0].wavesCount = 1;
  *returned = 1;
  return SUCCESS;
}

CUBLASLT_API int cublasLtMatmul(void* handle, void* desc, const void* alpha, const void* A, void* Adesc,
                                const void* B, void* Bdesc, const void* beta, const void* C, void* Cdesc, void* D,
                                void* Ddesc, const void* /*algo*/, void* /*workspace*/, size_t /*workspaceBytes*/,
                                cudaStream_t stream) {
  if (handle == nullptr) return NOT_INITIALIZED;
  if (!desc || !Adesc || !Bdesc || !Cdesc || !Ddesc) return INVALID_VALUE;
  return matmul(*static_cast<Handle*>(handle), *static_cast<MatmulDesc*>(desc), alpha, A,
                *static_cast<Layout*>(Adesc), B, *static_cast<Layout*>(Bdesc), beta, C, *static_cast<Layout*>(Cdesc),
                D, *static_cast<Layout*>(Ddesc), stream);
}
