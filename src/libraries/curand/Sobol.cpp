#include "libraries/curand/Sobol.h"

#include <bit>
#include <cstddef>

namespace predatar::libraries {
namespace {

// a * b mod p over GF(2), p of degree `degree` (<= 31).
uint64_t mulMod(uint64_t a, uint64_t b, uint64_t p, int degree) {
  uint64_t product = 0;
  for (; b; b >>= 1) {
    if (b & 1) product ^= a;
    a <<= 1;
    if (a >> degree & 1) a ^= p;
  }
  return product;
}

uint64_t powMod(uint64_t base, uint64_t e, uint64_t p, int degree) {
  uint64_t result = 1;
  for (; e; e >>= 1) {
    if (e & 1) result = mulMod(result, base, p, degree);
    base = mulMod(base, base, p, degree);
  }
  return result;
}

std::vector<uint64_t> primeFactors(uint64_t n) {
  std::vector<uint64_t> factors;
  for (uint64_t q = 2; q * q <= n; ++q) {
    if (n % q) continue;
    factors.push_back(q);
    while (n % q == 0) n /= q;
  }
  if (n > 1) factors.push_back(n);
  return factors;
}

// p (degree `degree`, constant term 1) is primitive: x has order 2^degree - 1
// modulo p, i.e. x^(2^degree - 1) = 1 and no x^((2^degree - 1) / q) is, for
// the prime factors q.
bool primitive(uint64_t p, int degree, const std::vector<uint64_t>& factors) {
  uint64_t order = (uint64_t(1) << degree) - 1, x = degree == 1 ? (2 ^ p) : 2;  // x mod p
  if (powMod(x, order, p, degree) != 1) return false;
  for (uint64_t q : factors)
    if (powMod(x, order / q, p, degree) == 1) return false;
  return true;
}

}  // namespace

std::vector<uint64_t> primitivePolynomials(uint32_t count) {
  std::vector<uint64_t> found;
  for (int degree = 1; found.size() < count && degree <= 31; ++degree) {
    auto factors = primeFactors((uint64_t(1) << degree) - 1);
    for (uint64_t low = 1; low < (uint64_t(1) << degree) && found.size() < count; low += 2) {
      uint64_t p = (uint64_t(1) << degree) | low;
      if (primitive(p, degree, factors)) found.push_back(p);
    }
  }
  return found;
}

namespace {

// Direction numbers of `Bits` bits (v_k = m_k 2^(Bits-k), k from 1).
template <class Word>
std::vector<Word> directions(uint32_t dimensions) {
  constexpr int kBits = 8 * sizeof(Word);
  std::vector<Word> v(size_t(dimensions) * kBits);
  for (int k = 0; k < kBits && dimensions > 0; ++k) v[size_t(k)] = Word(1) << (kBits - 1 - k);
  auto polynomials = primitivePolynomials(dimensions > 0 ? dimensions - 1 : 0);
  for (uint32_t d = 1; d < dimensions; ++d) {
    uint64_t p = polynomials[d - 1];
    int s = std::bit_width(p) - 1;
    Word* dir = &v[size_t(d) * kBits];
    for (int k = 0; k < kBits; ++k) {
      if (k < s) {
        dir[k] = Word(1) << (kBits - 1 - k);  // m_{k+1} = 1
        continue;
      }
      // v_k = a_1 v_{k-1} ^ ... ^ a_{s-1} v_{k-s+1} ^ v_{k-s} ^ (v_{k-s} >> s),
      // a_j the coefficient of x^(s-j).
      Word next = dir[k - s] ^ (dir[k - s] >> s);
      for (int j = 1; j < s; ++j)
        if (p >> (s - j) & 1) next ^= dir[k - j];
      dir[k] = next;
    }
  }
  return v;
}

}  // namespace

std::vector<uint32_t> sobolDirections(uint32_t dimensions) { return directions<uint32_t>(dimensions); }
std::vector<uint64_t> sobolDirections64(uint32_t dimensions) { return directions<uint64_t>(dimensions); }

}  // namespace predatar::libraries
