// Racy / race-free kernel pairs for checking the detectors on emulated runs:
// the paper's ITS figure, intra-warp communication, scoped atomics, shared
// memory with and without a barrier.

// ITS figure: lanes 0 and 1 of one warp write each other's element.
extern "C" __global__ void itsRacy(int* data) {
  data[threadIdx.x] = 2;
  data[1 - threadIdx.x] = 1;
}

// Intra-warp: lane 0 writes, lane 1 reads, no synchronization / with __syncwarp.
extern "C" __global__ void intraWarpRacy(int* data, int* out) {
  if (threadIdx.x == 0) data[0] = 42;
  if (threadIdx.x == 1) out[0] = data[0];
}
extern "C" __global__ void intraWarpSynced(int* data, int* out) {
  if (threadIdx.x == 0) data[0] = 42;
  __syncwarp();
  if (threadIdx.x == 1) out[0] = data[0];
}

// Scoped atomics: block-scoped atomics from different blocks on one counter race.
extern "C" __global__ void scopedAtomicRacy(int* counter) {
  atomicAdd_block(counter, 1);
}
extern "C" __global__ void scopedAtomicOk(int* counter) {
  atomicAdd(counter, 1);
}

// Shared memory: neighbour exchange without / with a barrier.
extern "C" __global__ void sharedRacy(int* out) {
  __shared__ int s[128];
  s[threadIdx.x] = threadIdx.x;
  out[blockIdx.x * blockDim.x + threadIdx.x] = s[(threadIdx.x + 1) % blockDim.x];
}
extern "C" __global__ void sharedSynced(int* out) {
  __shared__ int s[128];
  s[threadIdx.x] = threadIdx.x;
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = s[(threadIdx.x + 1) % blockDim.x];
}

// Lock-protected read-modify-write (CAS + fence acquire, fence + exch release).
extern "C" __global__ void lockedUpdate(int* lock, int* value) {
  if (threadIdx.x % 32 != 0) return;  // one thread per warp contends
  while (atomicCAS(lock, 0, 1) != 0) {}
  __threadfence();
  *value = *value + 1;
  __threadfence();
  atomicExch(lock, 0);
}
extern "C" __global__ void unlockedUpdate(int* lock, int* value) {
  if (threadIdx.x % 32 != 0) return;
  *value = *value + 1;
}
