// cudaHostRegister: the program's own malloc'd memory, registered as mapped,
// is written by a kernel through the pointer cudaHostGetDevicePointer gives;
// registering it twice, freeing it with cudaFreeHost and unregistering it
// twice are errors, as on a GPU.
#include <cstdio>
#include <cstdlib>

__global__ void square(int* values, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) values[i] = i * i;
}

int main() {
  const int n = 1000;
  int* host = static_cast<int*>(malloc(n * sizeof(int)));
  printf("register: %d\n", int(cudaHostRegister(host, n * sizeof(int), cudaHostRegisterMapped)));
  printf("register again: %d\n", int(cudaHostRegister(host + 10, 16, cudaHostRegisterDefault)));
  int* device = nullptr;
  printf("device pointer: %d\n", int(cudaHostGetDevicePointer(reinterpret_cast<void**>(&device), host, 0)));
  square<<<(n + 255) / 256, 256>>>(device, n);
  printf("synchronize: %d\n", int(cudaDeviceSynchronize()));
  bool ok = true;
  for (int i = 0; i < n; ++i) ok = ok && host[i] == i * i;
  printf("kernel wrote the host memory: %s\n", ok ? "yes" : "no");
  printf("cudaFreeHost of registered memory: %d\n", int(cudaFreeHost(host)));
  cudaGetLastError();
  printf("unregister: %d\n", int(cudaHostUnregister(host)));
  printf("unregister again: %d\n", int(cudaHostUnregister(host)));
  cudaGetLastError();
  free(host);
  return ok ? 0 : 1;
}
