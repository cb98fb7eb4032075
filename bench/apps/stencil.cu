// stencil: the paper's own benchmark (figure "Code for the stencil
// benchmark"). A 3x3 stencil over an N-column matrix, the rows divided into
// chunks, one chunk per block, one thread per column. For every row, each
// thread first records itself in a shared `current` word inside a critical
// section (a shared-memory spin lock), computes its output from the nine
// neighbours and writes it inside a second critical section.
// The race-free build reads from one matrix and writes another. -DRACEY is
// the paper's in-place version with the interleaving it enforces: threads go
// one after the other (a volatile turn word), so every read of a neighbour
// that another thread writes is separated from that write by critical
// sections that conflict with nothing: a predictable race that only gwcp
// reports; the turn word itself races too.
#include "common.h"

#define COLS 32

__device__ void lock(int* m) {
  while (atomicCAS(m, 0, 1) != 0) {
  }
  __threadfence();
}
__device__ void unlock(int* m) {
  __threadfence();
  atomicExch(m, 0);
}

// One thread's turn: record itself in `current`, then compute and write its
// output, each inside a critical section.
__device__ void visit(const double* src, double* dst, int out, int tid, int* current, int* lockWord) {
  const double c11 = 0.05, c12 = 0.1, c13 = 0.05, c21 = 0.1, c22 = 0.4, c23 = 0.1, c31 = 0.05, c32 = 0.1,
               c33 = 0.05;
  const int n = COLS + 2;
  lock(lockWord);
  *current = tid + 1;
  unlock(lockWord);
  double value = c11 * src[out - n - 1] + c12 * src[out - n] + c13 * src[out - n + 1] +  // RACE: stencil-inplace
                 c21 * src[out - 1] + c22 * src[out] + c23 * src[out + 1] +  // RACE: stencil-inplace
                 c31 * src[out + n - 1] + c32 * src[out + n] + c33 * src[out + n + 1];  // RACE: stencil-inplace
  lock(lockWord);
  dst[out] = value;  // RACE: stencil-inplace
  unlock(lockWord);
}

__global__ void stencil(const double* src, double* dst, int rowsPerBlock, int* last) {
  __shared__ int current, lockWord;
#ifdef RACEY
  __shared__ int turn;
#endif
  int tid = threadIdx.x, n = COLS + 2;  // columns 0 and COLS + 1 are the halo
  // Each block's chunk has its own halo rows, so that blocks share nothing.
  int start = 1 + blockIdx.x * (rowsPerBlock + 2), end = start + rowsPerBlock;
  for (int row = start; row < end; ++row) {
    if (tid == 0) {
      current = 0;
      lockWord = 0;
#ifdef RACEY
      turn = 0;
#endif
    }
    __syncthreads();
    int out = row * n + tid + 1;
#ifdef RACEY
    // Turns in lockstep: every thread walks through the turns and only
    // thread t waits and works at turn t. A lane that left a spin loop to work
    // while others of its warp still spin would wait for them where the warp
    // reconverges, and the program would hang on a GPU.
    for (int t = 0; t < COLS; ++t) {
      if (tid != t) continue;
      while (*(volatile int*)&turn != t) {  // RACE: stencil-turn
      }
      visit(src, dst, out, tid, &current, &lockWord);
      *(volatile int*)&turn = t + 1;  // RACE: stencil-turn
    }
#else
    visit(src, dst, out, tid, &current, &lockWord);
#endif
    __syncthreads();
  }
  if (tid == 0) last[blockIdx.x] = current;
}

int main(int argc, char** argv) {
  Size size = parseSize(argc, argv);
  int rowsPerBlock = pick(size, 4, 8, 16), blocks = pick(size, 2, 8, 16);
  int n = COLS + 2, cells = blocks * (rowsPerBlock + 2) * n;
  double *a = new double[cells], *ref = new double[cells], *got = new double[cells];
  Lcg rng(1);
  for (int i = 0; i < cells; ++i) a[i] = double(rng.next() % 100);
  const double c[9] = {0.05, 0.1, 0.05, 0.1, 0.4, 0.1, 0.05, 0.1, 0.05};
  std::memcpy(ref, a, cells * sizeof(double));
  // The race-free build computes from the input; the in-place one, in the
  // enforced order, from the rows and columns already updated.
#ifdef RACEY
  const double* from = ref;
#else
  const double* from = a;
#endif
  for (int r = 1; r < blocks * (rowsPerBlock + 2); ++r)
    for (int col = 1; col <= COLS && r % (rowsPerBlock + 2) != 0 && r % (rowsPerBlock + 2) != rowsPerBlock + 1; ++col) {
      double v = 0.0;
      for (int i = -1; i <= 1; ++i)
        for (int j = -1; j <= 1; ++j) v += c[(i + 1) * 3 + j + 1] * from[(r + i) * n + col + j];
      ref[r * n + col] = v;
    }
  double *d_src, *d_dst;
  int* d_last;
  CHECK(cudaMalloc(&d_src, cells * sizeof(double)));
  CHECK(cudaMalloc(&d_dst, cells * sizeof(double)));
  CHECK(cudaMalloc(&d_last, blocks * sizeof(int)));
  CHECK(cudaMemcpy(d_src, a, cells * sizeof(double), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_dst, a, cells * sizeof(double), cudaMemcpyHostToDevice));
#ifdef RACEY
  double* d_out = d_src;
#else
  double* d_out = d_dst;
#endif
  stencil<<<blocks, COLS>>>(d_src, d_out, rowsPerBlock, d_last);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(got, d_out, cells * sizeof(double), cudaMemcpyDeviceToHost));
  bool ok = true;
  for (int i = 0; i < cells; ++i) ok = ok && near(got[i], ref[i], 1e-9);
  char detail[96];
  std::snprintf(detail, sizeof detail, "matrix=%dx%d blocks=%d", blocks * rowsPerBlock, COLS, blocks);
  CHECK(cudaFree(d_src));
  CHECK(cudaFree(d_dst));
  CHECK(cudaFree(d_last));
  delete[] a;
  delete[] ref;
  delete[] got;
  return verdict("stencil", ok, detail);
}
