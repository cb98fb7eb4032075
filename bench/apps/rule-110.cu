// rule-110: the rule-110 cellular automaton on a ring of cells, for many
// generations in one kernel (after the ScoR application). Each block keeps
// its chunk of the ring in shared memory; at every generation it publishes
// its two border cells and a flag to its neighbours and waits for theirs
// (message passing: data, device fence, atomic flag; atomic flag, device
// fence, data). Every thread also counts, with atomics, how often each cell
// and its two neighbours were alive.
// -DRACEY injects the races the paper counts for rule-110: border flags
// with block-scoped fences, atomics of block scope on the counts of cells
// that a neighbouring block also updates, and a missing barrier.
#include "common.h"

#ifdef RACEY
#define FENCE() __threadfence_block()
#define COUNT(p) atomicAdd_block(p, 1)
#else
#define FENCE() __threadfence()
#define COUNT(p) atomicAdd(p, 1)
#endif

__host__ __device__ inline int rule110(int l, int c, int r) { return (110 >> (l << 2 | c << 1 | r)) & 1; }

// border[parity][block][0]: the block's first cell, [1]: its last cell.
__global__ void automaton(int* cells, int* border, int* flags, int* counts, int generations) {
  extern __shared__ int cur[];  // blockDim.x cells and a halo cell either side
  int c = blockDim.x, b = blockIdx.x, nb = gridDim.x, t = threadIdx.x;
  int n = c * nb, gid = b * c + t;
  cur[t + 1] = cells[gid];
  __syncthreads();
  for (int g = 1; g <= generations; ++g) {
    int* slot = border + (g % 2) * nb * 2;
    if (t == 0) {
      slot[b * 2] = cur[1];
      slot[b * 2 + 1] = cur[c];
      FENCE();  // RACE: rule-border-fence
      atomicExch(&flags[b], g);
    }
    if (t == 0 || t == c - 1) {
      int other = t == 0 ? (b + nb - 1) % nb : (b + 1) % nb;
      while (atomicAdd(&flags[other], 0) < g) {
      }
      FENCE();  // RACE: rule-border-fence
      if (t == 0) cur[0] = slot[other * 2 + 1];  // RACE: rule-border-fence
      else cur[c + 1] = slot[other * 2];  // RACE: rule-border-fence
    }
    __syncthreads();
    if (cur[t + 1]) {
      COUNT(&counts[(gid + n - 1) % n]);  // RACE: rule-count-scope
      COUNT(&counts[gid]);  // RACE: rule-count-scope
      COUNT(&counts[(gid + 1) % n]);  // RACE: rule-count-scope
    }
    int next = rule110(cur[t], cur[t + 1], cur[t + 2]);  // RACE: rule-missing-barrier
#ifndef RACEY
    __syncthreads();
#endif
    cur[t + 1] = next;  // RACE: rule-missing-barrier
    __syncthreads();
  }
  cells[gid] = cur[t + 1];
}

int main(int argc, char** argv) {
  Size size = parseSize(argc, argv);
  int blocks = pick(size, 4, 16, 64), width = pick(size, 32, 128, 256), gens = pick(size, 8, 64, 256);
  int n = blocks * width;
  int* cells = new int[n];
  int* next = new int[n];
  int* counts = new int[n]();
  int* got = new int[n];
  Lcg rng(110);
  for (int i = 0; i < n; ++i) cells[i] = rng.next() % 3 == 0;
  int *d_cells, *d_border, *d_flags, *d_counts;
  CHECK(cudaMalloc(&d_cells, n * sizeof(int)));
  CHECK(cudaMalloc(&d_border, 4 * blocks * sizeof(int)));
  CHECK(cudaMalloc(&d_flags, blocks * sizeof(int)));
  CHECK(cudaMalloc(&d_counts, n * sizeof(int)));
  CHECK(cudaMemcpy(d_cells, cells, n * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(d_flags, 0, blocks * sizeof(int)));
  CHECK(cudaMemset(d_counts, 0, n * sizeof(int)));
  automaton<<<blocks, width, (width + 2) * sizeof(int)>>>(d_cells, d_border, d_flags, d_counts, gens);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  for (int g = 0; g < gens; ++g) {
    for (int i = 0; i < n; ++i) {
      if (cells[i]) ++counts[(i + n - 1) % n], ++counts[i], ++counts[(i + 1) % n];
      next[i] = rule110(cells[(i + n - 1) % n], cells[i], cells[(i + 1) % n]);
    }
    std::memcpy(cells, next, n * sizeof(int));
  }
  bool ok = true;
  CHECK(cudaMemcpy(got, d_cells, n * sizeof(int), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) ok = ok && got[i] == cells[i];
  bool cellsOk = ok;
  CHECK(cudaMemcpy(got, d_counts, n * sizeof(int), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) ok = ok && got[i] == counts[i];
  char detail[96];
  std::snprintf(detail, sizeof detail, "cells=%d generations=%d cells %s counts %s", n, gens,
                cellsOk ? "match" : "differ", ok ? "match" : "differ");
  CHECK(cudaFree(d_cells));
  CHECK(cudaFree(d_border));
  CHECK(cudaFree(d_flags));
  CHECK(cudaFree(d_counts));
  delete[] cells;
  delete[] next;
  delete[] counts;
  delete[] got;
  return verdict("rule-110", ok, detail);
}
