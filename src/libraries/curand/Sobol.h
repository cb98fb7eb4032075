// Direction numbers of Sobol's sequence for predatar's cuRAND (quasi-random
// generators), computed here rather than copied from a table: dimension 0 is
// van der Corput's (v_k = 2^(31-k)); dimension d >= 1 uses the d-th primitive
// polynomial over GF(2), in order of degree then value (x+1, x^2+x+1,
// x^3+x+1, x^3+x^2+1, ...), with initial numbers m_1..m_s = 1 (odd and below
// 2^k, as Sobol's construction requires). The first two dimensions are then
// the classic ones; later ones are valid Sobol dimensions but not Joe and
// Kuo's (nor NVIDIA's), so points differ from cuRAND's from dimension 3 on.
#pragma once

#include <cstdint>
#include <vector>

namespace predatar::libraries {

inline constexpr uint32_t kMaxSobolDimensions = 20000;  // as cuRAND's Sobol32

// 32 direction numbers per dimension, dimension after dimension.
std::vector<uint32_t> sobolDirections(uint32_t dimensions);
// The same sequence to 64 bits: 64 direction numbers per dimension (their top
// 32 bits are sobolDirections').
std::vector<uint64_t> sobolDirections64(uint32_t dimensions);

// The first `count` primitive polynomials over GF(2) in order of degree then
// value, as bit masks (x^3+x+1 = 0b1011).
std::vector<uint64_t> primitivePolynomials(uint32_t count);

}  // namespace predatar::libraries
