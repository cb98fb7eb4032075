// Divergent branches, device function calls, local arrays.
__device__ __noinline__ int collatzSteps(int x) {
  int steps = 0;
  while (x != 1 && steps < 1000) {
    x = (x & 1) ? 3 * x + 1 : x / 2;
    ++steps;
  }
  return steps;
}

__device__ __noinline__ float mix(float a, float b, int sel) {
  if (sel > 0) return a * 2.0f + b;
  return a - b * 0.5f;
}

extern "C" __global__ void divergent(const int* in, int* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = in[i];
  int r;
  if (v % 3 == 0) r = collatzSteps(v + 1);
  else if (v % 3 == 1) r = -v * 7;
  else {
    r = 0;
    for (int k = 0; k < (v & 15); ++k) r += k * v;
  }
  out[i] = r;
}

extern "C" __global__ void calls(const float* a, const float* b, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = mix(a[i], b[i], i % 2) + mix(b[i], a[i], (i % 4) - 1);
}

extern "C" __global__ void localArray(const int* in, int* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int tmp[16];
  for (int k = 0; k < 16; ++k) tmp[k] = in[i] * k + (k ^ i);
  int idx = in[i] & 15;
  int s = 0;
  for (int k = 0; k <= idx; ++k) s += tmp[(k * 7 + i) & 15];
  out[i] = s;
}
