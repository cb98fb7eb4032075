// The two 8-bit floating-point formats of PTX's cvt (OCP FP8): E4M3 (bias 7,
// no infinity, NaN S.1111.111, largest 448) and E5M2 (bias 15, as IEEE:
// infinity S.11111.00, largest 57344). Conversions to them saturate (PTX
// allows only .satfinite) and round to nearest even; from them, every value
// is exact in f16 and f32.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

namespace predatar::sim {

inline constexpr uint8_t kFp8Nan = 0x7F;  // what PTX writes for a NaN, in both formats

// `v` rounded to E4M3 (`e4m3`) or E5M2, saturating to the largest finite
// value of its sign; `relu`: negative values (and -0) are +0.
inline uint8_t floatToFp8(float v, bool e4m3, bool relu) {
  const int mantissaBits = e4m3 ? 3 : 2, bias = e4m3 ? 7 : 15;
  const double largest = e4m3 ? 448.0 : 57344.0;
  const uint8_t largestBits = e4m3 ? 0x7E : 0x7B;
  if (std::isnan(v)) return kFp8Nan;
  uint8_t sign = std::signbit(v) ? 0x80 : 0;
  if (relu && sign) return 0;
  double magnitude = std::fabs(double(v));
  if (magnitude == 0) return sign;
  if (magnitude > largest) return sign | largestBits;  // (infinity too)
  const int minNormal = 1 - bias;
  int exponent = std::ilogb(magnitude);
  // the spacing of the format's values at this magnitude, subnormals included
  double quantum = std::ldexp(1.0, std::max(exponent, minNormal) - mantissaBits);
  double rounded = std::nearbyint(magnitude / quantum) * quantum;  // (to nearest even)
  if (rounded > largest) return sign | largestBits;
  if (rounded == 0) return sign;
  if (rounded < std::ldexp(1.0, minNormal))  // subnormal: exponent field 0
    return sign | uint8_t(rounded / std::ldexp(1.0, minNormal - mantissaBits));
  int roundedExponent = std::ilogb(rounded);
  auto mantissa = uint8_t((rounded / std::ldexp(1.0, roundedExponent) - 1.0) * (1 << mantissaBits));
  return sign | uint8_t((roundedExponent + bias) << mantissaBits) | mantissa;
}

inline float fp8ToFloat(uint8_t bits, bool e4m3) {
  const int mantissaBits = e4m3 ? 3 : 2, bias = e4m3 ? 7 : 15;
  int exponentField = (bits & 0x7F) >> mantissaBits, mantissa = bits & ((1 << mantissaBits) - 1);
  float sign = bits & 0x80 ? -1.0f : 1.0f;
  if (e4m3 && (bits & 0x7F) == 0x7F) return std::numeric_limits<float>::quiet_NaN();
  if (!e4m3 && exponentField == 31)
    return mantissa ? std::numeric_limits<float>::quiet_NaN() : sign * std::numeric_limits<float>::infinity();
  if (exponentField == 0) return sign * float(std::ldexp(double(mantissa), 1 - bias - mantissaBits));
  return sign * float(std::ldexp(1.0 + mantissa / double(1 << mantissaBits), exponentField - bias));
}

}  // namespace predatar::sim
