// cuRAND's host API on predatar's own cuRAND (src/libraries/curand): uniform,
// normal and Sobol numbers with the properties cuRAND has (not its numbers:
// standard output prints only what NVIDIA's cuRAND gives too, checked on an
// H100), a host generator, sequences that continue across calls and across
// a new seed, a refusal by name (on standard error), and a race: the
// generator writes `d` on one stream while a kernel on another stream reads
// it (line 23), with nothing ordering them.
#include <curand.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#define CHECK(call)                                                                         \
  do {                                                                                      \
    int e_ = int(call);                                                                     \
    if (e_ != 0) { printf("%s: %d\n", #call, e_); return 1; }                               \
  } while (0)

__global__ void sum(const float* data, int n, float* out) {
  float s = 0;
  for (int i = threadIdx.x; i < n; i += blockDim.x) s += data[i];
  atomicAdd(out, s);
}

static const char* yes(bool b) { return b ? "yes" : "no"; }

int main() {
  const int n = 1 << 16;
  float* d;
  CHECK(cudaMalloc(&d, 2 * n * sizeof(float)));
  std::vector<float> h(2 * n);
  curandGenerator_t gen;
  CHECK(curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_DEFAULT));
  CHECK(curandSetPseudoRandomGeneratorSeed(gen, 1234));
  CHECK(curandGenerateUniform(gen, d, n));
  CHECK(cudaMemcpy(h.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost));
  bool inRange = true;
  double mean = 0;
  for (int i = 0; i < n; ++i) {
    inRange = inRange && h[i] > 0.0f && h[i] <= 1.0f;
    mean += h[i] / n;
  }
  printf("uniform in (0, 1]: %s, mean near 0.5: %s\n", yes(inRange), yes(std::fabs(mean - 0.5) < 0.01));

  // One call of 2n from a seed equals calls of n and n (two generators of the same seed).
  std::vector<float> whole(2 * n), parts(2 * n);
  curandGenerator_t other;
  CHECK(curandCreateGenerator(&other, CURAND_RNG_PSEUDO_DEFAULT));
  CHECK(curandSetPseudoRandomGeneratorSeed(other, 99));
  CHECK(curandGenerateUniform(other, d, 2 * n));
  CHECK(cudaMemcpy(whole.data(), d, 2 * n * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(curandDestroyGenerator(other));
  CHECK(curandCreateGenerator(&other, CURAND_RNG_PSEUDO_DEFAULT));
  CHECK(curandSetPseudoRandomGeneratorSeed(other, 99));
  CHECK(curandGenerateUniform(other, d, n));
  CHECK(curandGenerateUniform(other, d + n, n));
  CHECK(cudaMemcpy(parts.data(), d, 2 * n * sizeof(float), cudaMemcpyDeviceToHost));
  printf("the sequence continues across calls: %s\n", yes(whole == parts));

  // A new seed keeps the generator's position, as in NVIDIA's cuRAND: n
  // numbers, then seed 99 again, and the next n are numbers n..2n-1 of seed 99.
  CHECK(curandDestroyGenerator(other));
  CHECK(curandCreateGenerator(&other, CURAND_RNG_PSEUDO_DEFAULT));
  CHECK(curandSetPseudoRandomGeneratorSeed(other, 99));
  CHECK(curandGenerateUniform(other, d, n));
  CHECK(curandSetPseudoRandomGeneratorSeed(other, 99));
  CHECK(curandGenerateUniform(other, d, n));
  CHECK(cudaMemcpy(h.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost));
  printf("a new seed keeps the position: %s\n", yes(std::equal(h.begin(), h.begin() + n, whole.begin() + n)));
  CHECK(curandDestroyGenerator(other));

  // A host generator gives the device generator's numbers, in host memory.
  curandGenerator_t hostGen;
  CHECK(curandCreateGeneratorHost(&hostGen, CURAND_RNG_PSEUDO_DEFAULT));
  CHECK(curandSetPseudoRandomGeneratorSeed(hostGen, 99));
  std::vector<float> fromHost(2 * n);
  CHECK(curandGenerateUniform(hostGen, fromHost.data(), 2 * n));
  printf("the host generator's numbers are the device one's: %s\n", yes(fromHost == whole));
  CHECK(curandDestroyGenerator(hostGen));

  CHECK(curandGenerateNormal(gen, d, n, 2.0f, 3.0f));
  CHECK(cudaMemcpy(h.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost));
  double m = 0, var = 0;
  for (int i = 0; i < n; ++i) m += h[i] / n;
  for (int i = 0; i < n; ++i) var += (h[i] - m) * (h[i] - m) / n;
  printf("normal(2, 3): mean %s, deviation %s\n", yes(std::fabs(m - 2) < 0.05), yes(std::fabs(std::sqrt(var) - 3) < 0.05));
  printf("an odd count of normals: %d\n", int(curandGenerateNormal(gen, d, 3, 0.0f, 1.0f)));

  // Sobol: dimension 0 is van der Corput's sequence, dimension 1 the classic second one.
  curandGenerator_t sobol;
  CHECK(curandCreateGenerator(&sobol, CURAND_RNG_QUASI_SOBOL32));
  CHECK(curandSetQuasiRandomGeneratorDimensions(sobol, 2));
  CHECK(curandGenerateUniform(sobol, d, 8));
  CHECK(cudaMemcpy(h.data(), d, 8 * sizeof(float), cudaMemcpyDeviceToHost));
  printf("sobol dimension 0: %.2f %.2f %.2f %.2f, dimension 1: %.2f %.2f %.2f %.2f\n", h[0], h[1], h[2], h[3], h[4],
         h[5], h[6], h[7]);
  printf("a count that is not a multiple of the dimensions: %d\n", int(curandGenerateUniform(sobol, d, 3)));
  CHECK(curandDestroyGenerator(sobol));

  // Direction vectors for Sobol states drawn in the program's own kernels.
  curandDirectionVectors32_t* directions;
  CHECK(curandGetDirectionVectors32(&directions, CURAND_DIRECTION_VECTORS_32_JOEKUO6));
  printf("direction vectors: %08x %08x, %08x %08x\n", directions[0][0], directions[0][1], directions[1][0],
         directions[1][1]);

  // Sobol64: 64-bit points (dimension 0: van der Corput's); 32-bit integers are a type error.
  curandGenerator_t sobol64;
  CHECK(curandCreateGenerator(&sobol64, CURAND_RNG_QUASI_SOBOL64));
  unsigned long long* d64;
  CHECK(cudaMalloc(&d64, 4 * sizeof(unsigned long long)));
  CHECK(curandGenerateLongLong(sobol64, d64, 4));
  unsigned long long points[4];
  CHECK(cudaMemcpy(points, d64, sizeof points, cudaMemcpyDeviceToHost));
  printf("SOBOL64: %llx %llx %llx %llx, 32-bit integers: %d\n", points[0], points[1], points[2], points[3],
         int(curandGenerate(sobol64, reinterpret_cast<unsigned*>(d64), 4)));
  CHECK(curandDestroyGenerator(sobol64));

  // Not implemented by predatar: refused by name, with cuRAND's type error.
  // On standard error: NVIDIA's cuRAND has it (and returns 0).
  curandGenerator_t scrambled;
  fprintf(stderr, "SCRAMBLED_SOBOL64: %d\n", int(curandCreateGenerator(&scrambled, CURAND_RNG_QUASI_SCRAMBLED_SOBOL64)));

  // The race: generation on one stream, a read of the same words on another.
  cudaStream_t a, b;
  CHECK(cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking));
  float* total;
  CHECK(cudaMalloc(&total, sizeof(float)));
  CHECK(cudaMemset(total, 0, sizeof(float)));
  CHECK(curandSetStream(gen, a));
  CHECK(curandGenerateUniform(gen, d, 256));
  sum<<<1, 32, 0, b>>>(d, 256, total);
  CHECK(cudaDeviceSynchronize());
  CHECK(curandDestroyGenerator(gen));
  printf("done\n");
  return 0;
}
