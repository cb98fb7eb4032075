// Kernels that must fail or that exercise the event stream.
extern "C" __global__ void outOfBounds(int* data, int n) {
  data[threadIdx.x + n] = 1;  // writes past the allocation when n == its size
}

// Warp 0 waits at named barrier 1 for 64 threads; warp 1 never arrives.
extern "C" __global__ void barrierDeadlock(int* data) {
  if (threadIdx.x < 32) {
    asm volatile("bar.sync 1, 64;");
  }
  data[threadIdx.x] = 1;
}

// The ITS figure: two stores per warp, racing between lanes 0 and 1.
extern "C" __global__ void itsFigure(int* data) {
  data[threadIdx.x] = 2;
  data[1 - threadIdx.x] = 1;
}

// Spins forever on a flag nobody sets.
extern "C" __global__ void spinForever(volatile int* flag) {
  while (*flag == 0) {}
}
