// A kernel launched again with the same arguments but other data, whose
// addresses, branches and barriers do not depend on the data it reads
// (sim::dataDependenceProblem), emits the same events: it runs without the
// detectors and the earlier launch's races are its own. A kernel whose
// addresses come from the data it reads is checked at every launch.
#include <cstdio>

// Tiled, as matrix products are: shared memory, barriers, and a race on
// `last` (every block's thread 0 writes it) that does not depend on the data.
__global__ void blockSums(const float* in, float* sums, float* last) {
  __shared__ float tile[64];
  tile[threadIdx.x] = in[blockIdx.x * 64 + threadIdx.x];
  __syncthreads();
  for (int stride = 32; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) tile[threadIdx.x] += tile[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    sums[blockIdx.x] = tile[0];
    *last = tile[0];
  }
}

// Gathers through an index the data holds: its accesses follow the data.
__global__ void gather(const int* index, const float* in, float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[index[i]];
}

int main() {
  const int n = 256;
  float *in, *sums, *last, *out;
  int* index;
  cudaMalloc(&in, n * sizeof(float));
  cudaMalloc(&sums, 4 * sizeof(float));
  cudaMalloc(&last, sizeof(float));
  cudaMalloc(&out, n * sizeof(float));
  cudaMalloc(&index, n * sizeof(int));
  float host[n], result[4];
  int hostIndex[n];
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < n; ++i) host[i] = float((i * (round + 3)) % 17);
    cudaMemcpy(in, host, sizeof host, cudaMemcpyHostToDevice);
    blockSums<<<4, 64>>>(in, sums, last);
    cudaMemcpy(result, sums, sizeof result, cudaMemcpyDeviceToHost);
    printf("round %d: sums %g %g %g %g\n", round, result[0], result[1], result[2], result[3]);
  }
  for (int round = 0; round < 2; ++round) {
    for (int i = 0; i < n; ++i) hostIndex[i] = round == 0 ? i : (i * 7) % n;
    cudaMemcpy(index, hostIndex, sizeof hostIndex, cudaMemcpyHostToDevice);
    gather<<<4, 64>>>(index, in, out);
    cudaMemcpy(host, out, sizeof host, cudaMemcpyDeviceToHost);
    printf("gather %d: out[1] %g out[255] %g\n", round, host[1], host[255]);
  }
  cudaFree(in);
  cudaFree(sums);
  cudaFree(last);
  cudaFree(out);
  cudaFree(index);
  return 0;
}
