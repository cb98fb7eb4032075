// predatar's cuRAND kernels (Curand.cpp launches them through the runtime,
// so the detectors check their writes like any kernel's). PTX is committed
// beside this file (CurandKernels.ptx); regenerate with
//   nvcc -ptx -lineinfo -arch=compute_75 CurandKernels.cu -o CurandKernels.ptx
// (tests/libraries/regenerate_ptx.sh compares the two when nvcc is present).
//
// Pseudo-random numbers are counter-based: element i of a generator's
// sequence is a function of (seed, i), so the numbers are the same whatever
// the launch shape or how a program splits its requests. They are not
// NVIDIA's XORWOW/Philox/MRG/MT sequences (same distributions, other values).

typedef unsigned long long u64;

// splitmix64: the 64 bits of element `index` of the sequence of `seed`.
__device__ __forceinline__ u64 bitsAt(u64 seed, u64 index) {
  u64 z = seed + (index + 1) * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// Uniform in (0, 1], as cuRAND's (it excludes 0 and includes 1).
__device__ __forceinline__ float uniformAt(u64 seed, u64 index) {
  return float((bitsAt(seed, index) >> 40) + 1) * (1.0f / 16777216.0f);
}
__device__ __forceinline__ double uniformDoubleAt(u64 seed, u64 index) {
  return double((bitsAt(seed, index) >> 11) + 1) * (1.0 / 9007199254740992.0);
}

#define GRID_STRIDE(i, n) \
  for (u64 i = u64(blockIdx.x) * blockDim.x + threadIdx.x; i < (n); i += u64(gridDim.x) * blockDim.x)

extern "C" __global__ void predatar_curand_bits32(unsigned* out, u64 n, u64 seed, u64 offset) {
  GRID_STRIDE(i, n) out[i] = unsigned(bitsAt(seed, offset + i) >> 32);
}

extern "C" __global__ void predatar_curand_bits64(u64* out, u64 n, u64 seed, u64 offset) {
  GRID_STRIDE(i, n) out[i] = bitsAt(seed, offset + i);
}

extern "C" __global__ void predatar_curand_uniform(float* out, u64 n, u64 seed, u64 offset) {
  GRID_STRIDE(i, n) out[i] = uniformAt(seed, offset + i);
}

extern "C" __global__ void predatar_curand_uniform_double(double* out, u64 n, u64 seed, u64 offset) {
  GRID_STRIDE(i, n) out[i] = uniformDoubleAt(seed, offset + i);
}

template <class T>
__device__ __forceinline__ T uniformOf(u64 seed, u64 index);
template <>
__device__ __forceinline__ float uniformOf<float>(u64 seed, u64 index) { return uniformAt(seed, index); }
template <>
__device__ __forceinline__ double uniformOf<double>(u64 seed, u64 index) { return uniformDoubleAt(seed, index); }

// (CUDA's float overload of sincospi has internal linkage, whose PTX name
// hashes the source's path: the committed PTX would depend on the checkout.)
__device__ __forceinline__ void sinCosPi(float x, float* s, float* c) { sincospif(x, s, c); }
__device__ __forceinline__ void sinCosPi(double x, double* s, double* c) { sincospi(x, s, c); }

// Box-Muller on pairs (n is even, as cuRAND requires): elements 2k and 2k+1
// come from the uniforms 2k and 2k+1. `logNormal`: exp of the normal.
// (sqrt, log and exp of a float are the float functions.)
template <class T>
__device__ void normal(T* out, u64 n, u64 seed, u64 offset, T mean, T stddev, int logNormal) {
  GRID_STRIDE(k, n / 2) {
    T r = sqrt(T(-2) * log(uniformOf<T>(seed, offset + 2 * k)));
    T s, c;
    sinCosPi(T(2) * uniformOf<T>(seed, offset + 2 * k + 1), &s, &c);
    T a = mean + stddev * r * c, b = mean + stddev * r * s;
    out[2 * k] = logNormal ? exp(a) : a;
    out[2 * k + 1] = logNormal ? exp(b) : b;
  }
}

extern "C" __global__ void predatar_curand_normal(float* out, u64 n, u64 seed, u64 offset, float mean,
                                                  float stddev, int logNormal) {
  normal(out, n, seed, offset, mean, stddev, logNormal);
}

extern "C" __global__ void predatar_curand_normal_double(double* out, u64 n, u64 seed, u64 offset, double mean,
                                                         double stddev, int logNormal) {
  normal(out, n, seed, offset, mean, stddev, logNormal);
}

// Sobol points in cuRAND's quasi-random order: the n / dims points of
// dimension 0, then those of dimension 1, ...; point p of dimension d is the
// XOR of the dimension's direction numbers (one per bit of Word: 32 for
// Sobol32, 64 for Sobol64) selected by the Gray code of offset + p.
template <class Word>
__device__ __forceinline__ Word sobolPoint(const Word* directions, u64 n, unsigned dims, u64 offset, u64 i) {
  constexpr int kBits = 8 * sizeof(Word);
  u64 perDim = n / dims;
  unsigned d = unsigned(i / perDim);
  u64 p = offset + i % perDim;
  u64 gray = p ^ (p >> 1);
  Word x = 0;
  for (int bit = 0; bit < kBits && gray; ++bit, gray >>= 1)
    if (gray & 1) x ^= directions[kBits * d + bit];
  return x;
}

// Sobol32: the 32-bit integers, floats in (0, 1), doubles in (0, 1).
__device__ __forceinline__ unsigned sobolAt(const unsigned* directions, u64 n, unsigned dims, u64 offset, u64 i) {
  return sobolPoint(directions, n, dims, offset, i);
}

extern "C" __global__ void predatar_curand_sobol32(unsigned* out, u64 n, unsigned dims, u64 offset,
                                                   const unsigned* directions) {
  GRID_STRIDE(i, n) out[i] = sobolAt(directions, n, dims, offset, i);
}

extern "C" __global__ void predatar_curand_sobol_uniform(float* out, u64 n, unsigned dims, u64 offset,
                                                         const unsigned* directions) {
  GRID_STRIDE(i, n) out[i] = (float(sobolAt(directions, n, dims, offset, i)) + 0.5f) * (1.0f / 4294967296.0f);
}

extern "C" __global__ void predatar_curand_sobol_uniform_double(double* out, u64 n, unsigned dims, u64 offset,
                                                                const unsigned* directions) {
  GRID_STRIDE(i, n) out[i] = (double(sobolAt(directions, n, dims, offset, i)) + 0.5) * (1.0 / 4294967296.0);
}

// Sobol64 (CURAND_RNG_QUASI_SOBOL64): the 64-bit integers; floats and
// doubles take the point's top bits.
__device__ __forceinline__ u64 sobol64At(const u64* directions, u64 n, unsigned dims, u64 offset, u64 i) {
  return sobolPoint(directions, n, dims, offset, i);
}

extern "C" __global__ void predatar_curand_sobol64(u64* out, u64 n, unsigned dims, u64 offset, const u64* directions) {
  GRID_STRIDE(i, n) out[i] = sobol64At(directions, n, dims, offset, i);
}

extern "C" __global__ void predatar_curand_sobol64_uniform(float* out, u64 n, unsigned dims, u64 offset,
                                                           const u64* directions) {
  GRID_STRIDE(i, n) out[i] = (float(sobol64At(directions, n, dims, offset, i) >> 40) + 0.5f) * (1.0f / 16777216.0f);
}

extern "C" __global__ void predatar_curand_sobol64_uniform_double(double* out, u64 n, unsigned dims, u64 offset,
                                                                  const u64* directions) {
  GRID_STRIDE(i, n) {
    out[i] = (double(sobol64At(directions, n, dims, offset, i) >> 11) + 0.5) * (1.0 / 9007199254740992.0);
  }
}
