// The second translation unit of multi_unit.cu (built with -rdc=true): a
// device function, a device variable and a kernel that the other unit uses,
// and names that the other unit uses too, with internal linkage.
#include <cstdio>

__device__ int offset = 100;  // read by the other unit through extern

static __device__ int twice(int x) { return 2 * x; }  // the other unit has its own twice()

__device__ int scaleAndShift(int x) { return twice(x) + offset; }

template <int N>
__device__ int addN(int x) { return x + N; }  // weak: instantiated in both units

__global__ void libraryKernel(int* out) {
  int i = threadIdx.x;
  out[i] = addN<7>(i);
  if (i == 0) printf("library kernel: %d\n", out[0]);  // a format string of this unit ($str)
}

__global__ void racyLibraryKernel(int* counter) {
  *counter += 1;  // races: every thread
}
