// predictable/stencil: the paper's stencil benchmark (section 6.3), 1-D, in
// place, threads going one after the other (a volatile turn variable
// enforces the order and orders nothing). Each thread's write of dA[c] is
// in a critical section that conflicts with nothing of the next thread,
// whose reads of dA[c] are outside any critical section: gwcp reports the
// reads and writes of dA; hb misses them (spurious lock edges); lockset
// reports the pairs across the warp boundary (t31/t32).
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

// Device-scoped spin lock (the emulator infers acquire = successful CAS then
// fence, release = fence then exchange).
__device__ void lock(int *m) { while (atomicCAS(m, 0, 1) != 0); __threadfence(); }
__device__ void unlock(int *m) { __threadfence(); atomicExch(m, 0); }


// Turns in lockstep: every thread walks through the turns t = 0, 1, ...
// and only thread t waits for its turn and works. Written the other way
// (`while (turn != me); work; turn = me + 1;`, or the same with the work
// inside the spin loop, which nvcc compiles back into that form), the lane
// whose turn it is leaves the spin loop and must run on while the other lanes
// of its warp still spin: a GPU reconverges the warp where the loop ends
// first, so that lane waits there for lanes that wait for it, and the program
// hangs on an H100. Here a lane never needs a lane of its own warp to move:
// the turn it waits for is written by a lane of another warp or was written
// before its warp reached this turn.
__global__ void stencil(float *dA, int *lock_word, int *turn, int *last) {
  __shared__ int current;
  int tid = threadIdx.x + 1;  // dA[0] and dA[blockDim.x + 1] are the halo
  if (threadIdx.x == 0) current = 0;
  __syncthreads();
  for (int t = 0; t < blockDim.x; ++t) {
    if (threadIdx.x != t) continue;
    while (*(volatile int *)turn != t);
    lock(lock_word);
    current = tid;
    unlock(lock_word);
    float value = 0.25f * dA[tid - 1] + 0.5f * dA[tid] + 0.25f * dA[tid + 1];  // (R)
    lock(lock_word);
    dA[tid] = value;  // (W)
    unlock(lock_word);
    *(volatile int *)turn = t + 1;
  }
  __syncthreads();
  if (threadIdx.x == 0) *last = current;
}

int main() {
  const int n = 64;
  float host[n + 2];
  for (int i = 0; i < n + 2; ++i) host[i] = (i % 4) * 1.0f;
  float *dA;
  int *g, last = 0;
  CHECK(cudaMalloc(&dA, sizeof host));
  CHECK(cudaMalloc(&g, 3 * sizeof(int)));
  CHECK(cudaMemset(g, 0, 3 * sizeof(int)));
  CHECK(cudaMemcpy(dA, host, sizeof host, cudaMemcpyHostToDevice));
  stencil<<<1, n>>>(dA, g, g + 1, g + 2);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(host, dA, sizeof host, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&last, g + 2, sizeof last, cudaMemcpyDeviceToHost));
  std::printf("stencil: dA[1] = %.3f, dA[32] = %.3f, current = %d\n", host[1], host[32], last);
  CHECK(cudaFree(dA));
  CHECK(cudaFree(g));
  return 0;
}
