#include <cooperative_groups.h>
// A grid-wide shift through cooperative_groups' grid.sync(): race-free in a
// cooperative launch (predatar kernel --cooperative), a trap in any other.
namespace cg = cooperative_groups;

extern "C" __global__ void gridShift(int* a) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int next = a[i + 1];
  cg::this_grid().sync();
  a[i] = next;
}

// The same without the grid barrier: the last thread of each block reads
// what the next block's first thread writes.
extern "C" __global__ void gridShiftUnsynced(int* a) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int next = a[i + 1];
  a[i] = next;
}
