// float64 logcumsumexp on the GPU engine (GpuTileScan<LogcumsumexpOp<double, double>>; included
// by kernels/gpu/logcumsumexp_tiles.cuh, whose fast tiles are for float32 and the 16-bit types).
//
// What the generic tiles do for float64 (the engine's path for every shape before this file;
// ScanGpuLaunch in scan_launch.cuh, GenericTileScan in scan_agent.cuh):
//   1-D 2^26, [64, 2^20] (fewer than 2048 rows, TileMinBlocks 1): OnePassRowKernel<8>, a warp per
//     8192-step segment, each segment read twice (its aggregate, then the rescan after the tree
//     look-back of scan_onepass.cuh);
//   [4096, 16384] last: RowScanKernel<32, 8>, a warp per row in tiles of 256 steps;
//   [2^20, 64] last: StagedRowKernel (scan_staged_rows.cuh, 8-byte rows of <= 128 steps);
//   [16384, 4096] axis 0 and [32, 4, 2048, 128] axis 2: the column three phases
//     (ColumnScanKernel<1>, ScanSegmentTotals, ColumnScanKernel<3>: each element read twice).
// Per element, all of them take LogAddExpCombine<double> states (m, compensated sum hi + lo): a
// Combine per element into the lane's (or thread's) aggregate and again into its prefix when
// storing (each a double exp, Scale's fma pair and a TwoSum), a share of the warp scan's
// Combines over 24-byte states (shuffled as six words), and Value's double log: about three
// double exps, a log and ~60 more double operations and branches per element, plus the second
// read of the segmented paths.
//
// Here (1-D tensors and few long rows; LongRows below): a thread block per tile of
// kThreads * kItems steps, read once into registers, with the tree look-back of scan_onepass.cuh
// (TileStatus::PublishUp, WarpLookback) over the op's own compensated states, so the carry is the
// same fixed tree of Combines as the generic single pass (deterministic, and a tree's accuracy:
// no chain of one rounding per tile). scan_block_rows.cuh's look-back publishes 16-byte words,
// too small for a float64 max and a compensated sum. Per element: one double exp of x - Rt
// (Rt the tile's max; the difference taken exactly, TwoSum, so |x - Rt| up to kSpan costs no
// 2^-53 |x - Rt| in the term) summed in double, and after the look-back one double log:
//   S_k = base + f * (sum of the tile's terms up to k),  out_k = R + log(S_k)
// with R = max(Rt, carry max), f = exp(Rt - R), base = carry sum * exp(carry max - R). The tile
// takes this path only where every output's log(S_k) is bounded: no NaN or +inf in it, and
// either the carry holds a finite term whose max lies within kSpan of R (S_k >= base >=
// exp(-kSpan)), or the carry is empty (a line's first tile, or after -inf only) and every finite
// element lies within kSpan of Rt (S_k >= exp(-kSpan) once a term is in). Outputs whose prefix
// holds one finite term are that term, bit for bit (docs/spec.md §1: the tile's first two finite
// steps are known from Prepare; Decide). Then |log S_k| <= max(kSpan, log n),
// and the error of out_k is the relative error of S_k (at most ~46 roundings: the thread's
// running sum, the block scan's depth, f and base, the terms' exps) plus the log's ulp of at
// most kSpan plus out's own rounding: ~7e-15 absolute at worst, inside §1's
// 1e-14 * max(1, |ref|). Every other tile (a NaN or +inf, all -inf, a rise of more than kSpan
// over its carry, a first tile wider than kSpan) reads its elements again and takes the generic
// per-element states (exact: §1's single terms and special values as the generic tiles).
// Which path a tile takes depends on the data alone.
//
// Routed (LongRows) with PO_LSE_F64_ROWS=1, the default since its H200 run of 2026-11-30 (the kernel
// harness, tools/dev/harness/lse64: every awkward case in bound, 1-D 2^26 16.3 -> 5.0 x copy,
// [64, 2^20] 19.3 -> 4.75; 0 keeps the generic single pass); rows with a carry-in keep
// the generic single pass (the engine's LongRows hook takes none; the harness drives the
// kernel with one directly).
#pragma once

#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "kernels/funcs/gpu/scan_agent.cuh"
#include "kernels/funcs/gpu/scan_block_rows.cuh"
#include "kernels/funcs/gpu/scan_onepass.cuh"
#include "kernels/impl/cum_scan_ops.h"

#ifndef PO_LSE_F64_ROWS
#define PO_LSE_F64_ROWS 1
#endif
// The warp rows (Lse64WarpRows below) for the engine's full-warp row steps: 1 since the same run
// ([4096, 16384] 6.68 -> 3.84 x copy at 4 blocks an SM, 4.03 at 3).
#ifndef PO_LSE_F64_WARP
#define PO_LSE_F64_WARP 1
#endif
// Blocks an SM the engine's float64 row kernels are compiled for (TileMinBlocks; 1 is the
// engine's default): 2 (128 registers). At 4 (64 registers) the warp rows spilled 360 bytes;
// scan harness on the H200 (2026-11-30, fifteenth session), x copy, 4 -> 2: [4096, 16384] 3.83 ->
// 3.39, [2^16, 256] 8.08 -> 7.68, [2^15, 512] 7.29 -> 6.35; the column phases lost at 2 (axis 0
// 4.87 -> 6.30, axis 2 5.40 -> 6.81) and keep 4 (PO_LSE_F64_COL_MIN_BLOCKS).
#ifndef PO_LSE_F64_MIN_BLOCKS
#define PO_LSE_F64_MIN_BLOCKS 2
#endif
#ifndef PO_LSE_F64_COL_MIN_BLOCKS
#define PO_LSE_F64_COL_MIN_BLOCKS 4
#endif

namespace phi {
namespace funcs {
namespace scan_gpu {

template <int kThreads, int kItems>
struct Lse64BlockTile {
  using Ops = LogAddExpCombine<double>;
  using State = LogSumExpState<double>;
  static constexpr int kWarps = kThreads / 32;
  static constexpr double kInf = std::numeric_limits<double>::infinity();
  static constexpr double kSpan = 16.0;  // |log S_k| bound of the fast outputs (see the header)
  struct Shared {
    double hi[kWarps], lo[kWarps];
    unsigned flags[kWarps];
    int pos[2 * kWarps];  // each warp's first two finite steps
    double dscan[kWarps + 1];
    State sscan[kWarps + 1];
    double lo_t, x1;  // the tile's smallest finite element and its first finite one
    int p1, p2;       // the tile's first two finite steps (kNone: none)
    State carry;      // the decision (Decide), read by every thread after a barrier
    double R, f, base, sval;
    int fast, sp_lo, sp_hi;  // outputs at tile steps [sp_lo, sp_hi) are sval (single terms)
  };
  static constexpr int kNone = 0x7fffffff;
  // The two smallest of two sorted pairs.
  __device__ static void Two(int a1, int a2, int b1, int b2, int* r1, int* r2) {
    *r1 = min(a1, b1);
    *r2 = min(max(a1, b1), min(a2, b2));
  }

  // exp(a - b) with the difference taken exactly (TwoSum): exp(s + err) = exp(s) (1 + err).
  // 0 where exp(s) is 0 (a = -inf, or a - b below -745 or overflowing to -inf).
  __device__ static double ExpDiff(double a, double b) {
    const double s = a - b;
    const double bb = s - a;
    const double err = (a - (s - bb)) + (-b - bb);
    const double e = exp(s);
    const double r = fma(e, err, e);
    return e == 0.0 ? 0.0 : r;
  }
  struct AddF {
    __device__ double operator()(double a, double b) const { return a + b; }
  };
  struct CombineF {
    __device__ State operator()(const State& a, const State& b) const { return Ops::Combine(a, b); }
  };

  double Rt;         // the tile's max
  bool fast_agg;     // no NaN or +inf, not all -inf: the terms are exp(x - Rt)
  bool exact_done;   // ebefore, etotal computed
  double before;     // fast: the thread's exclusive sum of terms in the tile
  double total;      // fast: the tile's
  State ebefore, etotal;

  // The generic states (a loop that is not unrolled over a local copy, as the float32 tile's
  // Exact, so that the unrolled fast path keeps its registers): the thread's fold, a block scan.
  __device__ void Exact(const double (&x)[kItems], Shared& sh) {
    double xl[kItems];
#pragma unroll
    for (int j = 0; j < kItems; ++j) xl[j] = x[j];
    State p = Ops::Identity();
#pragma unroll 1
    for (int j = 0; j < kItems; ++j) p = Ops::Combine(p, Ops::Of(xl[j]));
    BlockScanOne<kThreads>(p, CombineF{}, Ops::Identity(), sh.sscan, &ebefore, &etotal);
    exact_done = true;
  }

  // The tile's max, smallest finite element, first two finite steps and flags; fast: x
  // replaced by its terms exp(x - Rt) and their block scan.
  __device__ void Prepare(double (&x)[kItems], Shared& sh) {
    const int r0 = static_cast<int>(threadIdx.x) * kItems;  // the thread's first step in the tile
    double hi = -kInf, lo = kInf;
    bool nan = false, pinf = false;
    int q1 = kNone, q2 = kNone;
#pragma unroll
    for (int j = 0; j < kItems; ++j) {
      nan |= x[j] != x[j];
      pinf |= x[j] == kInf;
      hi = x[j] > hi ? x[j] : hi;
      const bool fin = x[j] > -kInf && x[j] < kInf;
      lo = fin && x[j] < lo ? x[j] : lo;
      q2 = fin && q1 != kNone && q2 == kNone ? r0 + j : q2;
      q1 = fin && q1 == kNone ? r0 + j : q1;
    }
#pragma unroll
    for (int d = 16; d > 0; d >>= 1) {
      hi = fmax(hi, __shfl_xor_sync(0xffffffffu, hi, d));
      lo = fmin(lo, __shfl_xor_sync(0xffffffffu, lo, d));
      Two(q1, q2, __shfl_xor_sync(0xffffffffu, q1, d), __shfl_xor_sync(0xffffffffu, q2, d), &q1, &q2);
    }
    const unsigned fl = __reduce_or_sync(0xffffffffu, (nan ? 1u : 0u) | (pinf ? 2u : 0u));
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    if (lane == 0) {
      sh.hi[warp] = hi;
      sh.lo[warp] = lo;
      sh.flags[warp] = fl;
      sh.pos[2 * warp] = q1;
      sh.pos[2 * warp + 1] = q2;
    }
    __syncthreads();
    double r = -kInf, l = kInf;
    unsigned f = 0u;
    int p1 = kNone, p2 = kNone;
#pragma unroll
    for (int w = 0; w < kWarps; ++w) {
      r = fmax(r, sh.hi[w]);
      l = fmin(l, sh.lo[w]);
      f |= sh.flags[w];
      Two(p1, p2, sh.pos[2 * w], sh.pos[2 * w + 1], &p1, &p2);
    }
    Rt = r;
    fast_agg = f == 0u && r != -kInf;
    exact_done = false;
    if (threadIdx.x == 0) {
      sh.lo_t = l;
      sh.p1 = p1;
      sh.p2 = p2;
    }
#pragma unroll
    for (int j = 0; j < kItems; ++j) {
      if (r0 + j == p1) sh.x1 = x[j];  // read by Decide (thread 0) after the block scans' barriers
    }
    if (fast_agg) {  // uniform over the block
      double ts = 0.0;
#pragma unroll
      for (int j = 0; j < kItems; ++j) {
        x[j] = ExpDiff(x[j], r);
        ts += x[j];
      }
      BlockScanOne<kThreads>(ts, AddF{}, 0.0, sh.dscan, &before, &total);
    } else {
      Exact(x, sh);
    }
  }
  // The tile's aggregate A_t (a state of the op: Rt's own term is exp(0) = 1 in total).
  __device__ State Aggregate() const { return fast_agg ? State{Rt, CompensatedSum<double>::Of(total)} : etotal; }

  // Thread 0, after the look-back (and Prepare's barrier): whether the outputs take
  // R + log(S_k), with R, f, base, and the steps whose prefix holds a single finite term (that
  // term, bit for bit: docs/spec.md §1). An empty carry (a line's first tile, or after -inf
  // only): R = Rt, base 0, taken where every finite element lies within kSpan of Rt (a prefix of
  // two terms or more then has S_k >= exp(x_p1 - Rt) >= exp(-kSpan)); the prefixes without a
  // term give log(0) = -inf; those with one, steps [p1, p2) (exclusive: (p1, p2]), its term x1.
  // A carry of one term v: the steps before p1 (exclusive: up to p1) give v.
  __device__ void Decide(const State& c, bool exclusive, Shared& sh) const {
    const int cnt = c.m == -kInf ? 0 : (c.s.hi == 1.0 && c.s.lo == 0.0) ? 1 : 2;
    bool fast = fast_agg && c.m == c.m && c.m != kInf;
    double R = Rt, f = 1.0, base = 0.0, sval = 0.0;
    constexpr int kTile = kThreads * kItems;
    const int p1 = min(sh.p1, kTile), p2 = min(sh.p2, kTile), e = exclusive ? 1 : 0;
    int lo = 0, hi = 0;
    if (fast && cnt == 0) {
      fast = sh.lo_t >= Rt - kSpan;
      sval = sh.x1;
      lo = p1 + e;
      hi = p2 + e;
    } else if (fast) {
      R = fmax(Rt, c.m);
      fast = c.m >= R - kSpan;
      f = ExpDiff(Rt, R);
      const double g = ExpDiff(c.m, R);
      base = fma(c.s.hi, g, c.s.lo * g);
      if (cnt == 1) {
        sval = c.m;
        hi = p1 + e;
      }
    }
    sh.fast = fast ? 1 : 0;
    sh.R = R;
    sh.f = f;
    sh.base = base;
    sh.carry = c;
    sh.sval = sval;
    sh.sp_lo = lo;
    sh.sp_hi = hi;
  }

  // o: the terms (fast) in, the outputs out; reload(o) reads the tile's elements again.
  template <typename Reload>
  __device__ void Finish(bool exclusive, double (&o)[kItems], Shared& sh, Reload reload) {
    if (sh.fast != 0) {  // uniform over the block
      const double R = sh.R, f = sh.f, base = sh.base;
      double s = before;
#pragma unroll
      for (int j = 0; j < kItems; ++j) {
        const double t = o[j];
        if (!exclusive) s += t;
        o[j] = R + log(fma(f, s, base));
        if (exclusive) s += t;
      }
      const int lo = sh.sp_lo, hi = sh.sp_hi;
      if (lo < hi) {  // uniform over the block; a line's first tiles only
        const int r0 = static_cast<int>(threadIdx.x) * kItems;
        const double v = sh.sval;
#pragma unroll
        for (int j = 0; j < kItems; ++j) o[j] = r0 + j >= lo && r0 + j < hi ? v : o[j];
      }
      return;
    }
    reload(o);
    SlowFinish(exclusive, o, sh);
  }
  // The generic states' outputs (o: the elements in, the outputs out).
  __device__ void SlowFinish(bool exclusive, double (&o)[kItems], Shared& sh) {
    if (!exact_done) Exact(o, sh);  // uniform over the block
    State p = Ops::Combine(sh.carry, ebefore);
    double xl[kItems], ol[kItems];
#pragma unroll
    for (int j = 0; j < kItems; ++j) xl[j] = o[j];
#pragma unroll 1
    for (int j = 0; j < kItems; ++j) {
      if (exclusive) ol[j] = Ops::Value(p);
      p = Ops::Combine(p, Ops::Of(xl[j]));
      if (!exclusive) ol[j] = Ops::Value(p);
    }
#pragma unroll
    for (int j = 0; j < kItems; ++j) o[j] = ol[j];
  }
};

// Rows (inner == 1) of ntiles tiles each: a block per tile, in ticket order (tiles only wait on
// tiles whose blocks already run). vec: 16-byte accesses (the length even, x and out aligned).
template <int kThreads, int kItems, int kMinBlocks, typename Op>
__global__ void __launch_bounds__(kThreads, kMinBlocks)
    Lse64BlockRowKernel(Op op, LineGeometry g, int64_t rows, int64_t ntiles, TileStatus<typename Op::State> st,
                        const typename Op::State* init, bool exclusive, bool vec) {
  using State = typename Op::State;
  using Tile = Lse64BlockTile<kThreads, kItems>;
  using Group = BlockedGroup<double, kItems>;
  constexpr int kWarps = kThreads / 32;
  constexpr int64_t kTile = int64_t{kThreads} * kItems;
  __shared__ typename Tile::Shared sh;
  __shared__ uint4 obuf[kWarps][32 * Group::kNC];  // the stores' staging
  __shared__ unsigned long long ticket;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int64_t tile = DrawTileTicket(st.ticket, ticket);
  if (tile >= rows * ntiles) return;  // the whole block
  const int64_t row = tile / ntiles, t = tile - row * ntiles;
  const auto io = BlockIO<double, kItems>::ForTile(g, g.Base(row), t * kTile, vec, obuf[warp]);
  constexpr double kPad = -std::numeric_limits<double>::infinity();
  double x[kItems];
  io.Load(op.x, x, kPad);
  Tile b;
  b.Prepare(x, sh);
  const State start = init != nullptr ? init[row] : Op::Identity();
  if (ntiles > 1) {
    if (warp == 0) {
      const State a = b.Aggregate();
      if (lane == 0) st.PublishUp(op, row, t, a);
      const State c = t > 0 ? WarpLookback(op, st, row, t, start, lane) : start;
      if (lane == 0) b.Decide(c, exclusive, sh);
    }
  } else if (threadIdx.x == 0) {
    b.Decide(start, exclusive, sh);
  }
  __syncthreads();
  b.Finish(exclusive, x, sh, [&](double(&v)[kItems]) { io.Load(op.x, v, kPad); });
  io.Store(op.out, x);
}

// `rows` rows (inner == 1) of g.length steps on Lse64BlockRowKernel; init: a carry-in per row
// (null: none).
template <int kThreads, int kItems, int kMinBlocks, typename Op, typename Scratch>
void LaunchLse64Rows(cudaStream_t stream, Scratch& scratch, const LineGeometry& g, int64_t rows, bool exclusive,
                     const Op& op, const typename Op::State* init) {
  constexpr int64_t kTile = int64_t{kThreads} * kItems;
  const int64_t ntiles = (g.length + kTile - 1) / kTile;
  const auto st = MakeTileStatus<typename Op::State>(stream, scratch, rows, ntiles);
  const bool vec = g.length % 2 == 0 && reinterpret_cast<uintptr_t>(op.x) % 16 == 0 &&
                   reinterpret_cast<uintptr_t>(op.out) % 16 == 0;
  Lse64BlockRowKernel<kThreads, kItems, kMinBlocks>
      <<<static_cast<unsigned>(rows * ntiles), kThreads, 0, stream>>>(op, g, rows, ntiles, st, init, exclusive, vec);
  PADDLE_ENFORCE_GPU_SUCCESS(cudaGetLastError());
}

// A full warp's steps [s0, s1) of a row (GpuTileScan::Warp for W = 32: many rows a warp each,
// RowScanKernel, and the warp segments of the single pass, OnePassRowKernel), from `carry`, in
// tiles of 32 * kItems steps with the block tiles' arithmetic: the tile's max Rt (a warp
// reduction), float64 terms exp(x - Rt) (exact differences), kItems / 2 sub-tiles of 64 steps
// read as 16-byte pairs (lane l: steps 2l, 2l + 1 of each, coalesced), each sub-tile's pair sums
// scanned over the warp and the sub-tiles' totals added in order; outputs R + log(base + f * s)
// as Lse64BlockTile's; the carry passes as the op's compensated state, Combine(carry, (Rt,
// total)), one exp a tile, the same on every lane. A tile without NaN or +inf and not all -inf
// always gives its aggregate this way (kStore false); its outputs only where the carry holds two
// finite terms or more whose max lies within kSpan of R (a line's first tile, NaN, +inf and
// wider rises take the generic steps, WarpScanSteps, over the tile).
// The generic steps over one tile of Lse64WarpRows (not inlined: once a tile at most, and rare).
template <int kItems, bool kStore, typename Op>
__device__ __noinline__ typename Op::State Lse64WarpGeneric(const Op& op, const OpLine<Op>& line, int64_t t0,
                                                            int64_t t1, typename Op::State carry, bool exclusive,
                                                            int lane) {
  return WarpScanSteps<32, kItems, kStore>(op, line, t0, t1, carry, exclusive, lane);
}

template <int kItems, bool kStore, typename Op>
__device__ typename Op::State Lse64WarpRows(const Op& op, const OpLine<Op>& line, int64_t s0, int64_t s1,
                                            typename Op::State carry, bool exclusive, int lane) {
  using State = typename Op::State;
  using Ops = LogAddExpCombine<double>;
  using Tile = Lse64BlockTile<32, kItems>;
  static_assert(kItems % 2 == 0, "pairs of steps");
  constexpr int U = kItems / 2;
  constexpr int64_t kTile = 32 * kItems;
  constexpr double kInf = std::numeric_limits<double>::infinity();
  const int64_t L = line.g.length, base = line.base;
  const bool rev = line.g.reverse;
  const bool vec = L % 2 == 0 && reinterpret_cast<uintptr_t>(op.x) % 16 == 0 &&
                   (!kStore || reinterpret_cast<uintptr_t>(op.out) % 16 == 0);
  for (int64_t t0 = s0; t0 < s1; t0 += kTile) {
    const int64_t t1 = t0 + kTile < s1 ? t0 + kTile : s1;
    double v[U][2];
    double hi = -kInf;
    bool bad = false;
#pragma unroll
    for (int u = 0; u < U; ++u) {
      v[u][0] = -kInf;
      v[u][1] = -kInf;
      LoadRowRaw<double, 2>(op.x, base, L, rev, t0 + 64 * u + 2 * lane, t1, vec, v[u]);
#pragma unroll
      for (int k = 0; k < 2; ++k) {
        bad |= v[u][k] != v[u][k] || v[u][k] == kInf;
        hi = v[u][k] > hi ? v[u][k] : hi;
      }
    }
#pragma unroll
    for (int d = 16; d > 0; d >>= 1) hi = fmax(hi, __shfl_xor_sync(0xffffffffu, hi, d));
    bad = __any_sync(0xffffffffu, bad);
    const double Rt = hi;
    bool fast = !bad && Rt != -kInf;  // uniform over the warp
    double R = Rt, f = 1.0, b0 = 0.0;
    if (kStore && fast) {
      const bool two = carry.m != -kInf && !(carry.s.hi == 1.0 && carry.s.lo == 0.0);
      fast = two && carry.m == carry.m && carry.m != kInf;
      if (fast) {
        R = fmax(Rt, carry.m);
        fast = carry.m >= R - Tile::kSpan;
        f = Tile::ExpDiff(Rt, R);
        const double g = Tile::ExpDiff(carry.m, R);
        b0 = fma(carry.s.hi, g, carry.s.lo * g);
      }
    }
    if (!fast) {
      carry = Lse64WarpGeneric<kItems, kStore>(op, line, t0, t1, carry, exclusive, lane);
      continue;
    }
    double T = 0.0, ex[U];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      v[u][0] = Tile::ExpDiff(v[u][0], Rt);
      v[u][1] = Tile::ExpDiff(v[u][1], Rt);
      double incl = v[u][0] + v[u][1];
#pragma unroll
      for (int d = 1; d < 32; d <<= 1) {
        const double y = __shfl_up_sync(0xffffffffu, incl, d);
        if (lane >= d) incl += y;
      }
      const double e = __shfl_up_sync(0xffffffffu, incl, 1);
      ex[u] = T + (lane == 0 ? 0.0 : e);
      T += __shfl_sync(0xffffffffu, incl, 31);
    }
    if constexpr (kStore) {
#pragma unroll
      for (int u = 0; u < U; ++u) {
        double s = ex[u], o[2];
#pragma unroll
        for (int k = 0; k < 2; ++k) {
          const double t = v[u][k];
          if (!exclusive) s += t;
          o[k] = R + log(fma(f, s, b0));
          if (exclusive) s += t;
        }
        StoreRowRaw<double, 2>(op.out, base, L, rev, t0 + 64 * u + 2 * lane, t1, vec, o);
      }
    }
    carry = Ops::Combine(carry, State{Rt, CompensatedSum<double>::Of(T)});
  }
  return carry;
}

// Which float64 rows (of those the engine cuts into segments: fewer than 2048 rows, no carry-in)
// take the block tiles: the float32 rule (LseBlockRowsFor's numbers), not yet measured for
// float64.
inline bool Lse64BlockRowsFor(int64_t rows, int64_t length) {
  return length >= (int64_t{1} << 18) || (length >= (int64_t{1} << 16) && rows <= 128);
}

// float64 logcumsumexp: the generic tiles, its short rows staged (scan_staged_rows.cuh), with
// PO_LSE_F64_ROWS its 1-D tensors and few long rows on Lse64BlockRowKernel (256 threads of 16
// steps, 3 blocks an SM: the harness's b256i16mb3), and with PO_LSE_F64_WARP its full-warp row
// steps (many rows, and the warp segments) on Lse64WarpRows.
template <>
struct GpuTileScan<LogcumsumexpOp<double, double>, void> : GenericTileScan<LogcumsumexpOp<double, double>> {
  using Op = LogcumsumexpOp<double, double>;
  using State = Op::State;
  static constexpr bool kStagedRows = true;
  static constexpr bool kOwnLongRows = PO_LSE_F64_ROWS != 0;
  static constexpr int kMinBlocks = PO_LSE_F64_MIN_BLOCKS;
  static constexpr int kColumnScanMinBlocks = PO_LSE_F64_COL_MIN_BLOCKS;
  static constexpr int64_t kRowTarget = ScanPolicy::kWarpRowsFrom;  // a warp a row from 1024 rows
  static constexpr int kBlockThreads = 256, kBlockItems = 16, kBlockMinBlocks = 3;
  template <typename Scratch>
  static bool LongRows(cudaStream_t stream, Scratch& scratch, const LineGeometry& g, int64_t rows, bool exclusive,
                       const Op& op) {
    if (g.inner != 1 || !Lse64BlockRowsFor(rows, g.length)) return false;
    LaunchLse64Rows<kBlockThreads, kBlockItems, kBlockMinBlocks>(stream, scratch, g, rows, exclusive, op, nullptr);
    return true;
  }
  // Full warps (W = 32) on Lse64WarpRows with PO_LSE_F64_WARP; logical warps of fewer lanes
  // (short rows that are not staged) keep the generic steps.
  template <int W, int kItems, bool kStore>
  __device__ static State Warp(const Op& op, const OpLine<Op>& line, int64_t s0, int64_t s1, State carry,
                               bool exclusive, int lane) {
    if constexpr (PO_LSE_F64_WARP != 0 && W == 32 && kItems % 2 == 0) {
      return Lse64WarpRows<kItems, kStore>(op, line, s0, s1, carry, exclusive, lane);
    } else {
      return GenericTileScan<Op>::template Warp<W, kItems, kStore>(op, line, s0, s1, carry, exclusive, lane);
    }
  }
};

}  // namespace scan_gpu
}  // namespace funcs
}  // namespace phi
