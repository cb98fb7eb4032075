// predictable/warp_sync_volatile_reduction: the classic reduction tail that
// orders lanes through volatile alone (no __syncwarp). Since Volta's
// independent thread scheduling nothing orders the lanes: gwcp and hb report
// the tail, noting that both accesses are volatile. lockset compares no two
// lanes of one warp in different instructions (ScoRD's per-warp metadata).
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(call)                                                          \
  do {                                                                       \
    cudaError_t err_ = (call);                                               \
    if (err_ != cudaSuccess) {                                               \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,     \
                   cudaGetErrorString(err_));                                \
      std::exit(1);                                                          \
    }                                                                        \
  } while (0)


__global__ void k(int *in, int *out, int *unused) {
  __shared__ int sdata[64];
  unsigned tid = threadIdx.x;
  sdata[tid] = tid;
  __syncthreads();
  if (tid < 32) {
    volatile int *v = sdata;
    v[tid] += v[tid + 32];
    v[tid] += v[tid + 16];
    v[tid] += v[tid + 8];
  }
  if (tid == 0) *out = sdata[0];
}

int main() {
  int *g, host[4];
  CHECK(cudaMalloc(&g, sizeof host));
  CHECK(cudaMemset(g, 0, sizeof host));
  k<<<1, 64>>>(g, g + 1, g + 2);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(host, g, sizeof host, cudaMemcpyDeviceToHost));
  std::printf("warp_sync_volatile_reduction: %d %d %d\n", host[0], host[1], host[2]);
  CHECK(cudaFree(g));
  return 0;
}
