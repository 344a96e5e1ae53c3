// Shared by test_scan_carry.cc (CPU) and test_gpu.cc (GPU): the scans with a carry-in per line
// (kernels/funcs/scan_carry.h) against a float64 (long double) reference of the line with its
// carry in front, and the line totals against the same reference.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/funcs/scan_carry.h"

namespace scan_carry_test {

struct CarryCase {
  int64_t outer, length, inner;
  bool exclusive, reverse;
};

inline std::string Name(const CarryCase& c) {
  return "[" + std::to_string(c.outer) + ", " + std::to_string(c.length) + ", " + std::to_string(c.inner) + "]" +
         (c.exclusive ? " exclusive" : "") + (c.reverse ? " reverse" : "");
}

// Offset of step s (scan order) of line ln.
inline int64_t At(const CarryCase& c, int64_t ln, int64_t s) {
  const int64_t o = ln / c.inner, i = ln % c.inner;
  const int64_t k = c.reverse ? c.length - 1 - s : s;
  return (o * c.length + k) * c.inner + i;
}

// Reference outputs (long double) of logcumsumexp (lse) or cumsum of x with carry per line.
inline std::vector<long double> Reference(bool lse, const CarryCase& c, const std::vector<double>& x,
                                          const std::vector<double>& carry, std::vector<long double>* totals) {
  const int64_t lines = c.outer * c.inner;
  std::vector<long double> out(x.size());
  totals->assign(static_cast<size_t>(lines), 0.0L);
  for (int64_t ln = 0; ln < lines; ++ln) {
    long double acc = carry[ln], tot = lse ? -INFINITY : 0.0L;
    for (int64_t s = 0; s < c.length; ++s) {
      const long double v = x[At(c, ln, s)];
      if (c.exclusive) out[At(c, ln, s)] = acc;
      if (lse) {
        const long double m = std::fmax(acc, v);
        acc = m == -INFINITY ? m : m + std::log(std::exp(acc - m) + std::exp(v - m));
        const long double mt = std::fmax(tot, v);
        tot = mt == -INFINITY ? mt : mt + std::log(std::exp(tot - mt) + std::exp(v - mt));
      } else {
        acc += v;
        tot += v;
      }
      if (!c.exclusive) out[At(c, ln, s)] = acc;
    }
    (*totals)[ln] = tot;
  }
  return out;
}

// Random inputs: x in [-scale, scale] (integers: small), carries the same, every fourth lse
// carry -inf.
inline void Inputs(bool lse, bool integer, const CarryCase& c, uint32_t seed, std::vector<double>* x,
                   std::vector<double>* carry) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-3.0, 3.0);
  x->resize(static_cast<size_t>(c.outer * c.length * c.inner));
  for (auto& v : *x) v = integer ? std::floor(u(rng) * 10) : u(rng);
  carry->resize(static_cast<size_t>(c.outer * c.inner));
  for (size_t i = 0; i < carry->size(); ++i) {
    (*carry)[i] = integer ? std::floor(u(rng) * 1000) : 10 * u(rng);
    if (lse && i % 4 == 1) (*carry)[i] = -INFINITY;
  }
}

// |got - want| <= tol * max(1, |want|) (both -inf passes).
inline bool Close(long double want, double got, double tol) {
  if (std::isinf(static_cast<double>(want)) || std::isinf(got)) return static_cast<double>(want) == got;
  return std::fabs(static_cast<double>(want - got)) <= tol * std::fmax(1.0, std::fabs(static_cast<double>(want)));
}

// The line totals' tolerance (relative to max(1, |total|)): cumsum's double-double and float64
// logcumsumexp 1e-13; logcumsumexp of float32 and 16-bit inputs 2e-8, as the CPU's SIMD path sums
// float exponentials (each within about 1e-7 relative, docs/spec.md §1; float64 terms where the
// total is below 0.5), the same chunk totals that carry its own scans from chunk to chunk (measured
// <= 5.7e-9 on [4096, 16] rows of uniform(-3, 3); the GPU's float terms <= 1.9e-9).
template <typename T>
double TotalTol(bool lse) {
  return lse && !std::is_same<T, double>::value ? 2e-8 : 1e-13;
}

}  // namespace scan_carry_test
