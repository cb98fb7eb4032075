// A mul/mul/sub that nvcc leaves to ptxas, which fuses it (ptx/Contraction.h):
// with every input 1 + 2^-12, a*b - c*d is 2^-24 fused and 0 rounded twice
// (`predatar kernel --fmad off`).
extern "C" __global__ void residual(float* out, const float* in) {
  float a = in[0], b = in[1], c = in[2], d = in[3];
  out[0] = a * b - c * d;
}
