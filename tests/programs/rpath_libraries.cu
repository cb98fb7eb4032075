// A program linked with an RPATH (not RUNPATH) to CUDA's lib64, as
// -Wl,--disable-new-dtags builds are: the dynamic linker would take NVIDIA's
// cuRAND from there (which runs its own runtime on the driver and stops at
// its first call) whatever LD_LIBRARY_PATH says; `predatar run` preloads the
// libraries of its own the program needs, so predatar's cuRAND runs.
#include <curand.h>

#include <cstdio>

int main() {
  curandGenerator_t generator;
  if (curandCreateGenerator(&generator, CURAND_RNG_PSEUDO_DEFAULT) != CURAND_STATUS_SUCCESS) {
    std::printf("curandCreateGenerator failed\n");
    return 1;
  }
  float* values;
  cudaMalloc(&values, 64 * sizeof(float));
  curandSetPseudoRandomGeneratorSeed(generator, 42);
  curandStatus_t status = curandGenerateUniform(generator, values, 64);
  float host[64];
  cudaMemcpy(host, values, sizeof host, cudaMemcpyDeviceToHost);
  int inRange = 0;
  for (float v : host) inRange += v > 0.0f && v <= 1.0f;
  std::printf("generate: %d, %d of 64 in (0, 1]\n", int(status), inRange);
  curandDestroyGenerator(generator);
  cudaFree(values);
  return 0;
}
