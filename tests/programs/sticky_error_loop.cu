// A program that never checks errors loops on a flag its faulted kernel was
// to set: every launch and copy after the fault fails with the sticky error,
// so the loop would never end, on a GPU as under predatar. predatar stops it
// after 100,000 such calls, naming the error (.stderr), and the run ends
// with the kernel fault's status (.status) instead of a timeout.
#include <cstdio>

__global__ void step(int* data, int* done) {
  data[threadIdx.x + 64] = 1;  // past the end of data: the launch faults before done is set
  if (threadIdx.x == 0) *done = 1;
}

int main() {
  int *data, *done, flag = 0;
  cudaMalloc(&data, 32 * sizeof(int));
  cudaMalloc(&done, sizeof(int));
  cudaMemset(done, 0, sizeof(int));
  printf("waiting for the kernel's flag\n");
  fflush(stdout);
  do {
    step<<<1, 32>>>(data, done);
    cudaMemcpy(&flag, done, sizeof flag, cudaMemcpyDeviceToHost);
  } while (flag == 0);
  printf("not reached\n");
  return 0;
}
