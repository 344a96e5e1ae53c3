// An exact running sum of float64 (and narrower) values, for tests and the fuzzer that compare a
// floating sum with the exact one (docs/spec.md §2: never further from it than a float64 loop
// rounded once): a fixed-point integer of 32-bit digits held in int64 limbs, bit 0 of limb 0
// worth 2^kLow. Values must be multiples of 2^kLow and below 2^(kLow + 32 * kLimbs - 96) in
// magnitude; each limb takes up to 2^31 additions before it could overflow.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdlib>

namespace paddle_ops_test {

template <int kLow, int kLimbs>
struct ExactSumOf {
  int64_t d[kLimbs] = {};

  void Add(double v) {
    if (v == 0) return;
    int e;
    const double m = std::frexp(v, &e);
    const int64_t mi = static_cast<int64_t>(std::ldexp(m, 53));  // v = mi * 2^(e - 53), exactly
    int pos = e - 53 - kLow;
    uint64_t u = static_cast<uint64_t>(mi < 0 ? -mi : mi);
    // A subnormal's mantissa has trailing zero bits: shift them out (exactly) until its lowest
    // bit is at or above 2^kLow. (>= 0 then for every value the type is made for.)
    while (pos < 0 && (u & 1u) == 0) {
      u >>= 1;
      ++pos;
    }
    if (pos < 0 || pos / 32 + 2 >= kLimbs) std::abort();  // outside the range the type is made for
    const unsigned __int128 w = static_cast<unsigned __int128>(u) << (pos % 32);
    const int64_t sign = mi < 0 ? -1 : 1;
    for (int k = 0; k < 3; ++k) d[pos / 32 + k] += sign * static_cast<int64_t>((w >> (32 * k)) & 0xffffffffu);
  }

  // |this - v|, rounded to long double (equal distances give equal results).
  long double DistanceTo(double v) const {
    ExactSumOf t = *this;
    t.Add(-v);
    for (int i = 0; i + 1 < kLimbs; ++i) {  // carries: digits into [0, 2^32), the sign on top
      const int64_t c = t.d[i] >= 0 ? t.d[i] >> 32 : -((-t.d[i] + 0xffffffffLL) >> 32);
      t.d[i] -= c * (int64_t{1} << 32);
      t.d[i + 1] += c;
    }
    long double r = 0;
    for (int i = kLimbs - 1; i >= 0; --i) r = r * 4294967296.0L + static_cast<long double>(t.d[i]);
    return std::fabs(std::ldexp(r, kLow));
  }
};

// float32 data and float64 data of moderate range ([2^-224, 2^128]).
using ExactSum = ExactSumOf<-224, 14>;
// Any finite float64 (subnormals included: 2^-1074 is above 2^-1088) with sums below 2^1120.
using ExactSumFloat64 = ExactSumOf<-1088, 70>;

}  // namespace paddle_ops_test
