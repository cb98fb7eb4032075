// Texture objects over a CUDA array (cudaMallocArray, cudaMemcpy2DToArray),
// linear memory (tex1Dfetch) and pitched memory (cudaMallocPitch): point and
// linear filtering, clamp/wrap/border addressing, normalized coordinates and
// normalized-float reads of 8-bit data.
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
