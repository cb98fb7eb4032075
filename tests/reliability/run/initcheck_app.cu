// Reads of cudaMalloc'd memory nothing wrote, for `predatar run --initcheck`
// (check_initcheck.sh): a memset of too few bytes, a copy of a half-written
// array, an atomic on an unwritten counter, an allocation reused after free;
// and a program that writes everything it reads through every kind of write
// (memset, host and device copies, pitched and symbol copies, kernel stores,
// a replayed launch), which must stay clean. And allocations never freed, for
// `--leak-check full`: at exit, at cudaDeviceReset, and none.
// Built with: nvcc -cudart shared -lineinfo -arch=sm_75 -o bin/initcheck_app initcheck_app.cu
#include <cstdio>
#include <cstring>

__device__ int symbol[64];

__global__ void addIndex(int* v) { v[threadIdx.x] += threadIdx.x; }
__global__ void fill(int* v, int value) { v[threadIdx.x] = value + threadIdx.x; }
__global__ void sum(const int* v, int n, int* out) {
  int s = 0;
  for (int i = 0; i < n; ++i) s += v[i];
  out[0] = s;
}
__global__ void count(int* counter) { atomicAdd(counter, 1); }
__global__ void readRows(const int* pitched, size_t pitchInts, int* out) {
  out[threadIdx.y * blockDim.x + threadIdx.x] = pitched[threadIdx.y * pitchInts + threadIdx.x];
}

int check(const char* what, cudaError_t err) {
  if (err != cudaSuccess) std::printf("%s: %s\n", what, cudaGetErrorName(err));
  return err == cudaSuccess ? 0 : 1;
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "all-written";
  int *a = nullptr, *b = nullptr, *out = nullptr;
  if (check("malloc", cudaMalloc(&a, 64 * sizeof(int))) || check("malloc", cudaMalloc(&b, 64 * sizeof(int))) ||
      check("malloc", cudaMalloc(&out, 64 * sizeof(int))))
    return 1;
  if (std::strcmp(mode, "leaks") == 0) {  // out (256 bytes) and managed (64) stay; pinned is the host's
    int *managed = nullptr, *pinned = nullptr;
    if (check("managed", cudaMallocManaged(&managed, 16 * sizeof(int))) ||
        check("pinned", cudaMallocHost(&pinned, 16 * sizeof(int))))
      return 1;
    cudaFree(a);
    cudaFree(b);
  } else if (std::strcmp(mode, "reset") == 0) {  // a, b and out are live at the reset
    cudaDeviceReset();
  } else if (std::strcmp(mode, "freed") == 0) {
    cudaFree(a);
    cudaFree(b);
    cudaFree(out);
  } else if (std::strcmp(mode, "memset-short") == 0) {
    cudaMemset(a, 0, 64);  // 16 of the 64 ints: the size lacks * sizeof(int)
    addIndex<<<1, 64>>>(a);
  } else if (std::strcmp(mode, "copy-half") == 0) {
    fill<<<1, 32>>>(a, 1);  // a[0..31]
    cudaMemcpy(b, a, 64 * sizeof(int), cudaMemcpyDeviceToDevice);  // b[32..63] copies unwritten bytes
    addIndex<<<1, 64>>>(b);
  } else if (std::strcmp(mode, "atomic") == 0) {
    count<<<1, 32>>>(out);  // the counter was never cleared
  } else if (std::strcmp(mode, "reused") == 0) {
    fill<<<1, 64>>>(a, 5);
    cudaFree(a);
    if (check("malloc again", cudaMalloc(&a, 64 * sizeof(int)))) return 1;  // (the same bytes, most likely)
    sum<<<1, 1>>>(a, 64, out);
  } else if (std::strcmp(mode, "all-written") == 0) {
    int host[64];
    for (int i = 0; i < 64; ++i) host[i] = i;
    cudaMemset(out, 0, 64 * sizeof(int));
    count<<<1, 32>>>(out);                                          // memset, then an atomic
    cudaMemcpy(a, host, sizeof host, cudaMemcpyHostToDevice);       // a host copy
    cudaMemcpy(b, a, sizeof host, cudaMemcpyDeviceToDevice);        // a device copy of written bytes
    addIndex<<<1, 64>>>(b);
    cudaMemcpyToSymbol(symbol, b, sizeof host, 0, cudaMemcpyDeviceToDevice);
    cudaMemcpyFromSymbol(a, symbol, sizeof host, 0, cudaMemcpyDeviceToDevice);
    addIndex<<<1, 64>>>(a);
    int* written = nullptr;
    if (check("malloc", cudaMalloc(&written, 64 * sizeof(int)))) return 1;
    fill<<<1, 64>>>(written, 2);  // kernel stores, read by the next kernel
    sum<<<1, 1>>>(written, 64, out + 1);
    cudaFree(written);
    int* again = nullptr;  // (the same bytes, unwritten again)
    if (check("malloc", cudaMalloc(&again, 64 * sizeof(int)))) return 1;
    fill<<<1, 64>>>(again, 2);  // the same launch again: replayed, and its stores count
    sum<<<1, 1>>>(again, 64, out + 2);
    int* pitched = nullptr;
    size_t pitch = 0;
    if (check("pitch", cudaMallocPitch(&pitched, &pitch, 16 * sizeof(int), 4))) return 1;
    if (check("copy 2D", cudaMemcpy2D(pitched, pitch, host, 16 * sizeof(int), 16 * sizeof(int), 4,
                                      cudaMemcpyHostToDevice)))
      return 1;
    readRows<<<1, dim3(16, 4)>>>(pitched, pitch / sizeof(int), b);  // rows' padding is never read
    cudaMemcpy(host, out, sizeof host, cudaMemcpyDeviceToHost);
    std::printf("count %d sums %d %d\n", host[0], host[1], host[2]);
  }
  if (check("synchronize", cudaDeviceSynchronize())) return 1;
  std::printf("done\n");
  return 0;
}
