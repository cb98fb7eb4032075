// Kernels for the checks of what scheduling programs may rely on
// (sim/Residency.h, sim/ForwardProgress.h).

// Block 0 spins until the grid's last block has set the flag: on a GPU that
// cannot hold the whole grid at once, block 0 waits for a block that never
// starts.
__global__ void waitForLastBlock(volatile int* flag, int* out) {
  if (blockIdx.x == gridDim.x - 1 && threadIdx.x == 0) *flag = 1;
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    while (*flag == 0) {
    }
    out[0] = 1;
  }
}

// Each block works alone.
__global__ void independentBlocks(int* out) { out[blockIdx.x * blockDim.x + threadIdx.x] = blockIdx.x; }

// Lanes of one warp take turns: the lane whose turn it is leaves the spin
// loop and does its work after it, while the others still spin. Hangs on an
// H100 (the warp reconverges after the loop first).
__global__ void turnAfterLoop(volatile int* turn, int* out) {
  while (*turn != threadIdx.x) {
  }
  out[threadIdx.x] = threadIdx.x;
  *turn = threadIdx.x + 1;
  __syncthreads();
}

// The same turns in lockstep: every thread walks through the turns and only
// thread t waits and works at turn t, so no lane needs a lane of its own warp
// to move: valid on a GPU.
__global__ void turnsInLockstep(volatile int* turn, int* out) {
  for (int t = 0; t < blockDim.x; ++t) {
    if (threadIdx.x != t) continue;
    while (*turn != t) {
    }
    out[t] = t;
    *turn = t + 1;
  }
  __syncthreads();
}

// Thread 0 of every block takes a ticket at each of `steps` steps, with a
// barrier between steps: tickets[block * steps + s] tells in which order the
// grid's blocks made their steps.
__global__ void ticketsPerStep(int* counter, int* tickets, int steps) {
  for (int s = 0; s < steps; ++s) {
    if (threadIdx.x == 0) tickets[blockIdx.x * steps + s] = atomicAdd(counter, 1);
    __syncthreads();
  }
}

// Each block takes a ticket, walks a table it never writes (many turns of
// loads and no store), then takes another. Run block by block, a block's
// second ticket comes before the next block's first: turns that read new
// words are not a spin-wait (sim/Scheduler.cpp).
__global__ void ticketsAroundATableWalk(int* counter, int* tickets, const int* table, int n, int* sums) {
  if (threadIdx.x == 0) tickets[blockIdx.x * 2] = atomicAdd(counter, 1);
  int sum = 0;
  for (int i = 0; i < n; ++i) sum += table[i];
  __syncthreads();
  if (threadIdx.x == 0) tickets[blockIdx.x * 2 + 1] = atomicAdd(counter, 1);
  sums[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

// Lanes that take different cases of a switch in every iteration of a loop
// with a uniform trip count, then store: valid on any GPU (the warp
// reconverges after the switch, and all lanes leave the loop together).
__global__ void divergentCasesInALoop(unsigned* out, int iterations) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned acc = 0;
  for (int i = 0; i < iterations; ++i) {
    switch ((threadIdx.x + i) % 6) {
      case 0: acc += i * 3; break;
      case 1: acc ^= i << 2; break;
      case 2: acc -= i; break;
      case 3: acc += __popc(i); break;
      case 4: acc *= 3; break;
      default: acc += 7; break;
    }
  }
  out[idx] = acc;
}

// Each lane walks a table for its own number of steps, then stores: the lanes
// that finish first wait at the loop's end for the others on a GPU, and none
// needs another. (Like curand_init's skip-ahead: NVIDIA's Monte Carlo samples.)
__global__ void unevenTableWalks(const unsigned* table, unsigned* out, unsigned n) {
  unsigned lane = threadIdx.x, acc = 0;
  for (unsigned i = 0; i < 40 * (lane + 1) + 1; ++i) acc ^= table[(i * 7 + lane) % n];
  out[lane] = acc;
}
