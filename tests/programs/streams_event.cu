// Two streams ordered by an event (cudaEventRecord + cudaStreamWaitEvent), a
// stream synchronization and the host: no race between the kernels.
#include <cstdio>

#define CHECK(call)                                                               \
  do {                                                                            \
    cudaError_t e_ = (call);                                                      \
    if (e_ != cudaSuccess) { printf("%s: %s\n", #call, cudaGetErrorName(e_)); return 1; } \
  } while (0)

__global__ void write(int* data, int v) { data[threadIdx.x] = threadIdx.x + v; }
__global__ void read(const int* data, int* out) { out[threadIdx.x] += data[threadIdx.x]; }

int main() {
  const int n = 64;
  int *data, *out;
  CHECK(cudaMalloc(&data, n * sizeof(int)));
  CHECK(cudaMalloc(&out, n * sizeof(int)));
  CHECK(cudaMemset(out, 0, n * sizeof(int)));
  cudaStream_t s1, s2;
  cudaEvent_t written;
  CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
  CHECK(cudaEventCreate(&written));
  // s2 waits for s1's write through the event.
  write<<<1, n, 0, s1>>>(data, 0);
  CHECK(cudaEventRecord(written, s1));
  CHECK(cudaStreamWaitEvent(s2, written, 0));
  read<<<1, n, 0, s2>>>(data, out);
  // s1 writes again after the host synchronized with s2.
  CHECK(cudaStreamSynchronize(s2));
  write<<<1, n, 0, s1>>>(data, 100);
  // s2 reads after the host waited for the event recorded after that write.
  CHECK(cudaEventRecord(written, s1));
  CHECK(cudaEventSynchronize(written));
  read<<<1, n, 0, s2>>>(data, out);
  CHECK(cudaStreamSynchronize(s2));
  int h[n];
  CHECK(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
  printf("out[5]=%d out[63]=%d\n", h[5], h[63]);
  return 0;
}
