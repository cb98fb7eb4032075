// Kernels that never finish on a GPU, and one that runs long but finishes:
// the emulator must stop the first ones with a message saying where each
// warp is stuck, and must not stop the last one.
// Built with: nvcc --ptx -arch=sm_90 -lineinfo hangs.cu -o hangs.ptx

// Thread 0 spins on a flag that the other threads set only after the
// barrier thread 0 never reaches (compute-sanitizer reports the hang as a
// timeout; the emulator as a deadlock).
extern "C" __global__ void barrierSpin(volatile int* flag) {
  if (threadIdx.x == 0) {
    while (*flag == 0) {
    }
  }
  __syncthreads();
  if (threadIdx.x == 1) *flag = 1;
}

// A spin-wait on a word nobody writes.
extern "C" __global__ void spinForever(volatile int* flag) {
  while (*flag == 0) {
  }
}

// Spins until the clock has advanced 2^62 cycles: no state repeats, so only
// the step or time limit stops it.
extern "C" __global__ void clockSpin(int* out) {
  long long start = clock64();
  while (clock64() - start < (1ll << 62)) {
  }
  *out = 1;
}

// Computes in registers for a long time without storing: must finish.
extern "C" __global__ void longCompute(unsigned* out, unsigned n) {
  unsigned x = threadIdx.x;
  for (unsigned i = 0; i < n; ++i) x = x * 1664525u + 1013904223u;
  out[threadIdx.x] = x;
}
