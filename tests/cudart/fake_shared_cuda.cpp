// Stands in for a program built with -cudart shared: a fat binary section and
// libcudart.so.13 (PreDataR's) as a needed library.
#include "cudart/runtime/Api.h"
extern "C" __attribute__((used, section(".nv_fatbin"), aligned(8)))
const unsigned char predatarFatbin[16] = {0x50, 0xed, 0x55, 0xba, 1, 0, 16, 0};
int main() {
  int n = 0;
  return cudaGetDeviceCount(&n) == 0 && n == 1 ? 0 : 1;
}
