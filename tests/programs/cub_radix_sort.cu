// A Thrust sort (CUB's radix sort kernels underneath): CUB asks
// cudaFuncGetAttributes for the PTX's architecture and picks its tuning
// policy from it, then runs the onesweep radix sort kernels. The result is
// sorted and no race is reported.
#include <thrust/device_vector.h>
#include <thrust/host_vector.h>
#include <thrust/sort.h>
#include <cstdio>

int main() {
  const int n = 4096;
  thrust::host_vector<unsigned> keys(n), values(n);
  unsigned x = 12345;
  for (int i = 0; i < n; ++i) {
    x = x * 1103515245u + 12345u;
    keys[i] = x >> 8;
    values[i] = i;
  }
  thrust::device_vector<unsigned> dk = keys, dv = values;
  thrust::sort_by_key(dk.begin(), dk.end(), dv.begin());
  thrust::host_vector<unsigned> sk = dk, sv = dv;
  bool sorted = true, paired = true;
  for (int i = 0; i < n; ++i) {
    if (i && sk[i - 1] > sk[i]) sorted = false;
    if (keys[sv[i]] != sk[i]) paired = false;
  }
  printf("sorted: %s, values follow keys: %s\n", sorted ? "yes" : "NO", paired ? "yes" : "NO");
  return 0;
}
