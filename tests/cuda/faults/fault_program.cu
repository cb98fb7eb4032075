// A CUDA program whose kernels fail the ways real programs do, for the loud
// failure tests (tests/cli/*.sh): the program itself always
// checks and prints what its CUDA calls return, and exits as it is told.
//   fault_program oob      out-of-bounds store: cudaErrorIllegalAddress (sticky)
//   fault_program unsupported  a tensor-core form (Volta mma) the emulator refuses by name
//   fault_program exit N   a clean kernel, then exit status N
//   fault_program spin     a racy kernel, then one that spins forever (for SIGTERM); clean-spin: 12 s of clean ones
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <unistd.h>
// (kernels below keep their lines: the tests check file:line)

__global__ void storeOutOfBounds(int* data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  data[i * 1024 * 1024] = n;  // far past the 64-int allocation for i > 0
}

__global__ void clean(int* data) { data[threadIdx.x] = threadIdx.x; }

__global__ void racy(int* data) { data[0] = threadIdx.x; }

__global__ void spin(volatile int* flag) {
  // Memory changes every turn, so this is no deadlock: only a signal ends it.
  while (*flag == 0) atomicAdd((int*)flag + 1, 1);
}

// The Volta-only m8n8k4 f16 tensor-core form, which the emulator refuses by name.
__global__ void voltaMma(const unsigned* ab, unsigned* d) {
  unsigned a0 = ab[0], a1 = ab[1], b0 = ab[2], b1 = ab[3], d0, d1, d2, d3;
  asm volatile("mma.sync.aligned.m8n8k4.row.col.f16.f16.f16.f16 {%0,%1,%2,%3}, {%4,%5}, {%6,%7}, {%8,%9,%10,%11};"
               : "=r"(d0), "=r"(d1), "=r"(d2), "=r"(d3)
               : "r"(a0), "r"(a1), "r"(b0), "r"(b1), "r"(0u), "r"(0u), "r"(0u), "r"(0u));
  d[threadIdx.x] = d0 ^ d1 ^ d2 ^ d3;
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "oob";
  int* data = nullptr;
  cudaMalloc(&data, 64 * sizeof(int));
  if (std::strcmp(mode, "oob") == 0) {
    storeOutOfBounds<<<1, 32>>>(data, 7);
  } else if (std::strcmp(mode, "unsupported") == 0) {
    voltaMma<<<1, 32>>>(reinterpret_cast<unsigned*>(data), reinterpret_cast<unsigned*>(data) + 32);
  } else if (std::strcmp(mode, "spin") == 0) {
    const char* report = std::getenv("PREDATAR_REPORT");
    std::fprintf(stderr, "pid %d report %s\n", int(getpid()), report ? report : "-");
    cudaMemcpy(data, data, 4, cudaMemcpyKind(7));  // an API error, which a killed run's report keeps
    racy<<<1, 64>>>(data);
    cudaDeviceSynchronize();
    spin<<<1, 32>>>(data + 1);
  } else if (std::strcmp(mode, "clean-spin") == 0) {
    // clean launches for 12 s after the first one (the runtime writes the
    // report after the first, and again 10 s later), then a spin: the report
    // written before a SIGKILL holds the clean launches
    clean<<<1, 32>>>(data);
    cudaDeviceSynchronize();
    for (time_t start = time(nullptr); time(nullptr) - start < 12;) {
      clean<<<1, 32>>>(data);
      cudaDeviceSynchronize();
    }
    std::fprintf(stderr, "pid %d\n", int(getpid()));
    spin<<<1, 32>>>(data + 32);  // (past the words `clean` wrote: the flag is 0)
  } else {
    clean<<<1, 32>>>(data);
  }
  std::printf("launch: %s\n", cudaGetErrorName(cudaGetLastError()));
  std::printf("synchronize: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  int first = 0;
  std::printf("memcpy: %s\n", cudaGetErrorName(cudaMemcpy(&first, data, sizeof(int), cudaMemcpyDeviceToHost)));
  return std::strcmp(mode, "exit") == 0 && argc > 2 ? std::atoi(argv[2]) : 0;
}
