// The CPU scan engine's logcumsumexp and its gradient in vector lanes (scan_logcumsumexp.h): one
// source, compiled by Highway for each of its targets (hwy/foreach_target.h re-includes this file
// once per target) and chosen at run time by the target in use (cpu_isa.h), as cumsum
// (scan_cumsum.cc) is. EMU128 (PADDLE_OPS_CPU_ISA=baseline) leaves both to the generic engine.
// The design: docs/cpu_engine.md.
//
// Lanes: double vectors of at most 4 lanes (CappedTag<double, 4>: 4 on AVX2 / AVX3 / wide SVE,
// 2 on SSE4 / NEON), float vectors of twice as many (one float vector = two double vectors, the
// "pair" below), and for the all-float block of float32 rows up to 16 float lanes (16 on AVX3, 8
// on AVX2). float64 exp / log are Highway's contrib/math (Exp within 1 ulp, Log within 1 ulp on
// our ranges: docs/cpu_engine.md), with the special values (NaN, +-inf, 0, overflow) taken by the
// scalar libm; the float ones are our inline Cephes polynomials (about 1 ulp on the reduced
// ranges they are used on).
//
// Each kernel plugs into the chunked driver (kernels/funcs/cpu/scan_driver.h). A chunk runs in
// blocks of kBlock steps; reverse, exclusive and 16-bit rows go through buffers in scan order.
// Determinism: a chunk's total (Local) is the same instructions in the reduce (Chunk<false>) and
// storing (Chunk<true>) passes, independent of the carry, and every output is a function of its
// chunk's data and carry only, so the bits do not depend on the thread count; this file is
// compiled with -ffp-contract=off so the two passes cannot be contracted differently. Vector
// widths follow the target, so results may differ between targets in their last bits, each
// within docs/spec.md §1. A carry-in per line (ScanFrom) is the starting carry of the line's first
// chunk (LseKernel::CarryStart), taken as any later chunk's carry is; the line totals (ScanTotals)
// are the chunk totals folded by the driver.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/funcs/simd/scan_logcumsumexp.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
// clang-format off: highway.h after foreach_target.h
#include "hwy/highway.h"
#include "hwy/contrib/math/math-inl.h"
// clang-format on

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "kernels/funcs/cpu/scan_driver.h"
#include "kernels/funcs/simd/convert.h"
#include "kernels/funcs/simd/cpu_isa.h"
#include "kernels/funcs/simd/scan_logcumsumexp.h"

HWY_BEFORE_NAMESPACE();
namespace phi {
namespace funcs {
namespace simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#undef PADDLE_OPS_LCSE_VECTOR
#if HWY_TARGET == HWY_EMU128 || HWY_TARGET == HWY_SCALAR
#define PADDLE_OPS_LCSE_VECTOR 0
#else
#define PADDLE_OPS_LCSE_VECTOR 1
#endif

#if PADDLE_OPS_LCSE_VECTOR
namespace lcse {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr int kBlock = 128;  // steps per block; divides every chunk length (multiples of 1024)
// logcumsumexp near zero (docs/spec.md §1: float32 relative error <= 1e-6 where |ref| >= 1e-6).
// An output x with |x| < kNearZero takes the double log, not the float one (whose ~3e-8 absolute
// error is too much there); and while a chunk's local prefix is below kNearZero its terms take
// the double exponential (a float term's relative error, ~1e-7, is absolute in an output near 0).
// Blocks whose max is below kFarBelow add less than e^kFarBelow * kBlock each: their float terms
// cannot matter. A local prefix is <= the prefix with its carry, so the choice made from the
// local state alone is safe and the same in the reduce and the storing passes.
constexpr double kNearZero = 0.5;
constexpr double kFarBelow = -40.0;
constexpr float kFloatExpLow = -87.0f;  // float exp below this is set to 0 (float normal range)
constexpr double kDoubleExpLow = -707.0;
constexpr float kLn2Hi = 0.693359375f;     // 9 bits: e * kLn2Hi is exact for |e| < 2^15
constexpr float kLn2Lo = -2.12194440e-4f;  // ln 2 - kLn2Hi

// Double lanes (at most 4), the float lanes of a pair of them, and half of those.
using DD = hn::CappedTag<double, 4>;
using VD = hn::Vec<DD>;
using DF = hn::Repartition<float, DD>;
using VF = hn::Vec<DF>;
using DH = hn::Half<DF>;
constexpr int kMaxND = static_cast<int>(hn::MaxLanes(DD()));
constexpr int kMaxW = 2 * kMaxND;  // lanes of a pair (columns per group)
// The all-float block's lanes (segments), and the tiles that move its steps.
using DK = hn::CappedTag<float, 16>;
using DT = hn::CappedTag<float, 8>;
constexpr int kMaxK = static_cast<int>(hn::MaxLanes(DK()));

template <typename T>
constexpr bool kIs16Bit = std::is_same<T, dtype::float16>::value || std::is_same<T, dtype::bfloat16>::value;

// ---- lane helpers ------------------------------------------------------------------------------

HWY_INLINE int ND() { return static_cast<int>(hn::Lanes(DD())); }

// A float vector as two double vectors, and back (rounded to float).
HWY_INLINE void Split(VF v, VD* lo, VD* hi) {
  const DD dd;
  const DH dh;
  *lo = hn::PromoteTo(dd, hn::LowerHalf(dh, v));
  *hi = hn::PromoteTo(dd, hn::UpperHalf(dh, v));
}
HWY_INLINE VF Join(VD lo, VD hi) {
  const DF df;
  const DH dh;
  return hn::Combine(df, hn::DemoteTo(dh, hi), hn::DemoteTo(dh, lo));
}

// A mask as bits (lane i at bit i; at most 8 lanes).
template <class D, class M>
HWY_INLINE int Bits(D d, M m) {
  uint8_t b[8] = {0};
  hn::StoreMaskBits(d, m, b);
  return b[0];
}

// v's lanes moved up by k (lanes below k are `fill`), and the last lane everywhere.
HWY_INLINE VD ShiftUp(VD v, int k, double fill) {
  const DD dd;
  HWY_ALIGN int64_t idx[kMaxND];
  const int nd = ND();
  for (int i = 0; i < nd; ++i) idx[i] = i >= k ? i - k : 0;
  const VD moved = hn::TableLookupLanes(v, hn::SetTableIndices(dd, idx));
  return hn::IfThenElse(hn::FirstN(dd, static_cast<size_t>(k)), hn::Set(dd, fill), moved);
}
HWY_INLINE VD BroadcastLast(VD v) {
  const DD dd;
  HWY_ALIGN int64_t idx[kMaxND];
  const int nd = ND();
  for (int i = 0; i < nd; ++i) idx[i] = nd - 1;
  return hn::TableLookupLanes(v, hn::SetTableIndices(dd, idx));
}
// Inclusive prefix sum of the lanes (Hillis-Steele).
HWY_INLINE VD PrefixSum(VD v) {
  const int nd = ND();
  for (int k = 1; k < nd; k *= 2) v = hn::Add(v, ShiftUp(v, k, 0.0));
  return v;
}
// The running sums of nd more steps t: run + the lanes' inclusive prefix; *run moves on to the
// last of them.
HWY_INLINE VD RunningSum(VD t, VD* run) {
  const VD s = hn::Add(PrefixSum(t), *run);
  *run = BroadcastLast(s);
  return s;
}
HWY_INLINE double HorizontalSum(VD v) { return hn::GetLane(hn::SumOfLanes(DD(), v)); }

// exp and log in double lanes: contrib/math, the lanes it does not cover by libm (every lane then).
HWY_INLINE VD ExpD(VD d) {
  const DD dd;
  if (HWY_LIKELY(hn::AllTrue(dd, hn::Lt(d, hn::Set(dd, 700.0))))) return hn::Exp(dd, d);
  HWY_ALIGN double v[kMaxND];
  hn::Store(d, dd, v);
  for (int i = 0; i < ND(); ++i) v[i] = std::exp(v[i]);
  return hn::Load(dd, v);
}
HWY_INLINE VD LogD(VD p) {
  const DD dd;
  const auto ok = hn::And(hn::Gt(p, hn::Zero(dd)), hn::Lt(p, hn::Set(dd, kInf)));
  if (HWY_LIKELY(hn::AllTrue(dd, ok))) return hn::Log(dd, p);
  HWY_ALIGN double v[kMaxND];
  hn::Store(p, dd, v);
  for (int i = 0; i < ND(); ++i) v[i] = std::log(v[i]);
  return hn::Load(dd, v);
}

// s = a + b and *e = a + b - s exactly (TwoSum), any lanes.
template <class V>
HWY_INLINE V TwoSum(V a, V b, V* e) {
  const V s = hn::Add(a, b);
  const V bb = hn::Sub(s, a);
  *e = hn::Add(hn::Sub(a, hn::Sub(s, bb)), hn::Sub(b, bb));
  return s;
}

// log(f) for f in [sqrt(1/2), sqrt(2)] only (no range reduction, no special values): with
// g = f - 1, log f = g - g^2 / 2 + g^3 * poly(g), poly the degree-8 minimax fit of Cephes' logf
// (public domain): about 1 ulp of |log f| <= 0.35.
template <class D, class V = hn::Vec<D>>
HWY_INLINE V LogNearOneF(D d, V f) {
  static constexpr float kPoly[] = {7.0376836292e-2f,  -1.1514610310e-1f, 1.1676998740e-1f,
                                    -1.2420140846e-1f, 1.4249322787e-1f,  -1.6668057665e-1f,
                                    2.0000714765e-1f,  -2.4999993993e-1f, 3.3333331174e-1f};
  const V g = hn::Sub(f, hn::Set(d, 1.0f));
  const V z = hn::Mul(g, g);
  V y = hn::Set(d, kPoly[0]);
  for (int i = 1; i < 9; ++i) y = hn::MulAdd(y, g, hn::Set(d, kPoly[i]));
  y = hn::Mul(hn::Mul(y, g), z);
  y = hn::MulAdd(z, hn::Set(d, -0.5f), y);
  return hn::Add(g, y);
}

// x = m ln2 + r (|r| <= ln2 / 2, m integral, ln2 in two pieces so r is exact to float): returns
// P(r) with exp(r) = 1 + r + r^2 P(r), the degree-5 minimax polynomial of Cephes' expf.
template <class D, class V = hn::Vec<D>>
HWY_INLINE V ExpReducedF(D d, V x, V* m, V* r) {
  static constexpr float kPoly[] = {1.9875691500e-4f, 1.3981999507e-3f, 8.3334519073e-3f,
                                    4.1665795894e-2f, 1.6666665459e-1f, 5.0000001201e-1f};
  *m = hn::Round(hn::Mul(x, hn::Set(d, 1.44269504088896341f)));
  *r = hn::NegMulAdd(*m, hn::Set(d, kLn2Hi), x);
  *r = hn::NegMulAdd(*m, hn::Set(d, kLn2Lo), *r);
  V y = hn::Set(d, kPoly[0]);
  for (int i = 1; i < 6; ++i) y = hn::MulAdd(y, *r, hn::Set(d, kPoly[i]));
  return y;
}
// 2^m for integral m in the normal range, from the exponent bits: m + 127 is the integer in the
// low mantissa bits of 2^23 + 127 + m (exact), shifted into the exponent field (no conversion).
template <class D, class V = hn::Vec<D>>
HWY_INLINE V Pow2F(D d, V m) {
  const hn::RebindToSigned<D> di;
  return hn::BitCast(d, hn::ShiftLeft<23>(hn::BitCast(di, hn::Add(m, hn::Set(d, 8388608.0f + 127.0f)))));
}
// exp(d) for d <= 0 (d below -87 gives a value the callers mask to 0), about 1 ulp.
template <class D, class V = hn::Vec<D>>
HWY_INLINE V ExpNonPositiveF(D d, V x) {
  V m, r;
  V y = ExpReducedF(d, hn::Max(x, hn::Set(d, -87.3f)), &m, &r);
  y = hn::MulAdd(y, hn::Mul(r, r), hn::Add(r, hn::Set(d, 1.0f)));
  return hn::Mul(y, Pow2F(d, m));
}

// r + log(hi + lo) for a float pair hi + lo (hi a positive normal float), rounded once: hi =
// 2^e * f with f in [sqrt(1/2), sqrt(2)) from the bits, the float log of f, lo / hi, and e * ln2
// in two pieces (r + e * kLn2Hi exact as a TwoSum pair).
template <class D, class V = hn::Vec<D>>
HWY_INLINE V LogOfPairF(D d, V hi, V lo, V vr) {
  const hn::RebindToSigned<D> di;
  const auto bits = hn::BitCast(di, hi);
  V f = hn::BitCast(d, hn::Or(hn::And(bits, hn::Set(di, 0x007FFFFF)), hn::Set(di, 0x3F800000)));
  V e = hn::ConvertTo(d, hn::Sub(hn::ShiftRight<23>(bits), hn::Set(di, 127)));
  const auto big = hn::Gt(f, hn::Set(d, 1.41421356f));
  f = hn::IfThenElse(big, hn::Mul(f, hn::Set(d, 0.5f)), f);
  e = hn::IfThenElse(big, hn::Add(e, hn::Set(d, 1.0f)), e);
  const V lf = LogNearOneF(d, f);
  const V corr = hn::Mul(lo, hn::ApproximateReciprocal(hi));
  V err;
  const V h = TwoSum(vr, hn::Mul(e, hn::Set(d, kLn2Hi)), &err);
  const V y = hn::Add(hn::MulAdd(e, hn::Set(d, kLn2Lo), lf), hn::Add(corr, err));
  return hn::Add(h, y);
}

// exp(x - M) for a pair of float elements, as two double vectors. The difference is formed in
// double (exact for any two floats closer than 2^29 in exponent) and split into a float head and
// a tiny tail: exp(d) = expf(head) * (1 + tail), so the float exp sees an exact argument. d <= 0.
// Arguments below the float exp range give exactly 0.
HWY_INLINE void ExpDiffPair(VF xv, VD mlo, VD mhi, VD* lo, VD* hi) {
  const DD dd;
  const DF df;
  const DH dh;
  VD xlo, xhi;
  Split(xv, &xlo, &xhi);
  const VD dlo = hn::Sub(xlo, mlo), dhi = hn::Sub(xhi, mhi);
  const auto hlo = hn::DemoteTo(dh, dlo), hhi = hn::DemoteTo(dh, dhi);
  const VF t = ExpNonPositiveF(df, hn::Combine(df, hhi, hlo));
  VD tlo, thi;
  Split(t, &tlo, &thi);
  const VD low = hn::Set(dd, static_cast<double>(kFloatExpLow));
  *lo = hn::IfThenElseZero(hn::Ge(dlo, low), hn::MulAdd(tlo, hn::Sub(dlo, hn::PromoteTo(dd, hlo)), tlo));
  *hi = hn::IfThenElseZero(hn::Ge(dhi, low), hn::MulAdd(thi, hn::Sub(dhi, hn::PromoteTo(dd, hhi)), thi));
}
HWY_INLINE VD ExpDiffD(VD xv, VD vM) {
  const DD dd;
  const VD d = hn::Sub(xv, vM);
  return hn::IfThenElseZero(hn::Ge(d, hn::Set(dd, kDoubleExpLow)), ExpD(d));
}

// r + log(p) for a pair of double vectors p whose result is rounded to float: p = 2^e * f with f
// in [sqrt(1/2), sqrt(2)) from the bits (exact), log(p) = e * ln2 (double) + log(f) in float
// lanes (one float log for the pair), the rounding of f to float corrected to first order: about
// 4e-8 absolute, inside the spec's 2.5e-7 with the output's own rounding. Only for finite
// p >= 2^-1022 (smaller p are redone exactly by the callers' guard, p < 2^-64).
HWY_INLINE void SplitExponent(VD p, VD* e, VD* f) {
  const DD dd;
  const hn::RebindToUnsigned<DD> du;
  const auto bits = hn::BitCast(du, p);
  const VD m = hn::BitCast(
      dd, hn::Or(hn::And(bits, hn::Set(du, 0x000FFFFFFFFFFFFFull)), hn::Set(du, 0x3FF0000000000000ull)));
  // 2^52 + the biased exponent, as a double, minus 2^52 + 1023 (no int64 conversion on AVX2).
  const VD eb = hn::BitCast(dd, hn::Or(hn::ShiftRight<52>(bits), hn::Set(du, 0x4330000000000000ull)));
  const VD e0 = hn::Sub(eb, hn::Set(dd, 4503599627370496.0 + 1023.0));
  const auto big = hn::Gt(m, hn::Set(dd, 1.4142135623730951));
  *f = hn::IfThenElse(big, hn::Mul(m, hn::Set(dd, 0.5)), m);
  *e = hn::IfThenElse(big, hn::Add(e0, hn::Set(dd, 1.0)), e0);
}
HWY_INLINE void LogPlusPair(VD plo, VD phi, VD rlo, VD rhi, VD* olo, VD* ohi) {
  const DD dd;
  const DF df;
  const DH dh;
  VD elo, flo, ehi, fhi;
  SplitExponent(plo, &elo, &flo);
  SplitExponent(phi, &ehi, &fhi);
  const auto flo_f = hn::DemoteTo(dh, flo), fhi_f = hn::DemoteTo(dh, fhi);
  const VF ff = hn::Combine(df, fhi_f, flo_f);
  VD lflo, lfhi, rflo, rfhi;
  Split(LogNearOneF(df, ff), &lflo, &lfhi);
  Split(hn::ApproximateReciprocal(ff), &rflo, &rfhi);
  const VD clo = hn::Mul(hn::Sub(flo, hn::PromoteTo(dd, flo_f)), rflo);
  const VD chi = hn::Mul(hn::Sub(fhi, hn::PromoteTo(dd, fhi_f)), rfhi);
  const VD ln2 = hn::Set(dd, 0.6931471805599453);
  *olo = hn::Add(hn::MulAdd(elo, ln2, rlo), hn::Add(lflo, clo));
  *ohi = hn::Add(hn::MulAdd(ehi, ln2, rhi), hn::Add(lfhi, chi));
}
// Outputs of LogPlusPair within kNearZero of 0 are taken again with the double log (the whole
// pair then: such vectors are few, a row's outputs only increase).
HWY_INLINE void DoubleLogNearZero(VD plo, VD phi, VD rlo, VD rhi, VD* olo, VD* ohi) {
  const DD dd;
  const VD lim = hn::Set(dd, kNearZero);
  if (hn::AllFalse(dd, hn::Or(hn::Lt(hn::Abs(*olo), lim), hn::Lt(hn::Abs(*ohi), lim)))) return;
  *olo = hn::Add(rlo, LogD(plo));
  *ohi = hn::Add(rhi, LogD(phi));
}

// exp(d) - 1 in float lanes, |d| <= 80: ExpNonPositiveF's reduction and polynomial, with
// exp(r) - 1 = r + r^2 P(r) taken directly where m = 0 (|d| < ln2 / 2), so the result keeps a
// relative error of about 1 ulp also for tiny d; elsewhere y 2^m - 1 (|result| >= 0.29).
// *exp_d: exp(d) itself from the same reduction, (1 + (exp(r) - 1)) 2^m, about 1 ulp.
HWY_INLINE VF Expm1F(VF d, VF* exp_d) {
  const DF df;
  VF m, r;
  const VF y = ExpReducedF(df, d, &m, &r);
  const VF em1 = hn::MulAdd(y, hn::Mul(r, r), r);  // exp(r) - 1
  const VF p2 = Pow2F(df, m), e1 = hn::Add(em1, hn::Set(df, 1.0f));
  *exp_d = hn::Mul(e1, p2);
  const VF big = hn::MulSub(e1, p2, hn::Set(df, 1.0f));
  return hn::IfThenElse(hn::Eq(m, hn::Zero(df)), em1, big);
}
// Whether some lane of the pair is outside [-80, 80] or NaN; then *lo, *hi are the double
// exponentials of all of them.
HWY_INLINE bool DoubleExpOutside80(VD dlo, VD dhi, VD* lo, VD* hi) {
  const DD dd;
  const VD lim = hn::Set(dd, 80.0);
  if (hn::AllTrue(dd, hn::And(hn::Le(hn::Abs(dlo), lim), hn::Le(hn::Abs(dhi), lim)))) return false;
  *lo = ExpD(dlo);
  *hi = ExpD(dhi);
  return true;
}
// exp(d) for a pair of double vectors, to float accuracy: d split into a float head and a tail,
// exp(d) = expf(head) * (1 + tail). Lanes outside [-80, 80] or NaN make the pair take the double
// exponential, so 0, inf, NaN and subnormal results are the double path's.
HWY_INLINE void ExpOfDiffPair(VD dlo, VD dhi, VD* lo, VD* hi) {
  if (DoubleExpOutside80(dlo, dhi, lo, hi)) return;
  const DD dd;
  const DF df;
  const DH dh;
  const auto hlo = hn::DemoteTo(dh, dlo), hhi = hn::DemoteTo(dh, dhi);
  VD tlo, thi;
  Split(ExpNonPositiveF(df, hn::Combine(df, hhi, hlo)), &tlo, &thi);
  *lo = hn::MulAdd(tlo, hn::Sub(dlo, hn::PromoteTo(dd, hlo)), tlo);
  *hi = hn::MulAdd(thi, hn::Sub(dhi, hn::PromoteTo(dd, hhi)), thi);
}
// exp(d) on a pair for the gradient's gates, d = o - o_prev of float outputs: a gate of 1/2 or
// more as 1 + expm1 (expm1 of d rounded to float, in float lanes; the sum exact in double), one
// below 1/2 as exp of that float itself, then g (1 + dl) for the rounding dl of d. A gate's error
// is then ~1e-7 min(|1 - gate|, gate) (plus 2^-53): near 1, long runs of gates do not drift; far
// below, 1 + expm1 would keep expm1's absolute error (~6e-8, all of a gate of 1e-7: a jump of 16
// in the outputs; the GPU's gates likewise, PO_LSE_GRAD_GATE_EXPF). docs/spec.md §1, gradient.
HWY_INLINE void GateExpPair(VD dlo, VD dhi, VD* lo, VD* hi) {
  if (DoubleExpOutside80(dlo, dhi, lo, hi)) return;
  const DD dd;
  const DF df;
  const DH dh;
  const auto hlo = hn::DemoteTo(dh, dlo), hhi = hn::DemoteTo(dh, dhi);
  VF ef;
  const VF em1 = Expm1F(hn::Combine(df, hhi, hlo), &ef);
  VD elo, ehi;
  Split(em1, &elo, &ehi);
  const VD one = hn::Set(dd, 1.0);
  VD glo = hn::Add(elo, one), ghi = hn::Add(ehi, one);
  if (!hn::AllFalse(df, hn::Lt(em1, hn::Set(df, -0.5f)))) {  // some gate below 1/2 (rare past a line's start)
    VD xlo, xhi;
    Split(ef, &xlo, &xhi);
    const VD half = hn::Set(dd, 0.5);
    glo = hn::IfThenElse(hn::Lt(glo, half), xlo, glo);
    ghi = hn::IfThenElse(hn::Lt(ghi, half), xhi, ghi);
  }
  *lo = hn::MulAdd(glo, hn::Sub(dlo, hn::PromoteTo(dd, hlo)), glo);
  *hi = hn::MulAdd(ghi, hn::Sub(dhi, hn::PromoteTo(dd, hhi)), ghi);
}

// ---- element type <-> compute type -------------------------------------------------------------

template <typename F, typename T>
inline F ToCompute(T v) {
  return static_cast<F>(static_cast<float>(v));
}
template <>
inline double ToCompute<double, double>(double v) {
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
template <typename T>
using LseCompute = typename std::conditional<std::is_same<T, double>::value, double, float>::type;

// A column step's run of n lanes to float. bfloat16 -> float32 is a 16-bit shift: inline, it
// costs less than the call; float16 takes the vector conversion.
template <typename T>
HWY_INLINE void LanesToFloat(const T* p, float* f, int n) {
  if constexpr (std::is_same<T, dtype::bfloat16>::value) {
    for (int g = 0; g < n; ++g) f[g] = dtype::bfloat16::BitsToFloat(p[g].x);
  } else {
    Convert(p, f, n);
  }
}
// Steps b0 .. b0 + n - 1 (n <= kBlock) of a contiguous row of a 16-bit type as float, in scan
// order: the steps are one run of memory, converted at once (and reversed).
template <typename T>
void RowToFloat(const T* x, const SeqGroup& q, int64_t b0, int n, float* f) {
  if (!q.reverse) {
    Convert(x + q.Offset(b0), f, n);
    return;
  }
  HWY_ALIGN float t[kBlock];
  Convert(x + q.Offset(b0 + n - 1), t, n);
  for (int j = 0; j < n; ++j) f[j] = t[n - 1 - j];
}
// A pair of double vectors as n <= 2 nd consecutive elements of type T.
template <typename T>
HWY_INLINE void StorePair(T* p, int n, VD lo, VD hi) {
  const DD dd;
  const DF df;
  const int nd = ND();
  if constexpr (kIs16Bit<T>) {  // rounded to float in lanes, as FromCompute does one by one
    HWY_ALIGN float f[kMaxW];
    hn::Store(Join(lo, hi), df, f);
    Convert(f, p, n);
    return;
  }
  if constexpr (std::is_same<T, float>::value) {
    if (n == 2 * nd) {
      hn::StoreU(Join(lo, hi), df, p);
      return;
    }
  } else if constexpr (std::is_same<T, double>::value) {
    if (n == 2 * nd) {
      hn::StoreU(lo, dd, p);
      hn::StoreU(hi, dd, p + nd);
      return;
    }
  }
  HWY_ALIGN double d[kMaxW];
  hn::Store(lo, dd, d);
  hn::Store(hi, dd, d + nd);
  for (int g = 0; g < n; ++g) p[g] = FromCompute<T>(d[g]);
}

// ---- log-sum-exp: states and the exact rules -------------------------------------------------------
//
// A prefix is kept as (m, s): value m + log(s), m the running max, s = sum exp(x - m) in double.
// Empty: (-inf, 0). NaN anywhere: m = NaN. A +inf element: m = +inf. The outputs of a block
// combine the chunk's carry (mc, sc) with the chunk-local prefix (M, s_j):
//   R = max(mc, M), P_j = sc * exp(mc - R) + exp(M - R) * s_j, out_j = R + log(P_j).
// A first output of the block far below R (P_0 < 2^-64) has its block's outputs recomputed
// exactly element by element.
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
inline double LseValue(const LseState& st) {
  if (!std::isfinite(st.m)) return st.m;
  return st.m + std::log(st.s);
}
// Per-sequence output constants of a block: P = a + b * s_j, out = r + log(P).
struct LseOutConst {
  double key_m = std::numeric_limits<double>::quiet_NaN();
  double r, a, b;
};
inline void SetOutConst(const LseState& carry, double M, LseOutConst* oc) {
  if (oc->key_m == M) return;
  oc->key_m = M;
  oc->r = std::max(carry.m, M);
  oc->a = carry.m == -kInf ? 0.0 : carry.s * (carry.m == oc->r ? 1.0 : std::exp(carry.m - oc->r));
  oc->b = M == oc->r ? 1.0 : std::exp(M - oc->r);
}

// Single-term prefixes (docs/spec.md §1): where a prefix holds exactly one finite term x the
// output is x bit for bit. A state of one term is kept as (x, 1) (NormalizeSingle, after a block
// whose local state was empty: the same in both passes); SingleTermOutputs sets the outputs that
// the block arithmetic rescaled. A state whose sum is exactly 1 counts as one term of value m.
inline int TermsOf(const LseState& st, double* v) {
  if (st.m == -kInf) return 0;
  if (st.s != 1.0) return 2;
  *v = st.m;
  return 1;
}
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
// one finite term: put(j, x) where step j's prefix holds exactly the one term x. Returns the
// number of terms (capped at 2) through the block and the one term in *last when it is 1.
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
// Exact element-by-element outputs of a block from the local prefix `st` before it; returns the
// local state after it (blocks with NaN / inf, and guarded blocks).
template <typename F>
LseState LseBlockExact(const F* xb, F* ob, int n, const LseState& carry, LseState st) {
  for (int j = 0; j < n; ++j) {
    st = LseCombine(st, LseOf(static_cast<double>(xb[j])));
    if (ob) ob[j] = static_cast<F>(LseValue(LseCombine(carry, st)));
  }
  return st;
}

// ---- float32 rows: the all-float block --------------------------------------------------------------
//
// A block of n float steps (n a multiple of K * tile for K lanes) in float lanes only: K segments
// of n / K contiguous steps, one per lane, moved through tile x tile transposes into a step-major
// buffer, so each lane runs its own segment's sum down the steps with no in-register prefix.
//   Pass A: the terms t = exp(x - M) from an exact TwoSum difference (exp(d) = expf(head) *
//     (1 + tail)), kept in a buffer, and each lane's total as a float-float pair. The block
//     total: the lanes' totals added in double in a fixed pairwise order.
//   Pass B (storing): each lane's running pair from its offset P = a + b * (s + the totals of the
//     lanes before it) (double, once per block, split into a float pair) adds b * t; the output
//     r + log(P) is LogOfPairF.
struct FloatBlockResult {
  double sum;      // the block's terms, summed (against its max M)
  double first_p;  // P of the block's first step
  bool near_zero;  // some output is within kNearZero of 0 (storing only)
};

#if !HWY_HAVE_SCALABLE
constexpr int kTile = static_cast<int>(hn::MaxLanes(DT()));
// r[i] <- lane i of r[0..N-1] (an N x N float transpose, N = 4 in 128-bit or 8 in 256-bit vectors).
template <class D>
HWY_INLINE void TransposeTile(D d, hn::Vec<D>* r) {
  constexpr size_t N = hn::MaxLanes(D());
  if constexpr (N == 4) {  // one 128-bit block: t0 = r0[0] r1[0] r0[1] r1[1], t1 = r0[2] r1[2] ...
    const auto t0 = hn::InterleaveLower(d, r[0], r[1]), t1 = hn::InterleaveUpper(d, r[0], r[1]);
    const auto t2 = hn::InterleaveLower(d, r[2], r[3]), t3 = hn::InterleaveUpper(d, r[2], r[3]);
    r[0] = hn::ConcatLowerLower(d, t2, t0);
    r[1] = hn::ConcatUpperUpper(d, t2, t0);
    r[2] = hn::ConcatLowerLower(d, t3, t1);
    r[3] = hn::ConcatUpperUpper(d, t3, t1);
  } else {
    static_assert(N == 8, "float tiles of 4 or 8 lanes");
    // Pairs inside each 128-bit block, then 64-bit pairs, then the blocks.
    const hn::Repartition<double, D> d64;
    hn::Vec<D> t[8], u[8];
    for (int i = 0; i < 4; ++i) {
      t[2 * i] = hn::InterleaveLower(d, r[2 * i], r[2 * i + 1]);
      t[2 * i + 1] = hn::InterleaveUpper(d, r[2 * i], r[2 * i + 1]);
    }
    for (int i = 0; i < 2; ++i) {
      for (int h = 0; h < 2; ++h) {
        const auto a = hn::BitCast(d64, t[4 * i + h]), b = hn::BitCast(d64, t[4 * i + h + 2]);
        u[4 * i + 2 * h] = hn::BitCast(d, hn::InterleaveLower(d64, a, b));
        u[4 * i + 2 * h + 1] = hn::BitCast(d, hn::InterleaveUpper(d64, a, b));
      }
    }
    for (int i = 0; i < 4; ++i) {
      r[i] = hn::ConcatLowerLower(d, u[4 + i], u[i]);
      r[i + 4] = hn::ConcatUpperUpper(d, u[4 + i], u[i]);
    }
  }
}
#else
constexpr int kTile = 8;
#endif

// Between a block in memory (K segments of seg steps, seg a multiple of kTile) and a step-major
// buffer (buf[j * K + k]: step j of segment k).
HWY_INLINE void SegmentsToSteps(const float* xb, int seg, int K, float* buf) {
#if !HWY_HAVE_SCALABLE
  const DT d;
  for (int h = 0; h < K; h += kTile) {
    for (int j = 0; j < seg; j += kTile) {
      hn::Vec<DT> v[kTile];
      for (int k = 0; k < kTile; ++k) v[k] = hn::LoadU(d, xb + (h + k) * seg + j);
      TransposeTile(d, v);
      for (int i = 0; i < kTile; ++i) hn::Store(v[i], d, buf + (j + i) * K + h);
    }
  }
#else
  for (int k = 0; k < K; ++k) {
    for (int j = 0; j < seg; ++j) buf[j * K + k] = xb[k * seg + j];
  }
#endif
}
HWY_INLINE void StepsToSegments(const float* buf, int seg, int K, float* ob) {
#if !HWY_HAVE_SCALABLE
  const DT d;
  for (int h = 0; h < K; h += kTile) {
    for (int j = 0; j < seg; j += kTile) {
      hn::Vec<DT> v[kTile];
      for (int i = 0; i < kTile; ++i) v[i] = hn::Load(d, buf + (j + i) * K + h);
      TransposeTile(d, v);
      for (int k = 0; k < kTile; ++k) hn::StoreU(v[k], d, ob + (h + k) * seg + j);
    }
  }
#else
  for (int k = 0; k < K; ++k) {
    for (int j = 0; j < seg; ++j) ob[k * seg + j] = buf[j * K + k];
  }
#endif
}

// The doubles of v added pairwise in a fixed tree: ((v0 + v1) + (v2 + v3)) + ...
inline double PairwiseSum(const double* v, int n) {
  return n == 1 ? v[0] : PairwiseSum(v, n / 2) + PairwiseSum(v + n / 2, n - n / 2);
}

// Whether the all-float block takes n steps in the lanes of D.
template <class D>
HWY_INLINE bool FloatBlockTakes(D d, int n) {
  return n % (static_cast<int>(hn::Lanes(d)) * kTile) == 0;
}

// The block in the float lanes of D (DK: up to 16 lanes; DT, up to 8, for blocks of 64 steps
// on AVX3).
template <bool kStore, class D>
HWY_NOINLINE FloatBlockResult FloatBlock(D d, const float* xb, float* ob, int n, float M, double s, double a,
                                         double b, double r) {
  using V = hn::Vec<D>;
  const int K = static_cast<int>(hn::Lanes(d));
  const int seg = n / K;
  HWY_ALIGN float buf[kBlock];
  HWY_ALIGN float tb[kBlock];
  SegmentsToSteps(xb, seg, K, buf);
  const V nM = hn::Set(d, -M), low = hn::Set(d, kFloatExpLow);
  V th = hn::Zero(d), tl = th;
  for (int j = 0; j < seg; ++j) {
    V dl;
    const V dv = TwoSum(hn::Load(d, buf + j * K), nM, &dl);
    V t = ExpNonPositiveF(d, dv);
    t = hn::IfThenElseZero(hn::Ge(dv, low), hn::MulAdd(t, dl, t));
    hn::Store(t, d, tb + j * K);
    V e;
    th = TwoSum(th, t, &e);
    tl = hn::Add(tl, e);
  }
  HWY_ALIGN float h[kMaxK], l[kMaxK];
  hn::Store(th, d, h);
  hn::Store(tl, d, l);
  double lane[kMaxK];
  for (int k = 0; k < K; ++k) lane[k] = static_cast<double>(h[k]) + static_cast<double>(l[k]);
  FloatBlockResult res;
  res.sum = PairwiseSum(lane, K);
  res.first_p = 1.0;
  res.near_zero = false;
  if (!kStore) return res;
  res.first_p = a + b * (s + static_cast<double>(tb[0]));
  // Each lane's running P from its offset; b * t in float (b < 2^-70: the block's terms are
  // invisible against a >= 1, the carry's own term).
  const float fb = b < 0x1p-70 ? 0.0f : static_cast<float>(b);
  HWY_ALIGN float oh[kMaxK], ol[kMaxK];
  double off = s;
  for (int k = 0; k < K; ++k) {
    const double p = a + b * off;
    oh[k] = static_cast<float>(p);
    ol[k] = static_cast<float>(p - static_cast<double>(oh[k]));
    off += lane[k];
  }
  V rh = hn::Load(d, oh), rl = hn::Load(d, ol);
  const V vb = hn::Set(d, fb), vr = hn::Set(d, static_cast<float>(r));
  const V lim = hn::Set(d, static_cast<float>(kNearZero));
  auto near = hn::Lt(vb, hn::Zero(d));  // false
  for (int j = 0; j < seg; ++j) {
    V e;
    rh = TwoSum(rh, hn::Mul(hn::Load(d, tb + j * K), vb), &e);
    rl = hn::Add(rl, e);
    const V o = LogOfPairF(d, rh, rl, vr);
    near = hn::Or(near, hn::Lt(hn::Abs(o), lim));
    hn::Store(o, d, buf + j * K);
  }
  StepsToSegments(buf, seg, K, ob);
  res.near_zero = !hn::AllFalse(d, near);
  return res;
}

// ---- logcumsumexp rows --------------------------------------------------------------------------

// The end of a block (RowBlock): the guard's exact outputs (a special carry, or a first output far
// below the block's reference), the one-term state and the single-term outputs.
template <bool kStore, typename F>
void FinishRowBlock(const F* xb, F* ob, int n, const LseState& carry, const LseState& before, bool local_empty,
                    bool special_carry, double first_p, LseState* loc) {
  if (kStore && (special_carry || !(first_p >= 0x1p-64))) {
    LseBlockExact<F>(xb, ob, n, carry, before);  // outputs only; *loc is already right
  }
  if (local_empty) NormalizeSingle(n, [&](int j) { return static_cast<double>(xb[j]); }, loc);
  if (kStore) {
    SingleTermOutputs(n, carry, before, [&](int j) { return static_cast<double>(xb[j]); },
                      [&](int j, double v) { ob[j] = static_cast<F>(v); }, false);
  }
}

// One block of n <= kBlock steps of one contiguous sequence xb (F = float or double): float rows in
// pairs of double vectors (a float vector), double rows in double vectors. The last partial vector
// is read and written through a buffer padded with -inf.
template <bool kStore, typename F>
void RowBlock(const F* xb, F* ob, int n, const LseState& carry, LseState* loc, LseOutConst* oc) {
  const DD dd;
  constexpr bool kFloat = std::is_same<F, float>::value;
  using DL = typename std::conditional<kFloat, DF, DD>::type;
  const DL dl;
  const int V = static_cast<int>(hn::Lanes(dl));
  const int full = n / V;
  const int nv = (n + V - 1) / V;
  HWY_ALIGN F tail_in[kMaxW];
  HWY_ALIGN F tail_out[kMaxW];
  if (nv > full) {
    for (int j = 0; j < V; ++j) tail_in[j] = full * V + j < n ? xb[full * V + j] : -std::numeric_limits<F>::infinity();
  }
  auto src = [&](int i) { return i < full ? xb + i * V : tail_in; };
  auto dst = [&](int i) { return i < full ? ob + i * V : tail_out; };
  // Pass 1: block max and NaN check.
  auto vm = hn::Set(dl, -std::numeric_limits<F>::infinity());
  auto nan = hn::Lt(vm, vm);  // false
  for (int i = 0; i < nv; ++i) {
    const auto v = hn::LoadU(dl, src(i));
    vm = hn::Max(vm, v);
    nan = hn::Or(nan, hn::IsNaN(v));
  }
  const double bm = static_cast<double>(hn::GetLane(hn::MaxOfLanes(dl, vm)));
  const bool bad = !hn::AllFalse(dl, nan);
  // NaN, +inf, an all -inf block, or a special local prefix: exact element by element (the same
  // in both modes, so the local total is still the same).
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
  const VD vM = hn::Set(dd, M);
  // float32 terms: double exponentials while the local prefix (loc->s plus the block's sum so
  // far, against M) is below exp(kNearZero - M) (see kNearZero).
  const double s_near = std::exp(kNearZero - M);
  bool precise = kFloat && bm >= kFarBelow;
  VD va = hn::Zero(dd), vb = va, vr = va;
  if (kStore) {
    SetOutConst(carry, M, oc);
    va = hn::Set(dd, oc->a);
    vb = hn::Set(dd, oc->b);
    vr = hn::Set(dd, oc->r);
  }
  // float32 blocks the all-float block takes: its float terms are kept when the local prefix is
  // past kNearZero after the block (the block's own outputs near 0 are redone below); a block that
  // leaves the prefix below it is redone whole by the loop below (the same decision in both modes:
  // it depends on the block's total alone).
  double first_p = 1.0;
  bool outputs_only = false;  // the loop below rewrites outputs near 0 and stops past them
  if constexpr (kFloat) {
    const bool wide = FloatBlockTakes(DK(), n);
    if (wide || FloatBlockTakes(DT(), n)) {
      const double a = kStore ? oc->a : 0.0, b = kStore ? oc->b : 1.0, r = kStore ? oc->r : 0.0;
      const float fM = static_cast<float>(M);
      const FloatBlockResult fr = wide ? FloatBlock<kStore>(DK(), xb, ob, n, fM, loc->s, a, b, r)
                                       : FloatBlock<kStore>(DT(), xb, ob, n, fM, loc->s, a, b, r);
      if (!(precise && before_s < s_near) || before_s + fr.sum >= s_near) {
        first_p = fr.first_p;
        loc->s += fr.sum;
        if (!fr.near_zero) {
          return FinishRowBlock<kStore, F>(xb, ob, n, carry, before, local_empty, special_carry, first_p, loc);
        }
        outputs_only = true;
      }
    }
  }
  // Pass 2: terms, their block total (lane-wise, then a horizontal sum) and, when storing, the
  // running prefix and the outputs.
  VD tot0 = hn::Zero(dd), tot1 = tot0;
  VD run = hn::Set(dd, before_s);
  for (int i = 0; i < nv; ++i) {
    if constexpr (kFloat) {
      VD lo, hi;
      if (precise && before_s + HorizontalSum(hn::Add(tot0, tot1)) >= s_near) precise = false;
      const VF xv = hn::LoadU(dl, src(i));
      if (precise) {
        VD xlo, xhi;
        Split(xv, &xlo, &xhi);
        lo = ExpDiffD(xlo, vM);
        hi = ExpDiffD(xhi, vM);
      } else {
        ExpDiffPair(xv, vM, vM, &lo, &hi);
      }
      tot0 = hn::Add(tot0, lo);
      tot1 = hn::Add(tot1, hi);
      if (kStore) {
        const VD slo = RunningSum(lo, &run);
        const VD shi = RunningSum(hi, &run);
        const VD plo = hn::MulAdd(vb, slo, va), phi = hn::MulAdd(vb, shi, va);
        if (i == 0) first_p = hn::GetLane(plo);
        VD olo, ohi;
        LogPlusPair(plo, phi, vr, vr, &olo, &ohi);
        DoubleLogNearZero(plo, phi, vr, vr, &olo, &ohi);
        hn::StoreU(Join(olo, ohi), dl, dst(i));
        // Rewriting the all-float block's outputs: past the outputs near 0 (outputs only
        // increase) and the precise terms, the rest are its own.
        const VD half = hn::Set(dd, kNearZero);
        if (outputs_only && !precise && hn::AllTrue(dd, hn::And(hn::Ge(olo, half), hn::Ge(ohi, half)))) break;
      }
    } else {
      const VD t = ExpDiffD(hn::LoadU(dd, src(i)), vM);
      if (i & 1) {
        tot1 = hn::Add(tot1, t);
      } else {
        tot0 = hn::Add(tot0, t);
      }
      if (kStore) {
        const VD p = hn::MulAdd(vb, RunningSum(t, &run), va);
        if (i == 0) first_p = hn::GetLane(p);
        hn::StoreU(hn::Add(vr, LogD(p)), dd, dst(i));
      }
    }
  }
  if (kStore && nv > full) {
    for (int j = 0; j < n - full * V; ++j) ob[full * V + j] = tail_out[j];
  }
  if (!outputs_only) loc->s += HorizontalSum(hn::Add(tot0, tot1));
  FinishRowBlock<kStore, F>(xb, ob, n, carry, before, local_empty, special_carry, first_p, loc);
}

// ---- logcumsumexp columns ---------------------------------------------------------------------------
//
// Up to W = 2 nd adjacent columns (inner > 1), one per lane of a pair: the same scan with each lane
// its own sequence, so the prefix runs down the steps and needs no shuffles; rows are read and
// written in place, in either direction. A block where some lane is special (NaN, inf, all -inf)
// is done exactly lane by lane, and so are the outputs of a lane that fails the guard.
template <typename T>
struct LseColumns {
  using F = LseCompute<T>;

  // Step p's lanes (lanes >= G read as 0): a float vector when F is float, else two doubles.
  static HWY_INLINE void Load(const T* p, int G, VF* xf, VD* lo, VD* hi) {
    const DD dd;
    const DF df;
    const int nd = ND();
    if constexpr (std::is_same<T, double>::value) {
      HWY_ALIGN double d[kMaxW] = {0};
      const double* q = p;
      if (G < 2 * nd) {
        for (int g = 0; g < G; ++g) d[g] = p[g];
        q = d;
      }
      *lo = hn::LoadU(dd, q);
      *hi = hn::LoadU(dd, q + nd);
    } else {
      if constexpr (std::is_same<T, float>::value) {
        if (G == 2 * nd) {
          *xf = hn::LoadU(df, p);
          return;
        }
      }
      HWY_ALIGN float f[kMaxW] = {0};
      if constexpr (kIs16Bit<T>) {
        Convert(p, f, G);
      } else {
        for (int g = 0; g < G; ++g) f[g] = static_cast<float>(p[g]);
      }
      *xf = hn::Load(df, f);
    }
  }

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
    const DD dd;
    const DF df;
    const int nd = ND(), W = 2 * nd;
    const int G = q.G;
    const int all = (1 << G) - 1;
    // 16-bit types: the block's steps converted to float lanes up front, and, when storing, the
    // outputs kept in float lanes and converted after pass 2.
    HWY_ALIGN float xs[kIs16Bit<T> ? kBlock * kMaxW : 1];
    HWY_ALIGN float os[kIs16Bit<T> ? kBlock * kMaxW : 1];
    if constexpr (kIs16Bit<T>) {
      for (int j = 0; j < n; ++j) {
        LanesToFloat(x + q.Offset(b0 + j), xs + j * W, G);
        for (int g = G; g < W; ++g) xs[j * W + g] = 0.0f;
      }
    }
    auto load = [&](int j, VF* xf, VD* lo, VD* hi) {
      if constexpr (kIs16Bit<T>) {
        *xf = hn::Load(df, xs + j * W);
      } else {
        Load(x + q.Offset(b0 + j), G, xf, lo, hi);
      }
    };
    auto store = [&](int j, VD lo, VD hi) {
      if constexpr (kIs16Bit<T>) {
        hn::Store(Join(lo, hi), df, os + j * W);
      } else {
        StorePair(out + q.Offset(b0 + j), G, lo, hi);
      }
    };
    // Pass 1: per-lane max and NaN check, in double lanes.
    VD mlo = hn::Set(dd, -kInf), mhi = mlo;
    auto nlo = hn::Lt(mlo, mlo), nhi = nlo;
    for (int j = 0; j < n; ++j) {
      VF xf = hn::Zero(df);
      VD lo = hn::Zero(dd), hi = lo;
      load(j, &xf, &lo, &hi);
      if constexpr (!std::is_same<T, double>::value) Split(xf, &lo, &hi);
      mlo = hn::Max(mlo, lo);
      mhi = hn::Max(mhi, hi);
      nlo = hn::Or(nlo, hn::IsNaN(lo));
      nhi = hn::Or(nhi, hn::IsNaN(hi));
    }
    HWY_ALIGN double bm[kMaxW];
    hn::Store(mlo, dd, bm);
    hn::Store(mhi, dd, bm + nd);
    const int nan = Bits(dd, nlo) | (Bits(dd, nhi) << nd);
    bool special = (nan & all) != 0;
    for (int g = 0; g < G; ++g) special |= !std::isfinite(bm[g]) || std::isnan(loc[g].m) || loc[g].m == kInf;
    if (special) {
      Exact<kStore>(x, out, q, b0, n, carry, loc, prev, all, /*update_local=*/true);
      return;
    }
    LseState before[kMaxW];
    T prev_before[kMaxW];
    HWY_ALIGN double m[kMaxW], sv[kMaxW], a[kMaxW], b[kMaxW], r[kMaxW];
    int redo = 0;
    bool precise = false;  // float terms in double exponentials (kNearZero)
    for (int g = 0; g < W; ++g) {
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
    const VD Mlo = hn::Load(dd, m), Mhi = hn::Load(dd, m + nd);
    const VD alo = hn::Load(dd, a), ahi = hn::Load(dd, a + nd);
    const VD blo = hn::Load(dd, b), bhi = hn::Load(dd, b + nd);
    const VD rlo = hn::Load(dd, r), rhi = hn::Load(dd, r + nd);
    VD slo = hn::Load(dd, sv), shi = hn::Load(dd, sv + nd);
    precise = std::is_same<F, float>::value && precise;
    // float32, a whole vector of columns, inclusive, every lane's local prefix past kNearZero:
    // all-float lanes (ColumnsFloat). Its totals stand (the same in both modes); when some output
    // came out near 0 the loop below writes the outputs again and its sums are dropped.
    bool float_totals = false;
    HWY_ALIGN double fs[kMaxW];
    if constexpr (std::is_same<T, float>::value) {
      if (G == W && !q.exclusive && !precise) {
        const bool near = ColumnsFloat<kStore>(x, out, q, b0, n, m, sv, a, b, r, fs, &redo);
        float_totals = true;
        if (!near) {
          for (int g = 0; g < G; ++g) loc[g] = {m[g], fs[g]};
          FinishColumns<kStore>(x, out, q, b0, n, carry, before, loc, prev, prev_before, redo);
          return;
        }
      }
    }
    VD prev_lo = hn::Zero(dd), prev_hi = prev_lo;
    if (kStore && q.exclusive) {
      HWY_ALIGN double pv[kMaxW] = {0};
      for (int g = 0; g < G; ++g) pv[g] = static_cast<double>(ToCompute<F>(prev[g]));
      prev_lo = hn::Load(dd, pv);
      prev_hi = hn::Load(dd, pv + nd);
    }
    for (int j = 0; j < n; ++j) {
      VF xf = hn::Zero(df);
      VD lo = hn::Zero(dd), hi = lo;
      load(j, &xf, &lo, &hi);
      if (std::is_same<T, double>::value || precise) {
        if constexpr (!std::is_same<T, double>::value) Split(xf, &lo, &hi);
        lo = ExpDiffD(lo, Mlo);
        hi = ExpDiffD(hi, Mhi);
      } else {
        ExpDiffPair(xf, Mlo, Mhi, &lo, &hi);
      }
      slo = hn::Add(slo, lo);
      shi = hn::Add(shi, hi);
      if (kStore) {
        const VD plo = hn::MulAdd(blo, slo, alo), phi = hn::MulAdd(bhi, shi, ahi);
        if (j == 0) {
          const VD lim = hn::Set(dd, 0x1p-64);
          redo |= Bits(dd, hn::Not(hn::Ge(plo, lim))) | (Bits(dd, hn::Not(hn::Ge(phi, lim))) << nd);
        }
        VD olo, ohi;
        if constexpr (std::is_same<F, double>::value) {
          olo = hn::Add(rlo, LogD(plo));
          ohi = hn::Add(rhi, LogD(phi));
        } else {
          LogPlusPair(plo, phi, rlo, rhi, &olo, &ohi);
          DoubleLogNearZero(plo, phi, rlo, rhi, &olo, &ohi);
        }
        if (q.exclusive) {
          if constexpr (!std::is_same<F, double>::value) {  // the value as stored
            Split(Join(olo, ohi), &olo, &ohi);
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
        for (int j = 0; j < n; ++j) Convert(os + j * W, out + q.Offset(b0 + j), G);
      }
    }
    hn::Store(slo, dd, sv);
    hn::Store(shi, dd, sv + nd);
    for (int g = 0; g < G; ++g) loc[g] = {m[g], float_totals ? fs[g] : sv[g]};
    if (kStore && q.exclusive) {
      HWY_ALIGN double pv[kMaxW];
      hn::Store(prev_lo, dd, pv);
      hn::Store(prev_hi, dd, pv + nd);
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

  // A whole float vector of float32 columns (T = float, inclusive) of one block in float lanes, as
  // FloatBlock does a row's segments: lane g's terms exp(x - m[g]) from an exact TwoSum difference,
  // their float-float total (fs[g] = sv[g] + the total, in double), and, when storing, the running
  // P = a + b * (sv + terms so far) from its offset in float-float and the outputs r + log(P)
  // (LogOfPairF). Lanes whose first P is below 2^-64 join *redo. Returns whether some output is
  // within kNearZero of 0.
  template <bool kStore>
  static bool ColumnsFloat(const T* x, T* out, const SeqGroup& q, int64_t b0, int n, const double* m,
                           const double* sv, const double* a, const double* b, const double* r, double* fs,
                           int* redo) {
    const DF df;
    const int W = static_cast<int>(hn::Lanes(df));
    HWY_ALIGN float nm[kMaxW], oh[kMaxW], ol[kMaxW], fb[kMaxW], fr[kMaxW], t0[kMaxW];
    for (int g = 0; g < W; ++g) {
      nm[g] = static_cast<float>(-m[g]);
      const double p = a[g] + b[g] * sv[g];
      oh[g] = static_cast<float>(p);
      ol[g] = static_cast<float>(p - static_cast<double>(oh[g]));
      fb[g] = b[g] < 0x1p-70 ? 0.0f : static_cast<float>(b[g]);
      fr[g] = static_cast<float>(r[g]);
    }
    const VF nM = hn::Load(df, nm), vb = hn::Load(df, fb), vr = hn::Load(df, fr);
    const VF low = hn::Set(df, kFloatExpLow), lim = hn::Set(df, static_cast<float>(kNearZero));
    VF th = hn::Zero(df), tl = th, rh = hn::Load(df, oh), rl = hn::Load(df, ol);
    auto near = hn::Lt(th, th);  // false
    for (int j = 0; j < n; ++j) {
      const int64_t off = q.Offset(b0 + j);
      VF dl;
      const VF d = TwoSum(hn::LoadU(df, x + off), nM, &dl);
      VF t = ExpNonPositiveF(df, d);
      t = hn::IfThenElseZero(hn::Ge(d, low), hn::MulAdd(t, dl, t));
      VF e;
      th = TwoSum(th, t, &e);
      tl = hn::Add(tl, e);
      if (kStore) {
        if (j == 0) hn::Store(t, df, t0);
        rh = TwoSum(rh, hn::Mul(t, vb), &e);
        rl = hn::Add(rl, e);
        const VF o = LogOfPairF(df, rh, rl, vr);
        near = hn::Or(near, hn::Lt(hn::Abs(o), lim));
        hn::StoreU(o, df, out + off);
      }
    }
    HWY_ALIGN float h[kMaxW], l[kMaxW];
    hn::Store(th, df, h);
    hn::Store(tl, df, l);
    for (int g = 0; g < W; ++g) {
      fs[g] = sv[g] + (static_cast<double>(h[g]) + static_cast<double>(l[g]));
      if (kStore && !(a[g] + b[g] * (sv[g] + static_cast<double>(t0[g])) >= 0x1p-64)) *redo |= 1 << g;
    }
    return kStore && !hn::AllFalse(df, near);
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
  static constexpr int kMaxGroup = 256;  // columns per task, a pair of vectors at a time: a block
                                         // of steps then reuses each row run (and its TLB entry)
  static constexpr double kReduceCost = 0.35;
  const T* x;
  T* out;
  const LineState* init = nullptr;  // a carry-in per line (ScanFrom), or none

  Carry CarryIdentity() const { return LseEmpty(); }
  Carry CarryStart(const SeqGroup& q, int g) const {
    return init ? LseState{init[q.line + g].a, init[q.line + g].b} : LseEmpty();
  }
  Carry Fold(const Carry& c, const Local& l) const { return LseCombine(c, l); }

  template <bool kStore>
  void Chunk(const SeqGroup& q, int64_t s0, int64_t s1, const Carry* carry, Local* local) const {
    LseState loc[kMaxGroup];
    T prev[kMaxGroup];
    for (int g = 0; g < q.G; ++g) {
      loc[g] = LseEmpty();
      if (kStore) prev[g] = FromCompute<T>(static_cast<F>(LseValue(carry[g])));
    }
    if (q.stride != 1) {  // columns, one lane each, a pair of vectors at a time across the row run
      const int W = 2 * ND();
      for (int64_t b0 = s0; b0 < s1; b0 += kBlock) {
        const int n = static_cast<int>(std::min<int64_t>(kBlock, s1 - b0));
        for (int c = 0; c < q.G; c += W) {
          SeqGroup sub = q;
          sub.base += c;
          sub.G = std::min(W, q.G - c);
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
    HWY_ALIGN F xb[kBlock];
    HWY_ALIGN F ob[kBlock];
    LseOutConst oc;
    const bool direct = std::is_same<T, F>::value && !q.reverse && !q.exclusive;
    for (int64_t b0 = s0; b0 < s1; b0 += kBlock) {
      const int n = static_cast<int>(std::min<int64_t>(kBlock, s1 - b0));
      if (direct) {
        const int64_t off = q.Offset(b0);
        RowBlock<kStore, F>(reinterpret_cast<const F*>(x + off), reinterpret_cast<F*>(out + off), n, carry, loc, &oc);
        continue;
      }
      if constexpr (kIs16Bit<T>) {
        RowToFloat(x, q, b0, n, xb);
      } else {
        for (int j = 0; j < n; ++j) xb[j] = ToCompute<F>(x[q.Offset(b0 + j)]);
      }
      RowBlock<kStore, F>(xb, ob, n, carry, loc, &oc);
      if (kStore) {
        T tb[kBlock];
        if constexpr (kIs16Bit<T>) Convert(ob, tb, n);
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

// ---- logcumsumexp gradient: gated linear recurrence ---------------------------------------------
//
// In the gradient's scan order, element k is (gate_k, out_grad_k) with gate_k = exp(o_k - o_prev)
// (1 where o_k = o_prev, +inf included; 0 at the row's first element or where o_k = -inf), and
// acc_k = out_grad_k + gate_k * acc_prev. A chunk's local prefix is the pair (A_j, B_j) of the
// recurrence from the identity (1, 0); the output is acc_j = B_j + A_j * carry_acc, then
//   inclusive: x_grad = acc_k * exp(x_k - o_k);  exclusive: x_grad = acc_prev * exp(x_k - o_prev).
// Everything is in double lanes; gates are <= 1 (o is monotone), so nothing overflows.
struct RecState {
  double a;
  double b;
};
inline RecState RecCombine(const RecState& e, const RecState& l) { return {e.a * l.a, l.a * e.b + l.b}; }

// Inclusive scan of the (a, b) lanes: after it lane j holds the combination of lanes 0..j.
HWY_INLINE void RecScan(VD* a, VD* b) {
  const int nd = ND();
  for (int k = 1; k < nd; k *= 2) {
    const VD as = ShiftUp(*a, k, 1.0), bs = ShiftUp(*b, k, 0.0);
    *b = hn::MulAdd(*a, bs, *b);
    *a = hn::Mul(*a, as);
  }
}
// The gate rules: 1 where o = o_prev (exp(inf - inf) after a +inf input would poison the row with
// NaN), 0 where o = -inf, 0 at a row's first step.
HWY_INLINE VD GateRules(VD gate, VD ov, VD opv, bool row_start) {
  const DD dd;
  if (row_start) return hn::Zero(dd);
  gate = hn::IfThenElse(hn::Eq(ov, opv), hn::Set(dd, 1.0), gate);
  return hn::IfThenZeroElse(hn::Eq(ov, hn::Set(dd, -kInf)), gate);
}

template <typename T>
struct LseGradKernel {
  using Carry = RecState;
  using Local = RecState;
  static constexpr int kMaxGroup = 64;  // columns per task (inner > 1), a pair of vectors at a time
  static constexpr double kReduceCost = 0.5;
  const T* x;
  const T* o;
  const T* dout;
  T* dx;

  // A pair of lanes of step data as two double vectors (lanes >= n read as 0).
  static HWY_INLINE void LoadPair(const T* p, int n, VD* lo, VD* hi) {
    const DD dd;
    const DF df;
    const int nd = ND();
    if constexpr (std::is_same<T, float>::value) {
      if (n == 2 * nd) {
        Split(hn::LoadU(df, p), lo, hi);
        return;
      }
    } else if constexpr (std::is_same<T, double>::value) {
      if (n == 2 * nd) {
        *lo = hn::LoadU(dd, p);
        *hi = hn::LoadU(dd, p + nd);
        return;
      }
    }
    if constexpr (kIs16Bit<T>) {
      HWY_ALIGN float f[kMaxW] = {0};
      Convert(p, f, n);
      Split(hn::Load(df, f), lo, hi);
      return;
    }
    HWY_ALIGN double d[kMaxW] = {0};
    for (int g = 0; g < n; ++g) d[g] = ToCompute<double>(p[g]);
    *lo = hn::Load(dd, d);
    *hi = hn::Load(dd, d + nd);
  }
  // The gates of a pair: double exponentials for float64, 1 + expm1 in float lanes otherwise.
  static HWY_INLINE void Gates(VD olo, VD ohi, VD oplo, VD ophi, bool row_start, VD* glo, VD* ghi) {
    if constexpr (std::is_same<T, double>::value) {
      *glo = ExpD(hn::Sub(olo, oplo));
      *ghi = ExpD(hn::Sub(ohi, ophi));
    } else {
      GateExpPair(hn::Sub(olo, oplo), hn::Sub(ohi, ophi), glo, ghi);
    }
    *glo = GateRules(*glo, olo, oplo, row_start);
    *ghi = GateRules(*ghi, ohi, ophi, row_start);
  }
  // exp(d) of x_grad's factor: the double exponential for float64, float lanes otherwise.
  static HWY_INLINE void ExpPair(VD d0, VD d1, VD* e0, VD* e1) {
    if constexpr (std::is_same<T, double>::value) {
      *e0 = ExpD(d0);
      *e1 = ExpD(d1);
    } else {
      ExpOfDiffPair(d0, d1, e0, e1);
    }
  }

  // Columns (inner > 1): each lane is its own column, so the recurrence runs down the steps with
  // no shuffles and no buffers; a step's G columns are one contiguous run of the row. Per lane the
  // same operations as the row code's per element, so the same local totals in both modes.
  template <bool kStore>
  void ColumnsChunk(const SeqGroup& q, int64_t s0, int64_t s1, const Carry* carry, Local* local) const {
    const DD dd;
    const DF df;
    const int nd = ND(), W = 2 * nd;
    const int G = q.G;
    const int padded = (G + W - 1) / W * W;
    HWY_ALIGN double la[kMaxGroup], lb[kMaxGroup], op[kMaxGroup], ap[kMaxGroup], cb[kMaxGroup];
    for (int g = 0; g < G; ++g) {
      la[g] = 1.0;
      lb[g] = 0.0;
      op[g] = s0 > 0 ? ToCompute<double>(o[q.Offset(s0 - 1) + g]) : 0.0;
      cb[g] = kStore ? carry[g].b : 0.0;
      ap[g] = cb[g];
    }
    for (int g = G; g < padded; ++g) la[g] = lb[g] = op[g] = ap[g] = cb[g] = 0.0;
    const VD ninf = hn::Set(dd, -kInf);
    // 16-bit types: a step's run of G columns converted at once per input (and x_grad's after
    // the step).
    HWY_ALIGN float fo[kIs16Bit<T> ? kMaxGroup : 1], fg[kIs16Bit<T> ? kMaxGroup : 1];
    HWY_ALIGN float fx[kIs16Bit<T> ? kMaxGroup : 1], fd[kIs16Bit<T> ? kMaxGroup : 1];
    auto load = [&](const T* p, const float* f, int64_t off, int c, int n, VD* lo, VD* hi) {
      if constexpr (kIs16Bit<T>) {  // lanes >= n read as 0
        HWY_ALIGN float t[kMaxW] = {0};
        for (int g = 0; g < n; ++g) t[g] = f[c + g];
        Split(hn::Load(df, t), lo, hi);
      } else {
        LoadPair(p + off + c, n, lo, hi);
      }
    };
    for (int64_t s = s0; s < s1; ++s) {
      const int64_t off = q.Offset(s);
      const bool row_start = s == 0;
      if constexpr (kIs16Bit<T>) {
        Convert(o + off, fo, G);
        Convert(dout + off, fg, G);
        if (kStore) Convert(x + off, fx, G);
      }
      for (int c = 0; c < G; c += W) {
        const int n = std::min(W, G - c);
        VD olo, ohi, glo, ghi;
        load(o, fo, off, c, n, &olo, &ohi);
        load(dout, fg, off, c, n, &glo, &ghi);
        const VD oplo = hn::Load(dd, op + c), ophi = hn::Load(dd, op + c + nd);
        VD gtlo, gthi;
        Gates(olo, ohi, oplo, ophi, row_start, &gtlo, &gthi);
        const VD alo = hn::Mul(hn::Load(dd, la + c), gtlo);
        const VD ahi = hn::Mul(hn::Load(dd, la + c + nd), gthi);
        const VD blo = hn::MulAdd(gtlo, hn::Load(dd, lb + c), glo);
        const VD bhi = hn::MulAdd(gthi, hn::Load(dd, lb + c + nd), ghi);
        hn::Store(alo, dd, la + c);
        hn::Store(ahi, dd, la + c + nd);
        hn::Store(blo, dd, lb + c);
        hn::Store(bhi, dd, lb + c + nd);
        hn::Store(olo, dd, op + c);
        hn::Store(ohi, dd, op + c + nd);
        if (kStore) {
          VD xlo, xhi;
          load(x, fx, off, c, n, &xlo, &xhi);
          const VD acclo = hn::MulAdd(alo, hn::Load(dd, cb + c), blo);
          const VD acchi = hn::MulAdd(ahi, hn::Load(dd, cb + c + nd), bhi);
          VD flo = acclo, fhi = acchi, rlo = olo, rhi = ohi;
          if (q.exclusive) {
            flo = hn::Load(dd, ap + c);
            fhi = hn::Load(dd, ap + c + nd);
            rlo = oplo;
            rhi = ophi;
            hn::Store(acclo, dd, ap + c);
            hn::Store(acchi, dd, ap + c + nd);
          }
          VD elo, ehi;
          ExpPair(hn::Sub(xlo, rlo), hn::Sub(xhi, rhi), &elo, &ehi);
          VD dlo = hn::IfThenZeroElse(hn::Eq(xlo, ninf), hn::Mul(flo, elo));
          VD dhi = hn::IfThenZeroElse(hn::Eq(xhi, ninf), hn::Mul(fhi, ehi));
          if (q.exclusive && row_start) dlo = dhi = hn::Zero(dd);
          if constexpr (kIs16Bit<T>) {  // rounded to float in lanes, as FromCompute does
            HWY_ALIGN float f[kMaxW];
            hn::Store(Join(dlo, dhi), df, f);
            for (int g = 0; g < n; ++g) fd[c + g] = f[g];
          } else {
            StorePair(dx + off + c, n, dlo, dhi);
          }
        }
      }
      if constexpr (kIs16Bit<T>) {
        if (kStore) Convert(fd, dx + off, G);
      }
    }
    if (local) {
      for (int g = 0; g < G; ++g) local[g] = {la[g], lb[g]};
    }
  }

  Carry CarryIdentity() const { return {1.0, 0.0}; }
  Carry Fold(const Carry& c, const Local& l) const { return RecCombine(c, l); }

  struct Buffers {
    HWY_ALIGN double o[kBlock];
    HWY_ALIGN double oprev[kBlock];
    HWY_ALIGN double g[kBlock];
    HWY_ALIGN double x[kBlock];
    HWY_ALIGN double gate[kBlock];      // float outputs: the block's gates before the rules
    HWY_ALIGN double acc[kBlock + 4];  // acc[3] is the accumulator before the block
  };

  // Gates and the recurrence of one block; returns the local state after it. When storing, writes
  // acc (with the carry applied) to buf->acc[4 ..] and x_grad into `res`.
  template <bool kStore>
  static RecState Block(Buffers* buf, double* res, int n, bool row_start, const RecState& carry, RecState loc,
                        bool exclusive) {
    const DD dd;
    const int nd = ND();
    const int nv = (n + 2 * nd - 1) / (2 * nd) * 2;  // vectors, an even count (padded with identities)
    const VD ninf = hn::Set(dd, -kInf);
    VD la = hn::Set(dd, loc.a), lb = hn::Set(dd, loc.b);
    const VD cb = hn::Set(dd, carry.b);
    if constexpr (!std::is_same<T, double>::value) {  // float outputs: a pair of gates at a time
      for (int i = 0; i < nv; i += 2) {
        VD g0, g1;
        GateExpPair(hn::Sub(hn::Load(dd, buf->o + nd * i), hn::Load(dd, buf->oprev + nd * i)),
                    hn::Sub(hn::Load(dd, buf->o + nd * i + nd), hn::Load(dd, buf->oprev + nd * i + nd)), &g0, &g1);
        hn::Store(g0, dd, buf->gate + nd * i);
        hn::Store(g1, dd, buf->gate + nd * i + nd);
      }
    }
    for (int i = 0; i < nv; ++i) {
      const VD ov = hn::Load(dd, buf->o + nd * i);
      const VD opv = hn::Load(dd, buf->oprev + nd * i);
      VD gate = std::is_same<T, double>::value ? ExpD(hn::Sub(ov, opv)) : hn::Load(dd, buf->gate + nd * i);
      gate = GateRules(gate, ov, opv, false);
      if (i == 0 && row_start) gate = hn::IfThenZeroElse(hn::FirstN(dd, 1), gate);
      VD a = gate, b = hn::Load(dd, buf->g + nd * i);
      RecScan(&a, &b);
      b = hn::MulAdd(a, lb, b);
      a = hn::Mul(a, la);
      la = BroadcastLast(a);
      lb = BroadcastLast(b);
      if (kStore) hn::StoreU(hn::MulAdd(a, cb, b), dd, buf->acc + 4 + nd * i);
    }
    const RecState after{hn::GetLane(la), hn::GetLane(lb)};
    if (kStore) {
      // x_grad = acc * exp(x - ref).
      const double* refb = exclusive ? buf->oprev : buf->o;
      const double* accb = buf->acc + (exclusive ? 3 : 4);
      for (int i = 0; i < nv; i += 2) {
        const VD x0 = hn::Load(dd, buf->x + nd * i), x1 = hn::Load(dd, buf->x + nd * i + nd);
        const VD d0 = hn::Sub(x0, hn::Load(dd, refb + nd * i));
        const VD d1 = hn::Sub(x1, hn::Load(dd, refb + nd * i + nd));
        VD e0, e1;
        ExpPair(d0, d1, &e0, &e1);
        const VD r0 = hn::Mul(hn::LoadU(dd, accb + nd * i), e0);
        const VD r1 = hn::Mul(hn::LoadU(dd, accb + nd * i + nd), e1);
        hn::Store(hn::IfThenZeroElse(hn::Eq(x0, ninf), r0), dd, res + nd * i);
        hn::Store(hn::IfThenZeroElse(hn::Eq(x1, ninf), r1), dd, res + nd * i + nd);
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
    Buffers buf;
    HWY_ALIGN double res[kBlock];
    RecState loc{1.0, 0.0};
    double olast = s0 > 0 ? ToCompute<double>(o[q.Offset(s0 - 1)]) : 0.0;
    if (kStore) buf.acc[3] = carry[0].b;
    const int unit = 2 * ND();
    for (int64_t b0 = s0; b0 < s1; b0 += kBlock) {
      const int n = static_cast<int>(std::min<int64_t>(kBlock, s1 - b0));
      if constexpr (kIs16Bit<T>) {  // one contiguous run per input
        HWY_ALIGN float f[kBlock];
        RowToFloat(o, q, b0, n, f);
        for (int j = 0; j < n; ++j) buf.o[j] = f[j];
        RowToFloat(dout, q, b0, n, f);
        for (int j = 0; j < n; ++j) buf.g[j] = f[j];
        if (kStore) {
          RowToFloat(x, q, b0, n, f);
          for (int j = 0; j < n; ++j) buf.x[j] = f[j];
        }
      } else {
        for (int j = 0; j < n; ++j) {
          const int64_t off = q.Offset(b0 + j);
          buf.o[j] = ToCompute<double>(o[off]);
          buf.g[j] = ToCompute<double>(dout[off]);
          if (kStore) buf.x[j] = ToCompute<double>(x[off]);
        }
      }
      const int padded = (n + unit - 1) / unit * unit;  // the x_grad loop takes pairs of vectors
      buf.oprev[0] = olast;
      for (int j = 1; j < n; ++j) buf.oprev[j] = buf.o[j - 1];
      olast = buf.o[n - 1];
      for (int j = n; j < padded; ++j) {  // identity elements: gate 1, value 0
        buf.o[j] = buf.oprev[j] = 0.0;
        buf.g[j] = 0.0;
        buf.x[j] = -kInf;
      }
      loc = Block<kStore>(&buf, res, n, b0 == 0, kStore ? carry[0] : Carry{1.0, 0.0}, loc, q.exclusive);
      if (kStore) {
        if constexpr (kIs16Bit<T>) {  // rounded to float (as FromCompute), then converted
          HWY_ALIGN float f[kBlock];
          T tb[kBlock];
          for (int j = 0; j < n; ++j) f[j] = static_cast<float>(res[j]);
          Convert(f, tb, n);
          for (int j = 0; j < n; ++j) dx[q.Offset(b0 + j)] = tb[j];
        } else {
          for (int j = 0; j < n; ++j) dx[q.Offset(b0 + j)] = FromCompute<T>(res[j]);
        }
      }
    }
    if (local) local[0] = loc;
  }
};

// Rows shorter than a vector gain nothing from SIMD; the generic path also keeps them exact.
inline bool Served(const ScanLayout& l) { return !(l.inner == 1 && l.length < 8); }

template <typename T>
bool Forward(const T* x, T* out, const ScanLayout& l, bool exclusive, bool reverse, const LineState* init) {
  if (!Served(l)) return false;
  LseKernel<T> k{x, out};
  k.init = init;
  RunChunkedScan(k, l, exclusive, reverse);
  return true;
}
// Each line's total: the kernel's chunk totals (Chunk<false>, which writes no output) folded by the
// driver, as a scan's carries are.
template <typename T>
bool Totals(const T* x, const ScanLayout& l, bool reverse, LineState* totals) {
  if (!Served(l)) return false;
  RunChunkedTotals(LseKernel<T>{x, const_cast<T*>(x)}, l, reverse,
                   [totals](int64_t i, const LseState& t) { totals[i] = {t.m, t.s}; });
  return true;
}
template <typename T>
bool Backward(const T* x, const T* out, const T* out_grad, T* x_grad, const ScanLayout& l, bool exclusive,
              bool reverse) {
  RunChunkedScan(LseGradKernel<T>{x, out, out_grad, x_grad}, l, exclusive, reverse);
  return true;
}

}  // namespace lcse
#endif  // PADDLE_OPS_LCSE_VECTOR

// The dispatch table's entries (one per type and direction; false on the fallback target).
#if PADDLE_OPS_LCSE_VECTOR
#define PADDLE_OPS_LCSE_ENTRIES(Name, T)                                                                    \
  bool LcseFwd##Name(const T* x, T* out, const ScanLayout& l, bool exclusive, bool reverse,                 \
                     const LineState* init) {                                                               \
    return lcse::Forward(x, out, l, exclusive, reverse, init);                                              \
  }                                                                                                         \
  bool LcseTot##Name(const T* x, const ScanLayout& l, bool reverse, LineState* totals) {                    \
    return lcse::Totals(x, l, reverse, totals);                                                             \
  }                                                                                                         \
  bool LcseBwd##Name(const T* x, const T* out, const T* out_grad, T* x_grad, const ScanLayout& l,           \
                     bool exclusive, bool reverse) {                                                        \
    return lcse::Backward(x, out, out_grad, x_grad, l, exclusive, reverse);                                 \
  }
#else
#define PADDLE_OPS_LCSE_ENTRIES(Name, T)                                                                    \
  bool LcseFwd##Name(const T*, T*, const ScanLayout&, bool, bool, const LineState*) { return false; }       \
  bool LcseTot##Name(const T*, const ScanLayout&, bool, LineState*) { return false; }                       \
  bool LcseBwd##Name(const T*, const T*, const T*, T*, const ScanLayout&, bool, bool) { return false; }
#endif
PADDLE_OPS_LCSE_ENTRIES(Float, float)
PADDLE_OPS_LCSE_ENTRIES(Double, double)
PADDLE_OPS_LCSE_ENTRIES(Float16, dtype::float16)
PADDLE_OPS_LCSE_ENTRIES(BFloat16, dtype::bfloat16)
#undef PADDLE_OPS_LCSE_ENTRIES

}  // namespace HWY_NAMESPACE
}  // namespace simd
}  // namespace funcs
}  // namespace phi
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace phi {
namespace funcs {
namespace simd {

HWY_EXPORT(LcseFwdFloat);
HWY_EXPORT(LcseFwdDouble);
HWY_EXPORT(LcseFwdFloat16);
HWY_EXPORT(LcseFwdBFloat16);
HWY_EXPORT(LcseTotFloat);
HWY_EXPORT(LcseTotDouble);
HWY_EXPORT(LcseTotFloat16);
HWY_EXPORT(LcseTotBFloat16);
HWY_EXPORT(LcseBwdFloat);
HWY_EXPORT(LcseBwdDouble);
HWY_EXPORT(LcseBwdFloat16);
HWY_EXPORT(LcseBwdBFloat16);

namespace {
// The gradient runs in double lanes of at most 4 (256 bits): with AVX3 in use it takes the AVX2
// target's code, as the old per-ISA kernels did (AVX3's build of the same 256-bit code measured
// 11 % slower on float32 fwd+bwd rows, 2026-11-29).
int64_t GradTargets() {
  const int64_t t = CpuTargetsInUse();
  return (t & HWY_AVX2) ? t & ~(HWY_AVX2 - 1) : t;
}
}  // namespace
#if HWY_IDE || ((HWY_TARGETS & (HWY_TARGETS - 1)) == 0)
#define PADDLE_OPS_LCSE_GRAD_DISPATCH(FUNC) HWY_STATIC_DISPATCH(FUNC)
#else
#define PADDLE_OPS_LCSE_GRAD_DISPATCH(FUNC) \
  (*(HWY_DISPATCH_TABLE(FUNC)[([]() {       \
    ::hwy::ChosenTarget chosen;             \
    chosen.Update(GradTargets());           \
    return chosen.GetIndex();               \
  }())]))
#endif

#define PADDLE_OPS_LCSE_CALLS(Name, T)                                                                      \
  bool LogcumsumexpVector(const T* x, T* out, const ScanLayout& l, bool exclusive, bool reverse,           \
                          const LineState* init) {                                                          \
    return PADDLE_OPS_HWY_DISPATCH(LcseFwd##Name)(x, out, l, exclusive, reverse, init);                      \
  }                                                                                                         \
  bool LogcumsumexpTotalsVector(const T* x, const ScanLayout& l, bool reverse, LineState* totals) {         \
    return PADDLE_OPS_HWY_DISPATCH(LcseTot##Name)(x, l, reverse, totals);                                    \
  }                                                                                                         \
  bool LogcumsumexpGradVector(const T* x, const T* out, const T* out_grad, T* x_grad, const ScanLayout& l,  \
                              bool exclusive, bool reverse) {                                               \
    return PADDLE_OPS_LCSE_GRAD_DISPATCH(LcseBwd##Name)(x, out, out_grad, x_grad, l, exclusive, reverse);    \
  }
PADDLE_OPS_LCSE_CALLS(Float, float)
PADDLE_OPS_LCSE_CALLS(Double, double)
PADDLE_OPS_LCSE_CALLS(Float16, dtype::float16)
PADDLE_OPS_LCSE_CALLS(BFloat16, dtype::bfloat16)
#undef PADDLE_OPS_LCSE_CALLS

}  // namespace simd
}  // namespace funcs
}  // namespace phi
#endif  // HWY_ONCE
