// A CUDA program whose kernels fail the ways real programs do, for the loud
// failure tests (tests/cli/kernel_run_cli.sh): the program itself always
// checks and prints what its CUDA calls return, and exits as it is told.
//   fault_program oob      out-of-bounds store: cudaErrorIllegalAddress (sticky)
//   fault_program wmma     a tensor-core kernel the emulator refuses by name
//   fault_program exit N   a clean kernel, then exit status N
//   fault_program spin     a racy kernel, then one that spins forever (for SIGTERM)
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>
#include <mma.h>

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

__global__ void tensorCore(const half* a, const half* b, float* c) {
  using namespace nvcuda;
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
  wmma::fill_fragment(fc, 0.0f);
  wmma::load_matrix_sync(fa, a, 16);
  wmma::load_matrix_sync(fb, b, 16);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(c, fc, 16, wmma::mem_row_major);
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "oob";
  int* data = nullptr;
  cudaMalloc(&data, 64 * sizeof(int));
  if (std::strcmp(mode, "oob") == 0) {
    storeOutOfBounds<<<1, 32>>>(data, 7);
  } else if (std::strcmp(mode, "wmma") == 0) {
    half *a, *b;
    float* c;
    cudaMalloc(&a, 256 * sizeof(half));
    cudaMalloc(&b, 256 * sizeof(half));
    cudaMalloc(&c, 256 * sizeof(float));
    tensorCore<<<1, 32>>>(a, b, c);
  } else if (std::strcmp(mode, "spin") == 0) {
    const char* report = std::getenv("PREDATAR_REPORT");
    std::fprintf(stderr, "pid %d report %s\n", int(getpid()), report ? report : "-");
    racy<<<1, 64>>>(data);
    cudaDeviceSynchronize();
    spin<<<1, 32>>>(data + 1);
  } else {
    clean<<<1, 32>>>(data);
  }
  std::printf("launch: %s\n", cudaGetErrorName(cudaGetLastError()));
  std::printf("synchronize: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  int first = 0;
  std::printf("memcpy: %s\n", cudaGetErrorName(cudaMemcpy(&first, data, sizeof(int), cudaMemcpyDeviceToHost)));
  return std::strcmp(mode, "exit") == 0 && argc > 2 ? std::atoi(argv[2]) : 0;
}
