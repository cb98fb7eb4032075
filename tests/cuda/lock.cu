// Lock-protected updates: a global spin lock taken with atomicCAS + fence,
// released with fence + atomicExch. Every thread takes the lock (lanes of one
// warp contend with each other: needs independent thread scheduling).
extern "C" __global__ void lockedCounter(int* lock, int* counter, float* sum) {
  bool done = false;
  while (!done) {
    if (atomicCAS(lock, 0, 1) == 0) {
      __threadfence();
      *counter = *counter + 1;
      *sum = *sum + 0.5f;
      __threadfence();
      atomicExch(lock, 0);
      done = true;
    }
  }
}

// A block-scoped lock in shared memory protecting a shared counter.
extern "C" __global__ void sharedLock(int* out) {
  __shared__ int lock;
  __shared__ int count;
  if (threadIdx.x == 0) { lock = 0; count = 0; }
  __syncthreads();
  for (bool done = false; !done;) {
    if (atomicCAS_block(&lock, 0, 1) == 0) {
      __threadfence_block();
      count = count + 2;
      __threadfence_block();
      atomicExch_block(&lock, 0);
      done = true;
    }
  }
  __syncthreads();
  if (threadIdx.x == 0) out[blockIdx.x] = count;
}
