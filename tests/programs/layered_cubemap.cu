// Layered and cubemap textures over cudaMalloc3DArray arrays, filled and read
// back with cudaMemcpy3D: tex1DLayered, tex2DLayered (point and linear),
// texCubemap and texCubemapLayered through every face, cudaArrayGetInfo, and
// 3D copies with offsets between arrays, pitched device memory (cudaMalloc3D)
// and host memory. Every result is checked against values computed here.
#include <cmath>
#include <cstdio>

#define CHECK(call)                                                               \
  do {                                                                            \
    cudaError_t e_ = (call);                                                      \
    if (e_ != cudaSuccess) { printf("%s: %s\n", #call, cudaGetErrorName(e_)); return 1; } \
  } while (0)

const int W = 8, H = 4, LAYERS = 3, FACE = 4, CUBES = 2;

float layeredValue(int layer, int y, int x) { return float(layer * 100 + y * 10 + x); }
float cubeValue(int cube, int face, int y, int x) { return float(cube * 1000 + face * 100 + y * 10 + x); }

__global__ void layered2D(cudaTextureObject_t point, cudaTextureObject_t linear, float* out) {
  int x = threadIdx.x, y = threadIdx.y, layer = blockIdx.x;
  float* o = out + ((layer * H + y) * W + x) * 2;
  o[0] = tex2DLayered<float>(point, x + 0.5f, y + 0.5f, layer);
  o[1] = tex2DLayered<float>(linear, (x + 1.0f) / W, (y + 0.5f) / H, layer);  // between x and x + 1
}

__global__ void layered1D(cudaTextureObject_t t, float* out) {
  int x = threadIdx.x, layer = blockIdx.x;
  out[layer * W + x] = tex1DLayered<float>(t, x + 0.5f, layer);
}

// The direction through texel (x, y) of `face`, scaled by `scale` (the length does not matter).
__device__ float3 direction(int face, int x, int y, float scale) {
  float u = ((x + 0.5f) / FACE) * 2.f - 1.f, v = ((y + 0.5f) / FACE) * 2.f - 1.f;
  float3 d[6] = {{1, -v, -u}, {-1, -v, u}, {u, 1, v}, {u, -1, -v}, {u, -v, 1}, {-u, -v, -1}};
  return make_float3(d[face].x * scale, d[face].y * scale, d[face].z * scale);
}

__global__ void cubemap(cudaTextureObject_t cube, cudaTextureObject_t cubes, float* out) {
  int x = threadIdx.x, y = threadIdx.y, face = blockIdx.x;
  float3 d = direction(face, x, y, 1.0f + face);
  float* o = out + ((face * FACE + y) * FACE + x) * 3;
  o[0] = texCubemap<float>(cube, d.x, d.y, d.z);
  o[1] = texCubemapLayered<float>(cubes, d.x, d.y, d.z, 0);
  o[2] = texCubemapLayered<float>(cubes, d.x, d.y, d.z, 1);
}

cudaTextureObject_t makeTexture(cudaArray_t array, bool linear, bool normalized) {
  cudaResourceDesc res = {};
  res.resType = cudaResourceTypeArray;
  res.res.array.array = array;
  cudaTextureDesc desc = {};
  desc.addressMode[0] = desc.addressMode[1] = cudaAddressModeClamp;
  desc.filterMode = linear ? cudaFilterModeLinear : cudaFilterModePoint;
  desc.normalizedCoords = normalized;
  cudaTextureObject_t t = 0;
  if (cudaCreateTextureObject(&t, &res, &desc, nullptr) != cudaSuccess) printf("cudaCreateTextureObject failed\n");
  return t;
}

cudaMemcpy3DParms hostToArray(float* host, size_t w, size_t h, cudaArray_t array, cudaExtent extent) {
  cudaMemcpy3DParms p = {};
  p.srcPtr = make_cudaPitchedPtr(host, w * sizeof(float), w, h);
  p.dstArray = array;
  p.extent = extent;
  p.kind = cudaMemcpyHostToDevice;
  return p;
}

int checkLayered2D(cudaArray_t array) {
  static float out[LAYERS * H * W * 2];
  float* d;
  CHECK(cudaMalloc(&d, sizeof(out)));
  cudaTextureObject_t point = makeTexture(array, false, false), linear = makeTexture(array, true, true);
  layered2D<<<LAYERS, dim3(W, H)>>>(point, linear, d);
  CHECK(cudaMemcpy(out, d, sizeof(out), cudaMemcpyDeviceToHost));
  int wrong = 0;
  for (int l = 0; l < LAYERS; ++l)
    for (int y = 0; y < H; ++y)
      for (int x = 0; x < W; ++x) {
        const float* o = out + ((l * H + y) * W + x) * 2;
        float right = x + 1 < W ? layeredValue(l, y, x) + 0.5f : layeredValue(l, y, x);  // clamped at the edge
        wrong += o[0] != layeredValue(l, y, x) || std::fabs(o[1] - right) > 1e-3f;
      }
  printf("tex2DLayered: layer 2 row 3: %g %g %g, linear %g; %d wrong\n", out[88 * 2], out[89 * 2],
         out[95 * 2], out[88 * 2 + 1], wrong);
  CHECK(cudaDestroyTextureObject(point));
  CHECK(cudaDestroyTextureObject(linear));
  CHECK(cudaFree(d));
  return wrong;
}

int checkLayered1D() {
  cudaChannelFormatDesc desc = cudaCreateChannelDesc<float>();
  cudaArray_t array;
  CHECK(cudaMalloc3DArray(&array, &desc, make_cudaExtent(W, 0, 2), cudaArrayLayered));
  static float host[2 * W], out[2 * W];
  for (int i = 0; i < 2 * W; ++i) host[i] = float(i * i);
  cudaMemcpy3DParms p = hostToArray(host, W, 1, array, make_cudaExtent(W, 1, 2));
  CHECK(cudaMemcpy3D(&p));
  float* d;
  CHECK(cudaMalloc(&d, sizeof(out)));
  cudaTextureObject_t t = makeTexture(array, false, false);
  layered1D<<<2, W>>>(t, d);
  CHECK(cudaMemcpy(out, d, sizeof(out), cudaMemcpyDeviceToHost));
  int wrong = 0;
  for (int i = 0; i < 2 * W; ++i) wrong += out[i] != host[i];
  printf("tex1DLayered: %g %g %g; %d wrong\n", out[1], out[W], out[2 * W - 1], wrong);
  CHECK(cudaDestroyTextureObject(t));
  CHECK(cudaFreeArray(array));
  CHECK(cudaFree(d));
  return wrong;
}

int checkCubemaps() {
  cudaChannelFormatDesc desc = cudaCreateChannelDesc<float>();
  cudaArray_t cube, cubes;
  CHECK(cudaMalloc3DArray(&cube, &desc, make_cudaExtent(FACE, FACE, 6), cudaArrayCubemap));
  CHECK(cudaMalloc3DArray(&cubes, &desc, make_cudaExtent(FACE, FACE, 6 * CUBES), cudaArrayCubemap | cudaArrayLayered));
  static float host[CUBES * 6 * FACE * FACE], out[6 * FACE * FACE * 3];
  for (int c = 0; c < CUBES; ++c)
    for (int f = 0; f < 6; ++f)
      for (int y = 0; y < FACE; ++y)
        for (int x = 0; x < FACE; ++x) host[((c * 6 + f) * FACE + y) * FACE + x] = cubeValue(c, f, y, x);
  cudaMemcpy3DParms p = hostToArray(host, FACE, FACE, cube, make_cudaExtent(FACE, FACE, 6));
  CHECK(cudaMemcpy3D(&p));
  p = hostToArray(host, FACE, FACE, cubes, make_cudaExtent(FACE, FACE, 6 * CUBES));
  CHECK(cudaMemcpy3D(&p));
  float* d;
  CHECK(cudaMalloc(&d, sizeof(out)));
  cudaTextureObject_t t = makeTexture(cube, false, true), ts = makeTexture(cubes, false, true);
  cubemap<<<6, dim3(FACE, FACE)>>>(t, ts, d);
  CHECK(cudaMemcpy(out, d, sizeof(out), cudaMemcpyDeviceToHost));
  int wrong = 0;
  for (int f = 0; f < 6; ++f)
    for (int y = 0; y < FACE; ++y)
      for (int x = 0; x < FACE; ++x) {
        const float* o = out + ((f * FACE + y) * FACE + x) * 3;
        wrong += o[0] != cubeValue(0, f, y, x) || o[1] != cubeValue(0, f, y, x) || o[2] != cubeValue(1, f, y, x);
      }
  printf("texCubemap: faces at texel (1, 2):");
  for (int f = 0; f < 6; ++f) printf(" %g/%g", out[((f * FACE + 2) * FACE + 1) * 3], out[((f * FACE + 2) * FACE + 1) * 3 + 2]);
  printf("; %d wrong\n", wrong);
  CHECK(cudaDestroyTextureObject(t));
  CHECK(cudaDestroyTextureObject(ts));
  CHECK(cudaFreeArray(cube));
  CHECK(cudaFreeArray(cubes));
  CHECK(cudaFree(d));
  return wrong;
}

// array -> pitched device memory (offsets on both sides) -> host (offsets), checked element by element.
int checkCopies(cudaArray_t array) {
  cudaPitchedPtr dev;
  CHECK(cudaMalloc3D(&dev, make_cudaExtent(W * sizeof(float), H, LAYERS)));
  CHECK(cudaMemset3D(dev, 0, make_cudaExtent(W * sizeof(float), H, LAYERS)));
  cudaMemcpy3DParms p = {};
  p.srcArray = array;
  p.srcPos = make_cudaPos(2, 1, 1);  // elements of the array
  p.dstPtr = dev;
  // In elements of the array, on the pointer's side too, since an array takes part (an H200 copies so,
  // though the reference manual says a pointer's element is a byte).
  p.dstPos = make_cudaPos(1, 0, 0);
  p.extent = make_cudaExtent(5, 3, 2);
  p.kind = cudaMemcpyDeviceToDevice;
  CHECK(cudaMemcpy3D(&p));
  static float host[LAYERS][H][W];
  cudaMemcpy3DParms back = {};
  back.srcPtr = dev;
  back.dstPtr = make_cudaPitchedPtr(host, W * sizeof(float), W, H);
  back.extent = make_cudaExtent(W * sizeof(float), H, LAYERS);  // no array: width in bytes
  back.kind = cudaMemcpyDeviceToHost;
  CHECK(cudaMemcpy3DAsync(&back, 0));
  CHECK(cudaStreamSynchronize(0));
  int wrong = 0;
  for (int z = 0; z < LAYERS; ++z)
    for (int y = 0; y < H; ++y)
      for (int x = 0; x < W; ++x) {
        bool inside = x >= 1 && x < 6 && y < 3 && z < 2;
        wrong += host[z][y][x] != (inside ? layeredValue(z + 1, y + 1, x + 1) : 0.0f);
      }
  printf("cudaMemcpy3D array -> pitched -> host: %g %g %g; %d wrong\n", host[0][0][1], host[1][2][5], host[1][2][6],
         wrong);
  CHECK(cudaFree(dev.ptr));
  return wrong;
}

int main() {
  cudaChannelFormatDesc desc = cudaCreateChannelDesc<float>();
  cudaArray_t array;
  CHECK(cudaMalloc3DArray(&array, &desc, make_cudaExtent(W, H, LAYERS), cudaArrayLayered));
  cudaChannelFormatDesc got;
  cudaExtent extent;
  unsigned int flags = 99;
  CHECK(cudaArrayGetInfo(&got, &extent, &flags, array));
  printf("array: %zu x %zu x %zu flags %u, channel %d kind %d\n", extent.width, extent.height, extent.depth, flags,
         got.x, int(got.f));
  static float host[LAYERS][H][W];
  for (int l = 0; l < LAYERS; ++l)
    for (int y = 0; y < H; ++y)
      for (int x = 0; x < W; ++x) host[l][y][x] = layeredValue(l, y, x);
  cudaMemcpy3DParms p = hostToArray(&host[0][0][0], W, H, array, make_cudaExtent(W, H, LAYERS));
  CHECK(cudaMemcpy3D(&p));
  int wrong = checkLayered2D(array) + checkLayered1D() + checkCubemaps() + checkCopies(array);
  CHECK(cudaFreeArray(array));
  printf("%s\n", wrong ? "FAILED" : "PASSED");
  return wrong ? 1 : 0;
}
