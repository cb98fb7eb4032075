// predatar's libcurand.so.10: cuRAND's host API over predatar's own kernels
// (CurandKernels.cu), launched on the generator's stream so the detectors
// check the writes like any kernel's. Pseudo-random types all give the
// counter-based generator of CurandKernels.cu, quasi-random SOBOL32 and
// SOBOL64 the Sobol points of Sobol.h: the distributions cuRAND documents,
// not its numbers. Everything else cuRAND exports is refused by name
// (Stubs.cpp).
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "cudart/runtime/Api.h"
#include "libraries/EmbeddedModule.h"
#include "libraries/Refusal.h"
#include "libraries/curand/Sobol.h"

namespace predatar::libraries {
extern const char kCurandKernelsPtx[];
}

namespace {

using namespace predatar::libraries;
using predatar::cudart::cudaSuccess;

enum curandStatus : int {
  CURAND_STATUS_SUCCESS = 0,
  CURAND_STATUS_NOT_INITIALIZED = 101,
  CURAND_STATUS_ALLOCATION_FAILED = 102,
  CURAND_STATUS_TYPE_ERROR = 103,
  CURAND_STATUS_OUT_OF_RANGE = 104,
  CURAND_STATUS_LENGTH_NOT_MULTIPLE = 105,
  CURAND_STATUS_LAUNCH_FAILURE = 201,
};
enum curandRngType : int {
  CURAND_RNG_PSEUDO_DEFAULT = 100,
  CURAND_RNG_PSEUDO_XORWOW = 101,
  CURAND_RNG_PSEUDO_MRG32K3A = 121,
  CURAND_RNG_PSEUDO_MTGP32 = 141,
  CURAND_RNG_PSEUDO_MT19937 = 142,
  CURAND_RNG_PSEUDO_PHILOX4_32_10 = 161,
  CURAND_RNG_QUASI_DEFAULT = 200,
  CURAND_RNG_QUASI_SOBOL32 = 201,
  CURAND_RNG_QUASI_SOBOL64 = 203,
};
enum curandOrdering : int {
  CURAND_ORDERING_PSEUDO_BEST = 100,
  CURAND_ORDERING_PSEUDO_DYNAMIC = 104,
  CURAND_ORDERING_QUASI_DEFAULT = 201,
};
constexpr int kVersion = 10400;  // CURAND_VERSION of CUDA 13.0's cuRAND (10.4.0)

EmbeddedModule& kernels() {
  static auto* module = new EmbeddedModule(
      kCurandKernelsPtx,
      {"predatar_curand_bits32", "predatar_curand_bits64", "predatar_curand_uniform",
       "predatar_curand_uniform_double", "predatar_curand_normal", "predatar_curand_normal_double",
       "predatar_curand_sobol32", "predatar_curand_sobol_uniform", "predatar_curand_sobol_uniform_double",
       "predatar_curand_sobol64", "predatar_curand_sobol64_uniform", "predatar_curand_sobol64_uniform_double"});
  return *module;
}

void announceOnce() {
  static bool done = [] {
    std::fprintf(stderr,
                 "predatar: cuRAND runs as predatar's own kernels: the distributions cuRAND documents, not "
                 "NVIDIA's numbers (a program that compares against fixed cuRAND output will differ)\n");
    return true;
  }();
  (void)done;
}

}  // namespace

struct curandGenerator_st {
  bool quasi = false;
  bool bits64 = false;  // CURAND_RNG_QUASI_SOBOL64: 64-bit points
  bool host = false;  // curandCreateGeneratorHost: results go to host memory
  unsigned long long seed = 0;
  unsigned long long offset = 0;  // pseudo: elements; quasi: points of each dimension
  uint32_t dimensions = 1;
  cudaStream_t stream = nullptr;
  void* directions = nullptr;  // device copy of sobolDirections(directionsFor) (64: sobolDirections64)
  uint32_t directionsFor = 0;
};
using curandGenerator_t = curandGenerator_st*;

namespace {

curandStatus create(curandGenerator_t* generator, int type, bool host) {
  if (generator == nullptr) return CURAND_STATUS_NOT_INITIALIZED;
  bool pseudo = type == CURAND_RNG_PSEUDO_DEFAULT || type == CURAND_RNG_PSEUDO_XORWOW ||
                type == CURAND_RNG_PSEUDO_MRG32K3A || type == CURAND_RNG_PSEUDO_MTGP32 ||
                type == CURAND_RNG_PSEUDO_MT19937 || type == CURAND_RNG_PSEUDO_PHILOX4_32_10;
  bool quasi = type == CURAND_RNG_QUASI_DEFAULT || type == CURAND_RNG_QUASI_SOBOL32 ||
               type == CURAND_RNG_QUASI_SOBOL64;
  if (!pseudo && !quasi) {
    std::string what = "curandCreateGenerator with rng_type " + std::to_string(type) +
                       " (predatar's cuRAND has the pseudo-random types, CURAND_RNG_QUASI_SOBOL32 and "
                       "CURAND_RNG_QUASI_SOBOL64, not the scrambled ones)";
    return refuse(what.c_str(), CURAND_STATUS_TYPE_ERROR, "CURAND_STATUS_TYPE_ERROR");
  }
  announceOnce();
  *generator = new curandGenerator_st{};
  (*generator)->quasi = quasi;
  (*generator)->bits64 = type == CURAND_RNG_QUASI_SOBOL64;
  (*generator)->host = host;
  return CURAND_STATUS_SUCCESS;
}

// The device copy of the directions of the generator's dimensions.
curandStatus prepareDirections(curandGenerator_t g) {
  if (g->directionsFor == g->dimensions) return CURAND_STATUS_SUCCESS;
  std::vector<uint32_t> directions32;
  std::vector<uint64_t> directions64;
  const void* directions;
  size_t bytes;
  if (g->bits64) {
    directions64 = sobolDirections64(g->dimensions);
    directions = directions64.data(), bytes = directions64.size() * sizeof(uint64_t);
  } else {
    directions32 = sobolDirections(g->dimensions);
    directions = directions32.data(), bytes = directions32.size() * sizeof(uint32_t);
  }
  if (g->directions) cudaFree(g->directions);
  g->directions = nullptr;
  g->directionsFor = 0;
  if (cudaMalloc(&g->directions, bytes) != cudaSuccess) return CURAND_STATUS_ALLOCATION_FAILED;
  if (cudaMemcpy(g->directions, directions, bytes, predatar::cudart::cudaMemcpyHostToDevice) != cudaSuccess)
    return CURAND_STATUS_LAUNCH_FAILURE;
  g->directionsFor = g->dimensions;
  return CURAND_STATUS_SUCCESS;
}

// Runs the generator's kernel (`pseudo` or `quasi`) for `num` elements of
// `elementBytes` into `out` (device memory, or for a host generator a device
// buffer copied to `out`), then advances the generator's offset.
curandStatus generate(curandGenerator_t g, const char* pseudo, const char* quasi, void* out, size_t num,
                      size_t elementBytes, std::vector<void*> extra = {}) {
  if (g == nullptr) return CURAND_STATUS_NOT_INITIALIZED;
  const char* kernel = g->quasi ? quasi : pseudo;
  if (num == 0) return CURAND_STATUS_SUCCESS;
  if (g->quasi && num % g->dimensions) return CURAND_STATUS_LENGTH_NOT_MULTIPLE;
  if (g->quasi)
    if (curandStatus s = prepareDirections(g); s != CURAND_STATUS_SUCCESS) return s;
  void* target = out;
  if (g->host && cudaMalloc(&target, num * elementBytes) != cudaSuccess) return CURAND_STATUS_ALLOCATION_FAILED;
  unsigned long long n = num;
  std::vector<void*> args;
  if (g->quasi) {
    args = {&target, &n, &g->dimensions, &g->offset, &g->directions};
  } else {
    args = {&target, &n, &g->seed, &g->offset};
  }
  args.insert(args.end(), extra.begin(), extra.end());
  cudaError_t launched = kernels().launch(kernel, num, g->host ? nullptr : g->stream, args);
  if (g->host) {
    cudaError_t copied = cudaMemcpy(out, target, num * elementBytes, predatar::cudart::cudaMemcpyDeviceToHost);
    cudaFree(target);
    if (launched == cudaSuccess) launched = copied;
  }
  if (launched != cudaSuccess) return CURAND_STATUS_LAUNCH_FAILURE;
  g->offset += g->quasi ? num / g->dimensions : num;
  return CURAND_STATUS_SUCCESS;
}

curandStatus generateNormal(curandGenerator_t g, const char* kernel, void* out, size_t n, size_t elementBytes,
                            void* mean, void* stddev, bool logNormal, const char* function) {
  if (g == nullptr) return CURAND_STATUS_NOT_INITIALIZED;
  if (g->quasi) {
    std::string what = std::string(function) + " with a quasi-random generator";
    return refuse(what.c_str(), CURAND_STATUS_TYPE_ERROR, "CURAND_STATUS_TYPE_ERROR");
  }
  if (n % 2) return CURAND_STATUS_LENGTH_NOT_MULTIPLE;  // normals come in pairs, as cuRAND's
  int asLog = logNormal;
  return generate(g, kernel, nullptr, out, n, elementBytes, {mean, stddev, &asLog});
}

}  // namespace

#define CURAND_API extern "C" __attribute__((visibility("default")))

CURAND_API curandStatus curandCreateGenerator(curandGenerator_t* generator, int type) {
  return create(generator, type, false);
}

CURAND_API curandStatus curandCreateGeneratorHost(curandGenerator_t* generator, int type) {
  return create(generator, type, true);
}

CURAND_API curandStatus curandDestroyGenerator(curandGenerator_t generator) {
  if (generator == nullptr) return CURAND_STATUS_NOT_INITIALIZED;
  if (generator->directions) cudaFree(generator->directions);
  delete generator;
  return CURAND_STATUS_SUCCESS;
}

CURAND_API curandStatus curandGetVersion(int* version) {
  if (version == nullptr) return CURAND_STATUS_OUT_OF_RANGE;
  *version = kVersion;
  return CURAND_STATUS_SUCCESS;
}

CURAND_API curandStatus curandGetProperty(int type, int* value) {
  if (value == nullptr || type < 0 || type > 2) return CURAND_STATUS_OUT_OF_RANGE;
  *value = type == 0 ? kVersion / 1000 : type == 1 ? kVersion / 100 % 10 : kVersion % 100;
  return CURAND_STATUS_SUCCESS;
}

CURAND_API curandStatus curandSetStream(curandGenerator_t generator, cudaStream_t stream) {
  if (generator == nullptr) return CURAND_STATUS_NOT_INITIALIZED;
  generator->stream = stream;
  return CURAND_STATUS_SUCCESS;
}

CURAND_API curandStatus curandSetPseudoRandomGeneratorSeed(curandGenerator_t generator, unsigned long long seed) {
  if (generator == nullptr) return CURAND_STATUS_NOT_INITIALIZED;
  if (generator->quasi) return CURAND_STATUS_TYPE_ERROR;
  // The position stays: NVIDIA's cuRAND, reseeded after n numbers, goes on
  // with number n of the new seed's sequence (measured on an H100).
  generator->seed = seed;
  return CURAND_STATUS_SUCCESS;
}

CURAND_API curandStatus curandSetGeneratorOffset(curandGenerator_t generator, unsigned long long offset) {
  if (generator == nullptr) return CURAND_STATUS_NOT_INITIALIZED;
  generator->offset = offset;
  return CURAND_STATUS_SUCCESS;
}

CURAND_API curandStatus curandSetGeneratorOrdering(curandGenerator_t generator, int order) {
  if (generator == nullptr) return CURAND_STATUS_NOT_INITIALIZED;
  bool valid = generator->quasi ? order == CURAND_ORDERING_QUASI_DEFAULT
                                : order >= CURAND_ORDERING_PSEUDO_BEST && order <= CURAND_ORDERING_PSEUDO_DYNAMIC;
  return valid ? CURAND_STATUS_SUCCESS : CURAND_STATUS_OUT_OF_RANGE;  // every ordering gives the same numbers here
}

CURAND_API curandStatus curandSetQuasiRandomGeneratorDimensions(curandGenerator_t generator, unsigned dimensions) {
  if (generator == nullptr) return CURAND_STATUS_NOT_INITIALIZED;
  if (!generator->quasi) return CURAND_STATUS_TYPE_ERROR;
  if (dimensions == 0 || dimensions > kMaxSobolDimensions) return CURAND_STATUS_OUT_OF_RANGE;
  generator->dimensions = dimensions;
  generator->offset = 0;
  return CURAND_STATUS_SUCCESS;
}

CURAND_API curandStatus curandGenerateSeeds(curandGenerator_t generator) {
  return generator ? CURAND_STATUS_SUCCESS : CURAND_STATUS_NOT_INITIALIZED;  // nothing to set up
}

// 32-bit integers come from 32-bit generators only, 64-bit ones from 64-bit
// quasi-random generators only, as in cuRAND.
CURAND_API curandStatus curandGenerate(curandGenerator_t generator, unsigned* out, size_t num) {
  if (generator && generator->bits64) return CURAND_STATUS_TYPE_ERROR;
  return generate(generator, "predatar_curand_bits32", "predatar_curand_sobol32", out, num, 4);
}

CURAND_API curandStatus curandGenerateLongLong(curandGenerator_t generator, unsigned long long* out, size_t num) {
  if (generator == nullptr) return CURAND_STATUS_NOT_INITIALIZED;
  if (!generator->bits64) return CURAND_STATUS_TYPE_ERROR;
  return generate(generator, nullptr, "predatar_curand_sobol64", out, num, 8);
}

CURAND_API curandStatus curandGenerateUniform(curandGenerator_t generator, float* out, size_t num) {
  bool b64 = generator && generator->bits64;
  return generate(generator, "predatar_curand_uniform",
                  b64 ? "predatar_curand_sobol64_uniform" : "predatar_curand_sobol_uniform", out, num, 4);
}

CURAND_API curandStatus curandGenerateUniformDouble(curandGenerator_t generator, double* out, size_t num) {
  bool b64 = generator && generator->bits64;
  return generate(generator, "predatar_curand_uniform_double",
                  b64 ? "predatar_curand_sobol64_uniform_double" : "predatar_curand_sobol_uniform_double", out, num,
                  8);
}

CURAND_API curandStatus curandGenerateNormal(curandGenerator_t generator, float* out, size_t n, float mean,
                                             float stddev) {
  return generateNormal(generator, "predatar_curand_normal", out, n, 4, &mean, &stddev, false,
                        "curandGenerateNormal");
}

CURAND_API curandStatus curandGenerateNormalDouble(curandGenerator_t generator, double* out, size_t n, double mean,
                                                   double stddev) {
  return generateNormal(generator, "predatar_curand_normal_double", out, n, 8, &mean, &stddev, false,
                        "curandGenerateNormalDouble");
}

CURAND_API curandStatus curandGenerateLogNormal(curandGenerator_t generator, float* out, size_t n, float mean,
                                                float stddev) {
  return generateNormal(generator, "predatar_curand_normal", out, n, 4, &mean, &stddev, true,
                        "curandGenerateLogNormal");
}

CURAND_API curandStatus curandGenerateLogNormalDouble(curandGenerator_t generator, double* out, size_t n,
                                                      double mean, double stddev) {
  return generateNormal(generator, "predatar_curand_normal_double", out, n, 8, &mean, &stddev, true,
                        "curandGenerateLogNormalDouble");
}

// Direction vectors for programs that draw Sobol points in their own kernels
// (curand_init with sobol states): host arrays of 20000 dimensions, built once.
// They are Sobol.h's directions, not Joe and Kuo's (the set's name): the
// first two dimensions agree. Scrambled sets are refused by name.
namespace {

template <class Word, int kBits>
curandStatus directionVectors(Word (**vectors)[kBits], int set, int plainSet, const char* function,
                              const char* setName, std::vector<Word> (*compute)(uint32_t)) {
  if (vectors == nullptr) return CURAND_STATUS_OUT_OF_RANGE;
  if (set != plainSet) {
    std::string what = std::string(function) + " with set " + std::to_string(set) + " (predatar's cuRAND has " +
                       setName + ")";
    return refuse(what.c_str(), CURAND_STATUS_OUT_OF_RANGE, "CURAND_STATUS_OUT_OF_RANGE");
  }
  announceOnce();
  static auto* table = new std::vector<Word>(compute(kMaxSobolDimensions));
  *vectors = reinterpret_cast<Word(*)[kBits]>(table->data());
  return CURAND_STATUS_SUCCESS;
}

}  // namespace

CURAND_API curandStatus curandGetDirectionVectors32(uint32_t (**vectors)[32], int set) {
  return directionVectors(vectors, set, 101, "curandGetDirectionVectors32", "CURAND_DIRECTION_VECTORS_32_JOEKUO6",
                          sobolDirections);
}

CURAND_API curandStatus curandGetDirectionVectors64(unsigned long long (**vectors)[64], int set) {
  static_assert(sizeof(unsigned long long) == sizeof(uint64_t));
  return directionVectors(reinterpret_cast<uint64_t (**)[64]>(vectors), set, 103, "curandGetDirectionVectors64",
                          "CURAND_DIRECTION_VECTORS_64_JOEKUO6", sobolDirections64);
}
