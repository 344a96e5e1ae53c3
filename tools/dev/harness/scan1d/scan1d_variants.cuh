// Harness-only variants of the scan engine's single pass for 1-D tensors and few long rows
// (issue 29; the library's kernels are not changed): a thread block per tile of
// kThreads * kItems steps held in registers from one read (the library's OnePassRowKernel reads
// each 8192-step warp segment twice: once for its aggregate, once after its look-back), the
// library's deterministic look-back tree (scan_onepass.cuh: the prefix before tile i is the left
// fold of the aligned blocks that the binary digits of i cut [0, i) into, largest first), but
// each block aggregate published with its flag in one 16-byte word (one store, no fence: the
// payload and the flag travel together) and polled with a backing-off sleep, the upper levels of
// the tree published by warp 1 while warp 0 looks back. kPersist: as many blocks as the GPU
// holds, tiles taken in ticket order, the next tile's loads issued into registers before this
// tile's look-back.
//
// Ops: float32 logcumsumexp (LseV) and float32 cumsum (CumsumV).
// - LseV: a tile's terms e = exp(x - R_t) against its own max R_t are summed before the look-back
//   (float-float lane totals, a float64 block scan of them); after it, with carry (m_c, s_c) and
//   R = max(R_t, m_c), every output is R + log2(s) * ln2 from a float running sum
//   s = base + f * (terms so far), f = exp(R_t - R), base = s_c exp(m_c - R) + f * before, one fma
//   a step, taken only where every output of the tile lies at least kLeanV (12) from 0 and the
//   carry holds more than one term (the rules of LseFast::LeanLevel with a wider margin: f's
//   rounding is one more; error budget in the README). Every other tile (outputs near 0, one-term
//   prefixes, NaN, +inf, a range wider than kSpan) takes the exact path: float64 (max, sum)
//   states per element, a float64 block scan of them. kCheap: the lane total as a pairwise
//   float tree instead of float-float (fewer instructions; covered by the same kLeanV).
// - CumsumV: float64 two-sums throughout (spec §2), the lane's running sum from its exclusive
//   prefix (a double-double), each output rounded once (a tie of the nearest double fixed from
//   the residual).
// Determinism: every fold order is a fixed function of the shape (lane order, warp order, the
// tree); which path a tile takes is a fixed function of the data.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "kernels/funcs/gpu/lookback_primitives.cuh"
#include "kernels/gpu/lse_block_decide.cuh"

namespace scan1d {

// Variant flags (the last template argument of Tile1DKernel / Launch; 0: the kernel above).
// Diagnostics (outputs not the op's; the harness does not check them):
//   kNoLB   no look-back: nothing published or waited for; the carry a stand-in of the tile's
//           own state (logcumsumexp: (R_t, t * its sum), so that tiles still take the fast path;
//           cumsum: zero), the block barriers as before;
//   kLdSt   the tile loaded and stored by the same code paths, nothing else: the copy floor;
//   kNoScan the terms and the tile's block scan, then the terms plus the lane's prefix stored:
//           no look-back, no decision, no output arithmetic.
// Look-back polling: kSpin (volatile loads, no sleep), kFixedNs (a fixed 32 ns sleep) instead of
// the backing-off sleep.
// kFewBar: fewer block barriers a tile (7 -> 3 for logcumsumexp's fast tile, 4 -> 2 for
//   cumsum): the range's second barrier dropped (fsm is next written after later barriers), the
//   block scan in one barrier (each warp folds the warp totals before it, left to right, itself;
//   no barrier after: its shared words are next written after the carry's), and warp 0 takes
//   the decision straight after its look-back, under the carry's barrier.
// kIncl (the third set): the tree replaced by a decoupled look-back with inclusive prefixes,
//   folded left in order (LookBackIncl below: one status word a tile, state AGG then INCL).
// kStep1 (with kIncl): a cheaper step for the in-order fold, the chain of N dependent steps that
//   kIncl's P_0 -> P_1 -> ... is. It is no longer Combine itself but another fixed function
//   (InclStep), which is all the determinism argument needs. Logcumsumexp: s' = fma(alpha, s,
//   beta) with alpha, beta of the step taken off the chain (StepLS: CombineLS's fma
//   fma(b.s, e, a.s) becomes a.s + round(b.s * e), one rounding more); cumsum: the double-double
//   left unnormalized, hi' = hi + a.hi, lo' = lo + (a.lo + hi's rounding error) (StepDD: one
//   float64 add and Canon's bit mask on the chain instead of AddDD's ~13 adds).
// kExact (cumsum, with kIncl): the carry an exact integer (Wide: 320 bits in units of 2^-149, the
//   least bit of a float32), each tile's double-double aggregate converted to it exactly; the sum
//   is associative, so the look-back reduces its window as a warp tree in any order and the
//   result is the same bits (CUB's look-back, no in-order fold, no chain of steps).
enum : int {
  kNoLB = 1,
  kLdSt = 2,
  kNoScan = 4,
  kSpin = 8,
  kFixedNs = 16,
  kFewBar = 32,
  kIncl = 64,
  kStep1 = 128,
  kExact = 256,
  kSpread = 512
};
// kSpread (logcumsumexp, with kIncl | kStep1): the fold's per-step work off the chain (the
//   running maxima, the modes, the float64 exps, alpha and beta) spread over the block's warps,
//   a chunk of 32 steps each, between three more block barriers, while warp 0 keeps only the fma
//   chain (LseV::SpreadFold); warp 0 polls as kIncl.
// kIncl's status word states (0: nothing published yet; the words are zeroed before a launch).
constexpr unsigned kStAgg = 1, kStIncl = 2;
// kIncl: how many windows of 32 aggregates a look-back keeps before it polls its farthest window
// again for an inclusive prefix instead of moving further back.
constexpr int kMaxWin = 8;

constexpr float kInfF = std::numeric_limits<float>::infinity();
constexpr double kInfD = std::numeric_limits<double>::infinity();

// ---- packed status: 16 bytes, the flag inside ------------------------------------------------
// The library's 16-byte status word accesses (kernels/funcs/gpu/lookback_primitives.cuh).
__device__ __forceinline__ void StoreWord(uint4* p, uint4 v) { phi::funcs::scan_gpu::StoreStatusWord(p, v); }
__device__ __forceinline__ uint4 LoadWord(const uint4* p) { return phi::funcs::scan_gpu::LoadStatusWord(p); }

// The tree's slots of `rows` lines of n tiles each (as TileStatus of scan_onepass.cuh).
struct Status {
  uint4* word;                 // [rows * per_line]
  uint4* wide;                 // kExact: [rows * n * 4], P_t's Wide (WidePut)
  unsigned long long* ticket;  // the next tile's ticket
  int64_t n, per_line;
  __device__ int64_t Slot(int64_t row, int b, int64_t k) const {
    int64_t off = 0;
    for (int l = 0; l < b; ++l) off += n >> l;
    return row * per_line + off + k;
  }
};

// ---- float64 helpers ------------------------------------------------------------------------
struct DD {
  double hi, lo;
};
__device__ __forceinline__ void TwoSum(double a, double b, double* s, double* e) {
  *s = a + b;
  const double bb = *s - a;
  *e = (a - (*s - bb)) + (b - bb);
}
__device__ __forceinline__ DD AddDD(DD a, DD b) {
  double s, e, t, f;
  TwoSum(a.hi, b.hi, &s, &e);
  TwoSum(a.lo, b.lo, &t, &f);
  e += t;
  double hi = s + e;
  e = e - (hi - s);
  e += f;
  const double h2 = hi + e;
  return DD{h2, e - (h2 - hi)};
}
// The float nearest hi + lo (a tie of the nearest double settled by the residual).
__device__ __forceinline__ float RoundDD(double hi, double lo) {
  const double h = hi + lo;
  float f = static_cast<float>(h);
  if ((__double_as_longlong(h) & 0x1FFFFFFFll) == 0x10000000ll && isfinite(h)) {
    const double e = lo - (h - hi);
    if (e > 0) f = __double2float_ru(h);
    if (e < 0) f = __double2float_rd(h);
  }
  return f;
}

// kStep1's cumsum step: hi the float64 sum of the his, lo collecting a.lo and each add's exact
// error, never renormalized (the chain: hi's add, lo's add; the error's TwoSum hangs off it).
// |lo| stays below N ulps of the largest |hi| met, its own roundings below N^2 2^-106 of it
// (2^-78 for N = 2^14 tiles): far under the float32 outputs' half ulp. Canon clears lo's state
// bits each step (kIncl's word); Finish's AddDD renormalizes.
__host__ __device__ __forceinline__ DD StepDD(DD c, DD a) {
  const double s = c.hi + a.hi;
  const double bb = s - c.hi;
  const double e = (c.hi - (s - bb)) + (a.hi - bb);
  return DD{s, c.lo + (a.lo + e)};
}

// ---- kExact: cumsum's carry as an exact integer ------------------------------------------------
// A Wide is a two's complement integer of 5 64-bit limbs in units of 2^-149 (float32's least
// bit), |value| < 2^170 (lines of up to 2^41 float32 elements), and sp, the non-finite part (0,
// +-inf or NaN) summed as a float (an associative sum on those four values). Every value of a
// cumsum tile's double-double (float32 inputs, TwoSums and AddDDs in float64) is a multiple of
// 2^-149: a float64 add of two multiples rounds either onto a grid of 2^-149 or coarser, or not at
// all (below 2^-96 the sum has at most 53 bits). So ToWideDD is exact and the Wide sum of the
// aggregates is the exact sum, whatever the order.
constexpr int kWL = 5;
struct Wide {
  unsigned long long l[kWL];
  float sp;
};
__host__ __device__ __forceinline__ Wide ZeroW() {
  Wide r;
  for (int i = 0; i < kWL; ++i) r.l[i] = 0;
  r.sp = 0.f;
  return r;
}
__host__ __device__ __forceinline__ Wide AddW(const Wide& a, const Wide& b) {
  Wide r;
#ifdef __CUDA_ARCH__
  asm("add.cc.u64 %0, %5, %10;\n\t"
      "addc.cc.u64 %1, %6, %11;\n\t"
      "addc.cc.u64 %2, %7, %12;\n\t"
      "addc.cc.u64 %3, %8, %13;\n\t"
      "addc.u64 %4, %9, %14;"
      : "=l"(r.l[0]), "=l"(r.l[1]), "=l"(r.l[2]), "=l"(r.l[3]), "=l"(r.l[4])
      : "l"(a.l[0]), "l"(a.l[1]), "l"(a.l[2]), "l"(a.l[3]), "l"(a.l[4]), "l"(b.l[0]), "l"(b.l[1]), "l"(b.l[2]),
        "l"(b.l[3]), "l"(b.l[4]));
#else
  unsigned long long c = 0;
  for (int i = 0; i < kWL; ++i) {
    const unsigned long long s = a.l[i] + b.l[i];
    const unsigned long long c1 = s < a.l[i];
    r.l[i] = s + c;
    c = c1 + (r.l[i] < s);
  }
#endif
  r.sp = a.sp + b.sp;
  return r;
}
__host__ __device__ __forceinline__ void NegW(unsigned long long (&l)[kWL]) {
  unsigned long long c = 1;
  for (int i = 0; i < kWL; ++i) {
    l[i] = ~l[i] + c;
    c = (c != 0 && l[i] == 0) ? 1 : 0;
  }
}
__host__ __device__ __forceinline__ unsigned long long BitsD(double d) {
#ifdef __CUDA_ARCH__
  return static_cast<unsigned long long>(__double_as_longlong(d));
#else
  unsigned long long u;
  std::memcpy(&u, &d, 8);
  return u;
#endif
}
__host__ __device__ __forceinline__ double Pow2(int k) {  // k in a normal double's range
  const unsigned long long u = static_cast<unsigned long long>(k + 1023) << 52;
#ifdef __CUDA_ARCH__
  return __longlong_as_double(static_cast<long long>(u));
#else
  double d;
  std::memcpy(&d, &u, 8);
  return d;
#endif
}
// d finite, a multiple of 2^-149, |d| < 2^170: exactly (non-finite: sp).
__host__ __device__ __forceinline__ Wide ToWide(double d) {
  Wide r = ZeroW();
  if (!(d - d == 0.0)) {  // +-inf, NaN
    r.sp = static_cast<float>(d);
    return r;
  }
  const unsigned long long bits = BitsD(d);
  const int ex = static_cast<int>((bits >> 52) & 0x7ff);
  if (ex == 0) return r;  // 0 (a subnormal double is no multiple of 2^-149)
  unsigned long long m = (bits & ((1ull << 52) - 1)) | (1ull << 52);
  int p = ex - 1075 + 149;  // m's bit 0 in units of 2^-149
  if (p < 0) {              // the bits shifted out are 0
    m = p > -64 ? m >> -p : 0;
    p = 0;
  }
  const int q = p >> 6, sh = p & 63;
  const unsigned long long lo = m << sh, hi = sh != 0 ? m >> (64 - sh) : 0;
  for (int i = 0; i < kWL; ++i) r.l[i] = i == q ? lo : i == q + 1 ? hi : 0;
  if (bits >> 63) NegW(r.l);
  return r;
}
__host__ __device__ __forceinline__ Wide ToWideDD(DD a) { return AddW(ToWide(a.hi), ToWide(a.lo)); }
// The double-double nearest a Wide, to ~2^-105 of it: hi the top 53 bits rounded to nearest
// (half up), lo the next 64 rounded, every lower bit dropped; (sp, 0) when sp is not 0.
__host__ __device__ __forceinline__ DD FromWide(const Wide& w) {
  if (w.sp != 0.f) return DD{static_cast<double>(w.sp), 0.0};  // NaN too
  unsigned long long a[kWL];
  for (int i = 0; i < kWL; ++i) a[i] = w.l[i];
  const bool neg = (a[kWL - 1] >> 63) != 0;
  if (neg) NegW(a);
  int q = -1;
  unsigned long long top = 0, nx = 0, n2 = 0;
  for (int i = 0; i < kWL; ++i) {
    if (a[i] != 0) {
      q = i;
      top = a[i];
      nx = i >= 1 ? a[i - 1] : 0;
      n2 = i >= 2 ? a[i - 2] : 0;
    }
  }
  if (q < 0) return DD{0.0, 0.0};
#ifdef __CUDA_ARCH__
  const int lz = __clzll(static_cast<long long>(top));
#else
  const int lz = __builtin_clzll(top);
#endif
  const unsigned long long t = lz != 0 ? (top << lz) | (nx >> (64 - lz)) : top;
  const unsigned long long u = lz != 0 ? (nx << lz) | (n2 >> (64 - lz)) : nx;
  // t's bit 0 weighs 2^(64q - lz) units; L = t's low 11 bits and u's top 53: its bit 0 weighs
  // 2^(64q - lz - 53).
  const unsigned long long L = ((t & 0x7ff) << 53) | (u >> 11);
  const bool up = (L >> 63) != 0;  // the rest at least half hi's ulp: hi rounded up, lo negative
  const double hm = static_cast<double>((t >> 11) + (up ? 1 : 0));
  const double lm = up ? -static_cast<double>(0ull - L) : static_cast<double>(L);
  const int e0 = 64 * q - lz - 149;
  double hi = hm * Pow2(e0 + 11), lo = lm * Pow2(e0 - 53);
  if (neg) {
    hi = -hi;
    lo = -lo;
  }
  return DD{hi, lo};
}
__device__ __forceinline__ Wide ShflXorW(const Wide& w, int m) {
  Wide r;
#pragma unroll
  for (int i = 0; i < kWL; ++i) r.l[i] = __shfl_xor_sync(0xffffffffu, w.l[i], m);
  r.sp = __shfl_xor_sync(0xffffffffu, w.sp, m);
  return r;
}
// The warp's sum on every lane (exact: the butterfly's orders differ, the bits do not).
__device__ __forceinline__ Wide WarpSumW(Wide v) {
#pragma unroll
  for (int m = 16; m > 0; m >>= 1) v = AddW(v, ShflXorW(v, m));
  return v;
}

// ---- logcumsumexp's exact state: (max, sum of exp(x - max)), a single term (x, 1) exactly ----
struct LS {
  double m, s;
};
__host__ __device__ __forceinline__ LS CombineLS(LS a, LS b) {
  if (a.m != a.m || b.m != b.m) return LS{NAN, NAN};
  if (a.m == -kInfD) return b;
  if (b.m == -kInfD) return a;
  if (a.m == kInfD || b.m == kInfD) return LS{kInfD, 1.0};
  if (a.m >= b.m) return LS{a.m, fma(b.s, exp(b.m - a.m), a.s)};
  return LS{b.m, fma(a.s, exp(a.m - b.m), b.s)};
}
// CombineLS(a, b) cut in two (kIncl's left fold): its m is NMaxLS(a.m, b.m), and which branch it
// takes and the exp's argument depend on a.m and b.m alone, so a warp gets them for 32 steps at
// once (the running a.m from a scan of NMaxLS, which is associative: NaN if any is NaN, else the
// first of the largest) and only LsStep's fma stays sequential. Bit for bit CombineLS:
// LS{NMaxLS(a.m, b.m), LsStep(mode, a.s, exp(arg), b.s)} with mode = LsMode(a.m, b.m, &arg).
enum : int { kLsKeep = 0, kLsTakeB = 1, kLsOne = 2, kLsNaN = 3, kLsFmaB = 4, kLsFmaA = 5 };
__host__ __device__ __forceinline__ double NMaxLS(double a, double b) {
  return (a != a || b != b) ? static_cast<double>(NAN) : (a >= b ? a : b);
}
__host__ __device__ __forceinline__ int LsMode(double am, double bm, double* arg) {
  *arg = 0.0;
  if (am != am || bm != bm) return kLsNaN;
  if (am == -kInfD) return kLsTakeB;
  if (bm == -kInfD) return kLsKeep;
  if (am == kInfD || bm == kInfD) return kLsOne;
  if (am >= bm) {
    *arg = bm - am;
    return kLsFmaB;
  }
  *arg = am - bm;
  return kLsFmaA;
}
// Both fmas at once: the chain through `as` is one fma and two selects.
__host__ __device__ __forceinline__ double LsStep(int mode, double as, double e, double bs) {
  const double fb = fma(bs, e, as), fa = fma(as, e, bs);
  const double other = mode == kLsKeep ? as : mode == kLsTakeB ? bs : mode == kLsOne ? 1.0 : static_cast<double>(NAN);
  return mode == kLsFmaB ? fb : mode == kLsFmaA ? fa : other;
}
// kStep1's step: the sequential part of a step is one fma, s' = fma(alpha, s, beta), alpha and
// beta from the mode, the exp and b.s alone (off the chain). kLsFmaB: s + round(b.s * e) (CombineLS
// rounds once: an error of at most 2^-53 of the smaller term more); the other modes exactly as
// CombineLS (s is a finite sum, never -0, so fma(1, s, 0) = s and fma(0, s, b) = b).
__host__ __device__ __forceinline__ void LsAB(int mode, double e, double bs, double* alpha, double* beta) {
  *alpha = mode == kLsFmaA ? e : (mode == kLsKeep || mode == kLsFmaB) ? 1.0 : 0.0;
  *beta = mode == kLsFmaB   ? bs * e
          : mode == kLsFmaA  ? bs
          : mode == kLsTakeB ? bs
          : mode == kLsOne   ? 1.0
          : mode == kLsNaN   ? static_cast<double>(NAN)
                             : 0.0;
}
__host__ __device__ __forceinline__ LS StepLS(LS a, LS b) {
  double arg, al, be;
  const int mode = LsMode(a.m, b.m, &arg);
  LsAB(mode, exp(arg), b.s, &al, &be);
  return LS{NMaxLS(a.m, b.m), fma(al, a.s, be)};
}
__device__ __forceinline__ float ValueLS(LS a) {
  if (a.m != a.m) return NAN;
  if (a.m == -kInfD) return -kInfF;
  if (a.m == kInfD) return kInfF;
  if (a.s == 1.0) return static_cast<float>(a.m);
  return static_cast<float>(a.m + log(a.s));
}

// ---- shuffles and a block scan for the three scan states ----------------------------------------
__device__ __forceinline__ double ShflUp(double v, int d) { return __shfl_up_sync(0xffffffffu, v, d); }
__device__ __forceinline__ DD ShflUp(DD v, int d) { return DD{ShflUp(v.hi, d), ShflUp(v.lo, d)}; }
__device__ __forceinline__ LS ShflUp(LS v, int d) { return LS{ShflUp(v.m, d), ShflUp(v.s, d)}; }
__device__ __forceinline__ double ShflIdx(double v, int l) { return __shfl_sync(0xffffffffu, v, l); }
__device__ __forceinline__ DD ShflIdx(DD v, int l) { return DD{ShflIdx(v.hi, l), ShflIdx(v.lo, l)}; }
__device__ __forceinline__ LS ShflIdx(LS v, int l) { return LS{ShflIdx(v.m, l), ShflIdx(v.s, l)}; }

struct AddD {
  __device__ double operator()(double a, double b) const { return a + b; }
};
struct AddDDF {
  __device__ DD operator()(DD a, DD b) const { return AddDD(a, b); }
};
struct LSF {
  __device__ LS operator()(LS a, LS b) const { return CombineLS(a, b); }
};

// A warp's inclusive and exclusive scans of one value a lane (lane order).
template <typename S, typename F>
__device__ __forceinline__ void WarpScan(S v, F f, S id, int lane, S* incl, S* ex) {
  S in = v;
#pragma unroll
  for (int d = 1; d < 32; d <<= 1) {
    const S y = ShflUp(in, d);
    if (lane >= d) in = f(y, in);
  }
  *ex = ShflUp(in, 1);
  if (lane == 0) *ex = id;
  *incl = in;
}

// Exclusive scan of one value a thread over the block (lane order, then warp order), from id:
// *before (id for thread 0) and *total (every thread). smem: kWarps + 1 states. kOneBarrier
// (kFewBar): one barrier, each warp folding the warp totals before it in warp order itself, and
// none after: the caller keeps smem unwritten until a later barrier.
template <int kThreads, bool kOneBarrier = false, typename S, typename F>
__device__ __forceinline__ void BlockScan(S v, F f, S id, S* smem, S* before, S* total) {
  constexpr int kWarps = kThreads / 32;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  S incl, ex;
  WarpScan(v, f, id, lane, &incl, &ex);
  if (lane == 31) smem[warp] = incl;
  __syncthreads();
  if (kOneBarrier) {
    S acc = smem[0], pre = id;
#pragma unroll
    for (int w = 1; w < kWarps; ++w) {
      if (w == warp) pre = acc;
      acc = f(acc, smem[w]);
    }
    *before = warp == 0 ? ex : f(pre, ex);
    *total = acc;
    return;
  }
  if (warp == 0) {
    S w = lane < kWarps ? smem[lane] : id;
    S wi = w;
#pragma unroll
    for (int d = 1; d < kWarps; d <<= 1) {
      const S y = ShflUp(wi, d);
      if (lane >= d) wi = f(y, wi);
    }
    S we = ShflUp(wi, 1);
    if (lane == 0) we = id;
    if (lane < kWarps) smem[lane] = we;
    if (lane == kWarps - 1) smem[kWarps] = wi;
  }
  __syncthreads();
  *before = warp == 0 ? ex : f(smem[warp], ex);
  *total = smem[kWarps];
  __syncthreads();  // smem reused by the next scan
}

// ---- tile loads and stores (lane l holds steps g0 + l*kItems .. + kItems-1 of its warp's group) --
template <int kItems>
struct Io {
  // Full groups (vec): 16-byte loads straight from memory (as BlockedGroup::Load); else guarded.
  __device__ static void Load(const float* x, int64_t base, int64_t L, int64_t first, bool full, bool rev, float pad,
                              float (&v)[kItems]) {
#ifdef SCAN1D_FULL_ONLY  // instruction counts of full tiles alone
    full = true;
#endif
    if (full) {
      const float4* p = reinterpret_cast<const float4*>(x + (rev ? base + L - first - kItems : base + first));
#pragma unroll
      for (int c = 0; c < kItems / 4; ++c) {
        const float4 q = __ldg(p + c);
        const float w[4] = {q.x, q.y, q.z, q.w};
#pragma unroll
        for (int j = 0; j < 4; ++j) {
          if (rev) {
            v[kItems - 1 - (4 * c + j)] = w[j];
          } else {
            v[4 * c + j] = w[j];
          }
        }
      }
      return;
    }
#pragma unroll
    for (int j = 0; j < kItems; ++j) {
      const int64_t s = first + j;
      v[j] = s < L ? __ldg(x + (rev ? base + L - 1 - s : base + s)) : pad;
    }
  }
  // Full groups through the warp's shared buffer (32 * kItems floats): coalesced 16-byte stores.
  __device__ static void Store(float* out, int64_t base, int64_t L, int64_t g0, int64_t first, bool full, bool rev,
                               const float (&o)[kItems], float* buf) {
    const int lane = threadIdx.x % 32;
#ifdef SCAN1D_FULL_ONLY
    full = true;
#endif
    if (full) {
      constexpr int kNC = kItems / 4;
      const int blk = rev ? 31 - lane : lane;
      float4* b4 = reinterpret_cast<float4*>(buf);
#pragma unroll
      for (int c = 0; c < kNC; ++c) {
        float w[4];
#pragma unroll
        for (int j = 0; j < 4; ++j) w[j] = rev ? o[kItems - 1 - (4 * c + j)] : o[4 * c + j];
        const int q = blk * kNC + c;
        b4[q ^ ((q >> 3) & (kNC - 1))] = make_float4(w[0], w[1], w[2], w[3]);
      }
      __syncwarp();
      float4* dst = reinterpret_cast<float4*>(out + (rev ? base + L - g0 - 32 * kItems : base + g0));
#pragma unroll
      for (int c = 0; c < kNC; ++c) {
        const int q = c * 32 + lane;
        dst[q] = b4[q ^ ((q >> 3) & (kNC - 1))];
      }
      __syncwarp();
      return;
    }
#pragma unroll
    for (int j = 0; j < kItems; ++j) {
      const int64_t s = first + j;
      if (s < L) out[rev ? base + L - 1 - s : base + s] = o[j];
    }
  }
};

struct Params {
  const float* x;
  float* out;
  int64_t rows, L, ntiles;  // tiles per row
  bool exclusive, reverse, vec;
};

// kStep1's sequential loop: the library's FoldInOrder (each word asked for four steps before
// its step; at 64 registers ptxas keeps two to three loads in flight, nvcc 13.0, sm_90a).
template <typename C, typename Get, typename Step>
__device__ __forceinline__ C FoldSeq(C c, int n, Get get, Step step) {
  return phi::funcs::scan_gpu::FoldInOrder(c, n, get, step);
}

// ---- the ops ----------------------------------------------------------------------------------
// Each op: Agg (the published aggregate), Pack/Unpack, Combine, Identity, and the tile's two
// halves (Prepare before the look-back, Finish after it) over a per-thread Work. kIncl adds:
// Canon (the value a word holds: every value published or folded is made canonical first, so
// that UnpackS(PackS(v, state)) is v bit for bit), PackS / State / UnpackS (the word with its
// state, AGG or INCL) and FoldLeft (carry folded with the aggregates flat[D - 1], ..., flat[0],
// in that order, each step Canon(Combine(carry, .)); warp 0, the same value on every lane).
struct CumsumV {
  using Agg = DD;
  static constexpr float kPad = 0.f;
  __device__ static Agg Identity() { return DD{0.0, 0.0}; }
  __device__ static Agg Combine(Agg a, Agg b) { return AddDD(a, b); }
  __device__ static uint4 Pack(Agg a) {
    long long lo = __double_as_longlong(a.lo);
    if (!isfinite(a.hi)) lo = 0;
    lo |= 1;  // the flag: lo's last bit (at most an ulp of lo, 2^-105 of hi)
    const long long hi = __double_as_longlong(a.hi);
    return make_uint4(static_cast<unsigned>(hi), static_cast<unsigned>(hi >> 32), static_cast<unsigned>(lo),
                      static_cast<unsigned>(lo >> 32));
  }
  __device__ static bool Ready(uint4 w) { return (w.z & 1u) != 0; }
  __device__ static Agg Unpack(uint4 w) {
    return DD{__longlong_as_double(static_cast<long long>((static_cast<unsigned long long>(w.y) << 32) | w.x)),
              __longlong_as_double(static_cast<long long>((static_cast<unsigned long long>(w.w) << 32) | w.z))};
  }
  // kIncl: the state in lo's last two bits, which Canon clears (at most 3 ulps of lo, 2^-104 of
  // hi, a step); lo 0 where hi is not finite (as Pack).
  __device__ static Agg Canon(Agg a) {
    const long long lo = isfinite(a.hi) ? (__double_as_longlong(a.lo) & ~3ll) : 0ll;
    return DD{a.hi, __longlong_as_double(lo)};
  }
  __device__ static uint4 PackS(Agg a, unsigned state) {  // a canonical
    const long long lo = __double_as_longlong(a.lo) | state, hi = __double_as_longlong(a.hi);
    return make_uint4(static_cast<unsigned>(hi), static_cast<unsigned>(hi >> 32), static_cast<unsigned>(lo),
                      static_cast<unsigned>(lo >> 32));
  }
  __device__ static unsigned State(uint4 w) { return w.z & 3u; }
  __device__ static Agg UnpackS(uint4 w) { return Unpack(make_uint4(w.x, w.y, w.z & ~3u, w.w)); }
  // kIncl's step (P_t from P_{t-1} and A_t): AddDD, or kStep1's StepDD.
  template <int kFlags>
  __device__ static Agg InclStep(Agg c, Agg a) {
    return (kFlags & kStep1) != 0 ? StepDD(c, a) : AddDD(c, a);
  }
  // Sequential: AddDD's chain of ~13 dependent float64 adds a step, StepDD's 2 (the aggregates are
  // read from shared memory, independent of the chain).
  template <int kFlags>
  __device__ static Agg FoldLeft(Agg c, const uint4* flat, int D, int /*lane*/) {
    if constexpr ((kFlags & kStep1) != 0) {
      return FoldSeq(
          c, D, [&](int i) { return flat[i]; },
          [](Agg x, uint4 w) { return Canon(StepDD(x, UnpackS(w))); });
    } else {
#pragma unroll 4
      for (int i = D - 1; i >= 0; --i) c = Canon(InclStep<kFlags>(c, UnpackS(flat[i])));
      return c;
    }
  }
  template <int kThreads, int kItems, bool kCheap, bool kFew = false>
  struct Work {
    DD before;  // the lane's exclusive prefix in the tile
    DD total;   // the tile's
    __device__ void Prepare(const float (&x)[kItems], DD* smem) {
      DD t{0.0, 0.0};
#pragma unroll
      for (int j = 0; j < kItems; ++j) {
        double s, e;
        TwoSum(t.hi, static_cast<double>(x[j]), &s, &e);
        t.hi = s;
        t.lo += e;
      }
      BlockScan<kThreads, kFew>(t, AddDDF{}, DD{0.0, 0.0}, smem, &before, &total);
    }
    __device__ Agg Aggregate() const { return total; }
    // Shared decision after the look-back (thread 0): nothing for cumsum.
    __device__ static void Decide(Agg, const Work&, float*) {}
    // x[j] replaced by its output.
    __device__ void Finish(Agg carry, float (&x)[kItems], bool exclusive) const {
      DD p = AddDD(carry, before);
#pragma unroll
      for (int j = 0; j < kItems; ++j) {
        const double v = static_cast<double>(x[j]);
        if (exclusive) x[j] = RoundDD(p.hi, p.lo);
        double s, e;
        TwoSum(p.hi, v, &s, &e);
        p.hi = s;
        p.lo += e;
        if (!exclusive) x[j] = RoundDD(p.hi, p.lo);
      }
    }
  };
};

struct LseV {
  using Agg = LS;  // m an element (float), s float64
  static constexpr float kPad = -kInfF;
  static constexpr float kSpan = 80.f;
  static constexpr double kLeanV = 12.0;
  __device__ static Agg Identity() { return LS{-kInfD, 0.0}; }
  __device__ static Agg Combine(Agg a, Agg b) { return CombineLS(a, b); }
  __device__ static uint4 Pack(Agg a) {
    const long long s = __double_as_longlong(a.s);
    return make_uint4(__float_as_uint(static_cast<float>(a.m)), 1u, static_cast<unsigned>(s),
                      static_cast<unsigned>(s >> 32));
  }
  __device__ static bool Ready(uint4 w) { return w.y != 0; }
  // kIncl: the state in the word's second 32 bits; the payload whole (m is an element, +-inf or
  // NAN, all floats; s the float64 itself), so Canon is the identity.
  __device__ static Agg Canon(Agg a) { return a; }
  __device__ static uint4 PackS(Agg a, unsigned state) {
    const uint4 w = Pack(a);
    return make_uint4(w.x, state, w.z, w.w);
  }
  __device__ static unsigned State(uint4 w) { return w.y; }
  __device__ static Agg Unpack(uint4 w) {
    return LS{static_cast<double>(__uint_as_float(w.x)),
              __longlong_as_double(static_cast<long long>((static_cast<unsigned long long>(w.w) << 32) | w.z))};
  }
  __device__ static Agg UnpackS(uint4 w) { return Unpack(w); }
  // 32 steps at a time (chunk c: flat[32c + lane], the farthest chunk first; in a chunk the fold
  // runs from the highest valid lane down): the running max before each step from a warp scan,
  // each step's branch and exp on its own lane at once (LsMode), then the sequential part, one
  // fma and selects a step (LsStep), in groups of 4 steps with the shuffles free to go ahead
  // (8: 44-52 B of spills in the kernel against 32).
  // kIncl's step: CombineLS, or kStep1's StepLS.
  template <int kFlags>
  __device__ static Agg InclStep(Agg c, Agg a) {
    return (kFlags & kStep1) != 0 ? StepLS(c, a) : CombineLS(c, a);
  }
  // kStep1: each lane turns its step's mode, exp and b.s into (alpha, beta), written over its
  // word of flat, and the warp runs s = fma(alpha, s, beta) through the chunk from shared
  // memory (broadcast reads, independent of s): one fma a step on the chain.
  template <int kFlags>
  __device__ static Agg FoldLeft(Agg c, uint4* flat, int D, int lane) {
    for (int c0 = (D - 1) & ~31; c0 >= 0; c0 -= 32) {
      const int n = D - c0 < 32 ? D - c0 : 32;  // steps in this chunk: lanes n - 1 .. 0
      const LS b = lane < n ? UnpackS(flat[c0 + lane]) : LS{-kInfD, 0.0};
      double inc = b.m;  // NMaxLS of lanes >= this one (their fold order: from lane 31 down)
#pragma unroll
      for (int d = 1; d < 32; d <<= 1) {
        const double y = __shfl_down_sync(0xffffffffu, inc, d);
        if (lane + d < 32) inc = NMaxLS(y, inc);
      }
      const double after = __shfl_down_sync(0xffffffffu, inc, 1);
      const double am = lane == 31 ? c.m : NMaxLS(c.m, after);  // the carry's m before this step
      double arg;
      int mode = LsMode(am, b.m, &arg);
      if (lane >= n) mode = kLsKeep;
      const double e = exp(arg);
      double sv = c.s;
      if constexpr ((kFlags & kStep1) != 0) {
        double al, be;
        LsAB(mode, e, b.s, &al, &be);
        double2* ab = reinterpret_cast<double2*>(flat + c0);
        if (lane < n) ab[lane] = make_double2(al, be);
        __syncwarp();
        sv = FoldSeq(
            sv, n, [&](int l) { return ab[l]; }, [](double x, double2 q) { return fma(q.x, x, q.y); });
        __syncwarp();
      } else {
        for (int g = (n - 1) >> 2; g >= 0; --g) {
#pragma unroll
          for (int i = 3; i >= 0; --i) {
            const int l = 4 * g + i;
            const int md = __shfl_sync(0xffffffffu, mode, l);
            sv = LsStep(md, sv, ShflIdx(e, l), ShflIdx(b.s, l));
          }
        }
      }
      c = LS{NMaxLS(c.m, __shfl_sync(0xffffffffu, inc, 0)), sv};
    }
    return c;
  }
  // kSpread's fold (every thread of the block; D, c and flat's D aggregates the same for all):
  // warp ci takes chunk ci (flat[32 ci ..], kMaxWin <= warps: one chunk at most a warp), its
  // running max and total in fold order (tot[ci]); after a barrier, the chunk's start max
  // (c.m, then the farther chunks' totals in order), its modes, exps and (alpha, beta) over its
  // words of flat; after another, warp 0 alone runs s = fma(alpha, s, beta) over the D steps.
  // The same values as FoldLeft<kStep1> (the returned carry is warp 0's).
  template <int kWarps>
  __device__ static Agg SpreadFold(Agg c, uint4* flat, int D, double* tot, int warp, int lane) {
    static_assert(kMaxWin <= kWarps, "kSpread: one chunk a warp");
    const int nch = (D + 31) >> 5, c0 = 32 * warp;
    const bool mine = warp < nch;
    const int n = mine ? (D - c0 < 32 ? D - c0 : 32) : 0;
    const LS b = lane < n ? UnpackS(flat[c0 + lane]) : LS{-kInfD, 0.0};
    double inc = b.m;
    if (mine) {
#pragma unroll
      for (int d = 1; d < 32; d <<= 1) {
        const double y = __shfl_down_sync(0xffffffffu, inc, d);
        if (lane + d < 32) inc = NMaxLS(y, inc);
      }
      if (lane == 0) tot[warp] = inc;
    }
    __syncthreads();
    double2* ab = reinterpret_cast<double2*>(flat);
    if (mine) {
      double cm = c.m;
      for (int i = nch - 1; i > warp; --i) cm = NMaxLS(cm, tot[i]);
      const double after = __shfl_down_sync(0xffffffffu, inc, 1);
      const double am = lane == 31 ? cm : NMaxLS(cm, after);
      double arg, al, be;
      const int mode = LsMode(am, b.m, &arg);
      LsAB(mode, exp(arg), b.s, &al, &be);
      if (lane < n) ab[c0 + lane] = make_double2(al, be);
    }
    __syncthreads();
    if (warp != 0) return c;
    double m = c.m;
    const double sv =
        FoldSeq(c.s, D, [&](int l) { return ab[l]; }, [](double x, double2 q) { return fma(q.x, x, q.y); });
    for (int i = nch - 1; i >= 0; --i) m = NMaxLS(m, tot[i]);
    return LS{m, sv};
  }
  // exp(a - b), the difference taken exactly (LseFast::ExpDiff); 0 for a = -inf.
  __device__ static float ExpDiff(float a, float b) {
    const float s = a - b;
    const float bb = s - a;
    const float err = (a - (s - bb)) + (-b - bb);
    const float e = expf(s);
    const float r = fmaf(e, err, e);
    return a == -kInfF ? 0.f : r;
  }
  __device__ static float MaxNaN(float a, float b) {
    float r;
    asm("max.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
    return r;
  }
  // The shared decision (smem[0..5]): fast (1/0), R, f, base0 (as two floats: hi, lo of a double).
  template <int kThreads, int kItems, bool kCheap, bool kFew = false>
  struct Work {
    float Rt;        // the tile's max
    bool fast_agg;   // the tile's aggregate from the float terms
    double before;   // fast: the lane's exclusive sum of terms against Rt, in the tile
    double total;    // fast: the tile's
    LS ebefore;      // exact: the lane's exclusive state in the tile (when computed)
    LS etotal;
    bool exact_done;
    // The rare paths walk local copies in loops that are not unrolled (as the library's
    // ColumnSlow), so that the unrolled fast path keeps its registers.
    __device__ void Exact(const float (&x)[kItems], LS* smem) {
#ifdef SCAN1D_FAST_ONLY
      exact_done = true;
      return;
#endif
      float xl[kItems];
      double m = -kInfD;
      bool nan = false, pinf = false;
#pragma unroll
      for (int j = 0; j < kItems; ++j) {
        xl[j] = x[j];
        nan |= x[j] != x[j];
        pinf |= x[j] == kInfF;
        m = x[j] > m ? static_cast<double>(x[j]) : m;
      }
      double s = 0.0;
      if (m != -kInfD) {
#pragma unroll 1
        for (int j = 0; j < kItems; ++j) s += xl[j] == -kInfF ? 0.0 : exp(static_cast<double>(xl[j]) - m);
      }
      LS mine{m, s};
      if (pinf) mine = LS{kInfD, 1.0};
      if (nan) mine = LS{NAN, NAN};
      BlockScan<kThreads>(mine, LSF{}, LS{-kInfD, 0.0}, smem, &ebefore, &etotal);
      exact_done = true;
    }
    __device__ void Prepare(const float (&x)[kItems], float* fsm, LS* smem, float (&e)[kItems]) {
      constexpr int kWarps = kThreads / 32;
      float hi = -kInfF, lo = kInfF;
      // The min takes -inf in (one instruction an element); only a warp that met one (holes,
      // padding) counts again without them, as the library's Range.
#pragma unroll
      for (int j = 0; j < kItems; ++j) {
        hi = MaxNaN(hi, x[j]);
        lo = fminf(lo, x[j]);
      }
#pragma unroll
      for (int d = 16; d > 0; d >>= 1) {
        hi = MaxNaN(hi, __shfl_xor_sync(0xffffffffu, hi, d));
        lo = fminf(lo, __shfl_xor_sync(0xffffffffu, lo, d));
      }
      if (lo == -kInfF) {  // uniform over the warp
        lo = kInfF;
#pragma unroll
        for (int j = 0; j < kItems; ++j) lo = x[j] == -kInfF ? lo : fminf(lo, x[j]);
#pragma unroll
        for (int d = 16; d > 0; d >>= 1) lo = fminf(lo, __shfl_xor_sync(0xffffffffu, lo, d));
      }
      const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
      if (lane == 0) {
        fsm[2 * warp] = hi;
        fsm[2 * warp + 1] = lo;
      }
      __syncthreads();
      hi = -kInfF;
      lo = kInfF;
#pragma unroll
      for (int w = 0; w < kWarps; ++w) {
        hi = MaxNaN(hi, fsm[2 * w]);
        lo = fminf(lo, fsm[2 * w + 1]);
      }
      if (!kFew) __syncthreads();
      Rt = hi;
      fast_agg = isfinite(hi) && lo >= hi - kSpan;  // no NaN, +inf, all -inf, or wide range
      exact_done = false;
      if (fast_agg) {
        float t;
        if (kCheap) {  // pairwise tree of the terms
          float p[kItems];
#pragma unroll
          for (int j = 0; j < kItems; ++j) p[j] = e[j] = ExpDiff(x[j], hi);
#pragma unroll
          for (int w = 1; w < kItems; w <<= 1) {
#pragma unroll
            for (int j = 0; j + w < kItems; j += 2 * w) p[j] += p[j + w];
          }
          t = p[0];
          BlockScan<kThreads>(static_cast<double>(t), AddD{}, 0.0, reinterpret_cast<double*>(smem), &before, &total);
        } else {
          float sh = 0.f, sl = 0.f;
#pragma unroll
          for (int j = 0; j < kItems; ++j) {
            e[j] = ExpDiff(x[j], hi);
            const float s = sh + e[j];
            const float bb = s - sh;
            sl += (sh - (s - bb)) + (e[j] - bb);
            sh = s;
          }
          BlockScan<kThreads, kFew>(static_cast<double>(sh) + static_cast<double>(sl), AddD{}, 0.0,
                                    reinterpret_cast<double*>(smem), &before, &total);
        }
      } else {
        Exact(x, smem);
      }
    }
    __device__ Agg Aggregate() const { return fast_agg ? LS{static_cast<double>(Rt), total} : etotal; }
    // Warp 0, after the look-back: whether the tile's outputs take the fast path, R, f, base0
    // (lane 0 writes them): the library's decision (lse_block_decide.cuh, LseBlockTile::Decide)
    // with kLeanV on both sides. Two float64 exps on lanes 0 and 1 at once, then two logs: the
    // chain on every tile's critical path is two transcendentals deep, not four.
    __device__ void Decide(Agg c, float* d, int lane) const {
      phi::funcs::scan_gpu::LseDecideTile(c.m, c.s, fast_agg, Rt, total, kSpan, kLeanV, kLeanV, d, lane);
    }
    // Fast (d[0] != 0): o from the terms e; else o holds the tile's x again (the caller reloads
    // it: x is not kept live across the look-back) and is replaced by the outputs.
    __device__ void Finish(Agg carry, const float* d, const float (&e)[kItems], bool exclusive, float (&o)[kItems],
                           LS* smem) {
      if (d[0] != 0.f) {
        const float R = d[1], ff = d[2];
        const double base0 = reinterpret_cast<const double*>(d)[2], fd = reinterpret_cast<const double*>(d)[3];
        float s = static_cast<float>(fma(fd, before, base0));
#pragma unroll
        for (int j = 0; j < kItems; ++j) {
          if (!exclusive) s = fmaf(ff, e[j], s);
          float l;
          asm("lg2.approx.ftz.f32 %0, %1;" : "=f"(l) : "f"(s));
          o[j] = fmaf(l, 0.693147180559945309f, R);
          if (exclusive) s = fmaf(ff, e[j], s);
        }
        return;
      }
      SlowFinish(carry, o, exclusive, o, smem);
    }
    __device__ void SlowFinish(Agg carry, const float (&x)[kItems], bool exclusive, float (&o)[kItems], LS* smem) {
      // (x and o may be the same array: x is copied first.)
#ifdef SCAN1D_FAST_ONLY  // instruction counts of the fast path alone (results wrong on slow tiles)
      return;
#endif
      if (!exact_done) Exact(x, smem);  // uniform over the block
      LS p = CombineLS(carry, ebefore);
      float xl[kItems], ol[kItems];
#pragma unroll
      for (int j = 0; j < kItems; ++j) xl[j] = x[j];
#pragma unroll 1
      for (int j = 0; j < kItems; ++j) {
        if (exclusive) ol[j] = ValueLS(p);
        const float xv = xl[j];
        LS t{static_cast<double>(xv), xv == -kInfF ? 0.0 : 1.0};
        if (xv != xv) t = LS{NAN, NAN};
        p = CombineLS(p, t);
        if (!exclusive) ol[j] = ValueLS(p);
      }
#pragma unroll
      for (int j = 0; j < kItems; ++j) o[j] = ol[j];
    }
  };
};

// ---- the kernel -------------------------------------------------------------------------------
template <typename Op, int kFlags = 0>
__device__ __forceinline__ typename Op::Agg Wait(const Status& st, int64_t slot) {
  uint4 w = LoadWord(st.word + slot);
  if ((kFlags & kSpin) != 0) {
    while (!Op::Ready(w)) w = LoadWord(st.word + slot);
  } else if ((kFlags & kFixedNs) != 0) {
    while (!Op::Ready(w)) {
      __nanosleep(32);
      w = LoadWord(st.word + slot);
    }
  } else {
    for (unsigned ns = 32; !Op::Ready(w); ns = ns < 256 ? 2 * ns : ns) {
      __nanosleep(ns);
      w = LoadWord(st.word + slot);
    }
  }
  return Op::Unpack(w);
}

// kIncl's look-back (warp 0 of tile t > 0 of a line; tile t has published its aggregate A_t,
// state AGG, before it). Lane l reads the word of tile t - 1 - l - 32w (window w = 0, 1, ...) and
// reads again until every word below the nearest INCL (the smallest lane holding one) is at least
// AGG. With an INCL at tile j: carry = P_j, then carry = Canon(Combine(carry, A_k)) for k = j + 1
// .. t - 1 in increasing k (FoldLeft, from the aggregates kept in flat: flat[i] is tile t - 1 - i),
// and that is P_{t-1}, the prefix before tile t; the caller publishes P_t = Canon(Combine(P_{t-1},
// A_t)) as INCL. With none: the window's 32 aggregates kept, the next window; after kMaxWin
// windows the farthest one is read again until an INCL shows up (its tiles are older than t and
// wait only on older ones, so one does).
// Determinism: tile 0 of a line publishes P_0 = Canon(A_0) straight away as INCL (never a
// Combine with the identity), and every P_t (t > 0) is Canon(Combine(P_{t-1}, A_t)), whichever j
// tile t found. By induction P_j is the left fold
//   Canon(Combine(... Canon(Combine(P_0, A_1)) ..., A_j)),
// so folding A_{j+1}, ..., A_{t-1} onto it in order runs the same operations on the same values
// as folding from any other INCL j' < t: the carry and P_t are the same bits every run, however
// the tiles' timing moved the INCLs. (Canon makes what a word holds what was computed: the
// cumsum's state bits live in lo; logcumsumexp's word holds its state apart, Canon the identity.
// FoldLeft's steps are Combine's own operations: LseV's splits CombineLS as LsMode / LsStep.)
// One window's poll: lane l's word of tile k (none for k < 0), read again until every word
// nearer than the nearest INCL (with none, all 32) is at least AGG, and, with none, until one
// shows up unless `onward` (the caller may move to the next window). Returns the INCL lanes.
template <typename Op, int kFlags>
__device__ __forceinline__ unsigned PollWindow(const Status& st, int64_t row, int64_t k, bool onward, unsigned* ns,
                                               uint4* word) {
  for (;;) {
    if (k >= 0) *word = LoadWord(st.word + st.Slot(row, 0, k));
    const unsigned state = k >= 0 ? Op::State(*word) : 0u;
    const unsigned incl = __ballot_sync(0xffffffffu, state == kStIncl);
    const unsigned pending = __ballot_sync(0xffffffffu, k >= 0 && state == 0u);
    const unsigned below = incl != 0u ? (incl & (0u - incl)) - 1u : 0xffffffffu;  // lanes nearer than it
    if ((pending & below) == 0u && (incl != 0u || onward)) return incl;
    if ((kFlags & kSpin) != 0) continue;
    __nanosleep((kFlags & kFixedNs) != 0 ? 32u : *ns);
    *ns = *ns < 256 ? 2 * *ns : *ns;
  }
}
template <typename Op, int kFlags>
__device__ __forceinline__ int LookBackInclPoll(const Status& st, int64_t row, int64_t t, uint4* flat, int lane,
                                                uint4* incl_word) {
  unsigned ns = 32;
  for (int w = 0;;) {
    const int64_t k = t - 1 - (int64_t{w} * 32 + lane);
    uint4 word = make_uint4(0u, 0u, 0u, 0u);
    const unsigned incl = PollWindow<Op, kFlags>(st, row, k, w + 1 < kMaxWin, &ns, &word);
    if (incl != 0u) {
      const int jl = __ffs(static_cast<int>(incl)) - 1;
      if (lane < jl) flat[w * 32 + lane] = word;
      *incl_word = make_uint4(__shfl_sync(0xffffffffu, word.x, jl), __shfl_sync(0xffffffffu, word.y, jl),
                              __shfl_sync(0xffffffffu, word.z, jl), __shfl_sync(0xffffffffu, word.w, jl));
      __syncwarp();
      return w * 32 + jl;
    }
    flat[w * 32 + lane] = word;  // every word AGG: the aggregates A_{t-1-32w-lane}
    ++w;
  }
}
template <typename Op, int kFlags>
__device__ __forceinline__ typename Op::Agg LookBackIncl(const Status& st, int64_t row, int64_t t, uint4* flat,
                                                         int lane) {
  uint4 pw;
  const int D = LookBackInclPoll<Op, kFlags>(st, row, t, flat, lane, &pw);
  return Op::template FoldLeft<kFlags>(Op::UnpackS(pw), flat, D, lane);
}

// kExact: P_t's Wide in 4 words of 3 payload words each (l[0..4] as 10 halves, then sp), the
// first word of each a tag (1: written), so that a reader takes the 4 words only when all four
// are tagged: each 16-byte word is single-copy atomic, the four together need no fence.
__device__ __forceinline__ void WidePut(const Status& st, int64_t idx, const Wide& w, int lane) {
  unsigned h[12];
#pragma unroll
  for (int i = 0; i < kWL; ++i) {
    h[2 * i] = static_cast<unsigned>(w.l[i]);
    h[2 * i + 1] = static_cast<unsigned>(w.l[i] >> 32);
  }
  h[10] = __float_as_uint(w.sp);
  h[11] = 0;
  if (lane < 4) {
    unsigned a = h[0], b = h[1], c = h[2];
#pragma unroll
    for (int k = 1; k < 4; ++k) {
      if (lane == k) {
        a = h[3 * k];
        b = h[3 * k + 1];
        c = h[3 * k + 2];
      }
    }
    StoreWord(st.wide + idx * 4 + lane, make_uint4(1u, a, b, c));
  }
}
// One lane's read of P_k's Wide (polled until all four words are tagged).
__device__ __forceinline__ Wide WideGet(const Status& st, int64_t idx) {
  uint4 q[4];
  for (unsigned ns = 32;; ns = ns < 256 ? 2 * ns : ns) {
#pragma unroll
    for (int k = 0; k < 4; ++k) q[k] = LoadWord(st.wide + idx * 4 + k);
    if ((q[0].x & q[1].x & q[2].x & q[3].x) != 0u) break;
    __nanosleep(ns);
  }
  const unsigned h[12] = {q[0].y, q[0].z, q[0].w, q[1].y, q[1].z, q[1].w,
                          q[2].y, q[2].z, q[2].w, q[3].y, q[3].z, q[3].w};
  Wide r;
#pragma unroll
  for (int i = 0; i < kWL; ++i) r.l[i] = (static_cast<unsigned long long>(h[2 * i + 1]) << 32) | h[2 * i];
  r.sp = __uint_as_float(h[10]);
  return r;
}
// kExact's look-back (cumsum, warp 0 of tile t > 0): CUB's. Lane l reads tile t - 1 - l - 32w's
// word until every word nearer than the nearest INCL (or, with none, all 32) is at least AGG;
// the window's aggregates nearer than the INCL, converted exactly (ToWideDD), and the INCL's
// Wide (lane jl) summed as a warp tree and added to the windows before; with no INCL, the next
// window. Exact sums: the same bits whichever INCL was found and in whatever order. Returns the
// Wide sum of A_0 .. A_{t-1} on every lane.
template <typename Op, int kFlags>
__device__ __forceinline__ Wide LookBackExact(const Status& st, int64_t row, int64_t t, int lane) {
  Wide acc = ZeroW();
  unsigned ns = 32;
  for (int64_t w = 0;; ++w) {
    const int64_t k = t - 1 - (w * 32 + lane);
    uint4 word = make_uint4(0u, 0u, 0u, 0u);
    const unsigned incl = PollWindow<Op, kFlags>(st, row, k, true, &ns, &word);
    const int jl = incl != 0u ? __ffs(static_cast<int>(incl)) - 1 : 32;
    Wide v = ZeroW();
    if (lane < jl && k >= 0) v = ToWideDD(Op::UnpackS(word));
    if (lane == jl) v = WideGet(st, row * st.n + k);
    acc = AddW(acc, WarpSumW(v));
    if (incl != 0u) return acc;
  }
}

template <typename Op, int kThreads, int kItems, int kMinBlocks, bool kPersist, bool kCheap, int kFlags = 0>
__global__ void __launch_bounds__(kThreads, kMinBlocks) Tile1DKernel(Params p, Status st) {
  using Agg = typename Op::Agg;
  constexpr bool kFew = (kFlags & kFewBar) != 0;
  static_assert(!(kFew && kPersist), "kFewBar: one tile a block");
  using W = typename Op::template Work<kThreads, kItems, kCheap, kFew>;
  constexpr int kWarps = kThreads / 32;
  constexpr int64_t kTile = int64_t{kThreads} * kItems;
  constexpr bool kLse = std::is_same<Op, LseV>::value;
  using S = typename std::conditional<kLse, LS, DD>::type;
  __shared__ S scan_smem[kWarps + 1];
  __shared__ alignas(16) float fsm[2 * kWarps > 8 ? 2 * kWarps : 8];
  __shared__ Agg carry_smem;
  __shared__ unsigned long long tickets[2];
  __shared__ uint4 lb_flat[(kFlags & kIncl) != 0 ? kMaxWin * 32 : 1];  // kIncl: the kept aggregates
  __shared__ double lb_tot[(kFlags & kSpread) != 0 ? kMaxWin : 1];        // kSpread: the chunks' maxima
  __shared__ int lb_n;                                                    // kSpread: D (-1: tile 0)
  __shared__ uint4 lb_pw;                                                 // kSpread: P_j's word
  __shared__ float4 obuf[kWarps][32 * kItems / 4];
  __shared__ float4 stage[kPersist ? kThreads * kItems / 4 : 1];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int64_t total_tiles = p.rows * p.ntiles;

  if (threadIdx.x == 0) tickets[0] = atomicAdd(st.ticket, 1ull);
  __syncthreads();
  int64_t tile = static_cast<int64_t>(tickets[0]);
  float x[kItems];
  auto load = [&](int64_t tl, float (&v)[kItems]) {
    const int64_t row = tl / p.ntiles, t = tl - row * p.ntiles;
    const int64_t g0 = t * kTile + int64_t{warp} * 32 * kItems;
    const int64_t first = g0 + int64_t{lane} * kItems;
    const bool full = p.vec && g0 + 32 * kItems <= p.L;
    Io<kItems>::Load(p.x, row * p.L, p.L, first, full, p.reverse, Op::kPad, v);
  };
  // kPersist: the next tile copied to shared memory by cp.async (each thread its own 16-byte
  // chunks, swizzled so that a quarter warp's reads hit distinct banks), read back by the same
  // thread after this tile's stores.
  auto stage_slot = [&](int c) { return threadIdx.x * (kItems / 4) + (c ^ ((threadIdx.x >> 1) & (kItems / 4 - 1))); };
  auto full_tile = [&](int64_t tl) {
    const int64_t row = tl / p.ntiles, t = tl - row * p.ntiles;
    return p.vec && (t + 1) * kTile <= p.L;
  };
  auto store = [&](int64_t row, int64_t t) {
    const int64_t g0 = t * kTile + int64_t{warp} * 32 * kItems;
    const int64_t first = g0 + int64_t{lane} * kItems;
    const bool full = p.vec && g0 + 32 * kItems <= p.L;
    Io<kItems>::Store(p.out, row * p.L, p.L, g0, first, full, p.reverse, x, reinterpret_cast<float*>(obuf[warp]));
  };
  if (tile < total_tiles) load(tile, x);
  int it = 0;
  while (tile < total_tiles) {
    const int64_t row = tile / p.ntiles, t = tile - row * p.ntiles;
    if constexpr ((kFlags & kLdSt) != 0) {  // diagnostic: the copy floor
      static_assert(!kPersist, "diagnostics: one tile a block");
      store(row, t);
      break;
    }
    int64_t next = total_tiles;
    bool next_staged = false;
    if (kPersist) {  // the next tile's ticket and copies, before this tile's look-back
      if (threadIdx.x == 0) tickets[(it + 1) & 1] = atomicAdd(st.ticket, 1ull);
      __syncthreads();
      next = static_cast<int64_t>(tickets[(it + 1) & 1]);
      next_staged = next < total_tiles && full_tile(next);
      if (next_staged) {
        const int64_t nrow = next / p.ntiles, nt = next - nrow * p.ntiles;
        const int64_t first = nt * kTile + int64_t{warp} * 32 * kItems + int64_t{lane} * kItems;
        const float* src = p.x + (p.reverse ? nrow * p.L + p.L - first - kItems : nrow * p.L + first);
#pragma unroll
        for (int c = 0; c < kItems / 4; ++c) {
          const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(&stage[stage_slot(c)]));
          asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(src + 4 * c) : "memory");
        }
        asm volatile("cp.async.commit_group;" ::: "memory");
      }
    }
    W w;
    Agg carry = Op::Identity();
    float e[kItems];
    if constexpr (kLse) {
      w.Prepare(x, fsm, scan_smem, e);
    } else {
      w.Prepare(x, scan_smem);
    }
    if constexpr ((kFlags & kNoScan) != 0) {  // diagnostic: terms and block scan only
      static_assert(!kPersist, "diagnostics: one tile a block");
#pragma unroll
      for (int j = 0; j < kItems; ++j) {
        if constexpr (kLse) {
          x[j] = w.fast_agg ? e[j] + static_cast<float>(w.before) : x[j];
        } else {
          x[j] += static_cast<float>(w.before.hi);
        }
      }
      store(row, t);
      break;
    }
    bool decided = false;
    if ((kFlags & kNoLB) != 0 && p.ntiles > 1) {  // diagnostic: a stand-in carry, no waits
      if constexpr (kLse) {
        if (t > 0 && w.fast_agg) carry = LS{static_cast<double>(w.Rt), fmax(2.0, static_cast<double>(t) * w.total)};
      }
      if (threadIdx.x == 0) carry_smem = carry;
      __syncthreads();
      carry = carry_smem;
    } else if ((kFlags & kExact) != 0 && p.ntiles > 1) {
      static_assert((kFlags & kExact) == 0 || (!kPersist && !kLse), "kExact: cumsum, one tile a block");
      if constexpr (!kLse) {
        if (warp == 0) {  // publish A_t (AGG), look back, publish P_t (its Wide, then INCL)
          const Agg a = Op::Canon(w.Aggregate());
          const int64_t slot = st.Slot(row, 0, t);
          const Wide aw = ToWideDD(a);
          if (t == 0) {
            WidePut(st, row * st.n, aw, lane);
            if (lane == 0) StoreWord(st.word + slot, Op::PackS(a, kStIncl));
          } else {
            if (lane == 0) StoreWord(st.word + slot, Op::PackS(a, kStAgg));
            const Wide cw = LookBackExact<Op, kFlags>(st, row, t, lane);
            WidePut(st, row * st.n + t, AddW(cw, aw), lane);
            if (lane == 0) StoreWord(st.word + slot, Op::PackS(a, kStIncl));
            carry = FromWide(cw);
          }
          if (lane == 0) carry_smem = carry;
        }
        __syncthreads();
        carry = carry_smem;
      }
    } else if ((kFlags & kSpread) != 0 && p.ntiles > 1) {
      static_assert((kFlags & kSpread) == 0 || (kLse && !kPersist && (kFlags & kStep1) != 0),
                    "kSpread: logcumsumexp with kStep1, one tile a block");
      if constexpr (kLse) {
        const Agg a = Op::Canon(w.Aggregate());
        const int64_t slot = st.Slot(row, 0, t);
        if (warp == 0) {  // publish A_t (AGG) and poll, as kIncl; tile 0: P_0 = A_0
          if (t == 0) {
            if (lane == 0) {
              StoreWord(st.word + slot, Op::PackS(a, kStIncl));
              lb_n = -1;
            }
          } else {
            if (lane == 0) StoreWord(st.word + slot, Op::PackS(a, kStAgg));
            uint4 pw;
            const int D = LookBackInclPoll<Op, kFlags>(st, row, t, lb_flat, lane, &pw);
            if (lane == 0) {
              lb_n = D;
              lb_pw = pw;
            }
          }
        }
        __syncthreads();
        const int D = lb_n;
        if (D >= 0) {  // uniform
          carry = Op::template SpreadFold<kWarps>(Op::UnpackS(lb_pw), lb_flat, D, lb_tot, warp, lane);
          if (warp == 0 && lane == 0) StoreWord(st.word + slot, Op::PackS(Op::Canon(StepLS(carry, a)), kStIncl));
        }
        if (warp == 0) {
          if (lane == 0) carry_smem = carry;
          if constexpr (kFew) w.Decide(carry, fsm, lane);  // under the carry's barrier
        }
        __syncthreads();
        carry = carry_smem;
        decided = kFew;
      }
    } else if ((kFlags & kIncl) != 0 && p.ntiles > 1) {
      static_assert((kFlags & kIncl) == 0 || !kPersist, "kIncl: one tile a block");
      if (warp == 0) {  // publish A_t (AGG), look back, publish P_t (INCL); tile 0: P_0 = A_0
        const Agg a = Op::Canon(w.Aggregate());
        const int64_t slot = st.Slot(row, 0, t);
        if (t == 0) {
          if (lane == 0) StoreWord(st.word + slot, Op::PackS(a, kStIncl));
        } else {
          if (lane == 0) StoreWord(st.word + slot, Op::PackS(a, kStAgg));
          carry = LookBackIncl<Op, kFlags>(st, row, t, lb_flat, lane);
          const Agg pt = Op::Canon(Op::template InclStep<kFlags>(carry, a));
          if (lane == 0) StoreWord(st.word + slot, Op::PackS(pt, kStIncl));
        }
        if (lane == 0) carry_smem = carry;
        if constexpr (kLse && kFew) w.Decide(carry, fsm, lane);  // under the carry's barrier
      }
      __syncthreads();
      carry = carry_smem;
      decided = kFew;
    } else if (p.ntiles > 1) {
      const Agg a = w.Aggregate();
      if (threadIdx.x == 32 || (kWarps == 1 && threadIdx.x == 0)) {  // publish, then the tree's upper levels
        StoreWord(st.word + st.Slot(row, 0, t), Op::Pack(a));
        Agg up = a;
        for (int b = 1; (t >> (b - 1)) & 1; ++b) {
          const int64_t right = t >> (b - 1);
          up = Op::Combine(Wait<Op, kFlags>(st, st.Slot(row, b - 1, right - 1)), up);
          StoreWord(st.word + st.Slot(row, b, t >> b), Op::Pack(up));
        }
      }
      if (warp == 0) {  // the look-back: lane l waits for the l-th block from the top
        const int nbits = __popcll(static_cast<unsigned long long>(t));
        Agg mine = Op::Identity();
        if (lane < nbits) {
          int b = 63, seen = -1;
          for (; b >= 0; --b) {
            if (((t >> b) & 1) && ++seen == lane) break;
          }
          mine = Wait<Op, kFlags>(st, st.Slot(row, b, (t >> b) - 1));
        }
        for (int l = 0; l < nbits; ++l) carry = Op::Combine(carry, ShflIdx(mine, l));
        if (lane == 0) carry_smem = carry;
        if constexpr (kLse && kFew) w.Decide(carry, fsm, lane);  // under the carry's barrier
      }
      __syncthreads();
      carry = carry_smem;
      decided = kFew;
    }
    if constexpr (kLse) {
      if (!decided) {
        if (warp == 0) w.Decide(carry, fsm, lane);
        __syncthreads();
      }
#ifndef SCAN1D_FAST_ONLY
      if (fsm[0] == 0.f) load(tile, x);  // the rare exact path reads the tile again
#endif
      w.Finish(carry, fsm, e, p.exclusive, x, scan_smem);
    } else {
      w.Finish(carry, x, p.exclusive);
    }
    store(row, t);
    if (!kPersist) break;
    __syncthreads();  // fsm, carry_smem reused
    if (next_staged) {
      asm volatile("cp.async.wait_all;" ::: "memory");
#pragma unroll
      for (int c = 0; c < kItems / 4; ++c) {
        const float4 q = stage[stage_slot(c)];
        const float w4[4] = {q.x, q.y, q.z, q.w};
#pragma unroll
        for (int j = 0; j < 4; ++j) {
          if (p.reverse) {
            x[kItems - 1 - (4 * c + j)] = w4[j];
          } else {
            x[4 * c + j] = w4[j];
          }
        }
      }
    } else if (next < total_tiles) {
      load(next, x);
    }
    tile = next;
    ++it;
  }
}

// Status bytes for rows of n tiles: the ticket, then the words (zeroed by the caller).
inline int64_t PerLine(int64_t n) {
  int64_t total = 0;
  for (int64_t m = n; m > 0; m >>= 1) total += m;
  return total;
}
inline int64_t StatusBytes(int64_t rows, int64_t n) { return 256 + rows * PerLine(n) * 16; }
// kExact: n words a line, then 4 words a tile for the Wide prefixes.
inline int64_t StatusBytesExact(int64_t rows, int64_t n) { return 256 + rows * n * 5 * 16; }
inline int64_t StatusBytesMax(int64_t rows, int64_t n) {
  return std::max(StatusBytes(rows, n), StatusBytesExact(rows, n));
}

template <typename Op, int kThreads, int kItems, int kMinBlocks, bool kPersist, bool kCheap, int kFlags = 0>
void Launch(cudaStream_t stream, void* scratch, const float* x, float* out, int64_t rows, int64_t L, bool exclusive,
            bool reverse, int sms) {
  constexpr int64_t kTile = int64_t{kThreads} * kItems;
  Params p{x, out, rows, L, (L + kTile - 1) / kTile, exclusive, reverse,
           L % 4 == 0 && reinterpret_cast<uintptr_t>(x) % 16 == 0 && reinterpret_cast<uintptr_t>(out) % 16 == 0};
  Status st;
  st.ticket = static_cast<unsigned long long*>(scratch);
  st.word = reinterpret_cast<uint4*>(static_cast<char*>(scratch) + 256);
  st.n = p.ntiles;
  constexpr bool kEx = (kFlags & kExact) != 0;
  st.per_line = kEx ? p.ntiles : PerLine(p.ntiles);
  st.wide = st.word + rows * p.ntiles;  // used by kExact only
  cudaMemsetAsync(scratch, 0, kEx ? StatusBytesExact(rows, p.ntiles) : StatusBytes(rows, p.ntiles), stream);
  const auto kernel = Tile1DKernel<Op, kThreads, kItems, kMinBlocks, kPersist, kCheap, kFlags>;
  int64_t blocks = rows * p.ntiles;
  if (kPersist) {
    static int per_sm = -1;  // asked once: a host call between the memset and the launch would idle the GPU
    if (per_sm < 0) cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kThreads, 0);
    blocks = std::min<int64_t>(blocks, int64_t{std::max(per_sm, 1)} * sms);
  }
  kernel<<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(p, st);
}

}  // namespace scan1d
