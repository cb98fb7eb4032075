// Virtual functions and function pointers (indirect calls, vtables and
// function tables in initializers) and the device heap (new/delete,
// malloc/free): lanes of one warp call different functions.
#include <cstdio>

struct Shape {
  __device__ virtual ~Shape() {}
  __device__ virtual float area() const = 0;
};
struct Square : Shape {
  float side;
  __device__ explicit Square(float s) : side(s) {}
  __device__ float area() const override { return side * side; }
};
struct Rectangle : Shape {
  float w, h;
  __device__ Rectangle(float a, float b) : w(a), h(b) {}
  __device__ float area() const override { return w * h; }
};

typedef int (*BinaryOp)(int, int);
__device__ int add(int a, int b) { return a + b; }
__device__ int sub(int a, int b) { return a - b; }
__device__ int mul(int a, int b) { return a * b; }
__device__ BinaryOp ops[3] = {add, sub, mul};

__global__ void shapes(float* areas) {
  int t = threadIdx.x;
  Shape* s = t % 2 ? static_cast<Shape*>(new Rectangle(t, 2)) : new Square(t);
  areas[t] = s ? s->area() : -1.0f;
  delete s;
}

__global__ void calculator(int* out) {
  int t = threadIdx.x;
  out[t] = ops[t % 3](t, 3);
}

__global__ void heap(int* out) {
  int t = threadIdx.x;
  int* buffer = static_cast<int*>(malloc(4 * sizeof(int)));
  for (int i = 0; i < 4; ++i) buffer[i] = t * i;
  out[t] = buffer[0] + buffer[1] + buffer[2] + buffer[3];
  free(buffer);
}

int main() {
  const int n = 64;
  float* areas;
  int *results, *sums;
  cudaMalloc(&areas, n * sizeof(float));
  cudaMalloc(&results, n * sizeof(int));
  cudaMalloc(&sums, n * sizeof(int));
  shapes<<<1, n>>>(areas);
  calculator<<<1, n>>>(results);
  heap<<<1, n>>>(sums);
  cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) {
    printf("error: %s\n", cudaGetErrorString(e));
    return 1;
  }
  float a[n];
  int r[n], s[n];
  cudaMemcpy(a, areas, sizeof a, cudaMemcpyDeviceToHost);
  cudaMemcpy(r, results, sizeof r, cudaMemcpyDeviceToHost);
  cudaMemcpy(s, sums, sizeof s, cudaMemcpyDeviceToHost);
  int bad = 0;
  for (int t = 0; t < n; ++t) {
    bad += a[t] != (t % 2 ? 2.0f * t : float(t) * t);
    int want = t % 3 == 0 ? t + 3 : t % 3 == 1 ? t - 3 : t * 3;
    bad += r[t] != want;
    bad += s[t] != 6 * t;
  }
  printf("area[5]=%g area[6]=%g op[7]=%d op[8]=%d heap[9]=%d mismatches=%d\n", a[5], a[6], r[7], r[8], s[9], bad);
  return 0;
}
