// Built with nvcc --default-stream per-thread (per_thread_default_stream.flags):
// stream 0 is then the host thread's own default stream, and the calls are the
// runtime's _ptsz/_ptds entry points. Unlike the legacy default stream it does
// not wait for other blocking streams: the kernel on s1 (line 14) and the one
// on stream 0 (line 15) race, where streams_legacy.cu's are ordered.
#include <cstdio>

#define CHECK(call)                                                                          \
  do {                                                                                       \
    cudaError_t e_ = (call);                                                                 \
    if (e_ != cudaSuccess) { printf("%s: %s\n", #call, cudaGetErrorName(e_)); return 1; }   \
  } while (0)

__global__ void write(int* data, int v) { data[threadIdx.x] = threadIdx.x + v; }
__global__ void increment(int* data) { data[threadIdx.x] += 1; }

int main() {
  const int n = 64;
  int* data;
  CHECK(cudaMalloc(&data, n * sizeof(int)));
  cudaStream_t s1;
  CHECK(cudaStreamCreate(&s1));
  write<<<1, n, 0, s1>>>(data, 10);
  increment<<<1, n>>>(data);  // the per-thread stream: not after s1
  CHECK(cudaStreamSynchronize(0));
  CHECK(cudaStreamQuery(0));
  cudaEvent_t done;
  CHECK(cudaEventCreate(&done));
  CHECK(cudaEventRecord(done, 0));
  CHECK(cudaStreamWaitEvent(s1, done, 0));
  increment<<<1, n, 0, s1>>>(data);  // after the event: ordered
  CHECK(cudaStreamSynchronize(s1));
  int h[n];
  CHECK(cudaMemcpy(h, data, sizeof h, cudaMemcpyDeviceToHost));
  printf("data[0]=%d data[63]=%d\n", h[0], h[63]);
  return 0;
}
