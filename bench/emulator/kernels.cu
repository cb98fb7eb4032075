// Kernels for the emulator benchmark (PTX beside: nvcc -arch=sm_75 -lineinfo --ptx kernels.cu).
extern "C" __global__ void aluBound(unsigned* out, int iters) {
  unsigned x = threadIdx.x + blockIdx.x * blockDim.x;
  float f = float(x);
  for (int i = 0; i < iters; ++i) {
    x = x * 1664525u + 1013904223u;
    x ^= x >> 13;
    f = f * 0.999f + float(x & 255u);
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = x + unsigned(f);
}

extern "C" __global__ void memoryBound(const float* in, float* out, int n, int reps) {
  int stride = blockDim.x * gridDim.x;
  for (int r = 0; r < reps; ++r)
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
      out[i] = in[i] * 2.0f + out[i];
}

extern "C" __global__ void sharedBound(float* out, int reps) {
  __shared__ float s[256];
  s[threadIdx.x] = float(threadIdx.x);
  __syncthreads();
  float acc = 0.0f;
  for (int r = 0; r < reps; ++r) {
    acc += s[(threadIdx.x + r) & 255];
    s[threadIdx.x] = acc;
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

// A few instructions per thread over many blocks (as the samples' 16M-thread
// init kernels): the cost of starting blocks and warps, not of running them.
extern "C" __global__ void tinyBlocks(int* data, const int* factor, int iters) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int k = 0; k < iters; ++k) data[i] += *factor;
}

// A tiled matrix product (32x32 tiles, a warp per tile row): every lane of a
// warp reads the same word of `a`'s tile (a broadcast) and its own of `b`'s.
extern "C" __global__ void tiledMatMul(const float* a, const float* b, float* c, int n) {
  __shared__ float as[32][32];
  __shared__ float bs[32][32];
  int row = blockIdx.y * 32 + threadIdx.y, col = blockIdx.x * 32 + threadIdx.x;
  float sum = 0.0f;
  for (int tile = 0; tile < n; tile += 32) {
    as[threadIdx.y][threadIdx.x] = a[row * n + tile + threadIdx.x];
    bs[threadIdx.y][threadIdx.x] = b[(tile + threadIdx.y) * n + col];
    __syncthreads();
    for (int k = 0; k < 32; ++k) sum += as[threadIdx.y][k] * bs[k][threadIdx.x];
    __syncthreads();
  }
  c[row * n + col] = sum;
}

// Every thread stores one flag (`*over = true`: Rodinia's bfs and many graph
// codes): one word, written by the whole grid.
extern "C" __global__ void storeFlag(int* flag, int n) {
  if (blockIdx.x * blockDim.x + threadIdx.x < n) *flag = 1;
}
