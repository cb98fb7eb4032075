// Launches that repeat an earlier launch exactly are replayed, not re-run
// (cudart/runtime/RepeatedLaunches.h): the results must be those of running
// every launch, and a race in a repeated kernel is still reported.
#include <cstdio>

__global__ void scale(float* out, const float* in, int n, float factor) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * factor;
}

// A reduction in two launches, the second in place (as NVIDIA's reduction
// sample does): the pair alternates between two memory states.
__global__ void partialSums(const float* in, float* partial, int n) {
  __shared__ float s[64];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) s[threadIdx.x] += s[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) partial[blockIdx.x] = s[0];
}

__global__ void finishSum(float* partial, int count) {
  if (threadIdx.x == 0) {
    float sum = 0;
    for (int b = 0; b < count; ++b) sum += partial[b];
    partial[0] = sum;
  }
}

// Never the same state twice: each launch must run.
__global__ void accumulate(int* counter) {
  if (threadIdx.x == 0) *counter += 1;
}

// A race (every thread writes the same word), launched five times.
__global__ void racy(int* word) { *word = threadIdx.x; }

int main() {
  const int n = 256;
  float *in, *out, *partial;
  int *counter, *word;
  cudaMalloc(&in, n * sizeof(float));
  cudaMalloc(&out, n * sizeof(float));
  cudaMalloc(&partial, 4 * sizeof(float));
  cudaMalloc(&counter, sizeof(int));
  cudaMalloc(&word, sizeof(int));
  cudaMemset(counter, 0, sizeof(int));
  float host[n];
  for (int i = 0; i < n; ++i) host[i] = float(i);
  cudaMemcpy(in, host, sizeof host, cudaMemcpyHostToDevice);

  for (int r = 0; r < 20; ++r) scale<<<4, 64>>>(out, in, n, 2.0f);
  cudaMemcpy(host, out, sizeof host, cudaMemcpyDeviceToHost);
  printf("scale: out[10]=%g out[255]=%g\n", host[10], host[255]);

  // New input: the remembered launches no longer apply.
  for (int i = 0; i < n; ++i) host[i] = 1.0f;
  cudaMemcpy(in, host, sizeof host, cudaMemcpyHostToDevice);
  for (int r = 0; r < 20; ++r) scale<<<4, 64>>>(out, in, n, 3.0f);
  cudaMemcpy(host, out, sizeof host, cudaMemcpyDeviceToHost);
  printf("scale again: out[10]=%g out[255]=%g\n", host[10], host[255]);

  float sum = 0;
  for (int r = 0; r < 10; ++r) {
    partialSums<<<4, 64>>>(out, partial, n);
    finishSum<<<1, 32>>>(partial, 4);
    cudaMemcpy(&sum, partial, sizeof sum, cudaMemcpyDeviceToHost);
    if (sum != 768.0f) printf("reduction %d: sum=%g\n", r, sum);
  }
  printf("reduction: sum=%g\n", sum);

  for (int r = 0; r < 10; ++r) accumulate<<<1, 32>>>(counter);
  int count = 0;
  cudaMemcpy(&count, counter, sizeof count, cudaMemcpyDeviceToHost);
  printf("accumulate: %d\n", count);

  for (int r = 0; r < 5; ++r) racy<<<1, 32>>>(word);
  cudaDeviceSynchronize();
  printf("done\n");
  return 0;
}
