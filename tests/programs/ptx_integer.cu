// Integer PTX the samples use: extended-precision add/sub/mad with carry
// (add.cc/addc, sub.cc/subc, mad.cc/madc), 24-bit multiplies (mul24/mad24),
// dot products (dp4a/dp2a), byte SIMD (vabsdiff4.add), CUDA's SIMD absolute
// differences (__vabsdiff*, __vsad*: vabsdiff4 and vabsdiff2, with and without
// .add, as nvcc emits them), indirect branches (brx.idx) and WARP_SZ.
// Each thread writes its own results: no races.
#include <cstdio>
#include <cstdint>
#include <cstdlib>

__device__ uint64_t add64(uint32_t alo, uint32_t ahi, uint32_t blo, uint32_t bhi) {
  uint32_t lo, hi;
  asm("add.cc.u32 %0, %2, %3;\n\taddc.u32 %1, %4, %5;" : "=r"(lo), "=r"(hi) : "r"(alo), "r"(blo), "r"(ahi), "r"(bhi));
  return (uint64_t(hi) << 32) | lo;
}

__device__ uint64_t sub64(uint32_t alo, uint32_t ahi, uint32_t blo, uint32_t bhi) {
  uint32_t lo, hi;
  asm("sub.cc.u32 %0, %2, %3;\n\tsubc.u32 %1, %4, %5;" : "=r"(lo), "=r"(hi) : "r"(alo), "r"(blo), "r"(ahi), "r"(bhi));
  return (uint64_t(hi) << 32) | lo;
}

// 96-bit accumulation a*b + c with mad.lo.cc / madc.hi.cc / addc.
__device__ void mad96(uint32_t a, uint32_t b, uint32_t c, uint32_t* out) {
  uint32_t r0, r1, r2;
  asm("mad.lo.cc.u32 %0, %3, %4, %5;\n\t"
      "madc.hi.cc.u32 %1, %3, %4, 0;\n\t"
      "addc.u32 %2, 0, 0;"
      : "=r"(r0), "=r"(r1), "=r"(r2) : "r"(a), "r"(b), "r"(c));
  out[0] = r0; out[1] = r1; out[2] = r2;
}

__device__ int jump(int selector) {
  int r;
  asm("{\n\t"
      ".reg .u32 idx;\n\t"
      "mov.u32 idx, %1;\n\t"
      "ts: .branchtargets L0, L1, L2;\n\t"
      "brx.idx idx, ts;\n\t"
      "L0: mov.u32 %0, 100; bra.uni Ldone;\n\t"
      "L1: mov.u32 %0, 200; bra.uni Ldone;\n\t"
      "L2: mov.u32 %0, 300;\n\t"
      "Ldone:\n\t"
      "}" : "=r"(r) : "r"(selector));
  return r;
}

__global__ void integers(uint32_t* out, int perThread) {
  int t = threadIdx.x;
  uint32_t* o = out + t * perThread;
  uint64_t s = add64(0xFFFFFFF0u + t, 1, 0x20, 2);
  o[0] = uint32_t(s); o[1] = uint32_t(s >> 32);
  uint64_t d = sub64(t, 5, 0x10, 1);
  o[2] = uint32_t(d); o[3] = uint32_t(d >> 32);
  mad96(0xFFFFFFFFu - t, 0xFFFFFFFFu, 0xFFFFFFFFu, o + 4);
  o[7] = __umul24(0x01000003u + t, 0x00000005u);  // the top byte is ignored
  o[8] = uint32_t(__mul24(-3 - t, 0x7FFFFF));
  uint32_t hi;
  asm("mul24.hi.u32 %0, %1, %2;" : "=r"(hi) : "r"(0x00FFFFFFu), "r"(0x00FFFFFFu - t));
  o[9] = hi;
  uint32_t m24;
  asm("mad24.lo.s32 %0, %1, %2, %3;" : "=r"(m24) : "r"(-7), "r"(t), "r"(1000));
  o[10] = m24;
  o[11] = uint32_t(__dp4a(int(0x01FF0203 + t), int(0x02030405), 10));
  o[12] = __dp4a(0x01FF0203u + t, 0x02030405u, 10u);
  o[13] = uint32_t(__dp2a_lo(int(0x7FFF0002 + t), int(0x01020304), 1));
  o[14] = __dp2a_hi(0xFFFF0002u + t, 0x01020304u, 1u);
  o[15] = uint32_t(jump(t % 3));
  uint32_t warp;
  asm("mov.u32 %0, WARP_SZ;" : "=r"(warp));
  o[16] = warp;
  uint32_t sad;
  asm("vabsdiff4.u32.u32.u32.add %0, %1, %2, %3;" : "=r"(sad) : "r"(0x10FF0380u + t), "r"(0x2001FF7Fu), "r"(5u));
  o[17] = sad;
  uint32_t x = 0x10FF0380u + t, y = 0x2001FF7Fu;
  o[18] = __vabsdiffu4(x, y);
  o[19] = __vabsdiffs4(x, y);
  o[20] = __vsadu4(x, y);
  o[21] = __vsads4(x, y);
  o[22] = __vabsdiffu2(x, y);
  o[23] = __vabsdiffs2(x, y);
  o[24] = __vsadu2(x, y);
  o[25] = __vsads2(x, y);
}

// The same values computed on the host.
uint32_t bits24(uint32_t v, bool isSigned) { return isSigned ? uint32_t(int32_t(v << 8) >> 8) : (v & 0xFFFFFF); }
int dot(uint32_t a, uint32_t b, bool sa, bool sb, int halves, int firstByte) {
  int sum = 0;
  for (int i = 0; i < (halves ? 2 : 4); ++i) {
    int av = halves ? (sa ? int(int16_t(a >> (16 * i))) : int(uint16_t(a >> (16 * i))))
                    : (sa ? int(int8_t(a >> (8 * i))) : int(uint8_t(a >> (8 * i))));
    uint32_t bb = b >> (8 * (firstByte + i));
    int bv = sb ? int(int8_t(bb)) : int(uint8_t(bb));
    sum += av * bv;
  }
  return sum;
}
void reference(int t, uint32_t* o) {
  uint64_t s = ((uint64_t(1) << 32) | (0xFFFFFFF0u + t)) + ((uint64_t(2) << 32) | 0x20);
  o[0] = uint32_t(s); o[1] = uint32_t(s >> 32);
  uint64_t d = ((uint64_t(5) << 32) | uint32_t(t)) - ((uint64_t(1) << 32) | 0x10);
  o[2] = uint32_t(d); o[3] = uint32_t(d >> 32);
  unsigned __int128 m = (unsigned __int128)(0xFFFFFFFFu - t) * 0xFFFFFFFFu + 0xFFFFFFFFu;
  o[4] = uint32_t(m); o[5] = uint32_t(m >> 32); o[6] = uint32_t(m >> 64);
  o[7] = bits24(0x01000003u + t, false) * 5u;
  o[8] = uint32_t(int64_t(int32_t(bits24(uint32_t(-3 - t), true))) * 0x7FFFFF);
  o[9] = uint32_t((uint64_t(0x00FFFFFFu) * (0x00FFFFFFu - t)) >> 16);
  o[10] = uint32_t(-7 * t + 1000);
  o[11] = uint32_t(10 + dot(0x01FF0203 + t, 0x02030405, true, true, 0, 0));
  o[12] = uint32_t(10 + dot(0x01FF0203u + t, 0x02030405u, false, false, 0, 0));
  o[13] = uint32_t(1 + dot(0x7FFF0002 + t, 0x01020304, true, true, 1, 0));
  o[14] = uint32_t(1 + dot(0xFFFF0002u + t, 0x01020304u, false, false, 1, 2));
  o[15] = uint32_t(100 * (t % 3 + 1));
  o[16] = 32;
  uint32_t a = 0x10FF0380u + t, b = 0x2001FF7Fu, sad = 5;
  for (int i = 0; i < 4; ++i) sad += uint32_t(abs(int((a >> (8 * i)) & 0xFF) - int((b >> (8 * i)) & 0xFF)));
  o[17] = sad;
  for (int bits : {8, 16}) {  // per element |a - b| (unsigned, then signed), then their sums
    uint32_t elems[2] = {0, 0}, sums[2] = {0, 0};
    for (int i = 0; i < 32 / bits; ++i) {
      uint32_t mask = (1u << bits) - 1, ua = (a >> (bits * i)) & mask, ub = (b >> (bits * i)) & mask;
      int sa = bits == 8 ? int8_t(ua) : int16_t(ua), sb = bits == 8 ? int8_t(ub) : int16_t(ub);
      uint32_t du = uint32_t(abs(int(ua) - int(ub))), ds = uint32_t(abs(sa - sb));
      elems[0] |= (du & mask) << (bits * i), elems[1] |= (ds & mask) << (bits * i);
      sums[0] += du, sums[1] += ds;
    }
    int at = bits == 8 ? 18 : 22;
    o[at] = elems[0], o[at + 1] = elems[1], o[at + 2] = sums[0], o[at + 3] = sums[1];
  }
}

int main() {
  const int threads = 4, perThread = 26;
  uint32_t* d;
  cudaMalloc(&d, threads * perThread * sizeof(uint32_t));
  integers<<<1, threads>>>(d, perThread);
  uint32_t h[threads * perThread];
  cudaError_t e = cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  if (e != cudaSuccess) { printf("error %s\n", cudaGetErrorString(e)); return 1; }
  int wrong = 0;
  for (int t = 0; t < threads; ++t) {
    uint32_t want[perThread];
    reference(t, want);
    for (int i = 0; i < perThread; ++i)
      if (h[t * perThread + i] != want[i]) {
        printf("thread %d value %d: %x, expected %x\n", t, i, h[t * perThread + i], want[i]);
        ++wrong;
      }
  }
  printf("%s\n", wrong ? "FAIL" : "PASS");
  cudaFree(d);
  return wrong ? 1 : 0;
}
