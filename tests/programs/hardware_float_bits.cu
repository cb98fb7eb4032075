// What a GPU computes bit for bit where the PTX ISA leaves room: the NaN that
// f32 arithmetic produces, and the weights of linear texture filtering. The
// .expected output is an H200's (bench/native/RESULTS.md, round 48: its raw
// weights and NaNs are bench/native/h200-float-bits.txt.xz, and the digests below
// were computed from them).
#include <cstdint>
#include <cstdio>
#include <cstring>

#define CHECK(call)                                                               \
  do {                                                                            \
    cudaError_t e_ = (call);                                                      \
    if (e_ != cudaSuccess) { printf("%s: %s\n", #call, cudaGetErrorName(e_)); return 1; } \
  } while (0)

// Every NaN below is produced by arithmetic; the GPU gives 0x7fffffff each time.
__global__ void nanBits(const float* in, uint32_t* out) {
  float zero = in[0], inf = in[1], minusOne = in[2], payload = in[3], one = in[4];
  out[0] = __float_as_uint(zero / zero);
  out[1] = __float_as_uint(inf - inf);
  out[2] = __float_as_uint(zero * inf);
  out[3] = __float_as_uint(sqrtf(minusOne));
  out[4] = __float_as_uint(payload + one);
  out[5] = __float_as_uint(payload * one);
  out[6] = __float_as_uint(fmaf(payload, one, one));
  out[7] = __float_as_uint(__fdividef(zero, zero));
  out[8] = __float_as_uint(rsqrtf(minusOne));
  out[9] = __float_as_uint(__logf(minusOne));
  out[10] = __float_as_uint(-payload);
  out[11] = __float_as_uint(fabsf(payload));
  out[12] = __float_as_uint((float)(double(payload) + 1.0));
  out[13] = __float_as_uint(__fadd_rz(payload, one));
  out[14] = __float_as_uint(__saturatef(payload));
}

// One corner's bilinear weight at fractions (i/256, j/256): the texture is 1
// at that corner and 0 at the other three.
__global__ void weights2D(cudaTextureObject_t t, float* out) {
  int i = blockIdx.x, j = threadIdx.x;
  out[i * 256 + j] = tex2D<float>(t, 0.5f + i / 256.0f, 0.5f + j / 256.0f);
}

__global__ void weights3D(cudaTextureObject_t t, const int3* at, float* out) {
  int k = threadIdx.x;
  out[k] = tex3D<float>(t, 0.5f + at[k].x / 256.0f, 0.5f + at[k].y / 256.0f, 0.5f + at[k].z / 256.0f);
}

cudaTextureObject_t linearTexture(cudaArray_t array) {
  cudaResourceDesc res = {};
  res.resType = cudaResourceTypeArray;
  res.res.array.array = array;
  cudaTextureDesc desc = {};
  desc.addressMode[0] = desc.addressMode[1] = desc.addressMode[2] = cudaAddressModeClamp;
  desc.filterMode = cudaFilterModeLinear;
  desc.readMode = cudaReadModeElementType;
  cudaTextureObject_t t = 0;
  cudaCreateTextureObject(&t, &res, &desc, nullptr);
  return t;
}

uint32_t fnv1a(const uint32_t* v, int n) {
  uint32_t h = 2166136261u;
  for (int i = 0; i < n; ++i)
    for (int b = 0; b < 4; ++b) h = (h ^ ((v[i] >> (8 * b)) & 0xFF)) * 16777619u;
  return h;
}

int nans() {
  float in[5] = {0.0f, __builtin_inff(), -1.0f, 0.0f, 1.0f};
  uint32_t payload = 0x7fc01234;
  memcpy(&in[3], &payload, 4);
  float* dIn;
  uint32_t* dOut;
  CHECK(cudaMalloc(&dIn, sizeof in));
  CHECK(cudaMalloc(&dOut, 15 * sizeof(uint32_t)));
  CHECK(cudaMemcpy(dIn, in, sizeof in, cudaMemcpyHostToDevice));
  nanBits<<<1, 1>>>(dIn, dOut);
  uint32_t out[15];
  CHECK(cudaMemcpy(out, dOut, sizeof out, cudaMemcpyDeviceToHost));
  printf("NaN bits:");
  for (uint32_t v : out) printf(" %08x", v);
  printf("\n");
  return 0;
}

// Per corner: a digest of its weights at all 65,536 pairs of fractions (in
// 1/65536), and the weights at pairs where exact products end in a half.
int bilinear() {
  cudaChannelFormatDesc desc = cudaCreateChannelDesc<float>();
  float* d;
  CHECK(cudaMalloc(&d, 65536 * sizeof(float)));
  static float h[65536];
  static uint32_t w[65536];
  const int ties[][2] = {{1, 128}, {2, 64}, {3, 128}, {6, 192}, {130, 130}};
  for (int corner = 0; corner < 4; ++corner) {
    float texels[4] = {0, 0, 0, 0};
    texels[corner] = 1.0f;
    cudaArray_t array;
    CHECK(cudaMallocArray(&array, &desc, 2, 2));
    CHECK(cudaMemcpy2DToArray(array, 0, 0, texels, 8, 8, 2, cudaMemcpyHostToDevice));
    weights2D<<<256, 256>>>(linearTexture(array), d);
    CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    for (int k = 0; k < 65536; ++k) w[k] = uint32_t(h[k] * 65536.0f);
    printf("2D corner %d: digest %08x, at ties", corner, fnv1a(w, 65536));
    for (auto& t : ties) printf(" %u", w[t[0] * 256 + t[1]] / 256);
    printf(" (/256)\n");
  }
  return 0;
}

// Trilinear weights at a few fraction triples (in 1/256), where no exact
// product ends in a half.
int trilinear() {
  const int3 at[] = {{15, 0, 15}, {15, 0, 75}, {30, 45, 60}, {105, 120, 15}, {240, 255, 90}, {135, 60, 30}};
  const int n = sizeof at / sizeof at[0];
  cudaChannelFormatDesc desc = cudaCreateChannelDesc<float>();
  int3* dAt;
  float* d;
  CHECK(cudaMalloc(&dAt, sizeof at));
  CHECK(cudaMalloc(&d, n * sizeof(float)));
  CHECK(cudaMemcpy(dAt, at, sizeof at, cudaMemcpyHostToDevice));
  float out[8][n];
  for (int corner = 0; corner < 8; ++corner) {
    float texels[8] = {0};
    texels[corner] = 1.0f;
    cudaArray_t array;
    CHECK(cudaMalloc3DArray(&array, &desc, make_cudaExtent(2, 2, 2)));
    cudaMemcpy3DParms copy = {};
    copy.srcPtr = make_cudaPitchedPtr(texels, 8, 2, 2);
    copy.dstArray = array;
    copy.extent = make_cudaExtent(2, 2, 2);
    copy.kind = cudaMemcpyHostToDevice;
    CHECK(cudaMemcpy3D(&copy));
    weights3D<<<1, n>>>(linearTexture(array), dAt, d);
    CHECK(cudaMemcpy(out[corner], d, sizeof out[corner], cudaMemcpyDeviceToHost));
  }
  for (int k = 0; k < n; ++k) {
    printf("3D (%d,%d,%d):", at[k].x, at[k].y, at[k].z);
    for (int corner = 0; corner < 8; ++corner) printf(" %d", int(out[corner][k] * 256.0f));
    printf(" (/256)\n");
  }
  return 0;
}

int main() {
  if (nans() || bilinear() || trilinear()) return 1;
  printf("%s\n", cudaGetErrorString(cudaGetLastError()));
  return 0;
}
