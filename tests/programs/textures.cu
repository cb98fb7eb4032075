// Texture objects over a CUDA array (cudaMallocArray, cudaMemcpy2DToArray),
// linear memory (tex1Dfetch) and pitched memory (cudaMallocPitch): point and
// linear filtering, clamp/wrap/border addressing, normalized coordinates and
// normalized-float reads of 8-bit data; surface writes and reads of a CUDA
// array (surf2Dwrite/surf2Dread) sampled back through a texture.
#include <cstdio>

#define CHECK(call)                                                               \
  do {                                                                            \
    cudaError_t e_ = (call);                                                      \
    if (e_ != cudaSuccess) { printf("%s: %s\n", #call, cudaGetErrorName(e_)); return 1; } \
  } while (0)

__global__ void sample2D(cudaTextureObject_t point, cudaTextureObject_t linear, float* out, int w, int h) {
  int x = threadIdx.x, y = blockIdx.x;
  float* o = out + (y * w + x) * 4;
  o[0] = tex2D<float>(point, x + 0.5f, y + 0.5f);
  o[1] = tex2D<float>(point, x - 2.0f, y + 10.0f);             // clamped
  o[2] = tex2D<float>(linear, (x + 0.75f) / w, (y + 0.5f) / h);  // normalized, linear
  o[3] = tex2D<float>(linear, (x + 0.5f) / w + 1.0f, (y + 0.5f) / h - 1.0f);  // wrapped
}

__global__ void fetch1D(cudaTextureObject_t linearMemory, cudaTextureObject_t pitched, float* out) {
  int i = threadIdx.x;
  out[i] = float(tex1Dfetch<int>(linearMemory, i)) + tex2D<float4>(pitched, i + 0.5f, 1.5f).y;
}

__global__ void surfaceWrite(cudaSurfaceObject_t surface, int w) {
  int x = threadIdx.x, y = blockIdx.x;
  surf2Dwrite(float(x * y), surface, x * 4, y);
  if (x == 0) surf2Dwrite(-1.0f, surface, (w + 3) * 4, y, cudaBoundaryModeZero);  // dropped
}
__global__ void surfaceRead(cudaSurfaceObject_t surface, cudaTextureObject_t texture, float* out, int w) {
  int x = threadIdx.x, y = blockIdx.x;
  out[y * w + x] = surf2Dread<float>(surface, x * 4, y) + 1000.0f * tex2D<float>(texture, x + 0.5f, y + 0.5f) +
                   surf2Dread<float>(surface, (x + 100) * 4, y, cudaBoundaryModeClamp);
}

int main() {
  const int w = 8, h = 4;
  float data[h][w];
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) data[y][x] = float(y * 10 + x);
  cudaChannelFormatDesc fdesc = cudaCreateChannelDesc<float>();
  printf("channel desc: %d %d %d %d kind %d\n", fdesc.x, fdesc.y, fdesc.z, fdesc.w, int(fdesc.f));
  cudaArray_t array;
  CHECK(cudaMallocArray(&array, &fdesc, w, h));
  CHECK(cudaMemcpy2DToArray(array, 0, 0, data, w * sizeof(float), w * sizeof(float), h, cudaMemcpyHostToDevice));

  cudaResourceDesc res = {};
  res.resType = cudaResourceTypeArray;
  res.res.array.array = array;
  cudaTextureDesc td = {};
  td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
  td.filterMode = cudaFilterModePoint;
  td.readMode = cudaReadModeElementType;
  cudaTextureObject_t point, linear;
  CHECK(cudaCreateTextureObject(&point, &res, &td, nullptr));
  td.addressMode[0] = td.addressMode[1] = cudaAddressModeWrap;
  td.filterMode = cudaFilterModeLinear;
  td.normalizedCoords = 1;
  CHECK(cudaCreateTextureObject(&linear, &res, &td, nullptr));

  float* out;
  CHECK(cudaMalloc(&out, w * h * 4 * sizeof(float)));
  sample2D<<<h, w>>>(point, linear, out, w, h);
  float result[h][w][4];
  CHECK(cudaMemcpy(result, out, sizeof result, cudaMemcpyDeviceToHost));
  for (int y = 0; y < h; ++y) {
    printf("row %d:", y);
    for (int x = 0; x < w; ++x) printf(" [%g %g %g %g]", result[y][x][0], result[y][x][1], result[y][x][2], result[y][x][3]);
    printf("\n");
  }

  // 1D linear memory of ints, and a pitched 2D uchar4 image read as normalized floats.
  int ints[w];
  for (int i = 0; i < w; ++i) ints[i] = i * i;
  int* dints;
  CHECK(cudaMalloc(&dints, sizeof ints));
  CHECK(cudaMemcpy(dints, ints, sizeof ints, cudaMemcpyHostToDevice));
  cudaResourceDesc lres = {};
  lres.resType = cudaResourceTypeLinear;
  lres.res.linear.devPtr = dints;
  lres.res.linear.desc = cudaCreateChannelDesc<int>();
  lres.res.linear.sizeInBytes = sizeof ints;
  cudaTextureDesc ltd = {};
  ltd.readMode = cudaReadModeElementType;
  cudaTextureObject_t linearMemory, pitched;
  CHECK(cudaCreateTextureObject(&linearMemory, &lres, &ltd, nullptr));
  uchar4 pixels[2][w];
  for (int y = 0; y < 2; ++y)
    for (int x = 0; x < w; ++x) pixels[y][x] = make_uchar4(x, 51 * y + x * 10, 0, 255);
  uchar4* image;
  size_t pitch;
  CHECK(cudaMallocPitch(&image, &pitch, w * sizeof(uchar4), 2));
  CHECK(cudaMemset2D(image, pitch, 0xFF, w * sizeof(uchar4), 2));
  CHECK(cudaMemcpy2D(image, pitch, pixels, w * sizeof(uchar4), w * sizeof(uchar4), 2, cudaMemcpyHostToDevice));
  cudaResourceDesc pres = {};
  pres.resType = cudaResourceTypePitch2D;
  pres.res.pitch2D.devPtr = image;
  pres.res.pitch2D.desc = cudaCreateChannelDesc<uchar4>();
  pres.res.pitch2D.width = w;
  pres.res.pitch2D.height = 2;
  pres.res.pitch2D.pitchInBytes = pitch;
  cudaTextureDesc ptd = {};
  ptd.readMode = cudaReadModeNormalizedFloat;
  ptd.addressMode[0] = ptd.addressMode[1] = cudaAddressModeBorder;
  CHECK(cudaCreateTextureObject(&pitched, &pres, &ptd, nullptr));
  float* out1;
  CHECK(cudaMalloc(&out1, w * sizeof(float)));
  fetch1D<<<1, w>>>(linearMemory, pitched, out1);
  float r1[w];
  CHECK(cudaMemcpy(r1, out1, sizeof r1, cudaMemcpyDeviceToHost));
  printf("1D + pitched:");
  for (int i = 0; i < w; ++i) printf(" %.4f", r1[i]);
  printf("\n");

  cudaArray_t surfaceArray;
  CHECK(cudaMallocArray(&surfaceArray, &fdesc, w, h, cudaArraySurfaceLoadStore));
  cudaResourceDesc sres = {};
  sres.resType = cudaResourceTypeArray;
  sres.res.array.array = surfaceArray;
  cudaSurfaceObject_t surface;
  CHECK(cudaCreateSurfaceObject(&surface, &sres));
  cudaTextureObject_t surfaceTexture;
  td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
  td.filterMode = cudaFilterModePoint;
  td.normalizedCoords = 0;
  CHECK(cudaCreateTextureObject(&surfaceTexture, &sres, &td, nullptr));
  surfaceWrite<<<h, w>>>(surface, w);
  surfaceRead<<<h, w>>>(surface, surfaceTexture, out, w);
  float sr[h][w];
  CHECK(cudaMemcpy(sr, out, sizeof sr, cudaMemcpyDeviceToHost));
  printf("surface row 3:");
  for (int x = 0; x < w; ++x) printf(" %g", sr[3][x]);
  printf("\n");
  float back[h][w];
  CHECK(cudaMemcpy2DFromArray(back, w * sizeof(float), surfaceArray, 0, 0, w * sizeof(float), h, cudaMemcpyDeviceToHost));
  printf("copied back: %g %g\n", back[2][3], back[3][7]);
  CHECK(cudaDestroySurfaceObject(surface));
  CHECK(cudaDestroyTextureObject(surfaceTexture));
  CHECK(cudaFreeArray(surfaceArray));
  CHECK(cudaDestroyTextureObject(point));
  CHECK(cudaDestroyTextureObject(linear));
  CHECK(cudaDestroyTextureObject(linearMemory));
  CHECK(cudaDestroyTextureObject(pitched));
  CHECK(cudaFreeArray(array));
  cudaFree(out);
  cudaFree(out1);
  cudaFree(dints);
  cudaFree(image);
  return 0;
}
