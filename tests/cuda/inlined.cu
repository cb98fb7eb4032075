// A reduction whose racy accesses lie in inlined __device__ functions: race
// reports must show the inlined function's own line (the innermost .loc) and
// the chain of calls it was inlined through (tests/sim/InliningTest.cpp).
__device__ void accumulate(int* s, int i, int v) {
  s[i] += v;  // line 5: the racy read-modify-write
}

__device__ void step(int* s, int i, int d) {
  accumulate(s, i, s[i + d]);  // line 9: reads a neighbour without a barrier
}

extern "C" __global__ void inlinedReduce(int* out) {
  __shared__ int s[64];
  s[threadIdx.x] = threadIdx.x;
  __syncthreads();
  for (int d = 16; d > 0; d /= 2) step(s, threadIdx.x, d);  // line 16
  if (threadIdx.x == 0) *out = s[0];
}
