// Reductions: shared-memory tree and warp shuffle.
extern "C" __global__ void reduceShared(const float* in, float* out, int n) {
  __shared__ float s[256];
  unsigned t = threadIdx.x;
  unsigned i = blockIdx.x * blockDim.x + t;
  s[t] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (unsigned k = blockDim.x / 2; k > 0; k >>= 1) {
    if (t < k) s[t] += s[t + k];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = s[0];
}

extern "C" __global__ void reduceShuffle(const int* in, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = i < n ? in[i] : 0;
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  extern __shared__ int warpSums[];
  if ((threadIdx.x & 31) == 0) warpSums[threadIdx.x / 32] = v;
  __syncthreads();
  if (threadIdx.x < 32) {
    int w = threadIdx.x < blockDim.x / 32 ? warpSums[threadIdx.x] : 0;
    for (int o = 16; o > 0; o >>= 1) w += __shfl_xor_sync(0xffffffffu, w, o);
    if (threadIdx.x == 0) atomicAdd(out, w);
  }
}
