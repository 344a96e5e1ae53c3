// The GPU engine's fast tiles for logcumsumexp (GpuTileScan specialized for LogcumsumexpOp on
// float, float16 and bfloat16 with the float64 state of kernels/gpu/logcumsumexp_kernel.cu;
// float64 inputs: logcumsumexp_f64_tiles.cuh, included at the end).
//
// The generic tiles combine (max, compensated sum) states element by element, a float64 exp
// and several float64 operations per element. Here a tile (a logical warp's W * V elements,
// or one thread's kItems steps of a column) is instead summed against one reference R, the
// larger of the tile's max and the carry's max:
//   S_k = carry_sum * exp(M_carry - R) + sum_{j <= k} exp(x_j - R),   out_k = R + log(S_k)
// with one float32 exp per element. Inside a tile everything per element is float32
// arithmetic: partial sums as float-float pairs (TwoSum), log(S) from the float32 log of S's
// mantissa plus Sl/Sh (absolute error ~3e-8), and R + e*ln2 summed exactly. float64 appears
// once per lane and tile (the warp scan of lane totals, the carry, compensated so 2^26-long
// rows lose nothing to accumulation): float32<->float64 conversions issue at 16 per clock
// per SM on Hopper, and one per element would bound the kernel well above a copy's time.
// The tile is taken this way only when no NaN or +inf is in it, R is finite, and either the
// carry holds R (every prefix sum is then >= 1, and terms below exp(-kSpan) of it are
// negligible) or every element and the carry's max lie within kSpan of R (every term a normal
// float). Otherwise exp(x - R) could underflow before x's own prefix is dominated by larger
// terms (docs/spec.md §1's wide-range case), and the tile falls back on the exact generic steps. Which
// path a tile takes depends on the data alone, so results stay deterministic.
//
// float32, float16 and bfloat16 rows of 2^18 steps or more (2^16 where at most 128 rows) take the
// engine's block tiles instead (LseBlockTile below, on scan_block_rows.cuh; the float32
// gradient's: LseGradBlockTile in logcumsumexp_grad_rows.cuh).
//
// float16/bfloat16 (PO_LSE16_FAST): the same paths, read and written in their own type (16-byte
// vectors of 8 elements), computed in float; where every output of a group or chunk lies at least
// 0.5 above 0 or 8 below it, the lean16 arithmetic (LseFast::Exp16 terms, plain float sums, the
// SFU's log2; LseFast's lean16 comment has the bound against one 16-bit ulp), and a thread
// step's last 256 steps past 0.5 with a float carry (Lean16Float); elsewhere float32's (a line's
// first chunk or group too: in lean16 where its first term allowed, it cost float16 [4096, 16384]
// 2.11 -> 3.26 x copy on the H200 and gained nothing elsewhere, 2026-11-30; removed).
//
// A segment total (phase 1 of a long row) needs no per-element prefix: each lane sums its
// elements against the group's R in a compensated float64 of its own, and the lanes are added
// once per segment by a fixed tree.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "kernels/funcs/gpu/scan_agent.cuh"
#include "kernels/funcs/gpu/scan_block_rows.cuh"
#include "kernels/gpu/logcumsumexp_grad_rows.cuh"
#include "kernels/gpu/lse_block_decide.cuh"
#include "kernels/impl/cum_scan_ops.h"

// Blocks of 256 threads an SM the row, staged-row and column kernels are compiled for: float16 and
// bfloat16 4 (64 registers), float32 2 (128 registers; PO_LSE_F32_MIN_BLOCKS). See kMinBlocks.
#ifndef PO_LSE_MIN_BLOCKS
#define PO_LSE_MIN_BLOCKS 4
#endif
#ifndef PO_LSE_F32_MIN_BLOCKS
#define PO_LSE_F32_MIN_BLOCKS 2
#endif
// Steps a chunk of the thread step over a staged short row (scan_staged_rows.cuh).
#ifndef PO_LSE_STAGED_ITEMS
#define PO_LSE_STAGED_ITEMS 8
#endif
// float32 gradient rows on the tiles of logcumsumexp_grad_rows.cuh: 0 until they have run on a
// GPU (the kernel harness builds them with -DPO_LSE_GRAD_ROWS=1).
#ifndef PO_LSE_GRAD_ROWS
#define PO_LSE_GRAD_ROWS 0
#endif
// float16/bfloat16 logcumsumexp on float32's fast paths with the lean16 arithmetic (the block tiles
// for 1-D and long rows, lean16 groups and chunks in the row groups, the staged rows and the
// column thread steps; LseFast::Exp16). 0 keeps the older 16-bit paths (the float32 arithmetic
// on the warp segments, no block tiles): the kernel harness (tools/dev/harness/lse16) builds
// both to compare.
#ifndef PO_LSE16_FAST
#define PO_LSE16_FAST 1
#endif
// float32 gradient columns on LseGradColumns (logcumsumexp_grad_rows.cuh: per-element gates, a
// float64 recurrence) instead of the telescoped chunks: 1 since the H200 run of 2026-11-30 (the
// column-gradient harness, tools/dev/harness/gradcols: [16384, 4096] axis 0 8.23 -> 4.35 x copy,
// [32, 4, 2048, 128] axis 2 8.06 -> 4.33, smaller errors); 0 keeps the telescoped chunks.
#ifndef PO_LSE_GRAD_COLS
#define PO_LSE_GRAD_COLS 1
#endif
#ifndef PO_LSE_GRAD_COL_MIN_BLOCKS
#define PO_LSE_GRAD_COL_MIN_BLOCKS 4
#endif

namespace phi {
namespace funcs {
namespace scan_gpu {

// Items per lane (or thread) of the generic steps that a tile falls back on (NaN, +inf, a range
// wider than kSpan: rare). One float64 state per item stays live across the tile's warp scan,
// 24 bytes each for the forward, and the kernel is allocated registers for its hungriest path:
// with V items (4 or 8) the fallback alone held 48-96 registers, capping the fast path's
// occupancy. One item per lane: the fallback is slower (more warp scans per element), the fast
// tiles get the registers.
constexpr int kFallbackItems = 1;

struct LseFast {
  static constexpr float kSpan = 80.f;  // exp(-80) = 1.8e-35 is still a normal float
  using State = LogSumExpState<double>;
  using Sum = CompensatedSum<double>;

  // exp(a - b) with the difference taken exactly (TwoSum): rounding a - b to float would cost
  // up to half an ulp of |a - b| in the exponent, i.e. a relative error of ~2e-7 at |a - b| ~ 4,
  // visible where such terms dominate a prefix. a = -inf gives 0.
  __device__ static float ExpDiff(float a, float b) {
    const float s = a - b;
    const float bb = s - a;
    const float err = (a - (s - bb)) + (-b - bb);
    const float e = expf(s);
    const float r = fmaf(e, err, e);  // NaN for a = -inf (err is NaN): select, no branch
    return a == -std::numeric_limits<float>::infinity() ? 0.f : r;
  }

  // The carry's sum rescaled to the reference R (R >= carry max, within kSpan of it).
  __device__ static Sum Rebase(const State& carry, float R) {
    if (carry.m == -std::numeric_limits<double>::infinity()) return Sum::Zero();
    if (carry.m == static_cast<double>(R)) return carry.s;
    return Scale(carry.s, exp(carry.m - static_cast<double>(R)));
  }

  // May the tile with max tmax, smallest finite element tmin and NaN/+inf flag `bad` be summed
  // against R = max(tmax, carry max)?
  // Yes when the carry holds the max (R = carry max): its sum is >= 1 (the max element itself
  // counts exp(0) = 1 and is never rescaled), so every output's S is >= 1 and a term below
  // exp(-kSpan) = 1.8e-35 of it is negligible however float32 rounds or flushes it. Without
  // this, one early spike sent every later tile of its row to the generic steps.
  // Otherwise every term and the carry's max must lie within kSpan of R.
  __device__ static bool Usable(const State& carry, float tmax, float tmin, bool bad, float* R) {
    const double cm = carry.m;
    if (bad || cm != cm || cm == std::numeric_limits<double>::infinity()) return false;
    *R = fmaxf(tmax, static_cast<float>(cm));
    if (!isfinite(*R)) return false;
    if (cm == static_cast<double>(*R)) return true;
    const float lo = *R - kSpan;
    return tmin >= lo && (cm == -std::numeric_limits<double>::infinity() || cm >= static_cast<double>(lo));
  }

  // docs/spec.md §1, near zero and single terms. A fast tile's float32 terms carry a relative
  // error of ~1e-7, which is absolute in an output near 0 (the spec asks 1e-6 of |ref| there),
  // and it rescales every term to R, so a prefix of one term x would come out as
  // R + log(exp(x - R)), not x. So while the prefix before a tile holds at most one finite term
  // (a state of one term is kept as (x, 1): its sum is exactly 1) or its value is below
  // kNearZero, the tile is precise: float64 terms, a float64 R + log(S), and the finite terms
  // counted (TermCount) so that a prefix of one term gives that term. Prefixes only grow along
  // a scan: past kNearZero every later tile is fast. A segment's local prefix is at most its true
  // prefix, so phase 1 deciding on it is safe.
  static constexpr double kNearZero = 0.5;
  __device__ static bool NeedsExact(const State& p) {
    if (p.m == -std::numeric_limits<double>::infinity()) return true;
    if (p.s.hi == 1.0 && p.s.lo == 0.0) return true;
    return !(p.m + log(p.s.value()) >= kNearZero);
  }

  // A precise tile's output: the one term where the prefix holds one (count n == 1, term v), else
  // R + log(S) in float64 (-inf for an empty prefix).
  template <typename T>
  __device__ static T OutPrecise(double R, double S, int n, float v) {
    if (n == 1) return static_cast<T>(v);
    if (!(S > 0.0)) return static_cast<T>(-std::numeric_limits<float>::infinity());
    return static_cast<T>(R + log(S));
  }

  // R + log(Sh + Sl) for an unevaluated float-float sum S = Sh + Sl (|Sl| << Sh), all in float32
  // arithmetic: conversions to and from float64 issue at a quarter of the float64 rate on
  // Hopper and were the bottleneck of this path. Sh is 0 (an empty prefix) or a normal float
  // (every term is within kSpan of R, or the carry holds R and S >= 1). log(S) = e*ln2 + log(m) + Sl/Sh with m in
  // [sqrt(1/2), sqrt(2)), so log(m) is small and its float32 error (~3e-8) is absolute; R +
  // e*ln2_hi is summed exactly (TwoSum; ln2_hi has 12 bits, |e| < 2^8), so the one large
  // rounding is the final one, half an ulp of the result.
  template <typename T>
  __device__ static T Out(float R, float Sh, float Sl) {
    if (!(Sh > 0.f)) return static_cast<T>(-std::numeric_limits<float>::infinity());
    constexpr float kLn2Hi = 0.693115234375f;        // 2839 / 4096
    constexpr float kLn2Lo = 3.19461858158e-05f;     // ln2 - kLn2Hi
    const int bits = __float_as_int(Sh);
    int e = (bits >> 23) - 127;
    float m = __int_as_float((bits & 0x007fffff) | 0x3f800000);  // [1, 2)
    if (m > 1.41421356f) {
      m *= 0.5f;
      ++e;
    }
    const float fe = static_cast<float>(e);
    const float tail = fmaf(fe, kLn2Lo, logf(m)) + __fdividef(Sl, Sh);
    const float t = fe * kLn2Hi;  // exact
    const float s = R + t;
    const float bb = s - R;
    const float err = (R - (s - bb)) + (t - bb);
    return static_cast<T>(s + (tail + err));
  }

  // Lean outputs, where every output of a tile lies at least kLean from 0: R + log(S) with the
  // special-function unit's log2 (absolute error <= 2^-22.6 in log2, ~1.1e-7 in log) and the
  // first-order correction Sl / Sh; the float32 terms' relative error (~2.4e-7 at most, the
  // exact difference x - R through ExpDiff) is absolute in log S. Together at most ~4e-7 absolute,
  // which is relative 1e-7 where |out| >= kLean, inside docs/spec.md §1's 2.5e-7 with the output's
  // own rounding. About 5 instructions instead of Out's ~40.
  static constexpr double kLean = 4.0;
  template <typename T>
  __device__ static T OutLean(float R, float Sh, float Sl) {
    constexpr float kLn2 = 0.693147180559945309f;
    return static_cast<T>(R + fmaf(__log2f(Sh), kLn2, __fdividef(Sl, Sh)));
  }
  // May a group with reference R after `carry` (Rebased to c) take OutLean? The carry holds
  // more than one finite term (never the single-term rule) and either its value is at least
  // kLean (outputs only grow along a scan) or even the group's largest possible output,
  // R + log(c + n) with every one of its n terms at most 1, is at most -kLean.
  __device__ static bool Lean(const State& carry, float R, const Sum& c, int n) {
    if (carry.m == -std::numeric_limits<double>::infinity()) return false;
    if (carry.s.hi == 1.0 && carry.s.lo == 0.0) return false;
    if (carry.m + log(carry.s.value()) >= kLean) return true;
    return static_cast<double>(R) + log(c.hi + c.lo + n) <= -kLean;
  }

  // The blocked row path's outputs (GpuTileScan::WarpRows): R + log2(S) * ln2 in one fma, S the
  // running sum rounded to float (its Sl dropped: 2^-24 relative, 6e-8 absolute in log S) and
  // log2 from the SFU (lg2.approx.ftz; S is a normal float, as for OutLean). With the terms'
  // error (ExpDiff: expf's 2 ulp and the err step, at most ~3e-7) and the SFU's ~1.1e-7, at most
  // ~4.7e-7 absolute: within docs/spec.md §1's 2.5e-7 relative, the output's own half ulp
  // included, where |out| >= kLean (level 1: S a float-float running sum). Level 2 keeps S as a
  // plain float running sum over the lane's 16 terms from a correctly rounded start: at most
  // 17 roundings of 2^-24 of the final S, 1.0e-6 absolute more, within the bound where
  // |out| >= kLean2 (1.4e-6 / (2.5e-7 - 6e-8) = 7.4).
  static constexpr double kLean2 = 8.0;
  __device__ static float OutLog2(float R, float S) {
    float l;
    asm("lg2.approx.ftz.f32 %0, %1;" : "=f"(l) : "f"(S));
    return fmaf(l, 0.693147180559945309f, R);
  }
  // ---- float16/bfloat16 outputs (the "lean16" arithmetic; docs/architecture.md) ----
  // A 16-bit output is rounded once from float, so a float result within delta of the exact
  // value, delta <= half an ulp of the 16-bit type, is within one ulp (and its rounding within
  // one ulp of the rounded reference, as the tests measure). Half an ulp is at least 2^-12 |out|
  // (float16) or 2^-9 |out| (bfloat16, where normal; float16 subnormals and bfloat16 values
  // near 2^-133 are left to the precise paths). Where every output of a group is at least
  // kLean16Pos above 0, delta may be ~1e-5 absolute plus ~1.2e-7 |out| relative and still be
  // twenty times inside half an ulp of 2^-12 * 0.5 = 1.2e-4, so the lean16 arithmetic drops
  // what float32's 2.5e-7 needs: a term is ex2.approx(fma(x, log2 e, -R log2 e)) (Exp16: one
  // fma, one MUFU op; relative error <= ex2's 2^-22 + fma's rounding of |x - R| log2 e <= 116
  // (2^-24 * 116 * ln 2 = 4.8e-6) + the rounding of R log2 e (|R| * 6e-8, and |R| <= |out| + 80
  // since every output lies in [R - kSpan, R + log n]): <= 5e-6 + |R| 6e-8), sums are plain
  // floats (at most 17 roundings of 2^-24 over a lane's or chunk's 16 terms: 1e-6 in log S),
  // no float-float pairs, and the output is OutLog2 (SFU log2: 1.1e-7 absolute). Together
  // delta <= ~1.2e-5 + |out| 1.3e-7. Groups whose outputs are at most -kLean16Neg take it too:
  // the carry they pass on then holds a relative error up to ~1.2e-5, which moves a later output
  // near 0 (its sum is at least exp(-0.5)) by at most 1.2e-5 * exp(-kLean16Neg + 0.5) = 6.6e-9
  // absolute, as little as float32's lean levels move it (2.4e-7 * exp(-3.5)). Outputs in
  // between keep float32's arithmetic (Out, the precise float64 tiles).
  static constexpr float kLean16Pos = 0.5f;
  static constexpr float kLean16Neg = 8.f;
  __device__ static float Exp16(float x, float Rl2e) {  // Rl2e = R * log2(e); x = -inf gives 0
    float r;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(fmaf(x, 1.44269504088896341f, -Rl2e)));
    return r;
  }
  // May a group with reference R after `carry` (Rebased to c), n terms at most, take lean16?
  // The carry holds more than one finite term and its value v >= kLean16Pos (outputs only grow
  // along a scan), or even the group's largest possible output R + log(c + n) <= -kLean16Neg.
  // Decided in float32 with LeanLevel's margin (0.01; valid where |m| < 1.6e5, beyond which m
  // decides the sign).
  __device__ static bool Lean16(const State& carry, float R, const Sum& c, int n) {
    if (carry.m == -std::numeric_limits<double>::infinity()) return false;
    if (carry.s.hi == 1.0 && carry.s.lo == 0.0) return false;
    constexpr float kMargin = 0.01f;
    if (Lean16Carry(carry)) return true;
    return R + __logf(static_cast<float>(c.hi) + static_cast<float>(n)) <= -kLean16Neg - kMargin;
  }
  // The carry's own value is past kLean16Pos (then every later output of its line is too).
  __device__ static bool Lean16Carry(const State& carry) {
    if (carry.m == -std::numeric_limits<double>::infinity()) return false;
    if (carry.s.hi == 1.0 && carry.s.lo == 0.0) return false;
    return static_cast<float>(carry.m) + __logf(static_cast<float>(carry.s.hi)) >= kLean16Pos + 0.01f;
  }

  // 0: not lean; 1: every output of the group at least kLean from 0; 2: at least kLean2.
  // Decided in float32 (a float64 log per group and lane cost ~3 instructions per element):
  // the carry's value v = m + log(s) (s >= 1: the carry holds its own maximum) and the group's
  // largest possible output R + log(c + n) are off by at most |m| * 2^-24 + 2e-6, so testing
  // against the bound widened by 0.01 is safe wherever |m| < 1.6e5; beyond, m alone decides
  // the sign and v >= m (m > 0) or v <= m + 60 (m < 0: s < 2^31 * 2^40 terms at most).
  __device__ static int LeanLevel(const State& carry, float R, const Sum& c, int n) {
    if (carry.m == -std::numeric_limits<double>::infinity()) return 0;
    if (carry.s.hi == 1.0 && carry.s.lo == 0.0) return 0;
    constexpr float kMargin = 0.01f;
    const float v = static_cast<float>(carry.m) + __logf(static_cast<float>(carry.s.hi));
    if (v >= static_cast<float>(kLean2) + kMargin) return 2;
    const float top = R + __logf(static_cast<float>(c.hi) + static_cast<float>(n));
    if (top <= -static_cast<float>(kLean2) - kMargin) return 2;
    return v >= static_cast<float>(kLean) + kMargin || top <= -static_cast<float>(kLean) - kMargin ? 1 : 0;
  }
  // max that propagates NaN (a NaN anywhere makes the result NaN).
  __device__ static float MaxNaN(float a, float b) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    float r;
    asm("max.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
    return r;
#else
    return a != a || b != b ? a + b : fmaxf(a, b);
#endif
  }
};

// An unevaluated float-float sum hi + lo (Knuth's TwoSum keeps each addition's error in lo).
struct FloatFloat {
  float hi, lo;
  __device__ static FloatFloat Add(FloatFloat a, float b) { return TwoSumInto(&a.hi, &a.lo, b), a; }
  __device__ static FloatFloat Add(FloatFloat a, const FloatFloat& b) {
    return TwoSumPairInto(&a.hi, &a.lo, b.hi, b.lo), a;
  }
  __device__ double ToDouble() const { return static_cast<double>(hi) + static_cast<double>(lo); }
  __device__ static FloatFloat Of(double v) {
    const float h = static_cast<float>(v);
    return {h, static_cast<float>(v - static_cast<double>(h))};
  }
};

// The finite terms of a prefix counted up to 2 (2: two or more) and the first of them, for the
// single-term rule of the precise tiles (LseFast::NeedsExact).
struct TermCount {
  int n;
  float v;
  __device__ static TermCount Of(const LseFast::State& p) {
    if (p.m == -std::numeric_limits<double>::infinity()) return {0, 0.f};
    return {p.s.hi == 1.0 && p.s.lo == 0.0 ? 1 : 2, static_cast<float>(p.m)};
  }
  __device__ TermCount Then(float x) const {
    if (x == -std::numeric_limits<float>::infinity()) return *this;
    return {n < 2 ? n + 1 : 2, n == 0 ? x : v};
  }
  __device__ TermCount Then(const TermCount& b) const { return {n + b.n < 2 ? n + b.n : 2, n > 0 ? v : b.v}; }
  // The state of a prefix whose terms were summed to `sum` against R: (v, 1) for one term.
  __device__ LseFast::State AsState(double R, const LseFast::Sum& sum) const {
    if (n == 1) return {static_cast<double>(v), LseFast::Sum::Of(1.0)};
    return {R, sum};
  }
};

// The lanes' term counts of a logical warp scanned in lane order: what lies before this lane and
// the warp's total (every lane).
template <int W>
__device__ inline void ScanLaneCounts(TermCount t, unsigned mask, int lane, TermCount* before, TermCount* total) {
  TermCount incl = t;
#pragma unroll
  for (int d = 1; d < W; d <<= 1) {
    const TermCount y{__shfl_up_sync(mask, incl.n, d, W), __shfl_up_sync(mask, incl.v, d, W)};
    if (lane >= d) incl = y.Then(incl);
  }
  const TermCount b{__shfl_up_sync(mask, incl.n, 1, W), __shfl_up_sync(mask, incl.v, 1, W)};
  *before = lane == 0 ? TermCount{0, 0.f} : b;
  *total = TermCount{__shfl_sync(mask, incl.n, W - 1, W), __shfl_sync(mask, incl.v, W - 1, W)};
}

// V elements per lane: one 16-byte load.
template <typename T>
struct LseVec {
  static constexpr int kV = 16 / static_cast<int>(sizeof(T));
};

// Steps first .. first+V-1 of a row (inner == 1) at `base`, as floats; steps >= s1 read -inf.
template <typename T, int V>
__device__ inline void LoadRowItems(const T* x, int64_t base, int64_t L, bool reverse, int64_t first, int64_t s1,
                                    bool vec, float (&v)[V]) {
  T raw[V];
  LoadRowRaw<T, V>(x, base, L, reverse, first, s1, vec, raw);
  const int64_t in = s1 - first;  // steps of the V that exist: one compare each against a constant
#pragma unroll
  for (int j = 0; j < V; ++j) {
    v[j] = j < in ? static_cast<float>(raw[j]) : -std::numeric_limits<float>::infinity();
  }
}

// ---- float32 rows on the engine's block tiles (scan_block_rows.cuh; GpuTileScan::BlockRows) ----
// A tile of kThreads * kItems steps in registers. Its state is (m, s) in float64 without
// compensation (LsePair: m the max, an element, s the sum of exp(x - m); one term is (x, 1)
// exactly), published in one status word (m as a float: the published states are the tiles'
// aggregates and the prefixes without the carry-in, whose max is an element, +-inf or NaN; the
// state word; s).
// Before the look-back: the tile's range, and where no NaN or +inf is in it and every element
// lies within kSpan of its max R_t, the float32 terms e = exp(x - R_t) summed (float-float lane
// totals, a float64 block scan of them), again from float64 terms (PreciseSums) where the
// tile's own total is below kNearZero (spec §1 near 0: later outputs near 0 stand on this
// aggregate; the first version, float32 terms in every tile, failed the GPU suite's near-0 test
// on (2, 70000)); else the exact states (float64 (max, sum) per lane, a block scan of them).
// After it, with carry (m_c, s_c) and R = max(R_t, m_c), every output is R + log2(s) * ln2
// from a float running sum s = base + f * (terms so far), f = exp(R_t - R), base = s_c
// exp(m_c - R) + f * before, one fma a step, taken only where every output of the tile lies at
// least kLeanB (12) from 0 and the carry holds more than one term (LseFast::LeanLevel's
// rules with a wider margin: f's rounding is one more). Every other tile (outputs near 0, one-term
// prefixes, NaN, +inf, a range wider than kSpan) reads its elements again and takes the exact
// path: float64 states per element, outputs ValueLS (a one-term prefix gives its term).
// The look-back's step (Step) is CombinePair cut so that its sequential part is one fma,
// s' = fma(alpha, s, beta) (kLsFmaB: s + round(b.s * e), one rounding more than CombinePair);
// Fold spreads the rest (running maxima, modes, float64 exps, alpha and beta) over the block's
// warps, a chunk of 32 steps each, and warp 0 runs the fma chain. The harness's "i1s" variants
// (tools/dev/harness/scan1d, kIncl | kStep1 | kSpread) checked this arithmetic against a float64
// reference on holes, NaN, +-inf, near-0 and negative rows, exclusive and reverse.
struct LsePair {
  double m, s;
};
struct LseBlockOps {
  static constexpr double kInf = std::numeric_limits<double>::infinity();
  __device__ static LsePair Combine(LsePair a, LsePair b) {
    if (a.m != a.m || b.m != b.m) return LsePair{NAN, NAN};
    if (a.m == -kInf) return b;
    if (b.m == -kInf) return a;
    if (a.m == kInf || b.m == kInf) return LsePair{kInf, 1.0};
    if (a.m >= b.m) return LsePair{a.m, fma(b.s, exp(b.m - a.m), a.s)};
    return LsePair{b.m, fma(a.s, exp(a.m - b.m), b.s)};
  }
  // Combine's branch and exp argument depend on a.m and b.m alone (its m is NMax(a.m, b.m)).
  enum : int { kKeep = 0, kTakeB = 1, kOne = 2, kNaN = 3, kFmaB = 4, kFmaA = 5 };
  __device__ static double NMax(double a, double b) {
    return (a != a || b != b) ? static_cast<double>(NAN) : (a >= b ? a : b);
  }
  __device__ static int Mode(double am, double bm, double* arg) {
    *arg = 0.0;
    if (am != am || bm != bm) return kNaN;
    if (am == -kInf) return kTakeB;
    if (bm == -kInf) return kKeep;
    if (am == kInf || bm == kInf) return kOne;
    if (am >= bm) {
      *arg = bm - am;
      return kFmaB;
    }
    *arg = am - bm;
    return kFmaA;
  }
  // The step's (alpha, beta): s' = fma(alpha, s, beta) (s is a finite sum, never -0, so
  // fma(1, s, 0) = s and fma(0, s, b) = b: the other modes exactly as Combine).
  __device__ static void AlphaBeta(int mode, double e, double bs, double* alpha, double* beta) {
    *alpha = mode == kFmaA ? e : (mode == kKeep || mode == kFmaB) ? 1.0 : 0.0;
    *beta = mode == kFmaB    ? bs * e
            : mode == kFmaA  ? bs
            : mode == kTakeB ? bs
            : mode == kOne   ? 1.0
            : mode == kNaN   ? static_cast<double>(NAN)
                             : 0.0;
  }
  __device__ static LsePair Step(LsePair a, LsePair b) {
    double arg, al, be;
    const int mode = Mode(a.m, b.m, &arg);
    AlphaBeta(mode, exp(arg), b.s, &al, &be);
    return LsePair{NMax(a.m, b.m), fma(al, a.s, be)};
  }
  __device__ static float Value(LsePair a) {
    if (a.m != a.m) return NAN;
    if (a.m == -kInf) return -std::numeric_limits<float>::infinity();
    if (a.m == kInf) return std::numeric_limits<float>::infinity();
    if (a.s == 1.0) return static_cast<float>(a.m);
    return static_cast<float>(a.m + log(a.s));
  }
};

template <int kThreads, int kItems, typename T = float>
struct LseBlockTile {
  using Agg = LsePair;
  using Ops = LseBlockOps;
  static constexpr int kWarps = kThreads / 32;
  static constexpr float kPad = -std::numeric_limits<float>::infinity();
  static constexpr float kSpan = LseFast::kSpan;
  // float16/bfloat16 (k16): the tile's terms from LseFast::Exp16 summed as plain floats, and the
  // fast outputs wherever every output of the tile is at least kLean16Pos above 0 or kLean16Neg
  // below it (LseFast's lean16 bounds; Finish's running sum and f's rounding add ~1e-6).
  static constexpr bool k16 = !std::is_same<T, float>::value;
  static constexpr double kLeanB = 12.0;  // float32's
  static constexpr double kLeanPos = k16 ? LseFast::kLean16Pos : kLeanB;
  static constexpr double kLeanNeg = k16 ? LseFast::kLean16Neg : kLeanB;
  static_assert(kBlockWindows <= kWarps, "Fold: one chunk of 32 steps a warp at most");
  struct Shared {
    LsePair scan[kWarps + 1];
    alignas(16) float fsm[2 * kWarps > 8 ? 2 * kWarps : 8];  // the range; then the decision
    double tot[kBlockWindows];                             // Fold: the chunks' maxima
  };

  __device__ static LsePair Identity() { return LsePair{-Ops::kInf, 0.0}; }
  __device__ static uint4 Pack(LsePair a, unsigned state) {
    const long long s = __double_as_longlong(a.s);
    return make_uint4(__float_as_uint(static_cast<float>(a.m)), state, static_cast<unsigned>(s),
                      static_cast<unsigned>(s >> 32));
  }
  __device__ static unsigned WordState(uint4 w) { return w.y; }
  __device__ static LsePair Unpack(uint4 w) {
    return LsePair{static_cast<double>(__uint_as_float(w.x)),
                   __longlong_as_double(static_cast<long long>((static_cast<unsigned long long>(w.w) << 32) | w.z))};
  }
  __device__ static LsePair Step(LsePair c, LsePair a) { return Ops::Step(c, a); }
  // The library's carry-in state (m, compensated sum) as a pair; joined in front of the carry.
  template <typename State>
  __device__ static LsePair CarryIn(const State* init, int64_t line) {
    const State& c = init[line];
    if (c.m == -Ops::kInf) return Identity();
    return LsePair{c.m, c.s.hi + c.s.lo};
  }
  __device__ static LsePair Join(LsePair c, LsePair p) { return Ops::Combine(c, p); }

  // c folded with flat[D - 1], ..., flat[0] by Step, in that order. Warp w takes chunk w
  // (flat[32 w ..]): its running max and total in fold order (sh.tot[w]); after a barrier, the
  // chunk's start max (c.m, then the farther chunks' totals in order), its modes, exps and
  // (alpha, beta) over its words of flat; after another, warp 0 alone runs the fma chain.
  __device__ static LsePair Fold(LsePair c, uint4* flat, int D, Shared& sh, int warp, int lane) {
    const int nch = (D + 31) >> 5, c0 = 32 * warp;
    const bool mine = warp < nch;
    const int n = mine ? (D - c0 < 32 ? D - c0 : 32) : 0;
    const LsePair b = lane < n ? Unpack(flat[c0 + lane]) : Identity();
    double inc = b.m;  // NMax of this lane and the lanes above it (their fold order: lane 31 down)
    if (mine) {
#pragma unroll
      for (int d = 1; d < 32; d <<= 1) {
        const double y = __shfl_down_sync(0xffffffffu, inc, d);
        if (lane + d < 32) inc = Ops::NMax(y, inc);
      }
      if (lane == 0) sh.tot[warp] = inc;
    }
    __syncthreads();
    double2* ab = reinterpret_cast<double2*>(flat);
    if (mine) {
      double cm = c.m;
      for (int i = nch - 1; i > warp; --i) cm = Ops::NMax(cm, sh.tot[i]);
      const double after = __shfl_down_sync(0xffffffffu, inc, 1);
      const double am = lane == 31 ? cm : Ops::NMax(cm, after);
      double arg, al, be;
      const int mode = Ops::Mode(am, b.m, &arg);
      Ops::AlphaBeta(mode, exp(arg), b.s, &al, &be);
      if (lane < n) ab[c0 + lane] = make_double2(al, be);
    }
    __syncthreads();
    if (warp != 0) return c;
    double m = c.m;
    const double s =
        FoldInOrder(c.s, D, [&](int l) { return ab[l]; }, [](double x, double2 q) { return fma(q.x, x, q.y); });
    for (int i = nch - 1; i >= 0; --i) m = Ops::NMax(m, sh.tot[i]);
    return LsePair{m, s};
  }

  struct AddF {
    __device__ double operator()(double a, double b) const { return a + b; }
  };
  struct CombineF {
    __device__ LsePair operator()(LsePair a, LsePair b) const { return Ops::Combine(a, b); }
  };

  float Rt;            // the tile's max
  bool fast_agg;       // the tile's aggregate from the float terms
  double before;       // fast: the thread's exclusive sum of terms against Rt, in the tile
  double total;        // fast: the tile's
  LsePair ebefore;     // exact: the thread's exclusive state in the tile (when computed)
  LsePair etotal;
  bool exact_done;
  float e[kItems];     // fast: the terms

  // The exact states (the rare paths walk local copies in loops that are not unrolled, as
  // ColumnSlow, so that the unrolled fast path keeps its registers).
  // x: the tile's elements (T) or outputs so far (float), the caller's own array: converted into
  // the local copy here, on the rare path (a converted copy made before the branch is what the
  // not-unrolled loop would read, and the compiler then keeps it in local memory from the loads
  // on, every tile: 64 bytes a thread written on the fast path too, float32 1-D +7 %).
  template <typename U>
  __device__ void Exact(const U (&x)[kItems], Shared& sh) {
    float xl[kItems];
    double m = -Ops::kInf;
    bool nan = false, pinf = false;
#pragma unroll
    for (int j = 0; j < kItems; ++j) {
      const float xj = static_cast<float>(x[j]);
      xl[j] = xj;
      nan |= xj != xj;
      pinf |= xj == std::numeric_limits<float>::infinity();
      m = xj > m ? static_cast<double>(xj) : m;
    }
    double s = 0.0;
    if (m != -Ops::kInf) {
#pragma unroll 1
      for (int j = 0; j < kItems; ++j) {
        s += xl[j] == -std::numeric_limits<float>::infinity() ? 0.0 : exp(static_cast<double>(xl[j]) - m);
      }
    }
    LsePair mine{m, s};
    if (pinf) mine = LsePair{Ops::kInf, 1.0};
    if (nan) mine = LsePair{NAN, NAN};
    BlockScanOne<kThreads>(mine, CombineF{}, Identity(), sh.scan, &ebefore, &etotal);
    exact_done = true;
  }
  // before and total from float64 terms exp(x - Rt) (every element finite or -inf, within kSpan
  // of Rt); a loop that is not unrolled, as Exact.
  template <typename U>
  __device__ void PreciseSums(const U (&x)[kItems], float Rt_, Shared& sh) {
    float xl[kItems];
#pragma unroll
    for (int j = 0; j < kItems; ++j) xl[j] = static_cast<float>(x[j]);
    double s = 0.0;
#pragma unroll 1
    for (int j = 0; j < kItems; ++j) {
      s += xl[j] == -std::numeric_limits<float>::infinity()
               ? 0.0
               : exp(static_cast<double>(xl[j]) - static_cast<double>(Rt_));
    }
    BlockScanOne<kThreads>(s, AddF{}, 0.0, reinterpret_cast<double*>(sh.scan), &before, &total);
  }
  // x: the kernel's own array, read (converted) in place: no local copy (see Exact).
  __device__ void Prepare(const T (&x)[kItems], Shared& sh) {
    float hi = -std::numeric_limits<float>::infinity(), lo = std::numeric_limits<float>::infinity();
#pragma unroll
    for (int j = 0; j < kItems; ++j) {
      hi = LseFast::MaxNaN(hi, static_cast<float>(x[j]));
      lo = fminf(lo, static_cast<float>(x[j]));
    }
#pragma unroll
    for (int d = 16; d > 0; d >>= 1) {
      hi = LseFast::MaxNaN(hi, __shfl_xor_sync(0xffffffffu, hi, d));
      lo = fminf(lo, __shfl_xor_sync(0xffffffffu, lo, d));
    }
    if (lo == -std::numeric_limits<float>::infinity()) {  // uniform over the warp: without the -inf
      lo = std::numeric_limits<float>::infinity();
#pragma unroll
      for (int j = 0; j < kItems; ++j) {
        const float xj = static_cast<float>(x[j]);
        lo = xj == -std::numeric_limits<float>::infinity() ? lo : fminf(lo, xj);
      }
#pragma unroll
      for (int d = 16; d > 0; d >>= 1) lo = fminf(lo, __shfl_xor_sync(0xffffffffu, lo, d));
    }
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    if (lane == 0) {
      sh.fsm[2 * warp] = hi;
      sh.fsm[2 * warp + 1] = lo;
    }
    __syncthreads();
    hi = -std::numeric_limits<float>::infinity();
    lo = std::numeric_limits<float>::infinity();
#pragma unroll
    for (int w = 0; w < kWarps; ++w) {
      hi = LseFast::MaxNaN(hi, sh.fsm[2 * w]);
      lo = fminf(lo, sh.fsm[2 * w + 1]);
    }
    __syncthreads();
    Rt = hi;
    fast_agg = isfinite(hi) && lo >= hi - kSpan;  // no NaN, +inf, all -inf, or wide range
    exact_done = false;
    if (fast_agg) {
      float th = 0.f, tl = 0.f;
      if constexpr (k16) {  // Exp16 terms, a plain float lane sum
        const float rl = hi * 1.44269504088896341f;
#pragma unroll
        for (int j = 0; j < kItems; ++j) {
          e[j] = LseFast::Exp16(static_cast<float>(x[j]), rl);
          th += e[j];
        }
      } else {
#pragma unroll
        for (int j = 0; j < kItems; ++j) {
          e[j] = LseFast::ExpDiff(static_cast<float>(x[j]), hi);
          TwoSumInto(&th, &tl, e[j]);
        }
      }
      BlockScanOne<kThreads>(static_cast<double>(th) + static_cast<double>(tl), AddF{}, 0.0,
                             reinterpret_cast<double*>(sh.scan), &before, &total);
      // docs/spec.md §1 near 0: the float terms' relative error (~1e-7, also in the sum) would be
      // absolute in every later output, and an output near 0 needs 1e-6 of itself. Prefixes only
      // grow along a scan, and the tile's own total is at most the prefix after it, so a tile
      // whose total is at least kNearZero feeds only outputs past kNearZero (as the warp
      // segments' totals, LseFast::NeedsExact); below that, the sums are taken again from
      // float64 terms (total: relative ~1e-16), exp(x - Rt) with Rt an element. Decided on the
      // tile's data alone (Rt + log(total) in float32: off by at most 2e-6 + |Rt| * 2^-24 against
      // the 0.01 margin wherever |Rt| < 1.6e5; beyond, Rt alone decides the side).
      if (!(hi + __logf(static_cast<float>(total)) >= static_cast<float>(LseFast::kNearZero) + 0.01f)) {
        PreciseSums(x, hi, sh);  // uniform over the block
      }
    } else {
      Exact(x, sh);
    }
  }
  __device__ LsePair Aggregate() const { return fast_agg ? LsePair{static_cast<double>(Rt), total} : etotal; }

  // Warp 0, after the look-back: whether the tile's outputs take the fast path, R, f, base0
  // (lane 0 writes them to d; lse_block_decide.cuh).
  __device__ void Decide(LsePair c, float* d, int lane) const {
    LseDecideTile(c.m, c.s, fast_agg, Rt, total, kSpan, kLeanPos, kLeanNeg, d, lane);
  }
  template <typename Reload>
  __device__ void Finish(LsePair carry, bool exclusive, T (&o)[kItems], Shared& sh, Reload reload) {
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    if (warp == 0) Decide(carry, sh.fsm, lane);
    __syncthreads();
    const float* d = sh.fsm;
    if (d[0] != 0.f) {
      const float R = d[1], ff = d[2];
      const double base0 = reinterpret_cast<const double*>(d)[2], fd = reinterpret_cast<const double*>(d)[3];
      float s = static_cast<float>(fma(fd, before, base0));
#pragma unroll
      for (int j = 0; j < kItems; ++j) {
        if (!exclusive) s = fmaf(ff, e[j], s);
        o[j] = static_cast<T>(LseFast::OutLog2(R, s));
        if (exclusive) s = fmaf(ff, e[j], s);
      }
      return;
    }
    reload(o);  // the exact path reads the tile again (x is not kept live across the look-back)
    if constexpr (k16) {
      float f[kItems];
#pragma unroll
      for (int j = 0; j < kItems; ++j) f[j] = static_cast<float>(o[j]);
      SlowFinish(carry, exclusive, f, sh);
#pragma unroll
      for (int j = 0; j < kItems; ++j) o[j] = static_cast<T>(f[j]);
    } else {
      SlowFinish(carry, exclusive, o, sh);
    }
  }
  __device__ void SlowFinish(LsePair carry, bool exclusive, float (&o)[kItems], Shared& sh) {
    if (!exact_done) Exact(o, sh);  // uniform over the block
    LsePair p = Ops::Combine(carry, ebefore);
    float xl[kItems], ol[kItems];
#pragma unroll
    for (int j = 0; j < kItems; ++j) xl[j] = o[j];
#pragma unroll 1
    for (int j = 0; j < kItems; ++j) {
      if (exclusive) ol[j] = Ops::Value(p);
      const float xv = xl[j];
      LsePair t{static_cast<double>(xv), xv == -std::numeric_limits<float>::infinity() ? 0.0 : 1.0};
      if (xv != xv) t = LsePair{NAN, NAN};
      p = Ops::Combine(p, t);
      if (!exclusive) ol[j] = Ops::Value(p);
    }
#pragma unroll
    for (int j = 0; j < kItems; ++j) o[j] = ol[j];
  }
};

// Which float32 rows (of those the engine would cut into warp segments: fewer than 4096 rows, or
// a carry-in) take the block tiles (float16/bfloat16 the same, not measured apart): rows of 2^18 steps or more, and rows of 2^16 or more where
// at most 128 of them. Measured on the H200 (tools/dev/harness/scan1d -DSCAN1D_LIB, x copy,
// the warp segments against the block tiles; docs/benchmarks.md, 2026-11-30 tenth session):
// 1-D 2^26 3.69 -> 2.63, [64, 2^20] 3.41 -> 2.83, [512, 2^18] 3.51 -> 3.02, [16, 2^18]
// 9.55 -> 5.05, [128, 2^16] 6.00 -> 4.44, [1, 2^16] 13.1 -> 4.04; but [256, 2^16] 4.36 against
// 4.52 and [512, 2^16] 3.70 against 4.55 (8 tiles a row: many short chains of look-backs).
// Shorter rows were not measured and keep the segments.
inline bool LseBlockRowsFor(int64_t rows, int64_t length) {
  return length >= (int64_t{1} << 18) || (length >= (int64_t{1} << 16) && rows <= 128);
}

template <typename T>
struct GpuTileScan<LogcumsumexpOp<T, double>, std::enable_if_t<!std::is_same<T, double>::value>> {
  using Op = LogcumsumexpOp<T, double>;
  using State = typename Op::State;
  static constexpr bool kFast = true;
  static constexpr bool kStagedRows = true;  // Load/Store touch x and out only (scan_staged_rows.cuh)
  static constexpr int kStagedItems = PO_LSE_STAGED_ITEMS;
  // Blocks of 256 threads per SM. float16/bfloat16: 4 (at most 64 registers), 32 warps to hide
  // the latency of the exp/log chains and the loads. float32: 2 (128 registers): at 4 the warp
  // rows' RowScanKernel<32, 8> spilled 376 bytes a thread (28 local stores and 50 loads in its
  // main loop). Measured on the H200 with the scan harness built at 4, 3 and 2 (docs/benchmarks.md,
  // fourteenth session): float32 [4096, 16384] 1.97 -> 1.72 x copy at 2 (3: 2.22), the other
  // shapes level; float16 [4096, 16384] 1.89 at 4 against 2.06 at 2, so it keeps 4.
  static constexpr int kMinBlocks = std::is_same<T, float>::value ? PO_LSE_F32_MIN_BLOCKS : PO_LSE_MIN_BLOCKS;
  static constexpr int kStagedMinBlocks = kMinBlocks;  // as its rows
  static constexpr int64_t kRowTarget = ScanPolicy::kWarpRowsFrom;  // a warp a row from 1024 rows
  // float32 rows that LseBlockRowsFor takes (1-D tensors, few long rows; with a carry-in too)
  // go to the engine's block tiles (scan_block_rows.cuh) with LseBlockTile: 512 threads of 16
  // steps, compiled for 2 blocks an SM (the harness's b512i16mb2i1s); float16/bfloat16 too
  // (PO_LSE16_FAST; LseBlockTile<512, 16, T>, lean16 terms and outputs).
  static constexpr bool kBlockRows = std::is_same<T, float>::value || PO_LSE16_FAST;
  // float16/bfloat16 take the lean16 arithmetic (LseFast::Exp16) where LseFast::Lean16 allows.
  static constexpr bool kLean16 = !std::is_same<T, float>::value && PO_LSE16_FAST;
  using BlockTile = LseBlockTile<512, 16, T>;
  static constexpr int kBlockThreads = 512, kBlockItems = 16, kBlockMinBlocks = 2;
  static bool BlockRowsFor(int64_t rows, int64_t length) { return LseBlockRowsFor(rows, length); }
  static constexpr int V = LseVec<T>::kV;
  // Sub-tiles loaded per group (one reference R each group). A logical warp of fewer than 32
  // lanes scans a short row (at most W * V steps) in one sub-tile, so it loads one: the others
  // would be padding, holding registers (bits unchanged: padding is -inf, which moves neither
  // the max, the min nor the NaN/+inf flag).
  template <int W>
  static constexpr int kGroup = W == 32 ? 16 / V : 1;

  // Loads the group of U sub-tiles at g0 (lane's V steps of each) and reduces, over the logical
  // warp, its max, its smallest finite element and whether it holds a NaN or +inf.
  template <int W, int U>
  __device__ static void LoadGroup(const Op& op, const OpLine<Op>& line, int64_t g0, int64_t s1, bool vec, unsigned mask,
                                   int lane, float (&xs)[U][V], float* tmax, float* tmin, bool* bad) {
    constexpr int64_t kSub = int64_t{W} * V;
#pragma unroll
    for (int u = 0; u < U; ++u) {
      LoadRowItems<T, V>(op.x, line.base, line.g.length, line.g.reverse, g0 + u * kSub + int64_t{lane} * V, s1, vec,
                         xs[u]);
    }
    Range<W>(reinterpret_cast<const float(&)[U * V]>(xs), mask, tmax, tmin, bad);
  }

  // Over the logical warp: the max of x, the smallest element other than -inf, and whether a
  // NaN or +inf is among them. The max propagates NaN (so a NaN or +inf shows in it) and the
  // min takes -inf in; only where the min is -inf (masked elements, padding) is it counted
  // again without them.
  template <int W, int N>
  __device__ static void Range(const float (&x)[N], unsigned mask, float* tmax, float* tmin, bool* bad) {
    constexpr float kInf = std::numeric_limits<float>::infinity();
    float hi = -kInf, lo = kInf;
#pragma unroll
    for (int j = 0; j < N; ++j) {
      hi = LseFast::MaxNaN(hi, x[j]);
      lo = fminf(lo, x[j]);
    }
#pragma unroll
    for (int d = W / 2; d > 0; d >>= 1) {
      hi = LseFast::MaxNaN(hi, __shfl_xor_sync(mask, hi, d, W));
      lo = fminf(lo, __shfl_xor_sync(mask, lo, d, W));
    }
    if (lo == -kInf) {  // uniform over the logical warp
      lo = kInf;
#pragma unroll
      for (int j = 0; j < N; ++j) lo = x[j] == -kInf ? lo : fminf(lo, x[j]);
#pragma unroll
      for (int d = W / 2; d > 0; d >>= 1) lo = fminf(lo, __shfl_xor_sync(mask, lo, d, W));
    }
    *tmax = hi;
    *tmin = lo;
    *bad = hi != hi || hi == kInf;
  }

  __device__ static bool Aligned(const Op& op, int64_t L) {
    return L % V == 0 && reinterpret_cast<uintptr_t>(op.x) % 16 == 0 && reinterpret_cast<uintptr_t>(op.out) % 16 == 0;
  }

  // The lanes' partial sums (each against the warp-uniform reference m) added by a fixed tree
  // into lane 0, then broadcast: the state (m, sum) of everything the lanes hold.
  template <int W>
  __device__ static State LaneTotal(double m, LseFast::Sum part, unsigned mask) {
#pragma unroll
    for (int d = W / 2; d > 0; d >>= 1) {
      const LseFast::Sum other{__shfl_down_sync(mask, part.hi, d, W), __shfl_down_sync(mask, part.lo, d, W)};
      part = Add(part, other);  // lanes >= d compute garbage that no lane < d reads later
    }
    return State{m, LseFast::Sum{__shfl_sync(mask, part.hi, 0, W), __shfl_sync(mask, part.lo, 0, W)}};
  }

  // Phase 1 of a long row (kStore = false): only carry (+) steps [s0, s1) is needed, so no warp
  // scan per sub-tile. Each lane keeps its own compensated float64 sum against the group
  // reference m (rescaled by exp(m_old - m) when m grows, one warp-uniform float64 exp per
  // group at most), adds each group's float-float lane sum into it, and the lanes are added
  // once at the end by a fixed tree. Groups the fast arithmetic cannot take go through the
  // generic steps, with the lanes flushed into the carry first.
  template <int W>
  __device__ static State WarpTotal(const Op& op, const OpLine<Op>& line, int64_t s0, int64_t s1, State carry,
                                    int lane) {
    constexpr int U = kGroup<W>;
    constexpr int64_t kGroupSteps = int64_t{W} * V * U;
    const unsigned mask = LogicalWarpMask<W>();
    const bool vec = Aligned(op, line.g.length);
    double m = carry.m;
    LseFast::Sum part = lane == 0 ? carry.s : LseFast::Sum::Zero();
    bool settled = false;  // the local prefix is past LseFast::kNearZero (then it stays there)
    for (int64_t g0 = s0; g0 < s1; g0 += kGroupSteps) {
      float xs[U][V];
      float tmax, tmin;
      bool bad;
      LoadGroup<W, U>(op, line, g0, s1, vec, mask, lane, xs, &tmax, &tmin, &bad);
      float R;
      if (!settled) settled = !LseFast::NeedsExact(LaneTotal<W>(m, part, mask));
      if (!LseFast::Usable(State{m, LseFast::Sum::Zero()}, tmax, tmin, bad, &R)) {
        const int64_t g1 = g0 + kGroupSteps < s1 ? g0 + kGroupSteps : s1;
        carry = WarpScanSteps<W, kFallbackItems, false>(op, line, g0, g1, LaneTotal<W>(m, part, mask), false, lane);
        m = carry.m;
        part = lane == 0 ? carry.s : LseFast::Sum::Zero();
        continue;
      }
      if (!settled) {  // precise (LseFast::NeedsExact): float64 terms, the finite terms counted
        TermCount tc = TermCount::Of(LaneTotal<W>(m, part, mask));
        if (m != static_cast<double>(R)) {
          part = m == -std::numeric_limits<double>::infinity() ? LseFast::Sum::Zero()
                                                                : Scale(part, exp(m - static_cast<double>(R)));
          m = static_cast<double>(R);
        }
        double acc = 0.0;
        TermCount mine{0, 0.f};
#pragma unroll
        for (int u = 0; u < U; ++u) {
#pragma unroll
          for (int j = 0; j < V; ++j) {
            const float xv = xs[u][j];
            if (xv != -std::numeric_limits<float>::infinity()) acc += exp(static_cast<double>(xv) - m);
            mine = mine.Then(xv);
          }
        }
        part = Add(part, LseFast::Sum::Of(acc));
        TermCount cb, ct;
        ScanLaneCounts<W>(mine, mask, lane, &cb, &ct);
        tc = tc.Then(ct);
        if (tc.n == 1) {  // one term: kept as (x, 1)
          m = static_cast<double>(tc.v);
          part = lane == 0 ? LseFast::Sum::Of(1.0) : LseFast::Sum::Zero();
        }
        continue;
      }
      if (m != static_cast<double>(R)) {  // the reference grows: rescale (m = -inf: nothing yet)
        part = m == -std::numeric_limits<double>::infinity() ? LseFast::Sum::Zero()
                                                              : Scale(part, exp(m - static_cast<double>(R)));
        m = static_cast<double>(R);
      }
      FloatFloat acc{0.f, 0.f};
#pragma unroll
      for (int u = 0; u < U; ++u) {
#pragma unroll
        for (int j = 0; j < V; ++j) acc = FloatFloat::Add(acc, LseFast::ExpDiff(xs[u][j], R));  // 0 for padding
      }
      part = Add(part, LseFast::Sum::Of(acc.ToDouble()));
    }
    return LaneTotal<W>(m, part, mask);
  }

  // A group of the store path taken precisely (LseFast::NeedsExact): float64 terms and sums, the
  // finite terms counted; returns the carry after it.
  template <int W, int U>
  __device__ static State PreciseGroup(const Op& op, const OpLine<Op>& line, int64_t g0, int64_t s1,
                                       const float (&xs)[U][V], float R, State carry, bool exclusive, int lane,
                                       unsigned mask, bool vec) {
    constexpr int64_t kSub = int64_t{W} * V;
    const double Rd = static_cast<double>(R);
    LseFast::Sum c = LseFast::Rebase(carry, R);
    TermCount tc = TermCount::Of(carry);
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const int64_t t0 = g0 + u * kSub;
      if (t0 >= s1) break;
      double e[V];
      double acc = 0.0;
      TermCount mine{0, 0.f};
#pragma unroll
      for (int j = 0; j < V; ++j) {
        const float xv = xs[u][j];
        e[j] = xv == -std::numeric_limits<float>::infinity() ? 0.0 : exp(static_cast<double>(xv) - Rd);
        acc += e[j];
        mine = mine.Then(xv);
      }
      double before, total;
      ScanLaneTotals<W>(acc, mask, lane, &before, &total);
      TermCount cb, ct;
      ScanLaneCounts<W>(mine, mask, lane, &cb, &ct);
      double S = c.hi + (c.lo + before);
      TermCount run = tc.Then(cb);
      T o[V];
#pragma unroll
      for (int j = 0; j < V; ++j) {
        if (exclusive) {
          o[j] = LseFast::OutPrecise<T>(Rd, S, run.n, run.v);
          S += e[j];
          run = run.Then(xs[u][j]);
        } else {
          S += e[j];
          run = run.Then(xs[u][j]);
          o[j] = LseFast::OutPrecise<T>(Rd, S, run.n, run.v);
        }
      }
      StoreRowRaw<T, V>(op.out, line.base, line.g.length, line.g.reverse, t0 + int64_t{lane} * V, s1, vec, o);
      c = Add(c, LseFast::Sum::Of(total));
      tc = tc.Then(ct);
    }
    return tc.AsState(Rd, c);
  }

  // A lane's V outputs from its terms e and the running sum *S before them (left after them).
  template <bool kLean>
  __device__ static void LaneOutputs(const float (&e)[V], float R, bool exclusive, FloatFloat* S, T (&o)[V]) {
#pragma unroll
    for (int j = 0; j < V; ++j) {
      if (!exclusive) *S = FloatFloat::Add(*S, e[j]);
      o[j] = kLean ? LseFast::OutLean<T>(R, S->hi, S->lo) : LseFast::Out<T>(R, S->hi, S->lo);
      if (exclusive) *S = FloatFloat::Add(*S, e[j]);
    }
  }

  // The groups of the blocked store path that are not lean (outputs within LseFast::kLean of 0,
  // NaN, +inf, a wide range: the first group of a row and rare ones after), kept out of line so
  // that the lean loop gets the registers: the striped steps below, for one group.
  __device__ __noinline__ static State SlowGroup(const Op& op, const OpLine<Op>& line, int64_t g0, int64_t g1,
                                                 State carry, bool exclusive, int lane) {
    return StripedSteps<32>(op, line, g0, g1, carry, exclusive, lane);
  }

  // Rows, full warps (kStore): a group of 32 * kLaneItems steps, kLaneItems consecutive ones per
  // lane (16-byte loads), so the float64 warp scan of the lane totals, the carry update and the
  // group's checks are paid once per 32 * kLaneItems elements. Per element: a float32 exp of
  // the exact difference to R, two float-float additions (the lane total, then the running
  // output sum) and the output through the SFU's log2.
  static constexpr int kLaneItems = 16;
  // The lane's kLaneItems steps from `first` (in scan order): four (float32) or two (16-bit)
  // 16-byte loads from one address where they are all before s1; else as LoadRowItems.
  template <bool kRev>
  __device__ static void LaneLoad(const Op& op, const OpLine<Op>& line, int64_t g0, int lane, int64_t s1, bool vec,
                                  float (&x)[kLaneItems]) {
    const int64_t L = line.g.length;
    const int64_t first = g0 + int64_t{lane} * kLaneItems;
    if (vec && g0 + 32 * kLaneItems <= s1) {  // the whole group (warp-uniform)
      T raw[kLaneItems];
      BlockedGroup<T, kLaneItems>::template Load<kRev>(op.x, line.base, L, g0, raw, lane);
#pragma unroll
      for (int j = 0; j < kLaneItems; ++j) x[j] = static_cast<float>(raw[j]);
      return;
    }
#pragma unroll
    for (int c = 0; c < kLaneItems / V; ++c) {
      float v[V];
      LoadRowItems<T, V>(op.x, line.base, L, kRev, first + c * V, s1, vec, v);
#pragma unroll
      for (int j = 0; j < V; ++j) x[c * V + j] = v[j];
    }
  }
  template <bool kRev>
  __device__ static void LaneStore(const Op& op, const OpLine<Op>& line, int64_t g0, int lane, int64_t s1, bool vec,
                                   const T (&o)[kLaneItems]) {
    const int64_t L = line.g.length;
    const int64_t first = g0 + int64_t{lane} * kLaneItems;
    if (vec && g0 + 32 * kLaneItems <= s1) {  // the whole group (warp-uniform)
      BlockedGroup<T, kLaneItems>::template Store<kRev>(op.out, line.base, L, g0, o, lane);
      return;
    }
#pragma unroll
    for (int c = 0; c < kLaneItems / V; ++c) {
      T v[V];
#pragma unroll
      for (int j = 0; j < V; ++j) v[j] = o[c * V + j];
      StoreRowRaw<T, V>(op.out, line.base, L, kRev, first + c * V, s1, vec, v);
    }
  }
  // A lean16 group of WarpRows (16-bit outputs, LseFast::Lean16): Exp16 terms, plain float lane
  // sums and running sums, OutLog2 outputs; the lane totals scanned in float64 as the float32
  // groups'. Returns the carry after the group.
  template <bool kRev>
  __device__ static State Lean16Group(const Op& op, const OpLine<Op>& line, int64_t g0, int lane, int64_t s1, bool vec,
                                      const float (&x)[kLaneItems], float R, LseFast::Sum c, bool exclusive) {
    const float rl = R * 1.44269504088896341f;
    float e[kLaneItems];
    float acc = 0.f;
#pragma unroll
    for (int j = 0; j < kLaneItems; ++j) {
      e[j] = LseFast::Exp16(x[j], rl);  // 0 for -inf and padding
      acc += e[j];
    }
    double before, total;
    ScanLaneTotals<32>(static_cast<double>(acc), 0xffffffffu, lane, &before, &total);
    float s = static_cast<float>(c.hi + (c.lo + before));
    T o[kLaneItems];
#pragma unroll
    for (int j = 0; j < kLaneItems; ++j) {
      if (!exclusive) s += e[j];
      o[j] = static_cast<T>(LseFast::OutLog2(R, s));
      if (exclusive) s += e[j];
    }
    LaneStore<kRev>(op, line, g0, lane, s1, vec, o);
    return State{static_cast<double>(R), Add(c, LseFast::Sum::Of(total))};
  }
  template <bool kRev>
  __device__ static State WarpRows(const Op& op, const OpLine<Op>& line, int64_t s0, int64_t s1, State carry,
                                   bool exclusive, int lane) {
    constexpr int64_t kGroupSteps = int64_t{32} * kLaneItems;
    const bool vec = Aligned(op, line.g.length);
    for (int64_t g0 = s0; g0 < s1; g0 += kGroupSteps) {
      float x[kLaneItems];
      LaneLoad<kRev>(op, line, g0, lane, s1, vec, x);
      float hi, lo;
      bool bad;
      Range<32>(x, 0xffffffffu, &hi, &lo, &bad);
      float R;
      int lean = 0;
      LseFast::Sum c;
      if (LseFast::Usable(carry, hi, lo, bad, &R)) {
        c = LseFast::Rebase(carry, R);
        if constexpr (kLean16) {  // 16-bit outputs: the lean16 group where it may
          if (LseFast::Lean16(carry, R, c, static_cast<int>(kGroupSteps))) {
            carry = Lean16Group<kRev>(op, line, g0, lane, s1, vec, x, R, c, exclusive);
            continue;
          }
        }
        lean = LseFast::LeanLevel(carry, R, c, static_cast<int>(kGroupSteps));
      }
      if (lean == 0) {
        carry = SlowGroup(op, line, g0, g0 + kGroupSteps < s1 ? g0 + kGroupSteps : s1, carry, exclusive, lane);
        continue;
      }
      float e[kLaneItems];
      FloatFloat acc{0.f, 0.f};
#pragma unroll
      for (int j = 0; j < kLaneItems; ++j) {
        e[j] = LseFast::ExpDiff(x[j], R);  // 0 for -inf and padding
        acc = FloatFloat::Add(acc, e[j]);
      }
      double before, total;
      ScanLaneTotals<32>(acc.ToDouble(), 0xffffffffu, lane, &before, &total);
      FloatFloat S = FloatFloat::Of(c.hi + (c.lo + before));
      T o[kLaneItems];
      if (lean == 2) {  // every output at least kLean2 from 0: a float running sum suffices
        float s = S.hi + S.lo;
#pragma unroll
        for (int j = 0; j < kLaneItems; ++j) {
          if (!exclusive) s += e[j];
          o[j] = static_cast<T>(LseFast::OutLog2(R, s));
          if (exclusive) s += e[j];
        }
      } else {
#pragma unroll
        for (int j = 0; j < kLaneItems; ++j) {
          if (!exclusive) S = FloatFloat::Add(S, e[j]);
          o[j] = static_cast<T>(LseFast::OutLog2(R, S.hi + S.lo));
          if (exclusive) S = FloatFloat::Add(S, e[j]);
        }
      }
      LaneStore<kRev>(op, line, g0, lane, s1, vec, o);
      c = Add(c, LseFast::Sum::Of(total));
      carry = State{static_cast<double>(R), c};
    }
    return carry;
  }

  // Rows: full warps take the blocked groups above, logical warps of short rows (and the blocked
  // path's slow groups) the striped sub-tiles of StripedSteps.
  template <int W, int kItems, bool kStore>
  __device__ static State Warp(const Op& op, const OpLine<Op>& line, int64_t s0, int64_t s1, State carry,
                               bool exclusive, int lane) {
    if constexpr (!kStore) {
      return WarpTotal<W>(op, line, s0, s1, carry, lane);
    } else if constexpr (W == 32) {
      return line.g.reverse ? WarpRows<true>(op, line, s0, s1, carry, exclusive, lane)
                            : WarpRows<false>(op, line, s0, s1, carry, exclusive, lane);
    } else {
      return StripedSteps<W>(op, line, s0, s1, carry, exclusive, lane);
    }
  }

  // Sub-tiles of W * V elements, V consecutive ones per lane, a group of kGroup<W> of them
  // sharing a reference R (the store path).
  template <int W>
  __device__ static State StripedSteps(const Op& op, const OpLine<Op>& line, int64_t s0, int64_t s1, State carry,
                                       bool exclusive, int lane) {
    constexpr bool kStore = true;
    constexpr int64_t kSub = int64_t{W} * V;
    const unsigned mask = LogicalWarpMask<W>();
    const int64_t L = line.g.length;
    const bool reverse = line.g.reverse;
    const bool vec = Aligned(op, L);
    // A group of U sub-tiles is loaded before any is scanned (more bytes in flight per warp)
    // and shares one reference R, so the max/min reductions run once per group.
    constexpr int U = kGroup<W>;
    for (int64_t g0 = s0; g0 < s1; g0 += U * kSub) {
      float xs[U][V];
      float tmax, tmin;
      bool bad;
      LoadGroup<W, U>(op, line, g0, s1, vec, mask, lane, xs, &tmax, &tmin, &bad);
      float R;
      if (!LseFast::Usable(carry, tmax, tmin, bad, &R)) {
        const int64_t g1 = g0 + U * kSub < s1 ? g0 + U * kSub : s1;
        carry = WarpScanSteps<W, kFallbackItems, kStore>(op, line, g0, g1, carry, exclusive, lane);
        continue;
      }
      LseFast::Sum c = LseFast::Rebase(carry, R);
      const bool lean = LseFast::Lean(carry, R, c, static_cast<int>(U * kSub));
      if (!lean && LseFast::NeedsExact(carry)) {  // outputs far below 0 need no precise path
        carry = PreciseGroup<W, U>(op, line, g0, s1, xs, R, carry, exclusive, lane, mask, vec);
        continue;
      }
#pragma unroll
      for (int u = 0; u < U; ++u) {
        const int64_t t0 = g0 + u * kSub;
        if (t0 >= s1) break;
        const int64_t first = t0 + int64_t{lane} * V;
        // The lane's terms (one float32 exp per element, no float64) and their float-float sum;
        // the terms, not the V partial sums, are kept for the stores (half the registers).
        float e[V];
        FloatFloat acc{0.f, 0.f};
#pragma unroll
        for (int j = 0; j < V; ++j) {
          e[j] = LseFast::ExpDiff(xs[u][j], R);  // 0 for -inf and padding
          acc = FloatFloat::Add(acc, e[j]);
        }
        double before, total;
        ScanLaneTotals<W>(acc.ToDouble(), mask, lane, &before, &total);
        // Everything before the lane's first element, once per lane in float64, then the
        // running float-float sum over the lane's terms.
        FloatFloat S = FloatFloat::Of(c.hi + (c.lo + before));
        T o[V];
        if (lean) {
          LaneOutputs<true>(e, R, exclusive, &S, o);
        } else {
          LaneOutputs<false>(e, R, exclusive, &S, o);
        }
        StoreRowRaw<T, V>(op.out, line.base, L, reverse, first, s1, vec, o);
        c = Add(c, LseFast::Sum::Of(total));
      }
      carry = State{static_cast<double>(R), c};
    }
    return carry;
  }

  // Columns (and the staged short rows): one thread walks its line in chunks of kChunk steps.
  // Per chunk: the loads (one address, then a fixed stride), the range checks (Usable), the
  // carry rebased to R = max(chunk, carry) and the chunk's level, decided in float32 as the
  // rows' and the register columns' (LseFast::LeanLevel; a float64 log per chunk before). Per
  // element on the lean levels: the float32 term of the exact difference (ExpDiff), its TwoSum
  // into the chunk total (for the carry: float64 once per chunk) and the output through the SFU's
  // log2 of the running sum S (LseFast::OutLog2): a float-float S at level 1, a plain float one
  // at level 2 (every output at least kLean2 from 0), as WarpRows and ColumnScan. Levels only
  // rise along a line where the carry's value decides them (prefix values grow), so once the
  // carry is past kLean2 (store) or past kNearZero (totals), it is not tested again.
  // A thread step's chunk: steps [0, n) from px at `step`, as floats (-inf past n), their max (NaN
  // if one is NaN) and the smallest other than -inf.
  template <int kChunk>
  __device__ static void LoadChunk(const T* px, int64_t step, int n, float (&x)[kChunk], float* tmax, float* tmin) {
    constexpr float kInf = std::numeric_limits<float>::infinity();
    float hi = -kInf, lo = kInf;
#pragma unroll
    for (int k = 0; k < kChunk; ++k) {
      x[k] = k < n ? static_cast<float>(px[k * step]) : -kInf;
      hi = LseFast::MaxNaN(hi, x[k]);
      lo = x[k] == -kInf ? lo : fminf(lo, x[k]);
    }
    *tmax = hi;
    *tmin = lo;
  }
  template <int kItems, bool kStore>
  __device__ static State Thread(const Op& op, const OpLine<Op>& line, int64_t s0, int64_t s1, State carry,
                                 bool exclusive) {
    // 8 steps a chunk (ScanPolicy::kColumnItems, kStagedItems): 16 measured slower on the H200's
    // short rows and axis-2 columns (docs/benchmarks.md, 2026-11-29 seventh session).
    constexpr int kChunk = kItems;
    static_assert(kChunk <= 16, "level 2's float running sum is bounded for at most 16 terms (LseFast::kLean2)");
    constexpr float kInf = std::numeric_limits<float>::infinity();
    const int64_t step = line.g.reverse ? -line.g.inner : line.g.inner;
    bool high = false;     // store: the carry's value is past kLean2 (+ margin)
    bool settled = false;  // totals: the carry no longer NeedsExact
    for (int64_t t0 = s0; t0 < s1; t0 += kChunk) {
      if constexpr (kLean16) {  // past kLean16Pos for good, a short rest: float state (Lean16Float)
        if ((kStore ? high : settled) && s1 - t0 <= kLean16FloatSpan) {
          int64_t t = t0;
          carry = Lean16Float<kChunk, kStore>(op, line, step, t0, s1, carry, exclusive, &t);
          if (t >= s1) break;
          t0 = t;  // the chunk it declined (NaN, +inf, a wide range): the steps below take it
        }
      }
      const int64_t t1 = t0 + kChunk < s1 ? t0 + kChunk : s1;
      const int n = static_cast<int>(t1 - t0);
      const T* px = op.x + line.g.At(line.base, t0).offset;
      float x[kChunk];
      float tmax, tmin;
      LoadChunk<kChunk>(px, step, n, x, &tmax, &tmin);
      const bool bad = tmax != tmax || tmax == kInf;
      float R;
      if (!LseFast::Usable(carry, tmax, tmin, bad, &R)) {
        carry = ThreadScanSteps<kFallbackItems, kStore>(op, line, t0, t1, carry, exclusive);
        high = false;
        settled = false;
        continue;
      }
      const LseFast::Sum c = LseFast::Rebase(carry, R);
      if constexpr (kLean16) {  // 16-bit outputs: the lean16 chunk where LseFast::Lean16 allows
        bool l16;
        if (kStore) {
          l16 = high || LseFast::Lean16(carry, R, c, kChunk);
          high = high || (l16 && LseFast::Lean16Carry(carry));
        } else {
          if (!settled) settled = !LseFast::NeedsExact(carry);
          // totals past kNearZero feed only outputs past it; those far below 0 move later outputs
          // near 0 by ~7e-9 at most (LseFast's lean16 comment)
          l16 = settled || LseFast::Lean16(carry, R, c, kChunk);
        }
        if (l16) {
          const float rl = R * 1.44269504088896341f;
          float acc = 0.f;
          if (!kStore) {
#pragma unroll
            for (int k = 0; k < kChunk; ++k) acc += LseFast::Exp16(x[k], rl);  // 0 for padding
          } else {
            T* po = op.out + (px - op.x);
            float s = static_cast<float>(c.hi + c.lo);
#pragma unroll
            for (int k = 0; k < kChunk; ++k) {
              const float e = LseFast::Exp16(x[k], rl);
              acc += e;
              if (!exclusive) s += e;
              if (k < n) po[k * step] = static_cast<T>(LseFast::OutLog2(R, s));
              if (exclusive) s += e;
            }
          }
          carry = State{static_cast<double>(R), Add(c, LseFast::Sum::Of(static_cast<double>(acc)))};
          continue;
        }
      }
      int level = 0;
      if (kStore) {
        if (!high) {
          level = LseFast::LeanLevel(carry, R, c, kChunk);
          high = level == 2 && static_cast<float>(carry.m) + __logf(static_cast<float>(carry.s.hi)) >=
                                   static_cast<float>(LseFast::kLean2) + 0.01f;
        } else {
          level = 2;
        }
      } else if (!settled) {
        settled = !LseFast::NeedsExact(carry);
      }
      if ((kStore && level == 0 && LseFast::NeedsExact(carry)) || (!kStore && !settled)) {
        carry = PreciseChunk<kChunk, kStore>(op, px, step, x, n, R, c, carry, exclusive);
        continue;
      }
      T* po = kStore ? op.out + (px - op.x) : nullptr;
      FloatFloat acc{0.f, 0.f};
      if (!kStore) {
#pragma unroll
        for (int k = 0; k < kChunk; ++k) acc = FloatFloat::Add(acc, LseFast::ExpDiff(x[k], R));  // 0 for padding
      } else if (level == 2) {
        float s = static_cast<float>(c.hi + c.lo);
#pragma unroll
        for (int k = 0; k < kChunk; ++k) {
          const float e = LseFast::ExpDiff(x[k], R);
          acc = FloatFloat::Add(acc, e);
          if (!exclusive) s += e;
          if (k < n) po[k * step] = static_cast<T>(LseFast::OutLog2(R, s));
          if (exclusive) s += e;
        }
      } else {
        FloatFloat S = FloatFloat::Of(c.hi + c.lo);
#pragma unroll
        for (int k = 0; k < kChunk; ++k) {
          const float e = LseFast::ExpDiff(x[k], R);
          acc = FloatFloat::Add(acc, e);
          if (!exclusive) S = FloatFloat::Add(S, e);
          if (k < n) {
            po[k * step] = level == 1 ? static_cast<T>(LseFast::OutLog2(R, S.hi + S.lo)) : LseFast::Out<T>(R, S.hi, S.lo);
          }
          if (exclusive) S = FloatFloat::Add(S, e);
        }
      }
      carry = State{static_cast<double>(R), Add(c, LseFast::Sum::Of(acc.ToDouble()))};
    }
    return carry;
  }

  // The rest [t, s1) of a thread's steps (at most kLean16FloatSpan) once the carry is past
  // kLean16Pos (store: `high`; totals: `settled`), with the carry as a float pair (m, s)
  // instead of the float64 state: no float64 operation or float<->float64 conversion per chunk
  // (about 6 conversions and 12 float64 operations a chunk of 8 before; conversions issue at 16
  // a clock an SM). Its error on top of lean16's: the running sum's roundings, at most
  // kLean16FloatSpan * 2^-24 = 1.5e-5 relative, and a rebase by ExpDiff (~2.4e-7) wherever the
  // max grows, at most one a chunk, 7.7e-6: 2.3e-5, twice that where the carry came from such
  // spans too (phase 1 of the columns, the runs before in a staged row: a sum of parts each off by
  // at most e is off by at most e), with lean16's 1.2e-5 still inside 2^-12 * 0.5 = 1.2e-4. Every
  // output here is past kLean16Pos. Stops (*stop = t) at a chunk with a NaN or +inf or wider than
  // kSpan (the steps above take it), or at once if the carry's max is not a float.
  static constexpr int64_t kLean16FloatSpan = 256;
  template <int kChunk, bool kStore>
  __device__ static State Lean16Float(const Op& op, const OpLine<Op>& line, int64_t step, int64_t t, int64_t s1,
                                      State carry, bool exclusive, int64_t* stop) {
    constexpr float kInf = std::numeric_limits<float>::infinity();
    float m = static_cast<float>(carry.m);
    if (static_cast<double>(m) != carry.m) {
      *stop = t;
      return carry;
    }
    float s = static_cast<float>(carry.s.hi + carry.s.lo);
    for (; t < s1; t += kChunk) {
      const int n = static_cast<int>(t + kChunk < s1 ? kChunk : s1 - t);
      const T* px = op.x + line.g.At(line.base, t).offset;
      float x[kChunk];
      float tmax, tmin;
      LoadChunk<kChunk>(px, step, n, x, &tmax, &tmin);
      const float R = fmaxf(tmax, m);  // tmax NaN: R = m, caught below
      if (tmax != tmax || tmax == kInf) break;
      if (R != m) {  // the max grows: every term and m within kSpan of R (LseFast::Usable)
        if (!(tmin >= R - LseFast::kSpan && m >= R - LseFast::kSpan)) break;
        s *= LseFast::ExpDiff(m, R);
        m = R;
      }
      const float rl = R * 1.44269504088896341f;
      T* po = kStore ? op.out + (px - op.x) : nullptr;
#pragma unroll
      for (int k = 0; k < kChunk; ++k) {
        const float e = LseFast::Exp16(x[k], rl);  // 0 for -inf and padding
        if (!exclusive) s += e;
        if (kStore && k < n) po[k * step] = static_cast<T>(LseFast::OutLog2(R, s));
        if (exclusive) s += e;
      }
    }
    *stop = t;
    return State{static_cast<double>(m), LseFast::Sum::Of(static_cast<double>(s))};
  }

  // A chunk of Thread taken precisely (LseFast::NeedsExact): float64 terms, the finite terms
  // counted; out of line (rare: a line's first chunks).
  template <int kChunk, bool kStore>
  __device__ __noinline__ static State PreciseChunk(const Op& op, const T* px, int64_t step, const float (&x)[kChunk],
                                                    int n, float R, LseFast::Sum c, const State& carry,
                                                    bool exclusive) {
    const double Rd = static_cast<double>(R);
    T* po = kStore ? op.out + (px - op.x) : nullptr;
    TermCount tc = TermCount::Of(carry);
    double S = c.hi + c.lo;
#pragma unroll 1
    for (int k = 0; k < n; ++k) {
      const float xv = x[k];
      const double e = xv == -std::numeric_limits<float>::infinity() ? 0.0 : exp(static_cast<double>(xv) - Rd);
      if (kStore && exclusive) po[k * step] = LseFast::OutPrecise<T>(Rd, S, tc.n, tc.v);
      S += e;
      tc = tc.Then(xv);
      if (kStore && !exclusive) po[k * step] = LseFast::OutPrecise<T>(Rd, S, tc.n, tc.v);
    }
    return tc.AsState(Rd, LseFast::Sum::Of(S));
  }

  // Columns held in registers (the one-pass column tiles of scan_columns.cuh): x[k] is step k
  // of one line in scan order, n of the K real.
  static constexpr bool kColumnTile = true;
  // x as floats (-inf past n), their max (NaN if one is NaN), the smallest other than -inf and
  // whether a NaN or +inf is among them.
  template <int K>
  __device__ static void ColumnFloats(const T (&x)[K], int n, float (&f)[K], float* tmax, float* tmin, bool* bad) {
    constexpr float kInf = std::numeric_limits<float>::infinity();
    float hi = -kInf, lo = kInf;
#pragma unroll
    for (int k = 0; k < K; ++k) {
      f[k] = k < n ? static_cast<float>(x[k]) : -kInf;
      hi = LseFast::MaxNaN(hi, f[k]);
      lo = f[k] == -kInf ? lo : fminf(lo, f[k]);
    }
    *tmax = hi;
    *tmin = lo;
    *bad = hi != hi || hi == kInf;
  }
  // A total far below 0 (value at most -kFarBelow): its float32 terms' relative error, ~2.4e-7 of
  // a sum below exp(-16), moves no later output by more than 1e-13 absolute (any later output
  // within 0.5 of 0 has a sum above exp(-0.5)) or 2.4e-7 / 16 relative (further from 0).
  static constexpr float kFarBelow = 16.f;
  // Their total (from nothing: no carry). float32 terms against the max R where the total's own
  // value R + log(S) is past LseFast::kNearZero (every later output of the line is then too,
  // as phase 1's rule of the three-phase columns) or far below 0; else the precise float64
  // terms with the finite terms counted (a total of one term is that term, (x, 1)); NaN, +inf,
  // nothing finite or a range wider than kSpan: the op's own combine.
  template <int K>
  __device__ static State ColumnTotal(const Op& op, const T (&x)[K], int n) {
    float f[K];
    float tmax, tmin, R;
    bool bad;
    ColumnFloats<K>(x, n, f, &tmax, &tmin, &bad);
    if (!LseFast::Usable(op.Identity(), tmax, tmin, bad, &R)) {
      ColumnSlow<K> slow(f);
      State s = op.Identity();
#pragma unroll 1
      for (int k = 0; k < n; ++k) s = op.Combine(s, Op::Of(static_cast<double>(slow.f[k])));
      return s;
    }
    FloatFloat acc{0.f, 0.f};
#pragma unroll
    for (int k = 0; k < K; ++k) acc = FloatFloat::Add(acc, LseFast::ExpDiff(f[k], R));  // 0 for -inf, padding
    const float v = R + __logf(acc.hi);  // acc.hi in [1, K]: within 1e-6 of the value
    if (v >= static_cast<float>(LseFast::kNearZero) + 0.01f || v <= -kFarBelow) {
      return State{static_cast<double>(R), LseFast::Sum::Of(acc.ToDouble())};
    }
    ColumnSlow<K> slow(f);
    const double Rd = static_cast<double>(R);
    double S = 0.0;
    TermCount tc{0, 0.f};
#pragma unroll 1
    for (int k = 0; k < n; ++k) {
      const float xv = slow.f[k];
      if (xv != -std::numeric_limits<float>::infinity()) S += exp(static_cast<double>(xv) - Rd);
      tc = tc.Then(xv);
    }
    return tc.AsState(Rd, LseFast::Sum::Of(S));
  }
  // ColumnScan's outputs from a plain float running sum (lean level 2, or lean16 with kExp16:
  // LseFast::Exp16 terms instead of ExpDiff's).
  template <bool kExp16, int K>
  __device__ static void ColumnPlainSum(const float (&f)[K], int n, float R, const LseFast::Sum& c, bool exclusive,
                                        T (&x)[K]) {
    const float rl = R * 1.44269504088896341f;
    float s = static_cast<float>(c.hi + c.lo);
#pragma unroll
    for (int k = 0; k < K; ++k) {
      if (k >= n) break;
      const float e = kExp16 ? LseFast::Exp16(f[k], rl) : LseFast::ExpDiff(f[k], R);
      if (!exclusive) s += e;
      x[k] = static_cast<T>(LseFast::OutLog2(R, s));
      if (exclusive) s += e;
    }
  }
  // Their scan from carry, in place, as the thread steps above decide a chunk: the op's combine
  // where the fast arithmetic does not apply, the precise float64 terms while the carry
  // NeedsExact, else float32 terms against R = max(their max, the carry's) with a float-float
  // running sum, its outputs through Out, or through the SFU's log2 (OutLog2) where LeanLevel
  // says every output is at least kLean from 0 (a float running sum from kLean2 on, as the rows).
  // The paths other than the lean ones run out of the unrolled code (ColumnSlow).
  template <int K>
  __device__ static void ColumnScan(const Op& op, T (&x)[K], int n, State carry, bool exclusive) {
    float f[K];
    float tmax, tmin, R;
    bool bad;
    ColumnFloats<K>(x, n, f, &tmax, &tmin, &bad);
    if (!LseFast::Usable(carry, tmax, tmin, bad, &R)) {
      ColumnSlow<K, T> slow(f);
#pragma unroll 1
      for (int k = 0; k < n; ++k) {
        const State e = Op::Of(static_cast<double>(slow.f[k]));
        if (exclusive) {
          slow.out[k] = static_cast<T>(Op::Value(carry));
          carry = op.Combine(carry, e);
        } else {
          carry = op.Combine(carry, e);
          slow.out[k] = static_cast<T>(Op::Value(carry));
        }
      }
      slow.Outputs(n, x);
      return;
    }
    const LseFast::Sum c = LseFast::Rebase(carry, R);
    if constexpr (kLean16) {  // 16-bit outputs: lean16 (LseFast::Lean16) as the thread steps
      if (LseFast::Lean16(carry, R, c, K)) {
        ColumnPlainSum<true, K>(f, n, R, c, exclusive, x);
        return;
      }
    }
    const int lean = LseFast::LeanLevel(carry, R, c, K);
    if (lean == 0) {  // rare past a line's first outputs: loops over local copies, not unrolled
      ColumnSlow<K, T> slow(f);
      if (LseFast::NeedsExact(carry)) {
        const double Rd = static_cast<double>(R);
        TermCount tc = TermCount::Of(carry);
        double S = c.hi + c.lo;
#pragma unroll 1
        for (int k = 0; k < n; ++k) {
          const float xv = slow.f[k];
          const double e = xv == -std::numeric_limits<float>::infinity() ? 0.0 : exp(static_cast<double>(xv) - Rd);
          if (exclusive) slow.out[k] = LseFast::OutPrecise<T>(Rd, S, tc.n, tc.v);
          S += e;
          tc = tc.Then(xv);
          if (!exclusive) slow.out[k] = LseFast::OutPrecise<T>(Rd, S, tc.n, tc.v);
        }
      } else {
        FloatFloat S = FloatFloat::Of(c.hi + c.lo);
#pragma unroll 1
        for (int k = 0; k < n; ++k) {
          const float e = LseFast::ExpDiff(slow.f[k], R);
          if (!exclusive) S = FloatFloat::Add(S, e);
          slow.out[k] = LseFast::Out<T>(R, S.hi, S.lo);
          if (exclusive) S = FloatFloat::Add(S, e);
        }
      }
      slow.Outputs(n, x);
      return;
    }
    if (lean == 2) {
      ColumnPlainSum<false, K>(f, n, R, c, exclusive, x);
      return;
    }
    FloatFloat S = FloatFloat::Of(c.hi + c.lo);
#pragma unroll
    for (int k = 0; k < K; ++k) {
      if (k >= n) break;
      const float e = LseFast::ExpDiff(f[k], R);
      if (!exclusive) S = FloatFloat::Add(S, e);
      x[k] = static_cast<T>(LseFast::OutLog2(R, S.hi + S.lo));
      if (exclusive) S = FloatFloat::Add(S, e);
    }
  }
};

// float64 logcumsumexp: kernels/gpu/logcumsumexp_f64_tiles.cuh (included at the end of this file).


// The gradient (LogcumsumexpGradOp, scanned against the forward's direction). In scan order o
// does not increase, and the recurrence acc[k] = g[k] + exp(o[k] - o[prev]) * acc[prev]
// telescopes: with c the element before the tile, B = acc[c] (the carry) and a reference
// R >= o over the tile and o[c],
//   acc[k] = exp(o[k] - R) * (B * exp(R - o[c]) + sum_{tile j <= k} g[j] * exp(R - o[j])),
// one float32 exp per term and one per output, products exact (fma) and sums float-float in
// float32, float64 once per lane and tile (as in the forward). The carry passed on is the
// generic (gate product, acc) pair, its factors from float64 exps, so no float32 rounding
// compounds from tile to tile. Taken when o over the tile and o[c] are finite and within kSpan
// of R and x has no NaN; otherwise the tile takes the generic steps.
struct LseGradFast {
  using State = GatedState<double>;
  __device__ static bool Usable(bool bad, float omax, float omin, bool at_start, float oc, float* R) {
    if (bad) return false;
    *R = at_start ? omax : fmaxf(omax, oc);
    if (!isfinite(*R)) return false;
    const float lo = *R - LseFast::kSpan;
    return omin >= lo && (at_start || (isfinite(oc) && oc >= lo));
  }
  // x_grad from acc (at o_ref, the output x first feeds) and x.
  template <typename T>
  __device__ static T XGrad(float acc, float x, float o_ref) {
    if (x == -std::numeric_limits<float>::infinity()) return static_cast<T>(0.f);
    return static_cast<T>(acc * LseFast::ExpDiff(x, o_ref));
  }
  // sum += g * w, the product exact (its rounding error goes to lo).
  __device__ static void AddProduct(FloatFloat* sum, float g, float w) {
    const float p = g * w;
    *sum = FloatFloat::Add(*sum, p);
    sum->lo += fmaf(g, w, -p);
  }
  // The tile as a generic pair: gate product exp(o_last - o[c]) (0 when the tile holds the
  // line's first element) and its own acc at the last element, exp(o_last - R) * sum.
  __device__ static State Carry(const State& carry, bool at_start, float o_last, float oc, float R, double sum) {
    const double a_t = at_start ? 0.0 : exp(static_cast<double>(o_last) - static_cast<double>(oc));
    const double b_t = exp(static_cast<double>(o_last) - static_cast<double>(R)) * sum;
    return LinearRecurrenceCombine<double>::Combine(carry, State{a_t, b_t});
  }
  // B * exp(R - o[c]): the carried acc on the tile's reference.
  __device__ static double Rebase(const State& carry, bool at_start, float oc, float R) {
    if (at_start || carry.b == 0.0) return 0.0;
    if (oc == R) return carry.b;
    return carry.b * exp(static_cast<double>(R) - static_cast<double>(oc));
  }
};

// Which float32 gradient rows take the block tiles (LseGradBlockTile, logcumsumexp_grad_rows.cuh).
// Measured on the H200 (tools/dev/harness/scan1d -DSCAN1D_LIB, run_lsegrad.sh, x a copy of the
// same tensor in the same run; 2026-11-30 eleventh session, docs/benchmarks.md): before (the warp
// segments' telescoped tiles, or a warp a row) -> the block tiles 512 x 16, out_grad staged in
// shared memory across the look-back (kStash) / held in registers (kStash off, "-reg"):
//   1-D 2^26 9.14 -> 4.17 / 4.36, [64, 2^20] 8.59 -> 4.86 / 4.84, [128, 2^16] 14.82 -> 4.30 / 4.34,
//   [256, 2^16] 9.21 -> - / 4.41 (kStash at 256 x 16: 4.77, 512 x 8: 4.89),
//   [4096, 16384] 6.55 -> - / 4.64 (kStash at 256 x 16: 5.23, 512 x 8: 5.22; before: a warp a
//   row, RowScanKernel<32, 8> at 72 registers, 28 % occupancy, 21 % of memory throughput).
// So: BlockTile (kStash) takes the forward's rule (LseBlockRowsFor: 2^18 steps or more, 2^16 or
// more where at most 128 rows), which the engine asks only for rows it would cut into warp
// segments (fewer than 3072 here: ScanPolicy::kTargetRowWarpsPerSlot x kMinBlocks); BlockTile2
// (kStash off: within 1 % or faster on every measured shape but 1-D) takes every other row of
// PO_LSE_GRAD_BLOCK_MIN_LENGTH steps or more, whatever their count, the rows a warp each took
// before included (TileBlockRows2 in scan_launch.cuh). The edge, 8192 steps (one tile a row),
// from the second run (run_gradroute.sh, built from r23-gradroute, the edge then 16384; x copy,
// before -> the library's routing / BlockTile2 forced): [64, 2^20] 8.70 -> 4.92, [4096, 16384]
// 6.51 -> 4.63, [1024, 16384] 9.41 -> 4.41, [256, 2^16] 9.50 -> 4.55, [512, 2^16] 9.83 -> 4.63;
// [2048, 8192] 5.73 -> 4.29 (kStash 4.25), [8192, 8192] 5.30 -> 4.42. Shorter rows keep their
// paths: 512 x 16 loses there ([16384, 4096] 5.30 -> 7.26, half of each block past the row's
// end; [2^15, 2048] 5.10 -> 13.5), and the smaller tiles that won, measured and not taken
// ([16384, 4096] 256 x 16 4.70, [2^15, 2048] 256 x 8 4.50, [2^16, 1024] 128 x 8 4.39: 10-13 %),
// would each be one more tile type compiled into logcumsumexp_kernel.cu, already CI's longest
// compile, for the grid's shapes alone. Lengths 8193 to 16383 (a partly empty second tile) were
// not timed. -DPO_LSE_GRAD_BLOCK_MIN_LENGTH=<steps> moves the edge; -DPO_LSE_GRAD_BLOCK=0 keeps
// every gradient row off the block tiles.
#ifndef PO_LSE_GRAD_BLOCK
#define PO_LSE_GRAD_BLOCK 1
#endif
#ifndef PO_LSE_GRAD_BLOCK2_MIN_BLOCKS
#define PO_LSE_GRAD_BLOCK2_MIN_BLOCKS 2
#endif
#ifndef PO_LSE_GRAD_BLOCK_MIN_LENGTH
#define PO_LSE_GRAD_BLOCK_MIN_LENGTH 8192
#endif
inline bool LseGradBlockRowsFor(int64_t rows, int64_t length) { return LseBlockRowsFor(rows, length); }
inline bool LseGradBlock2RowsFor(int64_t /*rows*/, int64_t length) {
  return length >= int64_t{PO_LSE_GRAD_BLOCK_MIN_LENGTH};
}

template <typename T>
struct GpuTileScan<LogcumsumexpGradOp<T, double>, std::enable_if_t<!std::is_same<T, double>::value>> {
  using Op = LogcumsumexpGradOp<T, double>;
  using State = typename Op::State;
  static constexpr bool kFast = true;
  static constexpr int kMinBlocks = 3;  // as the forward: at most 80 registers, 24 warps per SM
  // The three column phases' kernels on LseGradColumns (PO_LSE_GRAD_COLS, float32): 4 blocks an
  // SM (at most 64 registers; ptxas -v: 63 and 64, no spills, where 3 blocks' bound of 80 gave
  // the stores 80 with a spill), 32 warps an SM against the telescoped steps' 24.
  static constexpr int kColumnScanMinBlocks =
      PO_LSE_GRAD_COLS && std::is_same<T, float>::value ? PO_LSE_GRAD_COL_MIN_BLOCKS : kMinBlocks;
  // float32 rows that LseGradBlockRowsFor takes go to the engine's block tiles with
  // LseGradBlockTile (out, out_grad and x read once, x_grad written once): 512 threads of 16
  // steps, 2 blocks an SM, as the forward; the rows LseGradBlock2RowsFor takes (where the first
  // declines, and rows of any count) to the same tiles with out_grad in registers (kStash off).
  static constexpr bool kBlockRows = PO_LSE_GRAD_BLOCK && std::is_same<T, float>::value;
  using BlockTile = LseGradBlockTile<512, 16>;
  static constexpr int kBlockThreads = 512, kBlockItems = 16, kBlockMinBlocks = 2;
  static bool BlockRowsFor(int64_t rows, int64_t length) { return LseGradBlockRowsFor(rows, length); }
  static constexpr bool kBlockRows2 = kBlockRows;
  using BlockTile2 = LseGradBlockTile<512, 16, false>;
  // kBlock2MinBlocks: 2 (64 registers; ptxas -v: 88 bytes spilled). PO_LSE_GRAD_BLOCK2_MIN_BLOCKS=1
  // (128 registers, no spills, 16 warps an SM) is built into the scan harness for a measurement.
  static constexpr int kBlock2Threads = 512, kBlock2Items = 16, kBlock2MinBlocks = PO_LSE_GRAD_BLOCK2_MIN_BLOCKS;
  static bool Block2RowsFor(int64_t rows, int64_t length) { return LseGradBlock2RowsFor(rows, length); }

  template <int W, int kItems, bool kStore>
  __device__ static State Warp(const Op& op, const OpLine<Op>& line, int64_t s0, int64_t s1, State carry,
                               bool exclusive, int lane) {
#if PO_LSE_GRAD_ROWS
    if constexpr (W == 32 && std::is_same<T, float>::value) {
      if (LseGradRows::Applies(op, line)) {
        return line.g.reverse ? LseGradRows::WarpSteps<kStore, true>(op, line, s0, s1, carry, exclusive, lane)
                              : LseGradRows::WarpSteps<kStore, false>(op, line, s0, s1, carry, exclusive, lane);
      }
    }
#endif
    constexpr int V = LseVec<T>::kV;
    constexpr int64_t kSub = int64_t{W} * V;
    const unsigned mask = LogicalWarpMask<W>();
    const int64_t L = line.g.length;
    const bool reverse = line.g.reverse;
    const auto aligned = [](const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; };
    const bool vec = L % V == 0 && aligned(op.x) && aligned(op.out) && aligned(op.out_grad) && aligned(op.x_grad);
    for (int64_t t0 = s0; t0 < s1; t0 += kSub) {
      const int64_t t1 = t0 + kSub < s1 ? t0 + kSub : s1;
      const int64_t first = t0 + int64_t{lane} * V;
      float o[V], g[V], xv[V] = {};
      LoadRowItems<T, V>(op.out, line.base, L, reverse, first, t1, vec, o);
      LoadRowItems<T, V>(op.out_grad, line.base, L, reverse, first, t1, vec, g);
      // x only enters the stores (x_grad), never the carry: a segment total (phase 1) leaves it
      // unread, a third less traffic, and its NaN check with it (the tile choice stays a fixed
      // function of the data).
      if (kStore) LoadRowItems<T, V>(op.x, line.base, L, reverse, first, t1, vec, xv);
      bool bad = false;
      float omax = -std::numeric_limits<float>::infinity();
      float omin = std::numeric_limits<float>::infinity();
#pragma unroll
      for (int j = 0; j < V; ++j) {
        if (first + j < t1) {
          bad |= !isfinite(o[j]) || xv[j] != xv[j];
          omax = fmaxf(omax, o[j]);
          omin = fminf(omin, o[j]);
        }
      }
#pragma unroll
      for (int d = W / 2; d > 0; d >>= 1) {
        omax = fmaxf(omax, __shfl_xor_sync(mask, omax, d, W));
        omin = fminf(omin, __shfl_xor_sync(mask, omin, d, W));
      }
      bad = __any_sync(mask, bad);
      const bool at_start = t0 == 0;
      const float oc = at_start ? 0.f : static_cast<float>(op.out[line.g.At(line.base, t0).prev]);
      float R;
      if (!LseGradFast::Usable(bad, omax, omin, at_start, oc, &R)) {
        carry = WarpScanSteps<W, kFallbackItems, kStore>(op, line, t0, t1, carry, exclusive, lane);
        continue;
      }
      // Float-float sums and float32 products per element; float64 once per lane and tile.
      FloatFloat part[V];
      FloatFloat sum{0.f, 0.f};
#pragma unroll
      for (int j = 0; j < V; ++j) {
        if (first + j < t1) LseGradFast::AddProduct(&sum, g[j], LseFast::ExpDiff(R, o[j]));
        part[j] = sum;
      }
      double before, total;
      ScanLaneTotals<W>(sum.ToDouble(), mask, lane, &before, &total);
      const double base = LseGradFast::Rebase(carry, at_start, oc, R);
      if (kStore) {
        const FloatFloat b = FloatFloat::Of(base + before);
        float acc[V];
#pragma unroll
        for (int j = 0; j < V; ++j) {
          const FloatFloat S = FloatFloat::Add(b, part[j]);
          acc[j] = LseFast::ExpDiff(o[j], R) * (S.hi + S.lo);
        }
        T xg[V];
        if (!exclusive) {
#pragma unroll
          for (int j = 0; j < V; ++j) xg[j] = LseGradFast::XGrad<T>(acc[j], xv[j], o[j]);
        } else {
          // The element before each one: the previous item, the previous lane's last, or c.
          float acc_prev = __shfl_up_sync(mask, acc[V - 1], 1, W);
          float o_prev = __shfl_up_sync(mask, o[V - 1], 1, W);
          if (lane == 0) {
            acc_prev = at_start ? 0.f : static_cast<float>(carry.b);
            o_prev = oc;
          }
#pragma unroll
          for (int j = 0; j < V; ++j) {
            xg[j] = (at_start && first + j == 0) ? static_cast<T>(0.f) : LseGradFast::XGrad<T>(acc_prev, xv[j], o_prev);
            acc_prev = acc[j];
            o_prev = o[j];
          }
        }
        StoreRowRaw<T, V>(op.x_grad, line.base, L, reverse, first, t1, vec, xg);
      }
      const int64_t last = t1 - 1 - t0;  // the tile's last element: lane last / V, item last % V
      float o_last = o[0];
#pragma unroll
      for (int j = 1; j < V; ++j) {
        if (j == static_cast<int>(last % V)) o_last = o[j];
      }
      o_last = __shfl_sync(mask, o_last, static_cast<int>(last / V), W);
      carry = LseGradFast::Carry(carry, at_start, o_last, oc, R, total);
    }
    return carry;
  }

  // A thread's steps of a column line (the three column phases, the one pass's thread steps, the
  // column totals): float32 with PO_LSE_GRAD_COLS takes LseGradColumns (logcumsumexp_grad_rows.cuh:
  // the rows' per-element gates and float64 recurrence), else the telescoped chunks below.
  template <int kItems, bool kStore>
  __device__ static State Thread(const Op& op, const OpLine<Op>& line, int64_t s0, int64_t s1, State carry,
                                 bool exclusive) {
#if PO_LSE_GRAD_COLS
    if constexpr (std::is_same<T, float>::value) {
      constexpr int kN = PO_LSE_GRAD_COL_ITEMS > 0 ? PO_LSE_GRAD_COL_ITEMS : kItems;
      return LseGradColumns::ThreadSteps<kN, kStore>(op, line, s0, s1, carry, exclusive);
    }
#endif
    return ThreadTelescoped<kItems, kStore>(op, line, s0, s1, carry, exclusive);
  }
  // The telescoped chunks (LseGradFast): kItems steps summed against their largest output, float64
  // once a chunk; a chunk with a non-finite output or a span over LseFast::kSpan takes the generic
  // steps.
  template <int kItems, bool kStore>
  __device__ static State ThreadTelescoped(const Op& op, const OpLine<Op>& line, int64_t s0, int64_t s1, State carry,
                                           bool exclusive) {
    for (int64_t t0 = s0; t0 < s1; t0 += kItems) {
      const int64_t t1 = t0 + kItems < s1 ? t0 + kItems : s1;
      float o[kItems], g[kItems];
      int64_t off[kItems];
      bool bad = false;
      float omax = -std::numeric_limits<float>::infinity();
      float omin = std::numeric_limits<float>::infinity();
#pragma unroll
      for (int k = 0; k < kItems; ++k) {
        off[k] = line.g.At(line.base, t0 + k).offset;
        o[k] = 0.f;
        g[k] = 0.f;
        if (t0 + k < t1) {
          o[k] = static_cast<float>(op.out[off[k]]);
          g[k] = static_cast<float>(op.out_grad[off[k]]);
          bad |= !isfinite(o[k]);
          omax = fmaxf(omax, o[k]);
          omin = fminf(omin, o[k]);
        }
      }
      const bool at_start = t0 == 0;
      const float oc = at_start ? 0.f : static_cast<float>(op.out[line.g.At(line.base, t0).prev]);
      float R;
      if (!LseGradFast::Usable(bad, omax, omin, at_start, oc, &R)) {
        carry = ThreadScanSteps<kFallbackItems, kStore>(op, line, t0, t1, carry, exclusive);
        continue;
      }
      const FloatFloat base = FloatFloat::Of(LseGradFast::Rebase(carry, at_start, oc, R));
      FloatFloat sum{0.f, 0.f};
      float acc_prev = at_start ? 0.f : static_cast<float>(carry.b);
      float o_prev = oc;
      float o_last = o[0];
#pragma unroll
      for (int k = 0; k < kItems; ++k) {
        if (t0 + k < t1) {
          LseGradFast::AddProduct(&sum, g[k], LseFast::ExpDiff(R, o[k]));
          o_last = o[k];
          if (kStore) {
            const FloatFloat S = FloatFloat::Add(base, sum);
            const float acc = LseFast::ExpDiff(o[k], R) * (S.hi + S.lo);
            const float xv = static_cast<float>(op.x[off[k]]);
            if (!exclusive) {
              op.x_grad[off[k]] = LseGradFast::XGrad<T>(acc, xv, o[k]);
            } else {
              op.x_grad[off[k]] = (at_start && k == 0) ? static_cast<T>(0.f) : LseGradFast::XGrad<T>(acc_prev, xv, o_prev);
            }
            acc_prev = acc;
            o_prev = o[k];
          }
        }
      }
      carry = LseGradFast::Carry(carry, at_start, o_last, oc, R, sum.ToDouble());
    }
    return carry;
  }
};

}  // namespace scan_gpu
}  // namespace funcs
}  // namespace phi

// float64 logcumsumexp's tiles (GpuTileScan<LogcumsumexpOp<double, double>>): the generic tiles,
// staged short rows, and the block tiles for 1-D tensors and few long rows (PO_LSE_F64_ROWS).
#include "kernels/gpu/logcumsumexp_f64_tiles.cuh"
