// The SIMD blocks of the CPU scan engine that are written once for two vector widths: the
// AVX2 kernels of scan_simd_avx2.cc and the AVX-512 blocks of scan_simd_avx512.cc instantiate
// them with their own lane operations (logcumsumexp; cumsum is on Highway,
// kernels/funcs/simd/scan_cumsum.cc). Everything here has internal linkage, so each instruction
// set's translation unit compiles its own copy with its own flags.
//
// ---- logcumsumexp rows: the all-float block ----
//
// float32 rows, and 16-bit rows through their float buffers; 8 float lanes (AVX2, __m256) or 16
// (AVX-512, __m512).
//
// A block of n float steps (n a multiple of 8 * K for K lanes) in float lanes only: K segments of
// n / K contiguous steps, one per lane, moved 8 steps at a time through 8 x 8 transposes
// (Transpose8) into a step-major buffer, so each lane runs its own segment's sum down the steps
// with no in-register prefix.
//   Pass A: the terms t = exp(x - M), with x - M split exactly into a float head and tail
//     (TwoSum) so the float exp sees an exact argument (exp(d) = expf(head) * (1 + tail)); kept
//     in a buffer; and each lane's total as a float-float pair (TwoSum). The block total is the
//     lanes' totals added in double in a fixed pairwise order: the double only once per block,
//     and the same in both modes.
//   Pass B (storing): each lane's running pair starts at its offset P = a + b * (s + the totals
//     of the lanes before it) (double, once per block, split into a float pair) and adds b * t;
//     the output r + log(P) takes P = 2^e * f with f in [sqrt(1/2), sqrt(2)) from the bits, a
//     float log of f (|log f| <= 0.35, so its ulp error is ~2e-8 absolute), the pair's low part
//     as lo / hi, and r + e * ln2 with ln2 in two pieces (r + e * kLn2Hi exact as a TwoSum pair):
//     one rounding at the end, within 1e-7 of |out| >= 1, ~6e-8 absolute below.
// Outputs within kLseNearZero of 0 make the caller redo the block's outputs with the double log.
#pragma once

#include <immintrin.h>

#include <cstdint>

#include "kernels/funcs/cpu/scan_simd_avx512.h"
#include "kernels/funcs/scan_functors.h"

#ifndef PADDLE_OPS_VINLINE
#define PADDLE_OPS_VINLINE inline __attribute__((always_inline))
#endif

namespace phi {
namespace funcs {
namespace simd {
namespace {  // NOLINT(build/namespaces): one copy per instruction set

// ---- logcumsumexp rows ----


// The templates below take the width's operations as O (a struct of each translation unit):
// V (the vector), kLanes, Set (broadcast), Load / Store (aligned), Add, Sub, Mul, Fmadd
// (a * b + c), Fnmadd (c - a * b), Max, Min (the second operand where either is NaN), Abs,
// RoundNearest, Pow2 (2^m for integral m in the normal range, from the exponent bits), Rcp
// (approximate 1 / x), ZeroBelow(t, d, low) (t where d >= low, else 0) and SplitSqrt2(p, &f, &e)
// (p = 2^e * f, f in [sqrt(1/2), sqrt(2)), for a positive normal p).

// logcumsumexp near zero (docs/spec.md §1: float32 relative error <= 1e-6 where |ref| >= 1e-6):
// outputs with |x| < kLseNearZero take the double log (scan_simd_avx2.cc, kNearZero).
constexpr double kLseNearZero = 0.5;
constexpr float kLseFloatExpLow = -87.0f;  // float exp below this is set to 0 (float normal range)
constexpr float kLn2Hi = 0.693359375f;     // 9 bits: e * kLn2Hi is exact for |e| < 2^15
constexpr float kLn2Lo = -2.12194440e-4f;  // ln 2 - kLn2Hi
constexpr int kLseFloatBlockMax = 128;     // steps of the longest block (scan_simd_avx2.cc, kBlock)

PADDLE_OPS_VINLINE void Transpose8(__m256 r[8]) {
  __m256 t[8], u[8];
  for (int i = 0; i < 4; ++i) {
    t[2 * i] = _mm256_unpacklo_ps(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm256_unpackhi_ps(r[2 * i], r[2 * i + 1]);
  }
  for (int i = 0; i < 2; ++i) {
    u[4 * i + 0] = _mm256_shuffle_ps(t[4 * i], t[4 * i + 2], _MM_SHUFFLE(1, 0, 1, 0));
    u[4 * i + 1] = _mm256_shuffle_ps(t[4 * i], t[4 * i + 2], _MM_SHUFFLE(3, 2, 3, 2));
    u[4 * i + 2] = _mm256_shuffle_ps(t[4 * i + 1], t[4 * i + 3], _MM_SHUFFLE(1, 0, 1, 0));
    u[4 * i + 3] = _mm256_shuffle_ps(t[4 * i + 1], t[4 * i + 3], _MM_SHUFFLE(3, 2, 3, 2));
  }
  for (int i = 0; i < 4; ++i) {
    r[i] = _mm256_permute2f128_ps(u[i], u[4 + i], 0x20);
    r[i + 4] = _mm256_permute2f128_ps(u[i], u[4 + i], 0x31);
  }
}

// s = a + b and *e = a + b - s exactly, in float lanes.
template <typename O, typename V = typename O::V>
PADDLE_OPS_VINLINE V TwoSumF(V a, V b, V* e) {
  const V s = O::Add(a, b);
  const V bb = O::Sub(s, a);
  *e = O::Add(O::Sub(a, O::Sub(s, bb)), O::Sub(b, bb));
  return s;
}

// log(f) for f in [sqrt(1/2), sqrt(2)] only (no range reduction, no special values): with
// g = f - 1, log f = g - g^2 / 2 + g^3 * poly(g), poly the degree-8 minimax fit of Cephes' logf
// (public domain, the one Eigen's plog also evaluates): about 1 ulp of |log f| <= 0.35.
template <typename O, typename V = typename O::V>
PADDLE_OPS_VINLINE V LogNearOneF(V f) {
  static constexpr float kPoly[] = {7.0376836292e-2f,  -1.1514610310e-1f, 1.1676998740e-1f,
                                    -1.2420140846e-1f, 1.4249322787e-1f,  -1.6668057665e-1f,
                                    2.0000714765e-1f,  -2.4999993993e-1f, 3.3333331174e-1f};
  const V g = O::Sub(f, O::Set(1.0f));
  const V z = O::Mul(g, g);
  V y = O::Set(kPoly[0]);
  for (int i = 1; i < 9; ++i) y = O::Fmadd(y, g, O::Set(kPoly[i]));
  y = O::Mul(O::Mul(y, g), z);
  y = O::Fmadd(z, O::Set(-0.5f), y);
  return O::Add(g, y);
}

// exp(d) for d <= 0 (d below -87 gives a value the callers mask to 0): d = m ln2 + r with
// |r| <= ln2 / 2 (ln2 in two pieces, so r is exact to float), exp(r) by the degree-5 minimax
// polynomial of Cephes' expf (public domain; Eigen's pexp evaluates the same), times 2^m built
// in the exponent bits (m >= -126: a normal float). No range checks beyond the clamp: inline,
// about 1 ulp.
// x = m ln2 + r (|r| <= ln2 / 2, m integral, in *m and *r): returns P(r), exp(r) = 1 + r + r^2 P(r).
template <typename O, typename V = typename O::V>
PADDLE_OPS_VINLINE V ExpReducedF(V x, V* m, V* r) {
  static constexpr float kPoly[] = {1.9875691500e-4f, 1.3981999507e-3f, 8.3334519073e-3f,
                                    4.1665795894e-2f, 1.6666665459e-1f, 5.0000001201e-1f};
  *m = O::RoundNearest(O::Mul(x, O::Set(1.44269504088896341f)));
  *r = O::Fnmadd(*m, O::Set(kLn2Hi), x);
  *r = O::Fnmadd(*m, O::Set(kLn2Lo), *r);
  V y = O::Set(kPoly[0]);
  for (int i = 1; i < 6; ++i) y = O::Fmadd(y, *r, O::Set(kPoly[i]));
  return y;
}
template <typename O, typename V = typename O::V>
PADDLE_OPS_VINLINE V ExpNonPositiveF(V d) {
  V m, r;
  V y = ExpReducedF<O>(O::Max(d, O::Set(-87.3f)), &m, &r);
  y = O::Fmadd(y, O::Mul(r, r), O::Add(r, O::Set(1.0f)));
  return O::Mul(y, O::Pow2(m));
}

// r + log(hi + lo) for a float pair hi + lo (hi a positive normal float), rounded once.
template <typename O, typename V = typename O::V>
PADDLE_OPS_VINLINE V LogOfPairF(V hi, V lo, V vr) {
  V f, e;
  O::SplitSqrt2(hi, &f, &e);
  const V lf = LogNearOneF<O>(f);
  const V corr = O::Mul(lo, O::Rcp(hi));
  V err;
  const V h = TwoSumF<O>(vr, O::Mul(e, O::Set(kLn2Hi)), &err);
  const V y = O::Add(O::Fmadd(e, O::Set(kLn2Lo), lf), O::Add(corr, err));
  return O::Add(h, y);
}

// 8 x 8 tiles between a block in memory (K segments of seg steps, seg a multiple of 8) and a
// step-major buffer (buf[j][k]: step j of segment k), in their own loops so that the transpose
// has the registers to itself.
template <int K>
PADDLE_OPS_VINLINE void SegmentsToSteps(const float* xb, int seg, float (*buf)[K]) {
  for (int h = 0; h < K; h += 8) {
    for (int j = 0; j < seg; j += 8) {
      __m256 v[8];
      for (int k = 0; k < 8; ++k) v[k] = _mm256_loadu_ps(xb + (h + k) * seg + j);
      Transpose8(v);
      for (int i = 0; i < 8; ++i) _mm256_store_ps(&buf[j + i][h], v[i]);
    }
  }
}
template <int K>
PADDLE_OPS_VINLINE void StepsToSegments(float (*buf)[K], int seg, float* ob) {
  for (int h = 0; h < K; h += 8) {
    for (int j = 0; j < seg; j += 8) {
      __m256 v[8];
      for (int i = 0; i < 8; ++i) v[i] = _mm256_load_ps(&buf[j + i][h]);
      Transpose8(v);
      for (int k = 0; k < 8; ++k) _mm256_storeu_ps(ob + (h + k) * seg + j, v[k]);
    }
  }
}

// The K doubles of v added pairwise in a fixed tree: ((v0 + v1) + (v2 + v3)) + ...
inline double PairwiseSum(const double* v, int n) {
  return n == 1 ? v[0] : PairwiseSum(v, n / 2) + PairwiseSum(v + n / 2, n - n / 2);
}

// Passes A and B above for one block of n = K * seg floats at xb in scan order (seg a multiple
// of 8); s is the local sum before the block (against M), and a, b, r the output constants
// (storing only).
template <typename O, bool kStore>
__attribute__((noinline)) LseFloatBlockResult LseFloatBlockF(const float* xb, float* ob, int n, float M, double s,
                                                             double a, double b, double r) {
  using V = typename O::V;
  constexpr int K = O::kLanes;
  const int seg = n / K;
  alignas(64) float buf[kLseFloatBlockMax / K][K];
  alignas(64) float tb[kLseFloatBlockMax / K][K];
  SegmentsToSteps<K>(xb, seg, buf);
  const V nM = O::Set(-M), low = O::Set(kLseFloatExpLow);
  V th = O::Set(0.0f), tl = th;
  for (int j = 0; j < seg; ++j) {
    V dl;
    const V d = TwoSumF<O>(O::Load(buf[j]), nM, &dl);
    V t = ExpNonPositiveF<O>(d);
    t = O::ZeroBelow(O::Fmadd(t, dl, t), d, low);
    O::Store(tb[j], t);
    V e;
    th = TwoSumF<O>(th, t, &e);
    tl = O::Add(tl, e);
  }
  alignas(64) float h[K], l[K];
  O::Store(h, th);
  O::Store(l, tl);
  double lane[K];
  for (int k = 0; k < K; ++k) lane[k] = static_cast<double>(h[k]) + static_cast<double>(l[k]);
  LseFloatBlockResult res;
  res.sum = PairwiseSum(lane, K);
  res.first_p = 1.0;
  res.near_zero = false;
  if (!kStore) return res;
  res.first_p = a + b * (s + static_cast<double>(tb[0][0]));
  // Each lane's running P from its offset; b * t in float (b < 2^-70: the block's terms are
  // invisible against a >= 1, the carry's own term).
  const float fb = b < 0x1p-70 ? 0.0f : static_cast<float>(b);
  alignas(64) float oh[K], ol[K];
  double off = s;
  for (int k = 0; k < K; ++k) {
    const double p = a + b * off;
    oh[k] = static_cast<float>(p);
    ol[k] = static_cast<float>(p - static_cast<double>(oh[k]));
    off += lane[k];
  }
  V rh = O::Load(oh), rl = O::Load(ol);
  const V vb = O::Set(fb), vr = O::Set(static_cast<float>(r));
  V smallest = O::Set(__builtin_inff());  // the smallest |output| (NaN outputs left out)
  for (int j = 0; j < seg; ++j) {
    V e;
    rh = TwoSumF<O>(rh, O::Mul(O::Load(tb[j]), vb), &e);
    rl = O::Add(rl, e);
    const V o = LogOfPairF<O>(rh, rl, vr);
    smallest = O::Min(O::Abs(o), smallest);
    O::Store(buf[j], o);
  }
  StepsToSegments<K>(buf, seg, ob);
  O::Store(h, smallest);
  for (int k = 0; k < K; ++k) res.near_zero |= h[k] < static_cast<float>(kLseNearZero);
  return res;
}

}  // namespace
}  // namespace simd
}  // namespace funcs
}  // namespace phi
