// The CPU scan engine's cumsum in vector lanes (scan_cumsum.h): one source, compiled by Highway
// for each of its targets (hwy/foreach_target.h re-includes this file once per target) and chosen
// at run time by the target in use (cpu_isa.h), as the conversions of convert.cc are. EMU128 (and
// PADDLE_OPS_CPU_ISA=baseline) leaves cumsum to the generic engine.
//
// docs/spec.md §2: every addition is a TwoSum in double lanes with its rounding error kept in a
// second vector (the double-double of funcs::CompensatedSum, also for chunk totals and carries);
// each output is rounded once from its pair: float64 to nearest, float32 through the double
// nearest the pair with the lanes where that double is a float tie redone exactly
// (RoundCompensated), 16-bit types to odd in double, then to odd in float, then to T. A chunk's
// total (Local) is the same instructions in the reduce (Chunk<false>) and storing (Chunk<true>)
// passes and every output is a function of its chunk's data and carry, so results do not depend
// on the thread count or the chunking; this file is compiled with -ffp-contract=off so that no
// TwoSum is fused. Vector widths follow the target (2 doubles on SSE4 / NEON, 4 on AVX2, 8 on
// AVX3, scalable on SVE), so the sums group differently per target: the bits may differ between
// targets, each within the spec's bound.
//
// Layouts (the chunked driver of kernels/funcs/cpu/scan_driver.h runs them all):
//   rows (stride 1), float32 / float64: blocks of kRowBlock steps read and written in place, cut
//     into one segment per double lane; N steps of the N segments are moved between memory and N
//     vectors by an N x N transpose (on SVE, whose width is not known when compiling, by gathers
//     and scatters one step at a time), so each lane sums its own segment down the steps with no
//     in-register prefix. Pass A: the segments' totals from zero (the block total, added in a
//     fixed pairwise order); pass B (storing): each lane from its offset (the running pair before
//     the block plus the segments before it). A row's last steps short of a whole N x N tile go
//     through a buffer padded with zeros.
//   rows of 16-bit types: blocks converted to float in scan order, summed as above from the
//     buffer, outputs rounded to odd into a double buffer and converted back.
//   many short rows (a multiple of 4 steps, at most one chunk): 4 rows (2 on 128-bit targets) at
//     a time as lanes, one pass each from zero or the rows' carries-in (no segments).
// A carry-in per line (ScanFrom: init, a LineState per line) is the driver's starting carry of the
// line's first chunk (SumKernel::CarryStart); the line totals (ScanTotals) are the chunk totals
// folded by the driver (RunChunkedTotals).
//   columns: lane g is column g of a group of up to 8; a group wider than a vector runs vector by
//     vector over blocks of kColBlock steps, its state kept between blocks. Groups of up to 256
//     columns run block by block, 8 columns at a time, so a block's rows stay in cache. float64
//     columns only when inner is a multiple of 8 (others stay on the generic compensated sum).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/funcs/simd/scan_cumsum.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
// clang-format off: highway.h after foreach_target.h
#include "hwy/highway.h"
// clang-format on
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "kernels/funcs/cpu/scan_driver.h"
#include "kernels/funcs/scan_functors.h"
#include "kernels/funcs/simd/convert.h"
#include "kernels/funcs/simd/scan_cumsum.h"

HWY_BEFORE_NAMESPACE();
namespace phi {
namespace funcs {
namespace simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#if HWY_TARGET == HWY_EMU128 || HWY_TARGET == HWY_SCALAR
#define PADDLE_OPS_CUMSUM_VECTOR 0
#else
#define PADDLE_OPS_CUMSUM_VECTOR 1
#endif

#if PADDLE_OPS_CUMSUM_VECTOR
namespace cumsum {

using Pair = CompensatedSum<double>;
constexpr int kRowBlock = 512;  // steps of a row block (divides every chunk length)
constexpr int kColBlock = 128;  // steps of a column block
constexpr int kMaxCols = 256;   // columns of one task (inner > 1)

template <typename T>
constexpr bool kIs16Bit = std::is_same<T, dtype::float16>::value || std::is_same<T, dtype::bfloat16>::value;

// s = a + b and *e = a + b - s exactly (Knuth's TwoSum). A non-finite sum gives a NaN error,
// which the callers drop (the sum itself is then the answer).
template <class V>
HWY_INLINE V TwoSum(V a, V b, V* e) {
  const V s = hn::Add(a, b);
  const V bb = hn::Sub(s, a);
  *e = hn::Add(hn::Sub(a, hn::Sub(s, bb)), hn::Sub(b, bb));
  return s;
}
template <class V>
HWY_INLINE V DropNaN(V v) {
  return hn::IfThenZeroElse(hn::IsNaN(v), v);
}
// (*h, *l) += v: the pair's high part by TwoSum, the error into the low part.
template <class V>
HWY_INLINE void Accumulate(V* h, V* l, V v) {
  V e;
  *h = TwoSum(*h, v, &e);
  *l = hn::Add(*l, e);
}
// The same for a running pair (the outputs'): its low part turns NaN once the high part is not
// finite (and never finite again), and RoundOut drops it there, off this loop-carried chain.
template <class V>
HWY_INLINE void Run(V* h, V* l, V v) {
  V e;
  *h = TwoSum(*h, v, &e);
  *l = hn::Add(*l, e);
}

// funcs::RoundToOdd in lanes: hi + lo itself when it is a double, else its neighbour whose last
// bit is 1; inf and NaN pass.
template <class D, class V = hn::Vec<D>>
HWY_INLINE V RoundToOdd(D d, V hi, V lo) {
  const hn::RebindToSigned<D> di;
  V err;
  const V s = TwoSum(hi, lo, &err);
  const V zero = hn::Zero(d);
  const auto bits = hn::BitCast(di, s);
  const auto inexact = hn::Or(hn::Lt(err, zero), hn::Gt(err, zero));  // false for a NaN error
  const auto finite = hn::Lt(hn::Abs(s), hn::Set(d, HUGE_VAL));
  const auto even = hn::RebindMask(d, hn::Eq(hn::And(bits, hn::Set(di, 1)), hn::Zero(di)));
  const auto move = hn::RebindMask(di, hn::And(hn::And(inexact, finite), even));
  // +1 (away from zero) where err has s's sign, else -1 (where the step is taken neither is 0,
  // so their sign bits say it).
  const auto toward = hn::Lt(hn::Xor(hn::BitCast(di, err), bits), hn::Zero(di));
  const auto step = hn::IfThenElse(toward, hn::Set(di, -1), hn::Set(di, 1));
  return hn::BitCast(d, hn::Add(bits, hn::IfThenElseZero(move, step)));
}

// The lanes of hi + lo whose nearest double is a float tie (its 29 bits below float's last are
// 1000...0) redone exactly: hi + lo rounded once to float (RoundCompensated), as a double.
template <class D>
HWY_NOINLINE hn::Vec<D> RedoFloatTies(D d, hn::Vec<D> hi, hn::Vec<D> lo, hn::Vec<D> r) {
  HWY_ALIGN double h[hn::MaxLanes(D())], l[hn::MaxLanes(D())], o[hn::MaxLanes(D())];
  hn::Store(hi, d, h);
  hn::Store(lo, d, l);
  hn::Store(r, d, o);
  const size_t n = hn::Lanes(d);
  for (size_t k = 0; k < n; ++k) {
    uint64_t bits;
    std::memcpy(&bits, &o[k], sizeof(bits));
    if ((bits & 0x1FFFFFFFull) == 0x10000000ull) o[k] = static_cast<double>(RoundCompensated<float>(h[k], l[k]));
  }
  return hn::Load(d, o);
}

// An output pair hi + lo rounded once, as a double vector: for Out = double the nearest double;
// for Out = float the double whose conversion to float is the rounded value; kOdd (16-bit types)
// the pair rounded to odd (rounded on to odd float and T by the caller). A NaN lo (Run) is 0.
template <class Out, bool kOdd, class D, class V = hn::Vec<D>>
HWY_INLINE V RoundOut(D d, V hi, V lo) {
  lo = DropNaN(lo);
  if constexpr (kOdd) {
    return RoundToOdd(d, hi, lo);
  } else if constexpr (std::is_same<Out, float>::value) {
    const V r = hn::Add(hi, lo);
    const hn::RebindToUnsigned<D> du;
    const auto low = hn::And(hn::BitCast(du, r), hn::Set(du, 0x1FFFFFFFull));
    if (HWY_LIKELY(hn::AllFalse(du, hn::Eq(low, hn::Set(du, 0x10000000ull))))) return r;
    return RedoFloatTies(d, hi, lo, r);
  } else {
    return hn::Add(hi, lo);
  }
}

// NaN outputs become the positive quiet NaN: which NaN an addition of two returns depends on the
// operand order the compiler picked and on the lanes' grouping, so the bits would differ between
// targets. Only where a running pair ended non-finite (a NaN stays; an inf may meet its opposite),
// so the loops above pay one check per block.
template <class D>
HWY_INLINE bool AllFinite(D d, hn::Vec<D> v) {
  return hn::AllTrue(d, hn::IsFinite(v));
}
template <class Out>
HWY_NOINLINE void CanonicalNaNs(Out* p, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    if (p[i] != p[i]) p[i] = std::numeric_limits<Out>::quiet_NaN();
  }
}

// One step of N lanes between memory (In / Out: float or double) and double lanes; reversed,
// the N elements run down from p + N - 1.
template <bool kRev, class D, class In>
HWY_INLINE hn::Vec<D> LoadLanes(D d, const In* p) {
  if constexpr (std::is_same<In, double>::value) {
    const auto v = hn::LoadU(d, p);
    return kRev ? hn::Reverse(d, v) : v;
  } else {
    const hn::Rebind<float, D> df;
    const auto v = hn::LoadU(df, p);
    return hn::PromoteTo(d, kRev ? hn::Reverse(df, v) : v);
  }
}
template <bool kRev, class D, class Out>
HWY_INLINE void StoreLanes(D d, hn::Vec<D> v, Out* p) {
  if constexpr (std::is_same<Out, double>::value) {
    hn::StoreU(kRev ? hn::Reverse(d, v) : v, d, p);
  } else {
    const hn::Rebind<float, D> df;
    const auto f = hn::DemoteTo(df, v);
    hn::StoreU(kRev ? hn::Reverse(df, f) : f, df, p);
  }
}

// Steps per move between memory and lanes: N x N tiles where the width is known when compiling,
// one step (gathered / scattered) on scalable targets.
template <class D>
constexpr int64_t StepsPerMove() {
#if HWY_HAVE_SCALABLE
  return 1;
#else
  return static_cast<int64_t>(hn::MaxLanes(D()));
#endif
}

#if !HWY_HAVE_SCALABLE
// r[i] <- lane i of r[0..N-1] (an N x N transpose).
template <class D>
HWY_INLINE void Transpose(D d, hn::Vec<D>* r) {
  constexpr size_t N = hn::MaxLanes(D());
  if constexpr (N == 2) {
    const auto a = hn::InterleaveLower(d, r[0], r[1]);
    r[1] = hn::InterleaveUpper(d, r[0], r[1]);
    r[0] = a;
  } else if constexpr (N == 4) {  // pairs inside 128-bit blocks, then the blocks
    const auto t0 = hn::InterleaveLower(d, r[0], r[1]), t1 = hn::InterleaveUpper(d, r[0], r[1]);
    const auto t2 = hn::InterleaveLower(d, r[2], r[3]), t3 = hn::InterleaveUpper(d, r[2], r[3]);
    r[0] = hn::ConcatLowerLower(d, t2, t0);
    r[1] = hn::ConcatLowerLower(d, t3, t1);
    r[2] = hn::ConcatUpperUpper(d, t2, t0);
    r[3] = hn::ConcatUpperUpper(d, t3, t1);
  } else {  // log2(N) rounds of even / odd lanes
    for (size_t round = 1; round < N; round *= 2) {
      hn::Vec<D> t[N];
      for (size_t i = 0; i < N / 2; ++i) {
        t[i] = hn::ConcatEven(d, r[2 * i + 1], r[2 * i]);
        t[N / 2 + i] = hn::ConcatOdd(d, r[2 * i + 1], r[2 * i]);
      }
      for (size_t i = 0; i < N; ++i) r[i] = t[i];
    }
  }
}
// Steps j .. j + N - 1 of the N segments at p (segment k at p + k * seg, or reversed at p - k * seg
// running down): v[i] is step j + i of every segment.
template <bool kRev, class D, class In>
HWY_INLINE void LoadSteps(D d, const In* p, int64_t seg, int64_t j, hn::Vec<D>* v) {
  constexpr int64_t N = static_cast<int64_t>(hn::MaxLanes(D()));
  for (int64_t k = 0; k < N; ++k) v[k] = LoadLanes<kRev>(d, kRev ? p - k * seg - j - (N - 1) : p + k * seg + j);
  Transpose(d, v);
}
template <bool kRev, class D, class Out>
HWY_INLINE void StoreSteps(D d, Out* p, int64_t seg, int64_t j, hn::Vec<D>* r) {
  constexpr int64_t N = static_cast<int64_t>(hn::MaxLanes(D()));
  Transpose(d, r);
  for (int64_t k = 0; k < N; ++k) StoreLanes<kRev>(d, r[k], kRev ? p - k * seg - j - (N - 1) : p + k * seg + j);
}
#else
// Step j of every segment, gathered (segment k at p + k * seg, or reversed at p - k * seg).
template <bool kRev, class D, class In>
HWY_INLINE hn::Vec<D> GatherStep(D d, const In* p, int64_t seg, int64_t j) {
  const hn::Rebind<In, D> dt;
  const hn::RebindToSigned<decltype(dt)> di;
  using I = hn::TFromD<decltype(di)>;
  const auto idx = hn::Mul(hn::Iota(di, 0), hn::Set(di, static_cast<I>(kRev ? -seg : seg)));
  const auto v = hn::GatherIndex(dt, kRev ? p - j : p + j, idx);
  if constexpr (std::is_same<In, double>::value) {
    return v;
  } else {
    return hn::PromoteTo(d, v);
  }
}
template <bool kRev, class D, class Out>
HWY_INLINE void ScatterStep(D d, Out* p, int64_t seg, int64_t j, hn::Vec<D> r) {
  const hn::Rebind<Out, D> dt;
  const hn::RebindToSigned<decltype(dt)> di;
  using I = hn::TFromD<decltype(di)>;
  const auto idx = hn::Mul(hn::Iota(di, 0), hn::Set(di, static_cast<I>(kRev ? -seg : seg)));
  if constexpr (std::is_same<Out, double>::value) {
    hn::ScatterIndex(r, dt, kRev ? p - j : p + j, idx);
  } else {
    hn::ScatterIndex(hn::DemoteTo(dt, r), dt, kRev ? p - j : p + j, idx);
  }
}
#endif

// Pass B: each lane's running pair (rh, rl) down its seg steps (a multiple of StepsPerMove), the
// outputs rounded once (RoundOut) at o, NaNs made canonical.
template <bool kRev, bool kOdd, class D, class In, class Out>
HWY_INLINE void SegmentRuns(D d, const In* p, Out* o, int64_t seg, hn::Vec<D> rh, hn::Vec<D> rl, bool exclusive) {
#if HWY_HAVE_SCALABLE
  for (int64_t j = 0; j < seg; ++j) {
    const auto v = GatherStep<kRev>(d, p, seg, j);
    if (exclusive) ScatterStep<kRev>(d, o, seg, j, RoundOut<Out, kOdd>(d, rh, rl));
    Run(&rh, &rl, v);
    if (!exclusive) ScatterStep<kRev>(d, o, seg, j, RoundOut<Out, kOdd>(d, rh, rl));
  }
#else
  constexpr int64_t N = StepsPerMove<D>();
  for (int64_t j = 0; j < seg; j += N) {
    hn::Vec<D> v[N], r[N];
    LoadSteps<kRev>(d, p, seg, j, v);
    for (int64_t i = 0; i < N; ++i) {
      if (exclusive) r[i] = RoundOut<Out, kOdd>(d, rh, rl);
      Run(&rh, &rl, v[i]);
      if (!exclusive) r[i] = RoundOut<Out, kOdd>(d, rh, rl);
    }
    StoreSteps<kRev>(d, o, seg, j, r);
  }
#endif
  if (!AllFinite(d, rh)) {
    const int64_t n = static_cast<int64_t>(hn::Lanes(d)) * seg;
    CanonicalNaNs(kRev ? o - n + 1 : o, n);
  }
}

// The pairs of v added in a fixed tree: ((v0 + v1) + (v2 + v3)) + ((v4 + v5) + ...).
inline Pair PairwiseTotal(const Pair* v, size_t n) {
  return n == 1 ? v[0] : Add(PairwiseTotal(v, n / 2), PairwiseTotal(v + n / 2, n - n / 2));
}

// One block of N segments of seg steps (seg a multiple of StepsPerMove) at p in scan order
// (reversed: running down from p). Returns the block's total and, when storing, writes the
// outputs at o from the running pair `base` before the block.
template <bool kStore, bool kRev, bool kOdd, class D, class In, class Out>
Pair SegmentedBlock(D d, const In* p, Out* o, int64_t seg, const Pair& base, bool exclusive) {
  auto th = hn::Zero(d), tl = th;
#if HWY_HAVE_SCALABLE
  for (int64_t j = 0; j < seg; ++j) Accumulate(&th, &tl, GatherStep<kRev>(d, p, seg, j));
#else
  constexpr int64_t U = StepsPerMove<D>();
  for (int64_t j = 0; j < seg; j += U) {
    hn::Vec<D> v[U];
    LoadSteps<kRev>(d, p, seg, j, v);
    for (int64_t i = 0; i < U; ++i) Accumulate(&th, &tl, v[i]);
  }
#endif
  constexpr size_t kMax = hn::MaxLanes(D());
  const size_t K = hn::Lanes(d);
  HWY_ALIGN double h[kMax], l[kMax];
  hn::Store(th, d, h);
  hn::Store(DropNaN(tl), d, l);
  Pair segs[kMax];
  for (size_t k = 0; k < K; ++k) segs[k] = Add(Pair::Zero(), Pair{h[k], l[k]});
  const Pair total = PairwiseTotal(segs, K);
  if (!kStore) return total;
  Pair off = base;
  for (size_t k = 0; k < K; ++k) {
    h[k] = off.hi;
    l[k] = off.lo;
    if (k + 1 < K) off = Add(off, segs[k]);
  }
  SegmentRuns<kRev, kOdd>(d, p, o, seg, hn::Load(d, h), hn::Load(d, l), exclusive);
  return total;
}

// Rows: N <= 4 segments per block (4 double lanes on AVX2 and AVX3, 2 on 128-bit targets). On
// AVX3, 8 lanes (their 8 x 8 transposes in three rounds of ConcatEven / ConcatOdd) measured
// slower: float32 1-D 2^20 1.39 against 1.15 ns/element.
using RowTag = hn::CappedTag<double, 4>;
constexpr int kMaxTile = 64;  // elements of the largest N x N tile (8 x 8)

// Steps [s0, s1) of one float32 or float64 row, in place: each block's whole tiles of N x N steps
// (N x StepsPerMove), the rest (a row's last steps) through a zero-padded buffer.
template <bool kStore, bool kRev, typename T>
Pair FloatRowChunk(const T* x, T* out, const SeqGroup& q, int64_t s0, int64_t s1, const Pair& carry) {
  const RowTag d;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  const int64_t unit = N * StepsPerMove<RowTag>();
  Pair loc = Pair::Zero();
  for (int64_t b0 = s0; b0 < s1; b0 += kRowBlock) {
    const int64_t n = std::min<int64_t>(kRowBlock, s1 - b0);
    const int64_t whole = n / unit * unit;
    if (whole > 0) {
      const int64_t off = q.Offset(b0);
      const Pair base = kStore ? Add(carry, loc) : Pair::Zero();
      loc = Add(loc, SegmentedBlock<kStore, kRev, false>(d, x + off, out + off, whole / N, base, q.exclusive));
    }
    if (whole == n) continue;
    HWY_ALIGN T xb[kMaxTile];
    HWY_ALIGN T ob[kMaxTile];
    const int64_t r0 = b0 + whole, r = n - whole;
    for (int64_t j = 0; j < unit; ++j) xb[j] = j < r ? x[q.Offset(r0 + j)] : T(0);
    const Pair base = kStore ? Add(carry, loc) : Pair::Zero();
    loc = Add(loc, SegmentedBlock<kStore, false, false>(d, xb, ob, unit / N, base, q.exclusive));
    if (kStore) {
      for (int64_t j = 0; j < r; ++j) out[q.Offset(r0 + j)] = ob[j];
    }
  }
  return loc;
}

// Steps [s0, s1) of one 16-bit row: blocks converted to float in scan order, summed from the
// buffer, the outputs rounded to odd (double, then float) and converted back.
template <bool kStore, typename T>
Pair HalfRowChunk(const T* x, T* out, const SeqGroup& q, int64_t s0, int64_t s1, const Pair& carry) {
  const RowTag d;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  const int64_t unit = N * StepsPerMove<RowTag>();
  HWY_ALIGN float f[kRowBlock];
  HWY_ALIGN double od[kRowBlock];
  HWY_ALIGN T t[kRowBlock];
  Pair loc = Pair::Zero();
  for (int64_t b0 = s0; b0 < s1; b0 += kRowBlock) {
    const int64_t n = std::min<int64_t>(kRowBlock, s1 - b0);
    // The block's steps as one run of memory: forward from step b0, reversed up to it.
    const int64_t first = q.reverse ? q.Offset(b0 + n - 1) : q.Offset(b0);
    Convert(x + first, f, n);
    if (q.reverse) std::reverse(f, f + n);
    const int64_t padded = (n + unit - 1) / unit * unit;
    std::fill(f + n, f + padded, 0.0f);
    const Pair base = kStore ? Add(carry, loc) : Pair::Zero();
    loc = Add(loc, SegmentedBlock<kStore, false, true>(d, f, od, padded / N, base, q.exclusive));
    if (kStore) {
      for (int64_t j = 0; j < n; ++j) f[j] = RoundToOddFloat(od[j]);
      if (q.reverse) std::reverse(f, f + n);
      Convert(f, t, n);
      std::memcpy(out + first, t, static_cast<size_t>(n) * sizeof(T));
    }
  }
  return loc;
}

// Columns: up to 8 per group, in lanes of at most 8 doubles.
using ColTag = hn::CappedTag<double, 8>;

template <typename T>
struct SumKernel {
  using Carry = Pair;
  using Local = Pair;
  static constexpr int kMaxGroup = kMaxCols;
  static constexpr double kReduceCost = 0.6;
  const T* x;
  T* out;
  const LineState* init = nullptr;  // a carry-in per line (ScanFrom), or none

  Carry CarryIdentity() const { return Carry::Zero(); }
  Carry CarryStart(const SeqGroup& q, int g) const {
    return init ? Carry{init[q.line + g].a, init[q.line + g].b} : Carry::Zero();
  }
  Carry Fold(const Carry& c, const Local& l) const { return Add(c, l); }

  // Up to 8 columns (G = q.G): the running state of every lane in memory between blocks, each
  // block run vector by vector (a vector of lanes down the block's steps). Per step one TwoSum
  // for the chunk's local total and, when storing, one for the running pair from the carry.
  template <bool kStore>
  void ColumnsChunk(const SeqGroup& q, int64_t s0, int64_t s1, const Carry* carry, Local* local) const {
    const ColTag d;
    const hn::Rebind<float, ColTag> df;
    const int G = q.G;
    const int N = static_cast<int>(hn::Lanes(d));
    // 16: the second vector of a pair lies past 8 where N is 8 (never loaded, as G <= 8).
    HWY_ALIGN double th[16] = {}, tl[16] = {}, rh[16] = {}, rl[16] = {};
    for (int g = 0; g < G && kStore; ++g) {
      rh[g] = carry[g].hi;
      rl[g] = carry[g].lo;
    }
    constexpr bool kOdd = kIs16Bit<T>;
    using Out = typename std::conditional<kOdd, double, T>::type;
    // 16-bit types: a block's steps converted to float before it, its outputs (rounded to odd,
    // double) converted after it.
    HWY_ALIGN float xs[kOdd ? kColBlock : 1][8] = {};
    HWY_ALIGN double os[kOdd ? kColBlock : 1][8];
    for (int64_t b0 = s0; b0 < s1; b0 += kColBlock) {
      const int64_t n = std::min<int64_t>(kColBlock, s1 - b0);
      if constexpr (kOdd) {
        for (int64_t j = 0; j < n; ++j) {
          const T* p = x + q.Offset(b0 + j);
          if constexpr (std::is_same<T, dtype::bfloat16>::value) {  // a shift: inline, cheaper than a call
            for (int g = 0; g < G; ++g) xs[j][g] = dtype::bfloat16::BitsToFloat(p[g].x);
          } else {
            Convert(p, xs[j], G);
          }
        }
      }
      using V = hn::Vec<ColTag>;
      // One step of the lanes from column cc (a vector, or the group's last part of one).
      auto step = [&](int cc, int64_t j, V& vth, V& vtl, V& vrh, V& vrl) __attribute__((always_inline)) {
        const bool full = cc + N <= G;
        const int64_t off = q.Offset(b0 + j) + cc;
        V v;
        if constexpr (kOdd) {
          v = hn::PromoteTo(d, hn::Load(df, xs[j] + cc));
        } else if (full) {
          v = LoadLanes<false>(d, x + off);
        } else {
          HWY_ALIGN T part[8] = {};
          for (int g = 0; g < G - cc; ++g) part[g] = x[off + g];
          v = LoadLanes<false>(d, part);
        }
        Accumulate(&vth, &vtl, v);
        if (!kStore) return;
        V r = hn::Zero(d);
        if (q.exclusive) r = RoundOut<Out, kOdd>(d, vrh, vrl);
        Run(&vrh, &vrl, v);
        if (!q.exclusive) r = RoundOut<Out, kOdd>(d, vrh, vrl);
        if constexpr (kOdd) {
          hn::Store(r, d, os[j] + cc);
        } else if (full) {
          StoreLanes<false>(d, r, out + off);
        } else {
          HWY_ALIGN T part[8];
          StoreLanes<false>(d, r, part);
          for (int g = 0; g < G - cc; ++g) out[off + g] = part[g];
        }
      };
      // The state back to memory after the block (NaN outputs made canonical).
      auto finish = [&](int cc, V vth, V vtl, V vrh, V vrl) {
        if (kStore && !AllFinite(d, vrh)) {
          const int lanes = std::min(N, G - cc);
          for (int64_t j = 0; j < n; ++j) {
            if constexpr (kOdd) {
              CanonicalNaNs(os[j] + cc, lanes);
            } else {
              CanonicalNaNs(out + q.Offset(b0 + j) + cc, lanes);
            }
          }
        }
        hn::Store(vth, d, th + cc);
        hn::Store(vtl, d, tl + cc);
        hn::Store(vrh, d, rh + cc);
        hn::Store(vrl, d, rl + cc);
      };
      // Two vectors at a time where the group has them: two independent chains per step.
      for (int c = 0; c < G; c += 2 * N) {
        const int c2 = c + N;
        const bool has2 = c2 < G;
        V th1 = hn::Load(d, th + c), tl1 = hn::Load(d, tl + c), rh1 = hn::Load(d, rh + c), rl1 = hn::Load(d, rl + c);
        V th2 = hn::Zero(d), tl2 = th2, rh2 = th2, rl2 = th2;
        if (has2) {
          th2 = hn::Load(d, th + c2);
          tl2 = hn::Load(d, tl + c2);
          rh2 = hn::Load(d, rh + c2);
          rl2 = hn::Load(d, rl + c2);
        }
        if (has2) {
          for (int64_t j = 0; j < n; ++j) {
            step(c, j, th1, tl1, rh1, rl1);
            step(c2, j, th2, tl2, rh2, rl2);
          }
          finish(c2, th2, tl2, rh2, rl2);
        } else {
          for (int64_t j = 0; j < n; ++j) step(c, j, th1, tl1, rh1, rl1);
        }
        finish(c, th1, tl1, rh1, rl1);
      }
      if constexpr (kOdd) {
        if (kStore) {
          for (int64_t j = 0; j < n; ++j) {
            float f[8];
            for (int g = 0; g < G; ++g) f[g] = RoundToOddFloat(os[j][g]);
            Convert(f, out + q.Offset(b0 + j), G);
          }
        }
      }
    }
    if (local) {
      for (int c = 0; c < G; c += N) hn::Store(DropNaN(hn::Load(d, tl + c)), d, tl + c);
      for (int g = 0; g < G; ++g) local[g] = Add(Local::Zero(), Local{th[g], tl[g]});
    }
  }

  // More than 8 columns: blocks of kColBlock steps, each run by groups of 8 columns in turn,
  // every group's block from the running pair carry + the block totals before it (the same
  // blocks and the same totals in both modes).
  template <bool kStore>
  void ColumnGroupsChunk(const SeqGroup& q, int64_t s0, int64_t s1, const Carry* carry, Local* local) const {
    Local loc[kMaxCols];
    for (int g = 0; g < q.G; ++g) loc[g] = Local::Zero();
    for (int64_t b0 = s0; b0 < s1; b0 += kColBlock) {
      const int64_t b1 = std::min<int64_t>(s1, b0 + kColBlock);
      for (int c = 0; c < q.G; c += 8) {
        SeqGroup sub = q;
        sub.base += c;
        sub.G = std::min(8, q.G - c);
        Carry base[8];
        Local blk[8];
        for (int g = 0; g < sub.G; ++g) base[g] = kStore ? Add(carry[c + g], loc[c + g]) : Carry::Zero();
        ColumnsChunk<kStore>(sub, b0, b1, base, blk);
        for (int g = 0; g < sub.G; ++g) loc[c + g] = Add(loc[c + g], blk[g]);
      }
    }
    if (local) {
      for (int g = 0; g < q.G; ++g) local[g] = loc[g];
    }
  }

  template <bool kStore>
  void Chunk(const SeqGroup& q, int64_t s0, int64_t s1, const Carry* carry, Local* local) const {
    if (q.stride != 1) {
      if (q.G > 8) {
        ColumnGroupsChunk<kStore>(q, s0, s1, carry, local);
      } else {
        ColumnsChunk<kStore>(q, s0, s1, carry, local);
      }
      return;
    }
    const Carry c = kStore ? carry[0] : Carry::Zero();
    Local l;
    if constexpr (kIs16Bit<T>) {
      l = HalfRowChunk<kStore>(x, out, q, s0, s1, c);
    } else {
      l = q.reverse ? FloatRowChunk<kStore, true>(x, out, q, s0, s1, c)
                    : FloatRowChunk<kStore, false>(x, out, q, s0, s1, c);
    }
    if (local) local[0] = l;
  }
};

// float32 / float64 rows of at most one chunk, a multiple of 4 steps: K rows at a time (K lanes
// of at most 4 doubles; 8 measured slower with AVX-512), one pass each from zero or the rows'
// carries-in (no segments, no chunk carries), the groups spread over the threads; the last
// outer % K rows take the row path. Every output depends on its own row alone, so the bits do not
// depend on the thread count. Returns false for other layouts.
template <typename T>
bool RowsAsLanes(const T* x, T* out, const ScanLayout& l, bool exclusive, bool reverse, const LineState* init) {
  const hn::CappedTag<double, 4> d;
  const int64_t K = static_cast<int64_t>(hn::Lanes(d));
  if (l.inner != 1 || l.length % 4 != 0 || l.length > CpuScanChunk() || l.outer < K) return false;
  const int64_t groups = l.outer / K;
  auto group = [&](int64_t g) {
    const int64_t off = g * K * l.length + (reverse ? K * l.length - 1 : 0);
    auto h = hn::Zero(d), lo = h;
    if (init) {  // lane k is row g * K + k (reversed: row g * K + K - 1 - k, running down)
      HWY_ALIGN double ih[4] = {}, il[4] = {};  // lanes past K are never loaded
      for (int64_t k = 0; k < K; ++k) {
        const LineState& c = init[g * K + (reverse ? K - 1 - k : k)];
        ih[k] = c.a;
        il[k] = c.b;
      }
      h = hn::Load(d, ih);
      lo = hn::Load(d, il);
    }
    if (reverse) {
      SegmentRuns<true, false>(d, x + off, out + off, l.length, h, lo, exclusive);
    } else {
      SegmentRuns<false, false>(d, x + off, out + off, l.length, h, lo, exclusive);
    }
  };
  const int threads = l.numel() >= scan_detail::kMinParallelElements ? CpuNumThreads() : 1;
  if (threads > 1 && groups > 1) {
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int64_t g = 0; g < groups; ++g) group(g);  // nothing in it throws
  } else {
    for (int64_t g = 0; g < groups; ++g) group(g);
  }
  const int64_t done = groups * K * l.length;
  if (groups * K < l.outer) {
    SumKernel<T> k{x + done, out + done};
    if (init) k.init = init + groups * K;
    RunChunkedScan(k, ScanLayout{l.outer - groups * K, l.length, 1}, exclusive, reverse);
  }
  return true;
}

// float64 columns in groups of 8 lanes only (inner a multiple of 8; others keep the generic
// compensated sum).
template <typename T>
bool Served(const ScanLayout& l) {
  return !(std::is_same<T, double>::value && l.inner != 1 && l.inner % 8 != 0);
}

template <typename T>
bool Cumsum(const T* x, T* out, const ScanLayout& l, bool exclusive, bool reverse, const LineState* init) {
  if constexpr (std::is_same<T, double>::value || std::is_same<T, float>::value) {
    if (RowsAsLanes(x, out, l, exclusive, reverse, init)) return true;
  }
  if (!Served<T>(l)) return false;
  SumKernel<T> k{x, out};
  k.init = init;
  RunChunkedScan(k, l, exclusive, reverse);
  return true;
}

// Each line's total: the kernel's chunk totals (Chunk<false>, which writes no output) folded by the
// driver, as a scan's carries are.
template <typename T>
bool Totals(const T* x, const ScanLayout& l, bool reverse, LineState* totals) {
  if (!Served<T>(l)) return false;
  RunChunkedTotals(SumKernel<T>{x, const_cast<T*>(x)}, l, reverse,
                   [totals](int64_t i, const Pair& t) { totals[i] = {t.hi, t.lo}; });
  return true;
}

}  // namespace cumsum
#endif  // PADDLE_OPS_CUMSUM_VECTOR

// The dispatch table's entries (one per type; false on the fallback target: the generic engine).
#if PADDLE_OPS_CUMSUM_VECTOR
#define PADDLE_OPS_CUMSUM_TARGET(NAME, T)                                                                  \
  bool NAME(const T* x, T* out, const ScanLayout& l, bool exclusive, bool reverse, const LineState* init) { \
    return cumsum::Cumsum<T>(x, out, l, exclusive, reverse, init);                                         \
  }                                                                                                        \
  bool NAME##Totals(const T* x, const ScanLayout& l, bool reverse, LineState* totals) {                    \
    return cumsum::Totals<T>(x, l, reverse, totals);                                                       \
  }
#else
#define PADDLE_OPS_CUMSUM_TARGET(NAME, T)                                                         \
  bool NAME(const T*, T*, const ScanLayout&, bool, bool, const LineState*) { return false; }      \
  bool NAME##Totals(const T*, const ScanLayout&, bool, LineState*) { return false; }
#endif
PADDLE_OPS_CUMSUM_TARGET(CumsumFloat, float)
PADDLE_OPS_CUMSUM_TARGET(CumsumDouble, double)
PADDLE_OPS_CUMSUM_TARGET(CumsumFloat16, dtype::float16)
PADDLE_OPS_CUMSUM_TARGET(CumsumBFloat16, dtype::bfloat16)
#undef PADDLE_OPS_CUMSUM_TARGET
#undef PADDLE_OPS_CUMSUM_VECTOR

}  // namespace HWY_NAMESPACE
}  // namespace simd
}  // namespace funcs
}  // namespace phi
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace phi {
namespace funcs {
namespace simd {

#define PADDLE_OPS_CUMSUM_CALLS(NAME, T)                                                                   \
  HWY_EXPORT(NAME);                                                                                        \
  HWY_EXPORT(NAME##Totals);                                                                                \
  bool CumsumVector(const T* x, T* out, const ScanLayout& l, bool exclusive, bool reverse,                 \
                    const LineState* init) {                                                               \
    return PADDLE_OPS_HWY_DISPATCH(NAME)(x, out, l, exclusive, reverse, init);                              \
  }                                                                                                        \
  bool CumsumTotalsVector(const T* x, const ScanLayout& l, bool reverse, LineState* totals) {              \
    return PADDLE_OPS_HWY_DISPATCH(NAME##Totals)(x, l, reverse, totals);                                    \
  }
PADDLE_OPS_CUMSUM_CALLS(CumsumFloat, float)
PADDLE_OPS_CUMSUM_CALLS(CumsumDouble, double)
PADDLE_OPS_CUMSUM_CALLS(CumsumFloat16, dtype::float16)
PADDLE_OPS_CUMSUM_CALLS(CumsumBFloat16, dtype::bfloat16)
#undef PADDLE_OPS_CUMSUM_CALLS

}  // namespace simd
}  // namespace funcs
}  // namespace phi
#endif  // HWY_ONCE
