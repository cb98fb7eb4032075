// A kernel that waits for the host: a latch in pinned memory holds a stream's
// work back until the host has queued all of it, as NVIDIA's UnifiedMemoryPerf
// does. The host writes the latch after the launch, so the launch waits while
// the host goes on; the copies and the kernel queued behind it run after it.
// Another stream's earlier work is done meanwhile, as on a GPU.
#include <cstdio>

#define CHECK(call)                                                               \
  do {                                                                            \
    cudaError_t e_ = (call);                                                      \
    if (e_ != cudaSuccess) { printf("%s: %s\n", #call, cudaGetErrorName(e_)); return 1; } \
  } while (0)

__global__ void waitForLatch(volatile unsigned* latch, int* seen) {
  while (*latch < 1) {
  }
  *seen = *latch;
}

__global__ void twice(const int* in, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2 * in[i];
}

int main() {
  const int n = 256;
  unsigned* latch;
  int *hostIn, *hostOut, *in, *out, *seen, *scratch;
  CHECK(cudaMallocHost(&latch, sizeof *latch));
  CHECK(cudaMallocHost(&hostIn, n * sizeof(int)));
  CHECK(cudaMallocHost(&hostOut, n * sizeof(int)));
  CHECK(cudaMalloc(&in, n * sizeof(int)));
  CHECK(cudaMalloc(&out, n * sizeof(int)));
  CHECK(cudaMalloc(&seen, sizeof(int)));
  CHECK(cudaMalloc(&scratch, 2 * 64 * sizeof(int)));
  cudaStream_t stream, other;
  cudaEvent_t done, otherDone;
  CHECK(cudaStreamCreate(&stream));
  CHECK(cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking));
  CHECK(cudaEventCreate(&done));
  CHECK(cudaEventCreate(&otherDone));
  for (int round = 1; round <= 3; ++round) {
    *latch = 0;
    twice<<<1, 64, 0, other>>>(scratch, scratch + 64, 64);
    CHECK(cudaEventRecord(otherDone, other));
    waitForLatch<<<1, 1, 0, stream>>>(latch, seen);
    CHECK(cudaGetLastError());
    // Queued behind the waiting kernel: they see what the host writes now.
    for (int i = 0; i < n; ++i) hostIn[i] = round * 1000 + i;
    CHECK(cudaMemcpyAsync(in, hostIn, n * sizeof(int), cudaMemcpyHostToDevice, stream));
    twice<<<n / 64, 64, 0, stream>>>(in, out, n);
    CHECK(cudaMemcpyAsync(hostOut, out, n * sizeof(int), cudaMemcpyDeviceToHost, stream));
    CHECK(cudaEventRecord(done, stream));
    bool waiting = cudaStreamQuery(stream) == cudaErrorNotReady && cudaEventQuery(done) == cudaErrorNotReady;
    bool otherReady = cudaStreamQuery(other) == cudaSuccess && cudaEventQuery(otherDone) == cudaSuccess;
    *latch = round;  // releases the stream
    CHECK(cudaStreamSynchronize(stream));
    CHECK(cudaEventSynchronize(done));
    int s = 0;
    CHECK(cudaMemcpy(&s, seen, sizeof s, cudaMemcpyDeviceToHost));
    printf("round %d: %s before the latch (the other stream: %s), the kernel saw %d, out[0]=%d out[255]=%d\n",
           round, waiting ? "not ready" : "ready", otherReady ? "ready" : "not ready", s, hostOut[0], hostOut[n - 1]);
  }
  // A host thread's poll: cudaStreamQuery lets the waiting kernel go on once the latch is written.
  *latch = 0;
  waitForLatch<<<1, 1, 0, stream>>>(latch, seen);
  int polls = 0;
  while (cudaStreamQuery(stream) == cudaErrorNotReady) {
    if (++polls == 3) *latch = 7;
  }
  int s = 0;
  CHECK(cudaMemcpy(&s, seen, sizeof s, cudaMemcpyDeviceToHost));
  // How often the host polls after the write depends on the GPU's timing (an H200 polled 30 times).
  printf("polled %s; the kernel saw %d\n", polls >= 3 ? "3 times or more" : "fewer than 3 times", s);
  CHECK(cudaFreeHost(latch));
  printf("PASS\n");
  return 0;
}
