// cuBLAS's copy and i?amax on predatar's own cuBLAS (src/libraries/cublas),
// checked on the host: a copy reading x backwards (a negative increment) and
// one with strides, in single and complex double; isamax and idamax, the
// first largest |element|, 1-based, a tie included; and BLAS's 0 for an
// increment below 1.
#include <cublas_v2.h>

#include <cuComplex.h>

#include <vector>

#include "library_test_helpers.h"

int main() {
  cublasHandle_t h;
  CHECK(cublasCreate(&h));
  std::vector<float> u(100);
  for (int i = 0; i < 100; ++i) u[i] = float(i % 7) * (i % 2 ? -1.0f : 1.0f);
  float *du = device(u), *dw = device(std::vector<float>(100));
  CHECK(cublasScopy(h, 100, du, -1, dw, 1));  // w[i] = u[99 - i]
  std::vector<float> w = host(dw, 100);
  bool backwards = true;
  for (int i = 0; i < 100; ++i) backwards &= w[i] == u[99 - i];
  // Complex double, x with stride 1 into every second element of y.
  std::vector<cuDoubleComplex> z{{1, 2}, {3, 4}, {5, 6}}, zy(6, {0, 0});
  cuDoubleComplex *dz = device(z), *dzy = device(zy);
  CHECK(cublasZcopy(h, 3, dz, 1, dzy, 2));
  zy = host(dzy, 6);
  bool strided = true;
  for (int i = 0; i < 3; ++i) strided &= zy[2 * i].x == z[i].x && zy[2 * i].y == z[i].y && zy[2 * i + 1].x == 0;
  printf("scopy backwards: %s, zcopy strided: %s\n", yes(backwards), yes(strided));

  std::vector<double> peaks{1, -7, 3, 7, -2};
  double* dPeaks = device(peaks);
  int largest = 0, largestD = 0, none = -1;
  CHECK(cublasIsamax(h, 100, du, 1, &largest));     // |u[i]| is 6 first at i = 6: 7
  CHECK(cublasIdamax(h, 5, dPeaks, 1, &largestD));  // -7 and 7: the first
  CHECK(cublasIdamax(h, 5, dPeaks, 0, &none));      // increment 0: BLAS answers 0
  printf("isamax: %d, idamax: %d, idamax with increment 0: %d\n", largest, largestD, none);
  for (void* p : {(void*)du, (void*)dw, (void*)dz, (void*)dzy, (void*)dPeaks}) CHECK(cudaFree(p));
  CHECK(cublasDestroy(h));
  printf("done\n");
  return 0;
}
