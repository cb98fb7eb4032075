// build: -arch=sm_90
// sm_90's DPX and packed-halfword intrinsics (cuda's device_functions.h),
// which compile to add/sub/min/max .u16x2/.s16x2 and min/max .relu: each is
// computed on the device for a set of operands and compared with CUDA's own
// host version of the same intrinsic (they are __host__ __device__).
#include <cstdio>

#define FUNCTIONS(X)                                                                              \
  X(__vimax3_s32) X(__vimax3_s16x2) X(__vimax3_u32) X(__vimax3_u16x2) X(__vimin3_s32)             \
  X(__vimin3_s16x2) X(__vimin3_u32) X(__vimin3_u16x2) X(__vimax3_s32_relu) X(__vimax3_s16x2_relu) \
  X(__vimin3_s32_relu) X(__vimin3_s16x2_relu) X(__viaddmax_s32) X(__viaddmax_s16x2)               \
  X(__viaddmax_u32) X(__viaddmax_u16x2) X(__viaddmin_s32) X(__viaddmin_s16x2) X(__viaddmin_u32)    \
  X(__viaddmin_u16x2) X(__viaddmax_s32_relu) X(__viaddmax_s16x2_relu) X(__viaddmin_s32_relu)       \
  X(__viaddmin_s16x2_relu)

#define NAME(f) #f,
const char* kNames[] = {FUNCTIONS(NAME) "__vimax_s16x2_relu", "__vimin_s16x2_relu", "__vibmax_s16x2",
                        "__vibmin_u16x2"};
const int kThree = sizeof(kNames) / sizeof(kNames[0]) - 4;
const int kFunctions = kThree + 4;

__host__ __device__ unsigned apply(int f, unsigned a, unsigned b, unsigned c) {
  int k = 0;
#define CASE(fn) if (f == k++) return fn(a, b, c);
  FUNCTIONS(CASE)
  bool hi = false, lo = false;
  switch (f - kThree) {
    case 0: return __vimax_s16x2_relu(a, b);
    case 1: return __vimin_s16x2_relu(a, b);
    case 2: return __vibmax_s16x2(a, b, &hi, &lo) ^ (unsigned(hi) << 1 | unsigned(lo)) * 0x01010101u;
    default: return __vibmin_u16x2(a, b, &hi, &lo) ^ (unsigned(hi) << 1 | unsigned(lo)) * 0x01010101u;
  }
}

const int kValues = 64;

unsigned operand(int i, int which) {  // halfword edge cases first, then a fixed pseudo-random sequence
  static const unsigned edges[] = {0u, 0x7FFF7FFFu, 0x80008000u, 0xFFFFFFFFu, 0x00017FFFu, 0x8000FFFFu,
                                   0x7FFFFFFFu, 0x80000000u};
  if (i < 8) return edges[(i + which * 3) % 8];
  unsigned x = unsigned(i) * 2654435761u + unsigned(which) * 40503u;
  x ^= x >> 13;
  x *= 0x5bd1e995u;
  return x ^ (x >> 15);
}

__global__ void run(const unsigned* in, unsigned* out) {
  int f = blockIdx.x, i = threadIdx.x;
  out[f * kValues + i] = apply(f, in[3 * i], in[3 * i + 1], in[3 * i + 2]);
}

int main() {
  unsigned host[3 * kValues];
  for (int i = 0; i < kValues; ++i)
    for (int k = 0; k < 3; ++k) host[3 * i + k] = operand(i, k);
  unsigned *in, *out;
  cudaMalloc(&in, sizeof host);
  cudaMalloc(&out, kFunctions * kValues * sizeof(unsigned));
  cudaMemcpy(in, host, sizeof host, cudaMemcpyHostToDevice);
  run<<<kFunctions, kValues>>>(in, out);
  static unsigned device[kFunctions * kValues];
  if (cudaMemcpy(device, out, sizeof device, cudaMemcpyDeviceToHost) != cudaSuccess) return 1;
  int bad = 0;
  for (int f = 0; f < kFunctions; ++f) {
    int wrong = 0;
    for (int i = 0; i < kValues; ++i) {
      unsigned want = apply(f, host[3 * i], host[3 * i + 1], host[3 * i + 2]);
      if (device[f * kValues + i] != want && wrong++ == 0)
        printf("%s(%08x, %08x, %08x): device %08x, host %08x\n", kNames[f], host[3 * i], host[3 * i + 1],
               host[3 * i + 2], device[f * kValues + i], want);
    }
    bad += wrong != 0;
  }
  printf("%d functions x %d operands: %d functions differ from the host\n", kFunctions, kValues, bad);
  return bad != 0;
}
