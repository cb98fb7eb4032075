// Inclusive block scan (Hillis-Steele, double buffered), one block of up to 1024 threads.
extern "C" __global__ void scanBlock(const int* in, int* out, int n) {
  extern __shared__ int buf[];
  int t = threadIdx.x;
  int* a = buf;
  int* b = buf + blockDim.x;
  a[t] = t < n ? in[t] : 0;
  __syncthreads();
  for (int off = 1; off < blockDim.x; off <<= 1) {
    b[t] = t >= off ? a[t] + a[t - off] : a[t];
    __syncthreads();
    int* tmp = a; a = b; b = tmp;
  }
  if (t < n) out[t] = a[t];
}
