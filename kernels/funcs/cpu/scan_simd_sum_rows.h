// The segmented row sum of the CPU scan engine's cumsum rows (float32 and float64), written once
// for the lane widths of scan_simd_avx2.cc (4 double lanes) and scan_simd_avx512.cc (8): a block
// of contiguous steps is cut into one segment per double lane, and 4 steps of every segment move
// between memory and 4 lane vectors (v[i]: step j + i of the segments) through 4 x 4 transposes,
// so that each lane runs its own segment's sum down the steps, one TwoSum per step, with no
// in-register prefix. Pass A sums each segment from zero (the block total: the same instructions
// in both modes); pass B, when storing, starts each lane from its offset (the running pair before
// the block plus the segments before it, double-double) and writes the running pairs rounded once
// (docs/spec.md §2). Internal linkage: each instruction set's translation unit compiles its own
// copy with its own flags.
#pragma once

#include <immintrin.h>

#include <cstdint>

#include "kernels/funcs/scan_functors.h"

#ifndef PADDLE_OPS_VINLINE
#define PADDLE_OPS_VINLINE inline __attribute__((always_inline))
#endif

namespace phi {
namespace funcs {
namespace simd {
namespace {  // NOLINT(build/namespaces): one copy per instruction set

// Steps j .. j+3 of the 4 segments at p (segment k at p + k * seg, or, reversed, at p - k * seg
// going down): v[i] is step j + i of the 4 segments, as doubles.
template <bool kRev>
PADDLE_OPS_VINLINE void LoadSteps4(const float* p, int64_t seg, int j, __m256d v[4]) {
  __m128 r[4];
  for (int k = 0; k < 4; ++k) {
    if (kRev) {
      const __m128 t = _mm_loadu_ps(p - k * seg - j - 3);
      r[k] = _mm_shuffle_ps(t, t, _MM_SHUFFLE(0, 1, 2, 3));
    } else {
      r[k] = _mm_loadu_ps(p + k * seg + j);
    }
  }
  _MM_TRANSPOSE4_PS(r[0], r[1], r[2], r[3]);
  for (int i = 0; i < 4; ++i) v[i] = _mm256_cvtps_pd(r[i]);
}
template <bool kRev>
PADDLE_OPS_VINLINE void StoreSteps4(float* p, int64_t seg, int j, __m128 r[4]) {
  _MM_TRANSPOSE4_PS(r[0], r[1], r[2], r[3]);
  for (int k = 0; k < 4; ++k) {
    if (kRev) {
      _mm_storeu_ps(p - k * seg - j - 3, _mm_shuffle_ps(r[k], r[k], _MM_SHUFFLE(0, 1, 2, 3)));
    } else {
      _mm_storeu_ps(p + k * seg + j, r[k]);
    }
  }
}
// The same for float64 rows: 4 x 4 doubles transposed.
PADDLE_OPS_VINLINE void Transpose4(__m256d r[4]) {
  const __m256d t0 = _mm256_unpacklo_pd(r[0], r[1]), t1 = _mm256_unpackhi_pd(r[0], r[1]);
  const __m256d t2 = _mm256_unpacklo_pd(r[2], r[3]), t3 = _mm256_unpackhi_pd(r[2], r[3]);
  r[0] = _mm256_permute2f128_pd(t0, t2, 0x20);
  r[1] = _mm256_permute2f128_pd(t1, t3, 0x20);
  r[2] = _mm256_permute2f128_pd(t0, t2, 0x31);
  r[3] = _mm256_permute2f128_pd(t1, t3, 0x31);
}
template <bool kRev>
PADDLE_OPS_VINLINE void LoadSteps4(const double* p, int64_t seg, int j, __m256d v[4]) {
  for (int k = 0; k < 4; ++k) {
    v[k] = kRev ? _mm256_permute4x64_pd(_mm256_loadu_pd(p - k * seg - j - 3), _MM_SHUFFLE(0, 1, 2, 3))
                : _mm256_loadu_pd(p + k * seg + j);
  }
  Transpose4(v);
}
template <bool kRev>
PADDLE_OPS_VINLINE void StoreSteps4(double* p, int64_t seg, int j, __m256d r[4]) {
  Transpose4(r);
  for (int k = 0; k < 4; ++k) {
    if (kRev) {
      _mm256_storeu_pd(p - k * seg - j - 3, _mm256_permute4x64_pd(r[k], _MM_SHUFFLE(0, 1, 2, 3)));
    } else {
      _mm256_storeu_pd(p + k * seg + j, r[k]);
    }
  }
}

// The float tie lanes (bits of `tie`) of K outputs hi + lo rounded through the double nearest
// them: hi + lo rounded once to float exactly (RoundCompensated) into r.
template <int K>
__attribute__((noinline)) void RedoFloatTies(const double* h, const double* l, unsigned tie, float* r) {
  for (int k = 0; k < K; ++k) {
    if (tie >> k & 1) r[k] = RoundCompensated<float>(h[k], l[k]);
  }
}

// The pairs of `v` added pairwise in a fixed tree: ((v0 + v1) + (v2 + v3)) + ((v4 + v5) + ...).
inline CompensatedSum<double> PairwiseTotal(const CompensatedSum<double>* v, int n) {
  return n == 1 ? v[0] : Add(PairwiseTotal(v, n / 2), PairwiseTotal(v + n / 2, n - n / 2));
}

// One block of Lanes::kLanes * seg steps (seg a multiple of 4) at p in scan order (reversed rows
// run down from p); returns its total and, when storing, writes the outputs at o from the running
// pair `base` before the block. Lanes (the width's operations) gives: V, kLanes, Zero, Add, Sub,
// DropNaN (NaN lanes to 0), Store (to doubles), Load, LoadSteps<kRev>(p, seg, j, v[4]),
// StoreSteps<kRev>(o, seg, j, r[4]) and RoundPair(hi, lo, const T*) (hi + lo rounded once to T).
template <typename Lanes, bool kStore, bool kRev, typename T>
CompensatedSum<double> SegmentedSumBlock(const T* p, T* o, int64_t seg, const CompensatedSum<double>& base,
                                         bool exclusive) {
  using Pair = CompensatedSum<double>;
  using V = typename Lanes::V;
  constexpr int K = Lanes::kLanes;
  // s = a + b and *e = a + b - s exactly (Knuth's TwoSum); a non-finite sum gives a NaN error,
  // which DropNaN removes (the sum itself is then the answer).
  auto two_sum = [](V a, V b, V* e) {
    const V s = Lanes::Add(a, b);
    const V bb = Lanes::Sub(s, a);
    *e = Lanes::Add(Lanes::Sub(a, Lanes::Sub(s, bb)), Lanes::Sub(b, bb));
    return s;
  };
  V th = Lanes::Zero(), tl = th;
  for (int j = 0; j < seg; j += 4) {
    V v[4];
    Lanes::template LoadSteps<kRev>(p, seg, j, v);
    for (int i = 0; i < 4; ++i) {
      V e;
      th = two_sum(th, v[i], &e);
      tl = Lanes::Add(tl, e);
    }
  }
  alignas(64) double h[K], l[K];
  Lanes::Store(h, th);
  Lanes::Store(l, Lanes::DropNaN(tl));
  Pair segs[K];
  for (int k = 0; k < K; ++k) segs[k] = Add(Pair::Zero(), Pair{h[k], l[k]});
  const Pair total = PairwiseTotal(segs, K);
  if (!kStore) return total;
  Pair off = base;
  for (int k = 0; k < K; ++k) {
    h[k] = off.hi;
    l[k] = off.lo;
    if (k + 1 < K) off = Add(off, segs[k]);
  }
  V rh = Lanes::Load(h), rl = Lanes::Load(l);
  for (int j = 0; j < seg; j += 4) {
    V v[4];
    decltype(Lanes::RoundPair(rh, rl, p)) r[4];
    Lanes::template LoadSteps<kRev>(p, seg, j, v);
    for (int i = 0; i < 4; ++i) {
      if (exclusive) r[i] = Lanes::RoundPair(rh, rl, p);
      V e;
      rh = two_sum(rh, v[i], &e);
      rl = Lanes::DropNaN(Lanes::Add(rl, e));
      if (!exclusive) r[i] = Lanes::RoundPair(rh, rl, p);
    }
    Lanes::template StoreSteps<kRev>(o, seg, j, r);
  }
  return total;
}

}  // namespace
}  // namespace simd
}  // namespace funcs
}  // namespace phi
