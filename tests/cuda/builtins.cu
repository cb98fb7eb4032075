// printf, assert, bit intrinsics, barrier reductions, atomics of every kind.
#include <cassert>
#include <cstdio>

extern "C" __global__ void printing(int n, float f) {
  if (threadIdx.x < 2) printf("thread %d of %d: %.2f %s %lld %c|%5u|\n", threadIdx.x, n, f, "ok", -5ll, 'z', 42u);
}

extern "C" __global__ void asserting(const int* data) {
  assert(data[threadIdx.x] >= 0);
}

extern "C" __global__ void intrinsics(const unsigned* in, unsigned* out) {
  unsigned i = threadIdx.x;
  unsigned a = in[i], b = in[(i + 1) % blockDim.x];
  out[i * 8 + 0] = __ffs(a);
  out[i * 8 + 1] = __funnelshift_l(a, b, i);
  out[i * 8 + 2] = __funnelshift_r(a, b, i);
  out[i * 8 + 3] = __byte_perm(a, b, 0x5140 + i);
  out[i * 8 + 4] = __syncthreads_count(a & 1);
  out[i * 8 + 5] = __syncthreads_and(a != 7);
  out[i * 8 + 6] = __syncthreads_or(a == 7);
  out[i * 8 + 7] = __umulhi(a, b) ^ __usad(a, b, 3);
}

extern "C" __global__ void atomics(unsigned* u, int* s, double* d, unsigned long long* ull) {
  unsigned i = threadIdx.x;
  atomicInc(&u[0], 16u);
  atomicDec(&u[1], 5u);
  atomicMax(&s[0], int(i) - 40);
  atomicMin(&s[1], 100 - int(i));
  atomicAnd(&u[2], ~(1u << (i % 32)));
  atomicOr(&u[3], 1u << (i % 32));
  atomicXor(&u[4], i);
  atomicAdd(&d[0], 0.5 * i);
  atomicCAS(&ull[0], (unsigned long long)i, (unsigned long long)i + 1);
  atomicExch(&s[2], int(i));
  atomicAdd(&ull[1], 1ull << 33);
}

extern "C" __global__ void warpSyncDivergent(int* out) {
  int lane = threadIdx.x & 31;
  int v = lane;
  if (lane < 16) {
    v += 100;
    __syncwarp();
  } else {
    v += 200;
    __syncwarp();
  }
  unsigned active = __activemask();
  out[threadIdx.x] = v + __shfl_sync(0xffffffffu, v, (lane + 1) & 31) * 1000 + (active == 0xffffffffu ? 0 : 1);
}
