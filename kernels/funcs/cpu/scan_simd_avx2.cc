// AVX2 + FMA kernels of the CPU scan engine (scan_simd.h). Built with -mavx2 -mfma -mf16c
// -ffp-contract=off (CMake option PADDLE_OPS_CPU_SIMD) and only ever called after the run-time
// dispatch of kernels/funcs/simd/cpu_isa.h (scan_simd_dispatch.cc); with AVX-512 in use
// (ScanCall::avx512) they call the AVX-512 blocks of scan_simd_avx512.cc. The blocks written
// once for both widths are in scan_simd_lanes.h. float64 exp/log are Eigen's packet math; the
// float32 ones are inline polynomials (scan_simd_lanes.h). The design: docs/cpu_engine.md.
//
// Each kernel plugs into the chunked driver (scan_driver.h). A chunk is processed in blocks of
// kBlock steps; a block of each sequence is first gathered into a small contiguous buffer in
// scan order and converted to the compute type (so reverse, strided columns and 16-bit types
// are all the same code), then scanned in registers, then scattered back (shifted by one
// for exclusive). Forward inclusive float32/float64 logcumsumexp rows skip the buffers.
// (cumsum is on Highway, kernels/funcs/simd/scan_cumsum.cc.)
//
// Determinism: a chunk's total (Local) is computed by the same instructions in the reduce
// (Chunk<false>) and scan (Chunk<true>) modes, independent of the carry, and every output is a
// function of its chunk's data and carry only; contraction into FMAs is off so the two modes
// cannot be compiled differently.
#include <immintrin.h>

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "kernels/funcs/cpu/scan_driver.h"
#include "kernels/funcs/cpu/scan_simd.h"
#include "kernels/funcs/cpu/scan_simd_avx512.h"
#include "kernels/funcs/cpu/scan_simd_lanes.h"
#include "kernels/funcs/scan_functors.h"
#include "kernels/funcs/simd/convert.h"
#include "paddle_ops/common/bfloat16.h"
#include "paddle_ops/common/float16.h"

#if !defined(__AVX2__) || !defined(__FMA__)
#error "scan_simd_avx2.cc must be compiled with -mavx2 -mfma"
#endif

namespace phi {
namespace funcs {
namespace simd {
namespace {

// The 8 float lanes of scan_simd_lanes.h (its templates' O).
struct FloatLanes8 {
  using V = __m256;
  static constexpr int kLanes = 8;
  static __m256 Set(float v) { return _mm256_set1_ps(v); }
  static __m256 Load(const float* p) { return _mm256_load_ps(p); }
  static void Store(float* p, __m256 v) { _mm256_store_ps(p, v); }
  static __m256 Add(__m256 a, __m256 b) { return _mm256_add_ps(a, b); }
  static __m256 Sub(__m256 a, __m256 b) { return _mm256_sub_ps(a, b); }
  static __m256 Mul(__m256 a, __m256 b) { return _mm256_mul_ps(a, b); }
  static __m256 Fmadd(__m256 a, __m256 b, __m256 c) { return _mm256_fmadd_ps(a, b, c); }
  static __m256 Fnmadd(__m256 a, __m256 b, __m256 c) { return _mm256_fnmadd_ps(a, b, c); }
  static __m256 Max(__m256 a, __m256 b) { return _mm256_max_ps(a, b); }
  static __m256 Min(__m256 a, __m256 b) { return _mm256_min_ps(a, b); }
  static __m256 Abs(__m256 v) { return _mm256_andnot_ps(_mm256_set1_ps(-0.0f), v); }
  static __m256 RoundNearest(__m256 v) { return _mm256_round_ps(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
  static __m256 Pow2(__m256 m) {
    return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(m), _mm256_set1_epi32(127)), 23));
  }
  static __m256 Rcp(__m256 v) { return _mm256_rcp_ps(v); }
  static __m256 ZeroBelow(__m256 t, __m256 d, __m256 low) { return _mm256_and_ps(t, _mm256_cmp_ps(d, low, _CMP_GE_OQ)); }
  static void SplitSqrt2(__m256 p, __m256* f, __m256* e) {
    const __m256i bits = _mm256_castps_si256(p);
    *f = _mm256_castsi256_ps(
        _mm256_or_si256(_mm256_and_si256(bits, _mm256_set1_epi32(0x007FFFFF)), _mm256_set1_epi32(0x3F800000)));
    *e = _mm256_cvtepi32_ps(_mm256_sub_epi32(_mm256_srli_epi32(bits, 23), _mm256_set1_epi32(127)));
    const __m256 big = _mm256_cmp_ps(*f, _mm256_set1_ps(1.41421356f), _CMP_GT_OQ);
    *f = _mm256_blendv_ps(*f, _mm256_mul_ps(*f, _mm256_set1_ps(0.5f)), big);
    *e = _mm256_add_ps(*e, _mm256_and_ps(big, _mm256_set1_ps(1.0f)));
  }
};

}  // namespace
}  // namespace simd
}  // namespace funcs
}  // namespace phi


namespace phi {
namespace funcs {
namespace simd {
namespace avx2 {
namespace {

using Eigen::internal::Packet4d;
using Eigen::internal::Packet8f;

// Vector helpers must be inlined: called out of line, their __m256 arguments and results pass
// through the stack (measured: the float32 row scan spent a third of its time there).
#define PADDLE_OPS_VINLINE inline __attribute__((always_inline))

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr int kBlock = 128;  // steps per block; divides every chunk length (multiples of 1024)
// logcumsumexp near zero (docs/spec.md §1: float32 relative error <= 1e-6 where |ref| >= 1e-6).
// An output x with |x| < kNearZero takes the double log, not the float one (whose ~3e-8 absolute
// error is too much there); and while a chunk's local prefix is below kNearZero its terms take
// the double exponential (a float term's relative error, ~1e-7, is absolute in an output near 0).
// Blocks whose max is below kFarBelow add less than e^kFarBelow * kBlock each: their float terms
// cannot matter. A local prefix is <= the prefix with its carry, so the choice made from the
// local state alone is safe and the same in the reduce and the storing passes.
constexpr double kNearZero = kLseNearZero;  // scan_simd_lanes.h
constexpr double kFarBelow = -40.0;

// ---- register helpers ------------------------------------------------------------------------

// Inclusive prefix sum of the 4 lanes: [a, a+b, (a+b)+c, (a+b)+(c+d)].
PADDLE_OPS_VINLINE __m256d PrefixSum4(__m256d v) {
  __m256d t = _mm256_blend_pd(_mm256_permute4x64_pd(v, _MM_SHUFFLE(2, 1, 0, 0)), _mm256_setzero_pd(), 0x1);
  v = _mm256_add_pd(v, t);
  return _mm256_add_pd(v, _mm256_permute2f128_pd(v, v, 0x08));
}
PADDLE_OPS_VINLINE __m256d BroadcastLast(__m256d v) { return _mm256_permute4x64_pd(v, 0xFF); }
// The running sums of 4 more steps t: run + the lanes' inclusive prefix; *run moves on to
// the last of them.
PADDLE_OPS_VINLINE __m256d RunningSum4(__m256d t, __m256d* run) {
  const __m256d s = _mm256_add_pd(PrefixSum4(t), *run);
  *run = BroadcastLast(s);
  return s;
}
// A block's lane-wise total in two accumulators, even vectors into tot0 and odd ones into tot1
// (added together, in that order, at the end of the block).
PADDLE_OPS_VINLINE void AddToBlockTotal(int i, __m256d t, __m256d* tot0, __m256d* tot1) {
  if (i & 1) {
    *tot1 = _mm256_add_pd(*tot1, t);
  } else {
    *tot0 = _mm256_add_pd(*tot0, t);
  }
}
// Sum of the 4 lanes in a fixed order: (v0 + v2) + (v1 + v3).
PADDLE_OPS_VINLINE double HorizontalSum(__m256d v) {
  const __m128d s = _mm_add_pd(_mm256_castpd256_pd128(v), _mm256_extractf128_pd(v, 1));
  return _mm_cvtsd_f64(_mm_add_sd(s, _mm_unpackhi_pd(s, s)));
}
PADDLE_OPS_VINLINE float HorizontalMax(__m256 v) {
  __m128 m = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  m = _mm_max_ps(m, _mm_movehl_ps(m, m));
  m = _mm_max_ss(m, _mm_shuffle_ps(m, m, 1));
  return _mm_cvtss_f32(m);
}
PADDLE_OPS_VINLINE double HorizontalMax(__m256d v) {
  __m128d m = _mm_max_pd(_mm256_castpd256_pd128(v), _mm256_extractf128_pd(v, 1));
  return _mm_cvtsd_f64(_mm_max_sd(m, _mm_unpackhi_pd(m, m)));
}

// One vector of 8 float or 4 double lanes, overloaded by width for the passes written once
// for both.
PADDLE_OPS_VINLINE __m256 SetLanes(float v) { return _mm256_set1_ps(v); }
PADDLE_OPS_VINLINE __m256d SetLanes(double v) { return _mm256_set1_pd(v); }
PADDLE_OPS_VINLINE __m256 LoadLanes(const float* p) { return _mm256_loadu_ps(p); }
PADDLE_OPS_VINLINE __m256d LoadLanes(const double* p) { return _mm256_loadu_pd(p); }
PADDLE_OPS_VINLINE __m256 MaxLanes(__m256 a, __m256 b) { return _mm256_max_ps(a, b); }
PADDLE_OPS_VINLINE __m256d MaxLanes(__m256d a, __m256d b) { return _mm256_max_pd(a, b); }
// nan with the lanes where v is NaN set (all ones).
PADDLE_OPS_VINLINE __m256 OrNaNLanes(__m256 nan, __m256 v) {
  return _mm256_or_ps(nan, _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
}
PADDLE_OPS_VINLINE __m256d OrNaNLanes(__m256d nan, __m256d v) {
  return _mm256_or_pd(nan, _mm256_cmp_pd(v, v, _CMP_UNORD_Q));
}
PADDLE_OPS_VINLINE bool AnyLaneSet(__m256 m) { return _mm256_movemask_ps(m) != 0; }
PADDLE_OPS_VINLINE bool AnyLaneSet(__m256d m) { return _mm256_movemask_pd(m) != 0; }

// The element type <-> compute type. 16-bit types go through their float conversions.
template <typename F, typename T>
inline F ToCompute(T v) {
  return static_cast<F>(static_cast<float>(v));
}
template <>
PADDLE_OPS_VINLINE double ToCompute<double, double>(double v) {
  return v;
}
template <typename T, typename F>
inline T FromCompute(F v) {
  return static_cast<T>(v);
}
template <>
inline dtype::float16 FromCompute<dtype::float16, double>(double v) {
  return static_cast<dtype::float16>(static_cast<float>(v));
}
template <>
inline dtype::bfloat16 FromCompute<dtype::bfloat16, double>(double v) {
  return static_cast<dtype::bfloat16>(static_cast<float>(v));
}

// The 16-bit types load and store through the run-time dispatched vector conversions of
// kernels/funcs/simd/convert.h (bitwise the scalar ones, so results do not depend on the
// instruction set they use: F16C / AVX-512 BF16 / integer lanes / scalar).
template <typename T>
constexpr bool kIs16Bit = std::is_same<T, dtype::float16>::value || std::is_same<T, dtype::bfloat16>::value;

template <typename From, typename To>
inline void ConvertVec(const From* x, To* y, int64_t n) {
  ::phi::funcs::simd::Convert(x, y, n);
}

// A column step's run of n <= 8 lanes to float. bfloat16 -> float32 is a 16-bit shift: inline,
// it costs less than the call (measured: bfloat16 cumsum over [4096, 256], axis 0, 8.3 ns per
// element with the shift, 12 with a call per step); float16 takes the vector conversion.
template <typename T>
PADDLE_OPS_VINLINE void LanesToFloat(const T* p, float* f, int n) {
  if constexpr (std::is_same<T, dtype::bfloat16>::value) {
    for (int g = 0; g < n; ++g) f[g] = dtype::bfloat16::BitsToFloat(p[g].x);
  } else {
    ConvertVec(p, f, n);
  }
}

// Steps b0 .. b0 + n - 1 (n <= kBlock) of a contiguous row (stride 1) of a 16-bit type as
// float, in scan order: the steps are one run of memory, converted at once (and reversed).
template <typename T>
void RowToFloat(const T* x, const SeqGroup& q, int64_t b0, int n, float* f) {
  if (!q.reverse) {
    ConvertVec(x + q.Offset(b0), f, n);
    return;
  }
  alignas(32) float t[kBlock];
  ConvertVec(x + q.Offset(b0 + n - 1), t, n);
  for (int j = 0; j < n; ++j) f[j] = t[n - 1 - j];
}

// Stores 8 double lanes (2 x 4) as n <= 8 consecutive elements of type T.
template <typename T>
PADDLE_OPS_VINLINE void StoreLanes8(T* p, int n, __m256d lo, __m256d hi) {
  if constexpr (kIs16Bit<T>) {  // rounded to float in lanes, as FromCompute does one by one
    alignas(32) float f[8];
    _mm256_store_ps(f, _mm256_set_m128(_mm256_cvtpd_ps(hi), _mm256_cvtpd_ps(lo)));
    ConvertVec(f, p, n);
    return;
  }
  if constexpr (std::is_same<T, float>::value) {
    if (n == 8) {
      _mm256_storeu_ps(p, _mm256_set_m128(_mm256_cvtpd_ps(hi), _mm256_cvtpd_ps(lo)));
      return;
    }
  } else if constexpr (std::is_same<T, double>::value) {
    if (n == 8) {
      _mm256_storeu_pd(p, lo);
      _mm256_storeu_pd(p + 4, hi);
      return;
    }
  }
  alignas(32) double d[8];
  _mm256_store_pd(d, lo);
  _mm256_store_pd(d + 4, hi);
  for (int g = 0; g < n; ++g) p[g] = FromCompute<T>(d[g]);
}

template <typename T>
using LseCompute = typename std::conditional<std::is_same<T, double>::value, double, float>::type;

// ---- log-sum-exp -------------------------------------------------------------------------
//
// A prefix is kept as (m, s): value m + log(s), m the running max, s = sum exp(x - m) in
// double. Empty: (-inf, 0). NaN anywhere: m = NaN. A +inf element: m = +inf.
//
// Fast block: with M = max(m, block max) the block's terms t = exp(x - M) are computed in F
// lanes (float for float32: relative error ~1 ulp of float per term, and a sum of positive
// terms keeps that relative error, it does not accumulate), summed in double. The outputs
// combine the chunk's carry (mc, sc) with the chunk-local prefix (M, s_j):
//   R = max(mc, M), P_j = sc * exp(mc - R) + exp(M - R) * s_j, out_j = R + log(P_j)  (double log).
// Every output has its own max-free reference R >= its true value, and P_j >= exp(out_j - R);
// so the only way to lose precision is a first output of the block far below R (a block that
// raises the max a lot above everything before it): then P_0 < 2^-64 and the block's outputs
// are recomputed exactly element by element (the seed's block-max flaw, guarded). Terms with
// x - M below the exp range are exactly 0 (not Eigen's clamped 1e-39), so they add nothing,
// as -inf must.
struct LseState {
  double m;
  double s;
};

inline LseState LseEmpty() { return {-kInf, 0.0}; }

inline LseState LseCombine(const LseState& a, const LseState& b) {
  if (std::isnan(a.m) || std::isnan(b.m)) return {std::numeric_limits<double>::quiet_NaN(), 1.0};
  if (b.m == -kInf) return a;
  if (a.m == -kInf) return b;
  if (a.m == b.m) return {a.m, a.s + b.s};  // also +inf with +inf
  if (a.m > b.m) return {a.m, a.s + b.s * std::exp(b.m - a.m)};
  return {b.m, a.s * std::exp(a.m - b.m) + b.s};
}

inline LseState LseOf(double x) { return x == -kInf ? LseEmpty() : LseState{x, 1.0}; }

PADDLE_OPS_VINLINE double LseValue(const LseState& st) {
  if (!std::isfinite(st.m)) return st.m;
  return st.m + std::log(st.s);
}

// Per-sequence output constants of a block: P = a + b * s_j, out = r + log(P).
struct LseOutConst {
  double key_m = std::numeric_limits<double>::quiet_NaN();
  double r, a, b;
};

template <typename F>
struct LseLanes;

template <>
struct LseLanes<float> {
  static constexpr int kLanes = 8;
  static constexpr float kExpLow = -87.0f;  // exp below this is set to 0 (float normal range)
};
template <>
struct LseLanes<double> {
  static constexpr int kLanes = 4;
  static constexpr double kExpLow = -707.0;
};

// Outputs r + log(a + b * s) for the 4 double lanes s; the log is Eigen's plog in double.
PADDLE_OPS_VINLINE __m256d LseOut4(__m256d s, __m256d va, __m256d vb, __m256d vr, __m256d* first_p) {
  const __m256d p = _mm256_fmadd_pd(vb, s, va);
  if (first_p) *first_p = p;
  return _mm256_add_pd(vr, Eigen::internal::plog<Packet4d>(p));
}

// r + log(p) for 8 double lanes p (2 x 4) whose result is rounded to float: p = 2^e * f with
// f in [sqrt(1/2), sqrt(2)) taken from the bits of p (exact), log(p) = e * ln2 (in double) +
// log(f), and log(f), at most 0.35 in size, in float lanes by Eigen's plog: one float log for 8
// lanes instead of two double logs for 4 each. The rounding of f to float is corrected to first
// order, so the error of log(p) is the float log's, about 2^-24 * |log f| + 2^-25 < 4e-8
// absolute, inside the spec's 2.5e-7 with the output's own rounding. Only for finite p >= 2^-1022 (smaller p are redone exactly by
// the callers' guard, p < 2^-64).
PADDLE_OPS_VINLINE void SplitExponent(__m256d p, __m256d* e, __m256d* f) {
  const __m256i bits = _mm256_castpd_si256(p);
  const __m256d m = _mm256_castsi256_pd(_mm256_or_si256(_mm256_and_si256(bits, _mm256_set1_epi64x(0x000FFFFFFFFFFFFFLL)),
                                                        _mm256_set1_epi64x(0x3FF0000000000000LL)));
  // 2^52 + biased exponent, as a double, minus (2^52 + 1023): the unbiased exponent.
  const __m256d eb = _mm256_castsi256_pd(
      _mm256_or_si256(_mm256_srli_epi64(bits, 52), _mm256_set1_epi64x(0x4330000000000000LL)));
  const __m256d e0 = _mm256_sub_pd(eb, _mm256_set1_pd(4503599627370496.0 + 1023.0));
  const __m256d big = _mm256_cmp_pd(m, _mm256_set1_pd(1.4142135623730951), _CMP_GT_OQ);
  *f = _mm256_blendv_pd(m, _mm256_mul_pd(m, _mm256_set1_pd(0.5)), big);
  *e = _mm256_add_pd(e0, _mm256_and_pd(big, _mm256_set1_pd(1.0)));
}
PADDLE_OPS_VINLINE void LogPlus8(__m256d plo, __m256d phi, __m256d rlo, __m256d rhi, __m256d* olo, __m256d* ohi) {
  __m256d elo, flo, ehi, fhi;
  SplitExponent(plo, &elo, &flo);
  SplitExponent(phi, &ehi, &fhi);
  const __m128 flo_f = _mm256_cvtpd_ps(flo), fhi_f = _mm256_cvtpd_ps(fhi);
  const __m256 ff = _mm256_set_m128(fhi_f, flo_f);
  const __m256 lf = Eigen::internal::plog<Packet8f>(ff);
  // log(f) = log(f_float) + (f - f_float) / f_float: the rounding of f to float is put back
  // (|f - f_float| <= 2^-24 f, so an approximate reciprocal is plenty).
  const __m256 rf = _mm256_rcp_ps(ff);
  const __m256d clo = _mm256_mul_pd(_mm256_sub_pd(flo, _mm256_cvtps_pd(flo_f)), _mm256_cvtps_pd(_mm256_castps256_ps128(rf)));
  const __m256d chi = _mm256_mul_pd(_mm256_sub_pd(fhi, _mm256_cvtps_pd(fhi_f)), _mm256_cvtps_pd(_mm256_extractf128_ps(rf, 1)));
  const __m256d ln2 = _mm256_set1_pd(0.6931471805599453);
  *olo = _mm256_add_pd(_mm256_fmadd_pd(elo, ln2, rlo), _mm256_add_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(lf)), clo));
  *ohi = _mm256_add_pd(_mm256_fmadd_pd(ehi, ln2, rhi), _mm256_add_pd(_mm256_cvtps_pd(_mm256_extractf128_ps(lf, 1)), chi));
}

// Outputs r + log(p) of LogPlus8 that came out within kNearZero of 0 are taken again with the
// double log (all 8 lanes then: such vectors are few, a row's outputs only increase).
PADDLE_OPS_VINLINE void DoubleLogNearZero(__m256d plo, __m256d phi, __m256d rlo, __m256d rhi, __m256d* olo,
                                          __m256d* ohi) {
  const __m256d abs = _mm256_set1_pd(-0.0), lim = _mm256_set1_pd(kNearZero);
  const __m256d near = _mm256_or_pd(_mm256_cmp_pd(_mm256_andnot_pd(abs, *olo), lim, _CMP_LT_OQ),
                                    _mm256_cmp_pd(_mm256_andnot_pd(abs, *ohi), lim, _CMP_LT_OQ));
  if (_mm256_movemask_pd(near) == 0) return;
  *olo = _mm256_add_pd(rlo, Eigen::internal::plog<Packet4d>(plo));
  *ohi = _mm256_add_pd(rhi, Eigen::internal::plog<Packet4d>(phi));
}

// Single-term prefixes (docs/spec.md §1): where a prefix holds exactly one finite term x the
// output is x bit for bit, not M + log(exp(x - M)) against a block's max M. A state of one term
// is kept as (x, 1), whose value m + log(1) is x exactly (NormalizeSingle, after a block whose
// local state was empty: the same in both passes); SingleTermOutputs sets the outputs that the
// block arithmetic rescaled. A state whose sum is exactly 1 counts as one term of value m (any
// other terms vanished below its last bit, so m is its value).
inline int TermsOf(const LseState& st, double* v) {
  if (st.m == -kInf) return 0;
  if (st.s != 1.0) return 2;
  *v = st.m;
  return 1;
}
// The local state after a block whose local state before was empty: (x, 1) when the block held
// exactly one finite term x. xat(j): step j's input.
template <typename XAt>
void NormalizeSingle(int n, const XAt& xat, LseState* loc) {
  int count = 0;
  double v = 0;
  for (int j = 0; j < n; ++j) {
    const double xv = xat(j);
    if (xv == -kInf) continue;
    if (++count > 1) return;
    v = xv;
  }
  if (count == 1) *loc = {v, 1.0};
}
// Outputs of a block whose prefix before it (carry, then the local state `before`) holds at most
// one finite term: put(j, x) where step j's prefix holds exactly the one term x (inclusive, or
// exclusive: the prefix before step j). Returns the number of terms (capped at 2) through the
// block and the one term in *last when it is 1.
template <typename XAt, typename Put>
int SingleTermOutputs(int n, const LseState& carry, const LseState& before, const XAt& xat, const Put& put,
                      bool exclusive, double* last = nullptr) {
  double vc = 0, vb = 0;
  int count = TermsOf(carry, &vc) + TermsOf(before, &vb);
  if (count > 1) return 2;
  double v = carry.m == -kInf ? vb : vc;
  for (int j = 0; j < n; ++j) {
    if (exclusive && count == 1) put(j, v);
    const double xv = xat(j);
    if (xv != -kInf) {
      if (++count > 1) return 2;
      v = xv;
    }
    if (!exclusive && count == 1) put(j, v);
  }
  if (last) *last = v;
  return count;
}

// Exact element-by-element outputs of a block from the local prefix `st` before it; returns
// the local state after it (used for blocks with NaN/inf, and for guarded blocks).
template <typename F>
LseState LseBlockExact(const F* xb, F* ob, int n, const LseState& carry, LseState st) {
  for (int j = 0; j < n; ++j) {
    st = LseCombine(st, LseOf(static_cast<double>(xb[j])));
    if (ob) ob[j] = static_cast<F>(LseValue(LseCombine(carry, st)));
  }
  return st;
}

// exp(x - M) for 8 float elements, as 2 x 4 double lanes. The difference is formed in double
// (exact for any two floats closer than 2^29 in exponent) and split into a float head and a
// tiny tail: exp(d) = expf(head) * (1 + tail), so the float exp sees an exact argument and the
// term keeps float's ~1 ulp relative accuracy for any |d| (a float subtraction would lose up
// to |d| * 2^-24). Arguments below the float exp range give exactly 0.
PADDLE_OPS_VINLINE void ExpDiff8(__m256 xv, __m256d mlo, __m256d mhi, __m256d* lo, __m256d* hi) {
  const __m256d dlo = _mm256_sub_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(xv)), mlo);
  const __m256d dhi = _mm256_sub_pd(_mm256_cvtps_pd(_mm256_extractf128_ps(xv, 1)), mhi);
  const __m128 hlo = _mm256_cvtpd_ps(dlo), hhi = _mm256_cvtpd_ps(dhi);
  const __m256 head = _mm256_set_m128(hhi, hlo);
  const __m256 t = Eigen::internal::pexp<Packet8f>(head);
  const __m256d tlo = _mm256_cvtps_pd(_mm256_castps256_ps128(t));
  const __m256d thi = _mm256_cvtps_pd(_mm256_extractf128_ps(t, 1));
  const __m256d low = _mm256_set1_pd(LseLanes<float>::kExpLow);
  *lo = _mm256_and_pd(_mm256_fmadd_pd(tlo, _mm256_sub_pd(dlo, _mm256_cvtps_pd(hlo)), tlo),
                      _mm256_cmp_pd(dlo, low, _CMP_GE_OQ));
  *hi = _mm256_and_pd(_mm256_fmadd_pd(thi, _mm256_sub_pd(dhi, _mm256_cvtps_pd(hhi)), thi),
                      _mm256_cmp_pd(dhi, low, _CMP_GE_OQ));
}
PADDLE_OPS_VINLINE __m256d ExpDiff4(__m256d xv, __m256d vM) {
  const __m256d d = _mm256_sub_pd(xv, vM);
  const __m256d t = Eigen::internal::pexp<Packet4d>(d);
  return _mm256_and_pd(t, _mm256_cmp_pd(d, _mm256_set1_pd(LseLanes<double>::kExpLow), _CMP_GE_OQ));
}


PADDLE_OPS_VINLINE void SetOutConst(const LseState& carry, double M, LseOutConst* oc) {
  if (oc->key_m == M) return;
  oc->key_m = M;
  oc->r = std::max(carry.m, M);
  oc->a = carry.m == -kInf ? 0.0 : carry.s * (carry.m == oc->r ? 1.0 : std::exp(carry.m - oc->r));
  oc->b = M == oc->r ? 1.0 : std::exp(M - oc->r);
}

// exp(d) - 1 on 8 float lanes, |d| <= 80: ExpNonPositiveF's reduction and polynomial, with
// exp(r) - 1 = r + r^2 P(r) taken directly where m = 0 (|d| < ln2 / 2), so the result keeps a
// relative error of about 1 ulp also for tiny d; elsewhere y 2^m - 1 (|result| >= 0.29).
PADDLE_OPS_VINLINE __m256 Expm1Lanes8(__m256 d) {
  __m256 m, r;
  const __m256 y = ExpReducedF<FloatLanes8>(d, &m, &r);
  const __m256 em1 = _mm256_fmadd_ps(y, _mm256_mul_ps(r, r), r);  // exp(r) - 1
  const __m256 big = _mm256_fmsub_ps(_mm256_add_ps(em1, _mm256_set1_ps(1.0f)), FloatLanes8::Pow2(m), _mm256_set1_ps(1.0f));
  return _mm256_blendv_ps(big, em1, _mm256_cmp_ps(m, _mm256_setzero_ps(), _CMP_EQ_OQ));
}

// Whether some lane of the 8 (2 x 4) is outside [-80, 80] or NaN; then *lo, *hi are the
// double exponentials of all of them.
PADDLE_OPS_VINLINE bool DoubleExpOutside80(__m256d dlo, __m256d dhi, __m256d* lo, __m256d* hi) {
  const __m256d lim = _mm256_set1_pd(80.0);
  const __m256d out_lo = _mm256_cmp_pd(_mm256_andnot_pd(_mm256_set1_pd(-0.0), dlo), lim, _CMP_NLE_UQ);
  const __m256d out_hi = _mm256_cmp_pd(_mm256_andnot_pd(_mm256_set1_pd(-0.0), dhi), lim, _CMP_NLE_UQ);
  if (_mm256_movemask_pd(_mm256_or_pd(out_lo, out_hi)) == 0) return false;
  *lo = Eigen::internal::pexp<Packet4d>(dlo);
  *hi = Eigen::internal::pexp<Packet4d>(dhi);
  return true;
}

// exp(d) for 8 double lanes d (2 x 4), to float accuracy: d is split into a float head and a
// tail, exp(d) = expf(head) * (1 + tail) (one float exponential for 8 lanes, ExpNonPositiveF's
// inline polynomial, valid up to 88). Lanes outside
// [-80, 80] or NaN (rare: +-inf inputs, far tails) make the whole vector take the double
// exponential instead, so 0, inf, NaN and subnormal results are exactly the double path's.
PADDLE_OPS_VINLINE void ExpOfDiff8(__m256d dlo, __m256d dhi, __m256d* lo, __m256d* hi) {
  if (DoubleExpOutside80(dlo, dhi, lo, hi)) return;
  const __m128 hlo = _mm256_cvtpd_ps(dlo), hhi = _mm256_cvtpd_ps(dhi);
  const __m256 t = ExpNonPositiveF<FloatLanes8>(_mm256_set_m128(hhi, hlo));
  const __m256d tlo = _mm256_cvtps_pd(_mm256_castps256_ps128(t));
  const __m256d thi = _mm256_cvtps_pd(_mm256_extractf128_ps(t, 1));
  *lo = _mm256_fmadd_pd(tlo, _mm256_sub_pd(dlo, _mm256_cvtps_pd(hlo)), tlo);
  *hi = _mm256_fmadd_pd(thi, _mm256_sub_pd(dhi, _mm256_cvtps_pd(hhi)), thi);
}

// exp(d) on 2 x 4 double lanes for the gradient's gates, d = o - o_prev (<= 0 for a monotone
// o) of float outputs, as 1 + expm1(d): expm1 of d rounded to float in float lanes, then
// (1 + e)(1 + dl) for the rounding dl of d. A gate's error is then ~1e-7 |1 - gate| (plus
// 2^-53), not ~1e-7: a product of m gates near 1 (outputs that barely rise) keeps a relative
// error of ~1e-7 times the total rise (the log of the product), not m 1e-7 (docs/spec.md §1,
// gradient). Any lane with |d| > 80 or NaN: the double exponential for the pair of vectors.
PADDLE_OPS_VINLINE void GateExp8(__m256d dlo, __m256d dhi, __m256d* lo, __m256d* hi) {
  if (DoubleExpOutside80(dlo, dhi, lo, hi)) return;
  const __m128 hlo = _mm256_cvtpd_ps(dlo), hhi = _mm256_cvtpd_ps(dhi);
  const __m256 e = Expm1Lanes8(_mm256_set_m128(hhi, hlo));
  const __m256d one = _mm256_set1_pd(1.0);
  const __m256d glo = _mm256_add_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(e)), one);
  const __m256d ghi = _mm256_add_pd(_mm256_cvtps_pd(_mm256_extractf128_ps(e, 1)), one);
  *lo = _mm256_fmadd_pd(glo, _mm256_sub_pd(dlo, _mm256_cvtps_pd(hlo)), glo);
  *hi = _mm256_fmadd_pd(ghi, _mm256_sub_pd(dhi, _mm256_cvtps_pd(hhi)), ghi);
}

// The end of a block (LseBlock): the guard's exact outputs (a special carry, or a first output
// far below the block's reference), the one-term state and the single-term outputs.
template <bool kStore, typename F>
void FinishLseBlock(const F* xb, F* ob, int n, const LseState& carry, const LseState& before, bool local_empty,
                    bool special_carry, __m256d first_p, LseState* loc) {
  if (kStore && (special_carry || !(_mm_cvtsd_f64(_mm256_castpd256_pd128(first_p)) >= 0x1p-64))) {
    LseBlockExact<F>(xb, ob, n, carry, before);  // outputs only; *loc is already right
  }
  if (local_empty) NormalizeSingle(n, [&](int j) { return static_cast<double>(xb[j]); }, loc);
  if (kStore) {
    SingleTermOutputs(n, carry, before, [&](int j) { return static_cast<double>(xb[j]); },
                      [&](int j, double v) { ob[j] = static_cast<F>(v); }, false);
  }
}

// One block of n <= kBlock steps of one contiguous sequence xb (F = float or double). The last
// partial vector is read and written through a buffer padded with -inf.
template <bool kStore, typename F>
void LseBlock(const F* xb, F* ob, int n, const LseState& carry, LseState* loc, LseOutConst* oc, bool wide) {
  constexpr int V = LseLanes<F>::kLanes;
  const int full = n / V;
  const int nv = (n + V - 1) / V;
  alignas(32) F tail_in[V];
  alignas(32) F tail_out[V];
  if (nv > full) {
    for (int j = 0; j < V; ++j) tail_in[j] = full * V + j < n ? xb[full * V + j] : -std::numeric_limits<F>::infinity();
  }
  auto src = [&](int i) { return i < full ? xb + i * V : tail_in; };
  auto dst = [&](int i) { return i < full ? ob + i * V : tail_out; };
  // Pass 1: block max and NaN check, in F lanes.
  auto vm = SetLanes(-std::numeric_limits<F>::infinity());
  auto nan = SetLanes(F{0});
  for (int i = 0; i < nv; ++i) {
    const auto v = LoadLanes(src(i));
    vm = MaxLanes(vm, v);
    nan = OrNaNLanes(nan, v);
  }
  const double bm = HorizontalMax(vm);
  const bool bad = AnyLaneSet(nan);
  // NaN, +inf, an all -inf block, or a special local prefix: exact element by element (the
  // same in both modes, so the local total is still the same).
  if (bad || !std::isfinite(bm) || std::isnan(loc->m) || loc->m == kInf) {
    *loc = LseBlockExact<F>(xb, kStore ? ob : nullptr, n, carry, *loc);
    return;
  }
  const bool special_carry = kStore && (std::isnan(carry.m) || carry.m == kInf);
  const LseState before = *loc;
  const bool local_empty = loc->m == -kInf;
  if (bm > loc->m) {
    loc->s = loc->m == -kInf ? 0.0 : loc->s * std::exp(loc->m - bm);
    loc->m = bm;
  }
  const double M = loc->m;
  const double before_s = loc->s;
  const __m256d vM = _mm256_set1_pd(M);
  // float32 terms: double exponentials while the local prefix (loc->s plus the block's sum so
  // far, against M) is below exp(kNearZero - M) (see kNearZero).
  const double s_near = std::exp(kNearZero - M);
  bool precise = std::is_same<F, float>::value && bm >= kFarBelow;
  __m256d va = _mm256_setzero_pd(), vb = va, vr = va;
  if (kStore) {
    SetOutConst(carry, M, oc);
    va = _mm256_set1_pd(oc->a);
    vb = _mm256_set1_pd(oc->b);
    vr = _mm256_set1_pd(oc->r);
  }
  // float32 blocks of a multiple of 64 steps: the all-float block (LseFloatBlockF of
  // scan_simd_lanes.h, 8 lanes; with AVX-512 in use (wide), 128-step blocks in 16). Its float
  // terms are kept when the local prefix is past kNearZero after the block (a float term's
  // error is then relative to outputs >= 0.5 from here on; the block's own outputs near 0 are
  // redone below); a block that leaves the prefix below it is redone whole by the loop below
  // (the same decision in both modes: it depends on the block's total alone).
  __m256d first_p = _mm256_set1_pd(1.0);
  bool outputs_only = false;  // the loop below rewrites outputs near 0 and stops past them
  if constexpr (std::is_same<F, float>::value) {
    if (n % 64 == 0) {
      const double a = kStore ? oc->a : 0.0, b = kStore ? oc->b : 1.0, r = kStore ? oc->r : 0.0;
      const LseFloatBlockResult fr =
          wide && n % 128 == 0 ? avx512::LseFloatBlock16<kStore>(xb, ob, n, static_cast<float>(M), loc->s, a, b, r)
                               : LseFloatBlockF<FloatLanes8, kStore>(xb, ob, n, static_cast<float>(M), loc->s, a, b, r);
      if (!(precise && before_s < s_near) || before_s + fr.sum >= s_near) {
        first_p = _mm256_set1_pd(fr.first_p);
        loc->s += fr.sum;
        if (!fr.near_zero) {
          return FinishLseBlock<kStore, F>(xb, ob, n, carry, before, local_empty, special_carry, first_p, loc);
        }
        outputs_only = true;
      }
    }
  }
  // Pass 2: terms, their block total (lane-wise, then a fixed-order horizontal sum) and, when
  // storing, the running prefix and the outputs.
  __m256d tot0 = _mm256_setzero_pd(), tot1 = _mm256_setzero_pd();
  __m256d run = _mm256_set1_pd(before_s);
  for (int i = 0; i < nv; ++i) {
    if constexpr (std::is_same<F, float>::value) {
      __m256d lo, hi;
      if (precise && before_s + HorizontalSum(_mm256_add_pd(tot0, tot1)) >= s_near) precise = false;
      const __m256 xv = _mm256_loadu_ps(src(i));
      if (precise) {
        lo = ExpDiff4(_mm256_cvtps_pd(_mm256_castps256_ps128(xv)), vM);
        hi = ExpDiff4(_mm256_cvtps_pd(_mm256_extractf128_ps(xv, 1)), vM);
      } else {
        ExpDiff8(xv, vM, vM, &lo, &hi);
      }
      tot0 = _mm256_add_pd(tot0, lo);
      tot1 = _mm256_add_pd(tot1, hi);
      if (kStore) {
        const __m256d slo = RunningSum4(lo, &run);
        const __m256d shi = RunningSum4(hi, &run);
        const __m256d plo = _mm256_fmadd_pd(vb, slo, va), phi = _mm256_fmadd_pd(vb, shi, va);
        if (i == 0) first_p = plo;
        __m256d olo, ohi;
        LogPlus8(plo, phi, vr, vr, &olo, &ohi);
        DoubleLogNearZero(plo, phi, vr, vr, &olo, &ohi);
        _mm256_storeu_ps(dst(i), _mm256_set_m128(_mm256_cvtpd_ps(ohi), _mm256_cvtpd_ps(olo)));
        // Rewriting the all-float block's outputs: past the outputs near 0 (outputs only
        // increase) and the precise terms, the rest are its own.
        if (outputs_only && !precise &&
            HorizontalMax(_mm256_max_pd(_mm256_sub_pd(_mm256_setzero_pd(), olo), _mm256_sub_pd(_mm256_setzero_pd(), ohi))) <=
                -kNearZero) {
          break;
        }
      }
    } else {
      const __m256d t = ExpDiff4(_mm256_loadu_pd(src(i)), vM);
      AddToBlockTotal(i, t, &tot0, &tot1);
      if (kStore) {
        _mm256_storeu_pd(dst(i), LseOut4(RunningSum4(t, &run), va, vb, vr, i == 0 ? &first_p : nullptr));
      }
    }
  }
  if (kStore && nv > full) {
    for (int j = 0; j < n - full * V; ++j) ob[full * V + j] = tail_out[j];
  }
  if (!outputs_only) loc->s += HorizontalSum(_mm256_add_pd(tot0, tot1));
  FinishLseBlock<kStore, F>(xb, ob, n, carry, before, local_empty, special_carry, first_p, loc);
}

// Up to 8 adjacent columns (inner > 1), one per lane: the same scan with each lane its own
// sequence, so the prefix runs down the steps and needs no shuffles; rows are read and written
// in place, in either direction. A block where some lane is special (NaN, inf, all -inf) is
// done exactly lane by lane, and so are the outputs of a lane that fails the guard.
template <typename T>
struct LseColumns {
  using F = LseCompute<T>;

  // Step p's 8 lanes (lanes >= G read as 0): float lanes when F is float, else 2 x 4 doubles.
  static void Load(const T* p, int G, __m256* xf, __m256d* lo, __m256d* hi) {
    if constexpr (std::is_same<T, double>::value) {
      alignas(32) double d[8] = {0, 0, 0, 0, 0, 0, 0, 0};
      const double* q = p;
      if (G < 8) {
        for (int g = 0; g < G; ++g) d[g] = p[g];
        q = d;
      }
      *lo = _mm256_loadu_pd(q);
      *hi = _mm256_loadu_pd(q + 4);
    } else {
      if constexpr (std::is_same<T, float>::value) {
        if (G == 8) {
          *xf = _mm256_loadu_ps(p);
          return;
        }
      }
      alignas(32) float f[8] = {0, 0, 0, 0, 0, 0, 0, 0};
      if constexpr (kIs16Bit<T>) {
        ConvertVec(p, f, G);
      } else {
        for (int g = 0; g < G; ++g) f[g] = static_cast<float>(p[g]);
      }
      *xf = _mm256_load_ps(f);
    }
  }
  static void Store(T* p, int G, __m256d lo, __m256d hi) { StoreLanes8(p, G, lo, hi); }

  // Exact outputs (and, with update_local, local states) of the lanes in `lanes` for one block,
  // from the states `loc` before it; for exclusive scans the output before the block is pv[g],
  // and pv[g] is advanced to the block's last inclusive output.
  template <bool kStore>
  static void Exact(const T* x, T* out, const SeqGroup& q, int64_t b0, int n, const LseState* carry, LseState* loc,
                    T* pv, int lanes, bool update_local) {
    for (int g = 0; g < q.G; ++g) {
      if (!(lanes >> g & 1)) continue;
      LseState st = loc[g];
      for (int j = 0; j < n; ++j) {
        const int64_t off = q.Offset(b0 + j) + g;
        st = LseCombine(st, LseOf(static_cast<double>(ToCompute<F>(x[off]))));
        if (kStore) {
          const T v = FromCompute<T>(static_cast<F>(LseValue(LseCombine(carry[g], st))));
          if (q.exclusive) {
            out[off] = pv[g];
            pv[g] = v;
          } else {
            out[off] = v;
          }
        }
      }
      if (update_local) loc[g] = st;
    }
  }

  // One block of n steps from step b0. loc, carry and prev are per lane.
  template <bool kStore>
  static void Block(const T* x, T* out, const SeqGroup& q, int64_t b0, int n, const LseState* carry, LseState* loc,
                    T* prev) {
    const int G = q.G;
    const int all = (1 << G) - 1;
    // 16-bit types: the block's steps converted to float lanes up front (one call per step,
    // with no vector state live across it), and, when storing, the outputs kept in float lanes
    // and converted after pass 2.
    alignas(32) float xs[kIs16Bit<T> ? kBlock : 1][8];
    alignas(32) float os[kIs16Bit<T> ? kBlock : 1][8];
    if constexpr (kIs16Bit<T>) {
      for (int j = 0; j < n; ++j) {
        LanesToFloat(x + q.Offset(b0 + j), xs[j], G);
        for (int g = G; g < 8; ++g) xs[j][g] = 0.0f;
      }
    }
    auto load = [&](int j, __m256* xf, __m256d* lo, __m256d* hi) {
      if constexpr (kIs16Bit<T>) {
        *xf = _mm256_load_ps(xs[j]);
      } else {
        Load(x + q.Offset(b0 + j), G, xf, lo, hi);
      }
    };
    auto store = [&](int j, __m256d lo, __m256d hi) {
      if constexpr (kIs16Bit<T>) {
        _mm256_store_ps(os[j], _mm256_set_m128(_mm256_cvtpd_ps(hi), _mm256_cvtpd_ps(lo)));
      } else {
        Store(out + q.Offset(b0 + j), G, lo, hi);
      }
    };
    // Pass 1: per-lane max and NaN check, in double lanes.
    __m256d mlo = _mm256_set1_pd(-kInf), mhi = mlo, nlo = _mm256_setzero_pd(), nhi = nlo;
    for (int j = 0; j < n; ++j) {
      __m256 xf;
      __m256d lo, hi;
      load(j, &xf, &lo, &hi);
      if constexpr (!std::is_same<T, double>::value) {
        lo = _mm256_cvtps_pd(_mm256_castps256_ps128(xf));
        hi = _mm256_cvtps_pd(_mm256_extractf128_ps(xf, 1));
      }
      mlo = _mm256_max_pd(mlo, lo);
      mhi = _mm256_max_pd(mhi, hi);
      nlo = _mm256_or_pd(nlo, _mm256_cmp_pd(lo, lo, _CMP_UNORD_Q));
      nhi = _mm256_or_pd(nhi, _mm256_cmp_pd(hi, hi, _CMP_UNORD_Q));
    }
    alignas(32) double bm[8];
    _mm256_store_pd(bm, mlo);
    _mm256_store_pd(bm + 4, mhi);
    const int nan = _mm256_movemask_pd(nlo) | (_mm256_movemask_pd(nhi) << 4);
    bool special = (nan & all) != 0;
    for (int g = 0; g < G; ++g) special |= !std::isfinite(bm[g]) || std::isnan(loc[g].m) || loc[g].m == kInf;
    if (special) {
      Exact<kStore>(x, out, q, b0, n, carry, loc, prev, all, /*update_local=*/true);
      return;
    }
    LseState before[8];
    T prev_before[8];
    alignas(32) double m[8], sv[8], a[8], b[8], r[8];
    int redo = 0;
    bool precise = false;  // float terms in double exponentials (kNearZero)
    for (int g = 0; g < 8; ++g) {
      const bool on = g < G;
      if (on) {
        before[g] = loc[g];
        if (kStore && q.exclusive) prev_before[g] = prev[g];
      }
      const double M = on ? std::max(loc[g].m, bm[g]) : 0.0;
      double sg = on ? loc[g].s : 0.0;
      if (on && M > loc[g].m) sg = loc[g].m == -kInf ? 0.0 : sg * std::exp(loc[g].m - M);
      m[g] = M;
      sv[g] = sg;
      precise |= on && bm[g] >= kFarBelow && !(sg >= std::exp(kNearZero - M));
      a[g] = 0.0;
      b[g] = 1.0;
      r[g] = M;
      if (kStore && on) {
        const double cm = carry[g].m;
        if (std::isnan(cm) || cm == kInf) {
          redo |= 1 << g;
        } else if (cm != -kInf) {
          r[g] = std::max(cm, M);
          a[g] = carry[g].s * (cm == r[g] ? 1.0 : std::exp(cm - r[g]));
          b[g] = M == r[g] ? 1.0 : std::exp(M - r[g]);
        }
      }
    }
    const __m256d Mlo = _mm256_load_pd(m), Mhi = _mm256_load_pd(m + 4);
    const __m256d alo = _mm256_load_pd(a), ahi = _mm256_load_pd(a + 4);
    const __m256d blo = _mm256_load_pd(b), bhi = _mm256_load_pd(b + 4);
    const __m256d rlo = _mm256_load_pd(r), rhi = _mm256_load_pd(r + 4);
    __m256d slo = _mm256_load_pd(sv), shi = _mm256_load_pd(sv + 4);
    precise = std::is_same<F, float>::value && precise;
    // float32, 8 columns, inclusive, every lane's local prefix past kNearZero: all-float lanes
    // (ColumnsFloat). Its totals stand (the same in both modes); when some output came out
    // near 0 the loop below writes the outputs again and its sums are dropped.
    bool float_totals = false;
    alignas(32) double fs[8];
    if constexpr (std::is_same<T, float>::value) {
      if (G == 8 && !q.exclusive && !precise) {
        const bool near = ColumnsFloat<kStore>(x, out, q, b0, n, m, sv, a, b, r, fs, &redo);
        float_totals = true;
        if (!near) {
          for (int g = 0; g < G; ++g) loc[g] = {m[g], fs[g]};
          FinishColumns<kStore>(x, out, q, b0, n, carry, before, loc, prev, prev_before, redo);
          return;
        }
      }
    }
    __m256d prev_lo = _mm256_setzero_pd(), prev_hi = prev_lo;
    if (kStore && q.exclusive) {
      alignas(32) double pv[8] = {0, 0, 0, 0, 0, 0, 0, 0};
      for (int g = 0; g < G; ++g) pv[g] = static_cast<double>(ToCompute<F>(prev[g]));
      prev_lo = _mm256_load_pd(pv);
      prev_hi = _mm256_load_pd(pv + 4);
    }
    for (int j = 0; j < n; ++j) {
      __m256 xf = _mm256_setzero_ps();
      __m256d lo = _mm256_setzero_pd(), hi = lo;
      load(j, &xf, &lo, &hi);
      if (std::is_same<T, double>::value || precise) {
        if constexpr (!std::is_same<T, double>::value) {
          lo = _mm256_cvtps_pd(_mm256_castps256_ps128(xf));
          hi = _mm256_cvtps_pd(_mm256_extractf128_ps(xf, 1));
        }
        lo = ExpDiff4(lo, Mlo);
        hi = ExpDiff4(hi, Mhi);
      } else {
        ExpDiff8(xf, Mlo, Mhi, &lo, &hi);
      }
      slo = _mm256_add_pd(slo, lo);
      shi = _mm256_add_pd(shi, hi);
      if (kStore) {
        const __m256d plo = _mm256_fmadd_pd(blo, slo, alo), phi = _mm256_fmadd_pd(bhi, shi, ahi);
        if (j == 0) {
          const __m256d lim = _mm256_set1_pd(0x1p-64);
          redo |= _mm256_movemask_pd(_mm256_cmp_pd(plo, lim, _CMP_NGE_UQ)) |
                  (_mm256_movemask_pd(_mm256_cmp_pd(phi, lim, _CMP_NGE_UQ)) << 4);
        }
        __m256d olo, ohi;
        if constexpr (std::is_same<F, double>::value) {
          olo = _mm256_add_pd(rlo, Eigen::internal::plog<Packet4d>(plo));
          ohi = _mm256_add_pd(rhi, Eigen::internal::plog<Packet4d>(phi));
        } else {
          LogPlus8(plo, phi, rlo, rhi, &olo, &ohi);
          DoubleLogNearZero(plo, phi, rlo, rhi, &olo, &ohi);
        }
        if (q.exclusive) {
          if constexpr (!std::is_same<F, double>::value) {  // the value as stored
            olo = _mm256_cvtps_pd(_mm256_cvtpd_ps(olo));
            ohi = _mm256_cvtps_pd(_mm256_cvtpd_ps(ohi));
          }
          store(j, prev_lo, prev_hi);
          prev_lo = olo;
          prev_hi = ohi;
        } else {
          store(j, olo, ohi);
        }
      }
    }
    if constexpr (kIs16Bit<T>) {
      if (kStore) {
        for (int j = 0; j < n; ++j) ConvertVec(os[j], out + q.Offset(b0 + j), G);
      }
    }
    _mm256_store_pd(sv, slo);
    _mm256_store_pd(sv + 4, shi);
    for (int g = 0; g < G; ++g) loc[g] = {m[g], float_totals ? fs[g] : sv[g]};
    if (kStore && q.exclusive) {
      alignas(32) double pv[8];
      _mm256_store_pd(pv, prev_lo);
      _mm256_store_pd(pv + 4, prev_hi);
      for (int g = 0; g < G; ++g) prev[g] = FromCompute<T>(static_cast<F>(pv[g]));
    }
    FinishColumns<kStore>(x, out, q, b0, n, carry, before, loc, prev, prev_before, redo);
  }

  // The end of a block: the exact outputs of the lanes in `redo` (a special carry, or a first
  // output far below the lane's reference) and the single-term rules.
  template <bool kStore>
  static void FinishColumns(const T* x, T* out, const SeqGroup& q, int64_t b0, int n, const LseState* carry,
                            LseState* before, LseState* loc, T* prev, const T* prev_before, int redo) {
    redo &= (1 << q.G) - 1;
    if (kStore && redo) {  // outputs only, from the lanes' states (and prev) before the block
      for (int g = 0; g < q.G; ++g) {
        if (redo >> g & 1) prev[g] = prev_before[g];
      }
      Exact<kStore>(x, out, q, b0, n, carry, before, prev, redo, /*update_local=*/false);
    }
    SingleTerms<kStore>(x, out, q, b0, n, carry, before, loc, prev);
  }

  // 8 float32 columns (T = float, inclusive) of one block in float lanes, as LseFloatBlock does
  // a row's segments: lane g's terms exp(x - m[g]) from an exact TwoSum difference, their
  // float-float total (fs[g] = sv[g] + the total, in double), and, when storing, the running
  // P = a + b * (sv + terms so far) from its offset in float-float and the outputs
  // r + log(P) (LogOfPairF). Lanes whose first P is below 2^-64 join *redo. Returns whether some
  // output is within kNearZero of 0.
  template <bool kStore>
  static bool ColumnsFloat(const T* x, T* out, const SeqGroup& q, int64_t b0, int n, const double* m,
                           const double* sv, const double* a, const double* b, const double* r, double* fs,
                           int* redo) {
    alignas(32) float nm[8], oh[8], ol[8], fb[8], fr[8], t0[8];
    for (int g = 0; g < 8; ++g) {
      nm[g] = static_cast<float>(-m[g]);
      const double p = a[g] + b[g] * sv[g];
      oh[g] = static_cast<float>(p);
      ol[g] = static_cast<float>(p - static_cast<double>(oh[g]));
      fb[g] = b[g] < 0x1p-70 ? 0.0f : static_cast<float>(b[g]);
      fr[g] = static_cast<float>(r[g]);
    }
    const __m256 nM = _mm256_load_ps(nm), vb = _mm256_load_ps(fb), vr = _mm256_load_ps(fr);
    const __m256 low = _mm256_set1_ps(LseLanes<float>::kExpLow);
    const __m256 abs = _mm256_set1_ps(-0.0f), lim = _mm256_set1_ps(static_cast<float>(kNearZero));
    __m256 th = _mm256_setzero_ps(), tl = th, rh = _mm256_load_ps(oh), rl = _mm256_load_ps(ol), near = th;
    for (int j = 0; j < n; ++j) {
      const int64_t off = q.Offset(b0 + j);
      __m256 dl;
      const __m256 d = TwoSumF<FloatLanes8>(_mm256_loadu_ps(x + off), nM, &dl);
      __m256 t = ExpNonPositiveF<FloatLanes8>(d);
      t = _mm256_and_ps(_mm256_fmadd_ps(t, dl, t), _mm256_cmp_ps(d, low, _CMP_GE_OQ));
      __m256 e;
      th = TwoSumF<FloatLanes8>(th, t, &e);
      tl = _mm256_add_ps(tl, e);
      if (kStore) {
        if (j == 0) _mm256_store_ps(t0, t);
        rh = TwoSumF<FloatLanes8>(rh, _mm256_mul_ps(t, vb), &e);
        rl = _mm256_add_ps(rl, e);
        const __m256 o = LogOfPairF<FloatLanes8>(rh, rl, vr);
        near = _mm256_or_ps(near, _mm256_cmp_ps(_mm256_andnot_ps(abs, o), lim, _CMP_LT_OQ));
        _mm256_storeu_ps(out + off, o);
      }
    }
    alignas(32) float h[8], l[8];
    _mm256_store_ps(h, th);
    _mm256_store_ps(l, tl);
    for (int g = 0; g < 8; ++g) {
      fs[g] = sv[g] + (static_cast<double>(h[g]) + static_cast<double>(l[g]));
      if (kStore && !(a[g] + b[g] * (sv[g] + static_cast<double>(t0[g])) >= 0x1p-64)) *redo |= 1 << g;
    }
    return kStore && _mm256_movemask_ps(near) != 0;
  }

  // The single-term rule (SingleTermOutputs) lane by lane, for lanes whose prefix before the block
  // holds at most one finite term; and NormalizeSingle for lanes whose local state was empty.
  template <bool kStore>
  static void SingleTerms(const T* x, T* out, const SeqGroup& q, int64_t b0, int n, const LseState* carry,
                          const LseState* before, LseState* loc, T* prev) {
    for (int g = 0; g < q.G; ++g) {
      auto xat = [&](int j) { return static_cast<double>(ToCompute<F>(x[q.Offset(b0 + j) + g])); };
      if (before[g].m == -kInf) NormalizeSingle(n, xat, &loc[g]);
      if (!kStore) continue;
      double last = 0;
      auto put = [&](int j, double v) { out[q.Offset(b0 + j) + g] = FromCompute<T>(static_cast<F>(v)); };
      if (SingleTermOutputs(n, carry[g], before[g], xat, put, q.exclusive, &last) == 1 && q.exclusive) {
        prev[g] = FromCompute<T>(static_cast<F>(last));
      }
    }
  }
};

template <typename T>
struct LseKernel {
  using F = LseCompute<T>;
  using Carry = LseState;
  using Local = LseState;
  static constexpr int kMaxGroup = 256;  // columns per task, 8 lanes at a time: a block of steps
                                        // then reuses each row run (and its TLB entry) 32 times
  static constexpr double kReduceCost = 0.35;
  const T* x;
  T* out;
  bool avx512;  // rows take the 16-lane all-float blocks (ScanCall::avx512)

  Carry CarryIdentity() const { return LseEmpty(); }
  Carry Fold(const Carry& c, const Local& l) const { return LseCombine(c, l); }

  template <bool kStore>
  void Chunk(const SeqGroup& q, int64_t s0, int64_t s1, const Carry* carry, Local* local) const {
    LseState loc[kMaxGroup];
    T prev[kMaxGroup];
    for (int g = 0; g < q.G; ++g) {
      loc[g] = LseEmpty();
      if (kStore) prev[g] = FromCompute<T>(static_cast<F>(LseValue(carry[g])));
    }
    if (q.stride != 1) {  // columns, one lane each, 8 lanes at a time across the row run
      for (int64_t b0 = s0; b0 < s1; b0 += kBlock) {
        const int n = static_cast<int>(std::min<int64_t>(kBlock, s1 - b0));
        for (int c = 0; c < q.G; c += 8) {
          SeqGroup sub = q;
          sub.base += c;
          sub.G = std::min(8, q.G - c);
          LseColumns<T>::template Block<kStore>(x, out, sub, b0, n, kStore ? carry + c : nullptr, loc + c, prev + c);
        }
      }
    } else {
      ChunkRow<kStore>(q, s0, s1, kStore ? carry[0] : LseEmpty(), &loc[0], &prev[0]);
    }
    if (local) {
      for (int g = 0; g < q.G; ++g) local[g] = loc[g];
    }
  }

  // One contiguous row: read and written in place when forward inclusive and T is the compute
  // type; otherwise each block goes through a buffer in scan order.
  template <bool kStore>
  void ChunkRow(const SeqGroup& q, int64_t s0, int64_t s1, const LseState& carry, LseState* loc, T* prev) const {
    alignas(32) F xb[kBlock];
    alignas(32) F ob[kBlock];
    LseOutConst oc;
    const bool direct = std::is_same<T, F>::value && !q.reverse && !q.exclusive;
    for (int64_t b0 = s0; b0 < s1; b0 += kBlock) {
      const int n = static_cast<int>(std::min<int64_t>(kBlock, s1 - b0));
      if (direct) {
        const int64_t off = q.Offset(b0);
        LseBlock<kStore, F>(reinterpret_cast<const F*>(x + off), reinterpret_cast<F*>(out + off), n, carry, loc,
                            &oc, avx512);
        continue;
      }
      if constexpr (kIs16Bit<T>) {
        RowToFloat(x, q, b0, n, xb);
      } else {
        for (int j = 0; j < n; ++j) xb[j] = ToCompute<F>(x[q.Offset(b0 + j)]);
      }
      LseBlock<kStore, F>(xb, ob, n, carry, loc, &oc, avx512);
      if (kStore) {
        T tb[kBlock];
        if constexpr (kIs16Bit<T>) ConvertVec(ob, tb, n);
        for (int j = 0; j < n; ++j) {
          const T v = kIs16Bit<T> ? tb[j] : FromCompute<T>(ob[j]);
          T& dst = out[q.Offset(b0 + j)];
          if (q.exclusive) {
            dst = *prev;
            *prev = v;
          } else {
            dst = v;
          }
        }
      }
    }
  }
};

// ---- logcumsumexp gradient: gated linear recurrence -------------------------------------------
//
// In the gradient's scan order, element k is (gate_k, out_grad_k) with
// gate_k = exp(o_k - o_prev) (1 where o_k = o_prev, +inf included; 0 at the row's first element
// or where o_k = -inf), and
// acc_k = out_grad_k + gate_k * acc_prev. A chunk's local prefix is the pair (A_j, B_j) of the
// recurrence from the identity (1, 0) (products of gates and the local accumulation); the
// output is acc_j = B_j + A_j * carry_acc, then
//   inclusive: x_grad = acc_k * exp(x_k - o_k);  exclusive: x_grad = acc_prev * exp(x_k - o_prev).
// Everything is in double lanes; gates are <= 1 (o is monotone), so nothing overflows.
struct RecState {
  double a;
  double b;
};

inline RecState RecCombine(const RecState& e, const RecState& l) { return {e.a * l.a, l.a * e.b + l.b}; }

// Inclusive scan of 4 (a, b) lanes: after it lane j holds the combination of lanes 0..j.
PADDLE_OPS_VINLINE void RecScan4(__m256d* a, __m256d* b) {
  const __m256d one = _mm256_set1_pd(1.0), zero = _mm256_setzero_pd();
  __m256d as = _mm256_blend_pd(_mm256_permute4x64_pd(*a, _MM_SHUFFLE(2, 1, 0, 0)), one, 0x1);
  __m256d bs = _mm256_blend_pd(_mm256_permute4x64_pd(*b, _MM_SHUFFLE(2, 1, 0, 0)), zero, 0x1);
  *b = _mm256_fmadd_pd(*a, bs, *b);
  *a = _mm256_mul_pd(*a, as);
  as = _mm256_blend_pd(_mm256_permute4x64_pd(*a, _MM_SHUFFLE(1, 0, 0, 0)), one, 0x3);
  bs = _mm256_blend_pd(_mm256_permute4x64_pd(*b, _MM_SHUFFLE(1, 0, 0, 0)), zero, 0x3);
  *b = _mm256_fmadd_pd(*a, bs, *b);
  *a = _mm256_mul_pd(*a, as);
}

template <typename T>
struct LseGradKernel {
  using Carry = RecState;
  using Local = RecState;
  static constexpr int kMaxGroup = 64;  // columns per task (inner > 1), 8 lanes at a time
  static constexpr double kReduceCost = 0.5;
  const T* x;
  const T* o;
  const T* dout;
  T* dx;

  // 8 lanes of step data as 2 x 4 doubles (lanes >= n read as 0), and back.
  static void Load8(const T* p, int n, __m256d* lo, __m256d* hi) {
    if constexpr (std::is_same<T, float>::value) {
      if (n == 8) {
        const __m256 v = _mm256_loadu_ps(p);
        *lo = _mm256_cvtps_pd(_mm256_castps256_ps128(v));
        *hi = _mm256_cvtps_pd(_mm256_extractf128_ps(v, 1));
        return;
      }
    } else if constexpr (std::is_same<T, double>::value) {
      if (n == 8) {
        *lo = _mm256_loadu_pd(p);
        *hi = _mm256_loadu_pd(p + 4);
        return;
      }
    }
    if constexpr (kIs16Bit<T>) {
      alignas(32) float f[8] = {0, 0, 0, 0, 0, 0, 0, 0};
      ConvertVec(p, f, n);
      *lo = _mm256_cvtps_pd(_mm_load_ps(f));
      *hi = _mm256_cvtps_pd(_mm_load_ps(f + 4));
      return;
    }
    alignas(32) double d[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    for (int g = 0; g < n; ++g) d[g] = ToCompute<double>(p[g]);
    *lo = _mm256_load_pd(d);
    *hi = _mm256_load_pd(d + 4);
  }
  static void Store8(T* p, int n, __m256d lo, __m256d hi) { StoreLanes8(p, n, lo, hi); }

  // The gate exp(o - o_prev) of 4 lanes: 1 where o = o_prev, 0 where o = -inf or at a row's
  // first step (the row code's rules, lane by lane).
  static PADDLE_OPS_VINLINE __m256d Gate4(__m256d ov, __m256d opv, bool row_start) {
    return GateRules4(Eigen::internal::pexp<Packet4d>(_mm256_sub_pd(ov, opv)), ov, opv, row_start);
  }
  static PADDLE_OPS_VINLINE __m256d GateRules4(__m256d gate, __m256d ov, __m256d opv, bool row_start) {
    gate = _mm256_blendv_pd(gate, _mm256_set1_pd(1.0), _mm256_cmp_pd(ov, opv, _CMP_EQ_OQ));
    gate = _mm256_andnot_pd(_mm256_cmp_pd(ov, _mm256_set1_pd(-kInf), _CMP_EQ_OQ), gate);
    return row_start ? _mm256_setzero_pd() : gate;
  }

  // Columns (inner > 1): each lane is its own column, so the recurrence runs down the steps
  // with no shuffles and no buffers; a step's G columns are one contiguous run of the row.
  // Per lane the same operations as the row code's per element, so the same local totals in
  // both modes.
  template <bool kStore>
  void ColumnsChunk(const SeqGroup& q, int64_t s0, int64_t s1, const Carry* carry, Local* local) const {
    const int G = q.G;
    alignas(32) double la[kMaxGroup], lb[kMaxGroup], op[kMaxGroup], ap[kMaxGroup], cb[kMaxGroup];
    for (int g = 0; g < G; ++g) {
      la[g] = 1.0;
      lb[g] = 0.0;
      op[g] = s0 > 0 ? ToCompute<double>(o[q.Offset(s0 - 1) + g]) : 0.0;
      cb[g] = kStore ? carry[g].b : 0.0;
      ap[g] = cb[g];
    }
    for (int g = G; g < (G + 7) / 8 * 8; ++g) la[g] = lb[g] = op[g] = ap[g] = cb[g] = 0.0;
    const __m256d ninf = _mm256_set1_pd(-kInf);
    // 16-bit types: a step's run of G columns converted at once per input (and x_grad's after
    // the step), with no vector state live across the calls.
    alignas(32) float fo[kIs16Bit<T> ? kMaxGroup : 1], fg[kIs16Bit<T> ? kMaxGroup : 1];
    alignas(32) float fx[kIs16Bit<T> ? kMaxGroup : 1], fd[kIs16Bit<T> ? kMaxGroup : 1];
    auto load8 = [&](const T* p, const float* f, int64_t off, int c, int n, __m256d* lo, __m256d* hi) {
      if constexpr (kIs16Bit<T>) {  // lanes >= n read as 0
        alignas(32) float t[8] = {0, 0, 0, 0, 0, 0, 0, 0};
        for (int g = 0; g < n; ++g) t[g] = f[c + g];
        *lo = _mm256_cvtps_pd(_mm_load_ps(t));
        *hi = _mm256_cvtps_pd(_mm_load_ps(t + 4));
      } else {
        Load8(p + off + c, n, lo, hi);
      }
    };
    for (int64_t s = s0; s < s1; ++s) {
      const int64_t off = q.Offset(s);
      const bool row_start = s == 0;
      if constexpr (kIs16Bit<T>) {
        ConvertVec(o + off, fo, G);
        ConvertVec(dout + off, fg, G);
        if (kStore) ConvertVec(x + off, fx, G);
      }
      for (int c = 0; c < G; c += 8) {
        const int n = std::min(8, G - c);
        __m256d olo, ohi, glo, ghi;
        load8(o, fo, off, c, n, &olo, &ohi);
        load8(dout, fg, off, c, n, &glo, &ghi);
        const __m256d oplo = _mm256_load_pd(op + c), ophi = _mm256_load_pd(op + c + 4);
        __m256d gtlo, gthi;
        if constexpr (std::is_same<T, double>::value) {
          gtlo = Gate4(olo, oplo, row_start);
          gthi = Gate4(ohi, ophi, row_start);
        } else {  // float outputs: gates as 1 + expm1 in float lanes (GateExp8)
          GateExp8(_mm256_sub_pd(olo, oplo), _mm256_sub_pd(ohi, ophi), &gtlo, &gthi);
          gtlo = GateRules4(gtlo, olo, oplo, row_start);
          gthi = GateRules4(gthi, ohi, ophi, row_start);
        }
        const __m256d alo = _mm256_mul_pd(_mm256_load_pd(la + c), gtlo);
        const __m256d ahi = _mm256_mul_pd(_mm256_load_pd(la + c + 4), gthi);
        const __m256d blo = _mm256_fmadd_pd(gtlo, _mm256_load_pd(lb + c), glo);
        const __m256d bhi = _mm256_fmadd_pd(gthi, _mm256_load_pd(lb + c + 4), ghi);
        _mm256_store_pd(la + c, alo);
        _mm256_store_pd(la + c + 4, ahi);
        _mm256_store_pd(lb + c, blo);
        _mm256_store_pd(lb + c + 4, bhi);
        _mm256_store_pd(op + c, olo);
        _mm256_store_pd(op + c + 4, ohi);
        if (kStore) {
          __m256d xlo, xhi;
          load8(x, fx, off, c, n, &xlo, &xhi);
          const __m256d acclo = _mm256_fmadd_pd(alo, _mm256_load_pd(cb + c), blo);
          const __m256d acchi = _mm256_fmadd_pd(ahi, _mm256_load_pd(cb + c + 4), bhi);
          __m256d flo = acclo, fhi = acchi, rlo = olo, rhi = ohi;
          if (q.exclusive) {
            flo = _mm256_load_pd(ap + c);
            fhi = _mm256_load_pd(ap + c + 4);
            rlo = oplo;
            rhi = ophi;
            _mm256_store_pd(ap + c, acclo);
            _mm256_store_pd(ap + c + 4, acchi);
          }
          __m256d elo, ehi;
          if constexpr (std::is_same<T, double>::value) {
            elo = Eigen::internal::pexp<Packet4d>(_mm256_sub_pd(xlo, rlo));
            ehi = Eigen::internal::pexp<Packet4d>(_mm256_sub_pd(xhi, rhi));
          } else {
            ExpOfDiff8(_mm256_sub_pd(xlo, rlo), _mm256_sub_pd(xhi, rhi), &elo, &ehi);
          }
          __m256d dlo = _mm256_andnot_pd(_mm256_cmp_pd(xlo, ninf, _CMP_EQ_OQ), _mm256_mul_pd(flo, elo));
          __m256d dhi = _mm256_andnot_pd(_mm256_cmp_pd(xhi, ninf, _CMP_EQ_OQ), _mm256_mul_pd(fhi, ehi));
          if (q.exclusive && row_start) dlo = dhi = _mm256_setzero_pd();
          if constexpr (kIs16Bit<T>) {  // rounded to float in lanes, as FromCompute does
            alignas(32) float f[8];
            _mm256_store_ps(f, _mm256_set_m128(_mm256_cvtpd_ps(dhi), _mm256_cvtpd_ps(dlo)));
            for (int g = 0; g < n; ++g) fd[c + g] = f[g];
          } else {
            Store8(dx + off + c, n, dlo, dhi);
          }
        }
      }
      if constexpr (kIs16Bit<T>) {
        if (kStore) ConvertVec(fd, dx + off, G);
      }
    }
    if (local) {
      for (int g = 0; g < G; ++g) local[g] = {la[g], lb[g]};
    }
  }

  Carry CarryIdentity() const { return {1.0, 0.0}; }
  Carry Fold(const Carry& c, const Local& l) const { return RecCombine(c, l); }

  struct Buffers {
    alignas(32) double o[kBlock];
    alignas(32) double oprev[kBlock];
    alignas(32) double g[kBlock];
    alignas(32) double x[kBlock];
    alignas(32) double gate[kBlock];  // float outputs: the block's gates before the rules
    alignas(32) double acc[kBlock + 4];  // acc[3] is the accumulator before the block
  };

  // Gates and the recurrence of one block; returns the local state after it. When storing,
  // writes acc (with the carry applied) to buf->acc[4 ..] and x_grad into `res`.
  template <bool kStore>
  static RecState Block(Buffers* buf, double* res, int n, bool row_start, const RecState& carry, RecState loc,
                        bool exclusive) {
    const int nv = (n + 7) / 8 * 2;  // 4-lane vectors, an even count (padded with identities)
    const __m256d ninf = _mm256_set1_pd(-kInf), one = _mm256_set1_pd(1.0), zero = _mm256_setzero_pd();
    __m256d la = _mm256_set1_pd(loc.a), lb = _mm256_set1_pd(loc.b);
    const __m256d cb = _mm256_set1_pd(carry.b);
    if constexpr (!std::is_same<T, double>::value) {  // float outputs: 8 gates at a time (GateExp8)
      for (int i = 0; i < nv; i += 2) {
        __m256d g0, g1;
        GateExp8(_mm256_sub_pd(_mm256_load_pd(buf->o + 4 * i), _mm256_load_pd(buf->oprev + 4 * i)),
                 _mm256_sub_pd(_mm256_load_pd(buf->o + 4 * i + 4), _mm256_load_pd(buf->oprev + 4 * i + 4)), &g0, &g1);
        _mm256_store_pd(buf->gate + 4 * i, g0);
        _mm256_store_pd(buf->gate + 4 * i + 4, g1);
      }
    }
    for (int i = 0; i < nv; ++i) {
      const __m256d ov = _mm256_load_pd(buf->o + 4 * i);
      const __m256d opv = _mm256_load_pd(buf->oprev + 4 * i);
      __m256d gate = std::is_same<T, double>::value ? Eigen::internal::pexp<Packet4d>(_mm256_sub_pd(ov, opv))
                                                    : _mm256_load_pd(buf->gate + 4 * i);
      // 1 where o_k = o_prev (exp(inf - inf) after a +inf input would poison the row with NaN),
      // then 0 where o_k = -inf.
      gate = _mm256_blendv_pd(gate, one, _mm256_cmp_pd(ov, opv, _CMP_EQ_OQ));
      gate = _mm256_andnot_pd(_mm256_cmp_pd(ov, ninf, _CMP_EQ_OQ), gate);
      if (i == 0 && row_start) gate = _mm256_blend_pd(gate, zero, 0x1);
      __m256d a = gate, b = _mm256_load_pd(buf->g + 4 * i);
      RecScan4(&a, &b);
      b = _mm256_fmadd_pd(a, lb, b);
      a = _mm256_mul_pd(a, la);
      la = BroadcastLast(a);
      lb = BroadcastLast(b);
      if (kStore) _mm256_storeu_pd(buf->acc + 4 + 4 * i, _mm256_fmadd_pd(a, cb, b));
    }
    const RecState after{_mm256_cvtsd_f64(la), _mm256_cvtsd_f64(lb)};
    if (kStore) {
      // x_grad = acc * exp(x - ref): the exponential is used once, so for float outputs it is
      // taken in float lanes (ExpOfDiff8); float64 keeps the double exponential.
      const double* refb = exclusive ? buf->oprev : buf->o;
      const double* accb = buf->acc + (exclusive ? 3 : 4);
      for (int i = 0; i < nv; i += 2) {
        const __m256d x0 = _mm256_load_pd(buf->x + 4 * i), x1 = _mm256_load_pd(buf->x + 4 * i + 4);
        const __m256d d0 = _mm256_sub_pd(x0, _mm256_load_pd(refb + 4 * i));
        const __m256d d1 = _mm256_sub_pd(x1, _mm256_load_pd(refb + 4 * i + 4));
        __m256d e0, e1;
        if constexpr (std::is_same<T, double>::value) {
          e0 = Eigen::internal::pexp<Packet4d>(d0);
          e1 = Eigen::internal::pexp<Packet4d>(d1);
        } else {
          ExpOfDiff8(d0, d1, &e0, &e1);
        }
        const __m256d r0 = _mm256_mul_pd(_mm256_loadu_pd(accb + 4 * i), e0);
        const __m256d r1 = _mm256_mul_pd(_mm256_loadu_pd(accb + 4 * i + 4), e1);
        _mm256_store_pd(res + 4 * i, _mm256_andnot_pd(_mm256_cmp_pd(x0, ninf, _CMP_EQ_OQ), r0));
        _mm256_store_pd(res + 4 * i + 4, _mm256_andnot_pd(_mm256_cmp_pd(x1, ninf, _CMP_EQ_OQ), r1));
      }
      if (exclusive && row_start) res[0] = 0.0;
      buf->acc[3] = buf->acc[3 + n];
    }
    return after;
  }

  template <bool kStore>
  void Chunk(const SeqGroup& q, int64_t s0, int64_t s1, const Carry* carry, Local* local) const {
    if (q.stride != 1) {
      ColumnsChunk<kStore>(q, s0, s1, carry, local);
      return;
    }
    // A contiguous row (G = 1): blocks gathered into buffers in scan order.
    constexpr int kRows = 1;
    Buffers buf[kRows];
    alignas(32) double res[kBlock];
    RecState loc[kRows];
    double olast[kRows];
    for (int g = 0; g < kRows; ++g) {
      loc[g] = {1.0, 0.0};
      olast[g] = s0 > 0 ? ToCompute<double>(o[q.Offset(s0 - 1) + g]) : 0.0;
      if (kStore) buf[g].acc[3] = carry[g].b;
    }
    for (int64_t b0 = s0; b0 < s1; b0 += kBlock) {
      const int n = static_cast<int>(std::min<int64_t>(kBlock, s1 - b0));
      if constexpr (kIs16Bit<T>) {  // kRows == 1: one contiguous run per input
        alignas(32) float f[kBlock];
        RowToFloat(o, q, b0, n, f);
        for (int j = 0; j < n; ++j) buf[0].o[j] = f[j];
        RowToFloat(dout, q, b0, n, f);
        for (int j = 0; j < n; ++j) buf[0].g[j] = f[j];
        if (kStore) {
          RowToFloat(x, q, b0, n, f);
          for (int j = 0; j < n; ++j) buf[0].x[j] = f[j];
        }
      } else {
        for (int j = 0; j < n; ++j) {
          const int64_t off = q.Offset(b0 + j);
          for (int g = 0; g < kRows; ++g) {
            buf[g].o[j] = ToCompute<double>(o[off + g]);
            buf[g].g[j] = ToCompute<double>(dout[off + g]);
            if (kStore) buf[g].x[j] = ToCompute<double>(x[off + g]);
          }
        }
      }
      const int padded = (n + 7) / 8 * 8;  // the x_grad loop takes 8 lanes at a time
      for (int g = 0; g < kRows; ++g) {
        Buffers& bg = buf[g];
        bg.oprev[0] = olast[g];
        for (int j = 1; j < n; ++j) bg.oprev[j] = bg.o[j - 1];
        olast[g] = bg.o[n - 1];
        for (int j = n; j < padded; ++j) {  // identity elements: gate 1, value 0
          bg.o[j] = bg.oprev[j] = 0.0;
          bg.g[j] = 0.0;
          bg.x[j] = -kInf;
        }
        loc[g] = Block<kStore>(&bg, res, n, b0 == 0, kStore ? carry[g] : Carry{1.0, 0.0}, loc[g], q.exclusive);
        if (kStore) {
          if constexpr (kIs16Bit<T>) {  // rounded to float (as FromCompute), then converted
            alignas(32) float f[kBlock];
            T tb[kBlock];
            for (int j = 0; j < n; ++j) f[j] = static_cast<float>(res[j]);
            ConvertVec(f, tb, n);
            for (int j = 0; j < n; ++j) dx[q.Offset(b0 + j) + g] = tb[j];
          } else {
            for (int j = 0; j < n; ++j) dx[q.Offset(b0 + j) + g] = FromCompute<T>(res[j]);
          }
        }
      }
    }
    if (local) {
      for (int g = 0; g < kRows; ++g) local[g] = loc[g];
    }
  }
};

}  // namespace

template <typename T>
bool LogcumsumexpScan(const T* x, T* out, const ScanCall& c) {
  // Rows shorter than a vector gain nothing from SIMD; the generic path also keeps them exact.
  if (c.layout.inner == 1 && c.layout.length < 8) return false;
  RunChunkedScan(LseKernel<T>{x, out, c.avx512}, c.layout, c.exclusive, c.reverse);
  return true;
}

template <typename T>
bool LogcumsumexpGradScan(const T* x, const T* out, const T* out_grad, T* x_grad, const ScanCall& c) {
  RunChunkedScan(LseGradKernel<T>{x, out, out_grad, x_grad}, c.layout, c.exclusive, c.reverse);
  return true;
}

PADDLE_OPS_SIMD_SCAN_INSTANTIATE()

}  // namespace avx2
}  // namespace simd
}  // namespace funcs
}  // namespace phi
