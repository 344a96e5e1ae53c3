// Full-warp row tiles for logcumsumexp's gradient (LogcumsumexpGradOp<float, double>, scanned
// against the forward's direction; docs/spec.md §1, gradient), taken by the op's GpuTileScan
// (logcumsumexp_tiles.cuh) for rows (inner == 1) of float32 with every pointer 16-byte aligned
// and the row length a multiple of 4, when PO_LSE_GRAD_ROWS is 1.
//
// The telescoped tiles of logcumsumexp_tiles.cuh pay, per 128 elements of a warp, two warp
// reductions (the tile's output range), a warp scan of doubles and three float64 exponentials
// per lane (the carry's rebase and the tile's gate product), i.e. ~20 float64 operations per
// element. Here a lane takes kN consecutive steps per tile of 32 * kN and per element:
//   - out, out_grad and x come through BlockedGroup (coalesced 16-byte accesses) and x_grad leaves
//     the same way; out[prev] of the lane's first step is the previous lane's last out (a
//     shuffle), the previous tile's (kept), or one load at the start of a segment;
//   - the gate and the factor take the CPU SIMD path's arithmetic: the difference d of two float
//     outputs is exact in float64, its float rounding df goes through expm1f (gate = 1 + expm1f)
//     or expf (factor), and the rounding d - df is put back with one float64 fma (a gate's error
//     ~1e-7 |1 - gate|, a factor's ~2e-7). A gate below 1/2 (expm1f < -1/2) is expf's instead
//     (PO_LSE_GRAD_GATE_EXPF; the CPU's SIMD gates as well): 1 + expm1f keeps expm1f's
//     absolute error, up to ~6e-8 where expm1f nears -1, which is 6e-8 / gate of a small gate
//     (below). |d| > 80 or NaN take the float64 exp; a first step, an out of -inf, equal outputs
//     and an x of -inf are the op's special cases;
//   - the recurrence stays float64: each lane folds its steps' (gate, out_grad) pairs, a
//     Kogge-Stone scan across the warp gives what lies before each lane (carry included), and
//     the lane walks its steps again for the outputs. Nothing depends on the data's range, so
//     no tile falls back; the combination order depends on the shape alone (deterministic).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "kernels/funcs/gpu/scan_agent.cuh"
#include "kernels/funcs/gpu/scan_block_rows.cuh"
#include "kernels/impl/cum_scan_ops.h"

#ifndef PO_LSE_GRAD_ITEMS
#define PO_LSE_GRAD_ITEMS 8
#endif
// Gates below 1/2 as expf rather than 1 + expm1f (LseGradRowMath::Exp); 0: 1 + expm1f for every
// gate, as before 2026-11-30 and as the CPU.
#ifndef PO_LSE_GRAD_GATE_EXPF
#define PO_LSE_GRAD_GATE_EXPF 1
#endif

namespace phi {
namespace funcs {
namespace scan_gpu {

struct LseGradRowMath {
  using State = GatedState<double>;
  static constexpr float kInf = std::numeric_limits<float>::infinity();

  // exp(d) for the difference d of two float outputs; kGate: as 1 + expm1 (see above) where the
  // gate is 1/2 or more. Below, 1 + expm1f would leave expm1f's absolute error in the gate: the
  // scan1d harness's [4096, 16384] N(0, 2) gradient (tools/dev/harness/README.md, "the gates
  // below 1/2"), jumps of 7.6 at rows' starts (gates of 5e-4), was 1.9 of its bound's 10 on the
  // H200 (the same on the host), 8.5 with expm1f one ulp off; with expf 0.11 / 0.22.
  // kFar: |d| > 80 through ExpFar, a call, so that the float64 exp's registers are not the
  // caller's (LseGradColumns; the row tiles inline it as before).
  template <bool kGate, bool kFar = false>
  __device__ static double Exp(double d) {
    if (fabs(d) <= 80.0) {
      const float df = static_cast<float>(d);
      double e;
      if (kGate) {
        const float m = expm1f(df);
        e = PO_LSE_GRAD_GATE_EXPF && m < -0.5f ? static_cast<double>(expf(df)) : 1.0 + static_cast<double>(m);
      } else {
        e = static_cast<double>(expf(df));
      }
      return fma(e, d - static_cast<double>(df), e);
    }
    return kFar ? ExpFar(d) : exp(d);
  }
  __device__ __noinline__ static double ExpFar(double d) { return exp(d); }
  // The op's gate of a step with output o after the output `prev` (first: the line's first step).
  template <bool kFar = false>
  __device__ static double Gate(float o, float prev, bool first) {
    if (first || o == -kInf) return 0.0;
    return o == prev ? 1.0 : Exp<true, kFar>(static_cast<double>(o) - static_cast<double>(prev));
  }
  // x_grad from the recurrence's b and the output that x first feeds (`o`; none: `none`).
  template <bool kFar = false>
  __device__ static float Out(double b, float x, float o, bool none) {
    if (none || x == -kInf) return 0.f;
    return static_cast<float>(b * Exp<false, kFar>(static_cast<double>(x) - static_cast<double>(o)));
  }
  __device__ static State Combine(const State& e, const State& l) { return {e.a * l.a, fma(l.a, e.b, l.b)}; }
};

struct LseGradRows {
  using Op = LogcumsumexpGradOp<float, double>;
  using State = GatedState<double>;
  using F = LseGradRowMath;
  static constexpr int kN = PO_LSE_GRAD_ITEMS;  // steps per lane and tile
  static constexpr int64_t kTile = 32 * kN;

  __device__ static bool Aligned(const Op& op, int64_t L) {
    const auto a = [](const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; };
    return L % 4 == 0 && a(op.x) && a(op.out) && a(op.out_grad) && a(op.x_grad);
  }

  // What lies before each lane (carry included) and the tile's total without the carry, in a
  // fixed order.
  __device__ static void ScanLanes(const State& mine, const State& carry, int lane, State* before, State* total) {
    State incl = mine;
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
      const State y{__shfl_up_sync(0xffffffffu, incl.a, d), __shfl_up_sync(0xffffffffu, incl.b, d)};
      if (lane >= d) incl = F::Combine(y, incl);
    }
    *total = State{__shfl_sync(0xffffffffu, incl.a, 31), __shfl_sync(0xffffffffu, incl.b, 31)};
    const State b{__shfl_up_sync(0xffffffffu, incl.a, 1), __shfl_up_sync(0xffffffffu, incl.b, 1)};
    *before = lane == 0 ? carry : F::Combine(carry, b);
  }

  __device__ static bool Applies(const Op& op, const OpLine<Op>& line) {
    return line.g.inner == 1 && Aligned(op, line.g.length);
  }

  // A full warp scans steps [s0, s1) of the row from carry (kRev: the row's direction); a last
  // partial tile takes the generic steps.
  template <bool kStore, bool kRev>
  __device__ static State WarpSteps(const Op& op, const OpLine<Op>& line, int64_t s0, int64_t s1, State carry,
                                    bool exclusive, int lane) {
    const int64_t L = line.g.length;
    // The output before step s0 (scan order), if any.
    float last = 0.f;
    if (s0 > 0) last = op.out[line.g.At(line.base, s0).prev];
    int64_t t0 = s0;
    for (; t0 + kTile <= s1; t0 += kTile) {
      float o[kN], g[kN], x[kN];
      BlockedGroup<float, kN>::template Load<kRev>(op.out, line.base, L, t0, o, lane);
      BlockedGroup<float, kN>::template Load<kRev>(op.out_grad, line.base, L, t0, g, lane);
      if (kStore) BlockedGroup<float, kN>::template Load<kRev>(op.x, line.base, L, t0, x, lane);
      const float up = __shfl_up_sync(0xffffffffu, o[kN - 1], 1);
      const float prev0 = lane == 0 ? last : up;
      last = __shfl_sync(0xffffffffu, o[kN - 1], 31);
      const bool first0 = t0 == 0 && lane == 0;  // the line's first step
      double gate[kN];
      State mine{1.0, 0.0};
#pragma unroll
      for (int j = 0; j < kN; ++j) {
        gate[j] = F::Gate(o[j], j == 0 ? prev0 : o[j - 1], j == 0 && first0);
        mine = F::Combine(mine, State{gate[j], static_cast<double>(g[j])});
      }
      State before, total;
      ScanLanes(mine, carry, lane, &before, &total);
      carry = F::Combine(carry, total);
      if (!kStore) continue;
      double b = before.b;
      float r[kN];
#pragma unroll
      for (int j = 0; j < kN; ++j) {
        const float op_prev = j == 0 ? prev0 : o[j - 1];
        if (exclusive) {
          r[j] = F::Out(b, x[j], op_prev, j == 0 && first0);
          b = fma(gate[j], b, static_cast<double>(g[j]));
        } else {
          b = fma(gate[j], b, static_cast<double>(g[j]));
          r[j] = F::Out(b, x[j], o[j], false);
        }
      }
      BlockedGroup<float, kN>::template Store<kRev>(op.x_grad, line.base, L, t0, r, lane);
    }
    if (t0 < s1) carry = WarpScanSteps<32, ScanPolicy::kRowItems, kStore>(op, line, t0, s1, carry, exclusive, lane);
    return carry;
  }
};

// The gradient's column thread steps for float32 (GpuTileScan<LogcumsumexpGradOp<float, double>>
// ::Thread, taken when PO_LSE_GRAD_COLS is 1): a thread walks steps [s0, s1) of one line, as the
// three column phases (scan_kernel.cuh's ColumnScanKernel), the one pass's ThreadColumnSteps and
// the column totals call it. Per element the arithmetic of LseGradRows above (LseGradRowMath: the
// gate of the exact float64 difference of two float outputs, the float64 recurrence
// b = fma(gate, b, out_grad), x_grad = b * exp(x - o)), folded left in scan order from the carry,
// so nothing depends on the data's range and no chunk falls back. What the telescoped steps they
// replace (LseGradFast, kept as ThreadTelescoped) cost, per element of a chunk of 8:
//   - segment totals (kStore off): out and out_grad read (8 bytes), one float32 exp (the exact
//     difference to the chunk's reference), a float-float sum; per chunk a max/min/NaN pass, the
//     step before the chunk read again, two float64 exps and a float64 combination (Carry), and
//     the generic fallback's code beside it (registers: 80, the launch bound's cap);
//   - the stores (kStore): out, out_grad and x read, x_grad written (16 bytes), three float32
//     exps (term, rebase to the output, x's factor) and the float-float sums; per chunk three
//     float64 exps (Rebase, Carry).
// Here: the same bytes (x only with kStore; the output before s0 read once a thread, not once a
// chunk), one float32 exp (the gate: expm1f, or expf below 1/2) and ~6 float64 operations an
// element for the totals, two float32 exps and ~10 float64 operations with the stores; no float64
// exp but where |o - prev| or |x - o| > 80; no reductions, no fallback. PO_LSE_GRAD_COL_ITEMS
// (default the engine's kItems, 8): the steps whose loads are issued together.
#ifndef PO_LSE_GRAD_COL_ITEMS
#define PO_LSE_GRAD_COL_ITEMS 0
#endif
// 1 (default): LseGradColMath's arithmetic below; 0: LseGradRowMath's, as the row tiles.
#ifndef PO_LSE_GRAD_COL_LEAN
#define PO_LSE_GRAD_COL_LEAN 1
#endif

// The columns' lean arithmetic: LseGradRowMath's, with fewer float <-> double conversions (on the
// H200 64-bit conversions issue at 16 a clock an SM, as MUFU: LseGradRowMath's gate takes ~5
// of them and its factor ~5, the element's whole budget at the copy's pace). The difference of
// two floats is taken in float32 with its rounding error exactly (TwoSum: s + err = a - b, as
// LseFast::ExpDiff), and the rounding is put back in float32:
//   - a gate of 1/2 or more: 1 + m' in float64, m' = fmaf(1 + m, err, m), m = expm1f(s): the
//     float rounding of m' adds half an ulp of |1 - gate| (LseGradRowMath: the fma in float64);
//   - a gate below 1/2 and a factor: e' = fmaf(e, err, e), e = expf(s), widened once: half an
//     ulp of the gate or factor more than LseGradRowMath's.
// One conversion a gate (m' or e'), two a factor (e', the product b * e' back to float), one for
// out_grad in the recurrence. |s| > 80 (or NaN) takes the float64 exp of the float64 difference
// (ExpFar, a call). Emulated on the host: tools/dev/harness/scan1d/grad_emu_test.cu --cols.
struct LseGradColMath {
  static constexpr float kInf = std::numeric_limits<float>::infinity();
  // s + err = a - b exactly (s rounded to float); err is NaN where s is not finite.
  __device__ static void Diff(float a, float b, float* s, float* err) {
    *s = a - b;
    const float bb = *s - a;
    *err = (a - (*s - bb)) + (-b - bb);
  }
  __device__ static double Gate(float o, float prev, bool first) {
    if (first || o == -kInf) return 0.0;
    if (o == prev) return 1.0;
    float s, err;
    Diff(o, prev, &s, &err);
    if (!(fabsf(s) <= 80.f)) return LseGradRowMath::ExpFar(static_cast<double>(o) - static_cast<double>(prev));
    const float m = expm1f(s);
    if (PO_LSE_GRAD_GATE_EXPF && m < -0.5f) {
      const float e = expf(s);
      return static_cast<double>(fmaf(e, err, e));
    }
    return 1.0 + static_cast<double>(fmaf(1.f + m, err, m));
  }
  __device__ static float Out(double b, float x, float o, bool none) {
    if (none || x == -kInf) return 0.f;
    float s, err;
    Diff(x, o, &s, &err);
    if (!(fabsf(s) <= 80.f)) {
      return static_cast<float>(b * LseGradRowMath::ExpFar(static_cast<double>(x) - static_cast<double>(o)));
    }
    const float e = expf(s);
    return static_cast<float>(b * static_cast<double>(fmaf(e, err, e)));
  }
};
// LseGradRowMath with the float64 exp past |d| > 80 as a call (the columns' registers).
struct LseGradRowMathFar {
  __device__ static double Gate(float o, float prev, bool first) { return LseGradRowMath::Gate<true>(o, prev, first); }
  __device__ static float Out(double b, float x, float o, bool none) {
    return LseGradRowMath::Out<true>(b, x, o, none);
  }
};

struct LseGradColumns {
  using Op = LogcumsumexpGradOp<float, double>;
  using State = GatedState<double>;

  template <int kItems, bool kStore, bool kLean = PO_LSE_GRAD_COL_LEAN != 0>
  __device__ static State ThreadSteps(const Op& op, const OpLine<Op>& line, int64_t s0, int64_t s1, State carry,
                                      bool exclusive) {
    using F = std::conditional_t<kLean, LseGradColMath, LseGradRowMathFar>;
    if (s0 >= s1) return carry;
    const ScanPos p0 = line.g.At(line.base, s0);
    const int64_t step = line.g.reverse ? -line.g.inner : line.g.inner;
    float prev = s0 > 0 ? __ldg(op.out + p0.prev) : 0.f;  // the output before s0 (scan order)
    double a = carry.a, b = carry.b;
    int64_t off = p0.offset;
    for (int64_t t0 = s0; t0 < s1; t0 += kItems) {
      const int64_t left = s1 - t0;
      float o[kItems], g[kItems], x[kItems];
      int64_t at = off;
#pragma unroll
      for (int k = 0; k < kItems; ++k) {
        if (k < left) {
          o[k] = __ldg(op.out + at);
          g[k] = __ldg(op.out_grad + at);
          if (kStore) x[k] = __ldg(op.x + at);
        }
        at += step;
      }
      at = off;
#pragma unroll
      for (int k = 0; k < kItems; ++k) {
        if (k < left) {
          const bool first = t0 + k == 0;  // the line's first step: gate 0
          const double gate = F::Gate(o[k], prev, first);
          a *= gate;
          if (kStore) {
            float r;
            if (exclusive) {
              r = F::Out(b, x[k], prev, first);
              b = fma(gate, b, static_cast<double>(g[k]));
            } else {
              b = fma(gate, b, static_cast<double>(g[k]));
              r = F::Out(b, x[k], o[k], false);
            }
            op.x_grad[at] = r;
          } else {
            b = fma(gate, b, static_cast<double>(g[k]));
          }
          prev = o[k];
        }
        at += step;
      }
      off = at;
    }
    return State{a, b};
  }
};

// The gradient's block tiles (scan_block_rows.cuh, the scan engine v3) for float32 1-D tensors,
// few long rows (LseGradBlockRowsFor in logcumsumexp_tiles.cuh: kStash) and rows of 8192 steps
// or more of any count (LseGradBlock2RowsFor: kStash off): a block per tile of
// kThreads * kItems steps, out, out_grad and x each read once (x after the look-back) and x_grad
// written once, 2 x a copy's bytes (the warp segments of the telescoped tiles read out and
// out_grad twice: 3 x). Per element the arithmetic of LseGradRows above (LseGradRowMath): the
// gate of the exact float64 difference of two float outputs (1 + expm1f, expf below 1/2, its
// rounding put back by one fma), the float64 recurrence b = fma(gate, b, out_grad), x_grad =
// b * exp(x - o) the same way; the gates are taken twice (the fold before the look-back, the outputs after it:
// the same function of the same floats, so the same bits), not held across the look-back.
//   - The published aggregate A_t is the tile's (gate product, b) pair, a fixed left fold: each
//     thread folds its steps in order, then a block scan (lane, then warp order). The step
//     P_t = Step(P_{t-1}, A_t) keeps b alone, fma(A_t.a, P.b, A_t.b): every prefix from a
//     line's start holds the first step, whose gate is 0, so its gate product is 0 (the op's
//     outputs read b alone) and the INCL word carries b with a marker; an AGG word carries a
//     (>= 0 or NaN, taken canonical in Aggregate) with its sign bit set, and b. The fold is that
//     fma chain on warp 0. No carry-in: the library's gradient has none (CarryIn and Join are
//     written for the contract: a carry-in is cut off by the first step's gate anyway).
//   - kStash: out_grad waits out the look-back in the warp's store-staging buffer (BlockIO::stage,
//     32 * kItems floats a warp, unused until the stores) rather than in registers: with o and
//     out_grad held, Finish's x and float64 temporaries spilled at 512 x 16 (64 registers: 88
//     bytes of spill stores a thread; 256 x 16 at 80: 52).
//   - The output before a thread's first step: the previous lane's last (a shuffle), the
//     previous warp's (shared memory), or, for the tile's first thread, one load of the step
//     before the tile. Steps past the line's end (the last tile) read 0s; they come after every
//     real step, so they change only the last tile's aggregate, which nobody reads.
template <int kThreads, int kItems, bool kStash = true>
struct LseGradBlockTile {
  using Op = LogcumsumexpGradOp<float, double>;
  using Agg = GatedState<double>;
  using F = LseGradRowMath;
  static constexpr bool kOwnIO = true;
  static constexpr float kPad = 0.f;
  static constexpr int kWarps = kThreads / 32;
  struct Shared {
    Agg scan[kWarps + 1];
    float last[kWarps];  // each warp's last output
  };
  struct CombineF {
    __device__ Agg operator()(const Agg& e, const Agg& l) const { return F::Combine(e, l); }
  };

  __device__ static const float* In(const Op& op) { return op.out; }
  __device__ static float* Out(const Op& op) { return op.x_grad; }
  static bool Vec(const Op& op, int64_t L) {
    const auto a = [](const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; };
    return L % 4 == 0 && a(op.x) && a(op.out) && a(op.out_grad) && a(op.x_grad);
  }
  __device__ static Agg Identity() { return Agg{1.0, 0.0}; }
  __device__ static uint4 Pack(const Agg& a, unsigned state) {
    const unsigned long long b = static_cast<unsigned long long>(__double_as_longlong(a.b));
    const unsigned long long g = static_cast<unsigned long long>(__double_as_longlong(a.a));
    const unsigned lo = state == kBlockIncl ? 0xffffffffu : static_cast<unsigned>(g);
    const unsigned hi = state == kBlockIncl ? 0xffffffffu : static_cast<unsigned>(g >> 32) | 0x80000000u;
    return make_uint4(lo, hi, static_cast<unsigned>(b), static_cast<unsigned>(b >> 32));
  }
  __device__ static unsigned WordState(uint4 w) {
    if (w.x == 0xffffffffu && w.y == 0xffffffffu) return kBlockIncl;
    return (w.y & 0x80000000u) != 0u ? kBlockAgg : 0u;
  }
  __device__ static Agg Unpack(uint4 w) {
    const double b = __longlong_as_double(static_cast<long long>((static_cast<unsigned long long>(w.w) << 32) | w.z));
    if (w.x == 0xffffffffu && w.y == 0xffffffffu) return Agg{0.0, b};
    const unsigned long long g = (static_cast<unsigned long long>(w.y & 0x7fffffffu) << 32) | w.x;
    return Agg{__longlong_as_double(static_cast<long long>(g)), b};
  }
  __device__ static Agg Step(const Agg& c, const Agg& a) { return Agg{0.0, fma(a.a, c.b, a.b)}; }
  __device__ static Agg CarryIn(const GatedState<double>* init, int64_t line) { return init[line]; }
  __device__ static Agg Join(const Agg& c, const Agg& p) { return Agg{0.0, fma(p.a, c.b, p.b)}; }
  // c folded with flat[D - 1], ..., flat[0]: the fma chain on warp 0 (the other warps return c).
  __device__ static Agg Fold(Agg c, uint4* flat, int D, Shared&, int warp, int) {
    if (warp != 0) return c;
    const double b = FoldInOrder(
        c.b, D, [&](int i) { return Unpack(flat[i]); }, [](double x, const Agg& q) { return fma(q.a, x, q.b); });
    return Agg{0.0, b};
  }

  float g[kStash ? 1 : kItems];  // out_grad at the thread's steps (kStash: in io.stage instead)
  float prev0;      // the output before the thread's first step (scan order)
  Agg before;       // the thread's exclusive state in the tile
  Agg total;        // the tile's

  __device__ void Prepare(const Op& op, const float (&o)[kItems], Shared& sh, const BlockIO<float, kItems>& io) {
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    float edge = 0.f;  // the output before the tile (none at the line's start)
    if (threadIdx.x == 0 && io.tile0 > 0) edge = op.out[io.Index(io.tile0 - 1)];
    float gl[kItems];
    io.Load(op.out_grad, gl, 0.f);
    if (lane == 31) sh.last[warp] = o[kItems - 1];
    const float up = __shfl_up_sync(0xffffffffu, o[kItems - 1], 1);
    __syncthreads();
    prev0 = lane != 0 ? up : warp != 0 ? sh.last[warp - 1] : edge;
    const bool first0 = io.first == 0;  // the line's first step
    Agg mine{1.0, 0.0};
#pragma unroll
    for (int j = 0; j < kItems; ++j) {
      const double gate = F::Gate(o[j], j == 0 ? prev0 : o[j - 1], j == 0 && first0);
      mine = F::Combine(mine, Agg{gate, static_cast<double>(gl[j])});
    }
#pragma unroll
    for (int j = 0; j < kItems; ++j) {
      if (kStash) {
        reinterpret_cast<float*>(io.stage)[j * 32 + lane] = gl[j];  // conflict-free
      } else {
        g[kStash ? 0 : j] = gl[j];
      }
    }
    BlockScanOne<kThreads>(mine, CombineF{}, Identity(), sh.scan, &before, &total);
  }
  // A_t: the tile's total, its gate product canonical (>= 0: |a| is a for every a the gates
  // give, -0 aside; a NaN as the one quiet NaN) so that its sign bit can mark the word.
  __device__ Agg Aggregate() const {
    const double a = total.a != total.a ? __longlong_as_double(0x7ff8000000000000ll) : fabs(total.a);
    return Agg{a, total.b};
  }
  __device__ void Finish(const Op& op, const Agg& carry, bool exclusive, float (&o)[kItems], Shared&,
                         const BlockIO<float, kItems>& io) {
    float x[kItems];
    io.Load(op.x, x, 0.f);
    double b = fma(before.a, carry.b, before.b);  // Combine(carry, before).b
    const bool first0 = io.first == 0;
    const int lane = threadIdx.x % 32;
    float prev = prev0;
#pragma unroll
    for (int j = 0; j < kItems; ++j) {
      const bool first = j == 0 && first0;
      const double gate = F::Gate(o[j], prev, first);
      const double gj = static_cast<double>(kStash ? reinterpret_cast<const float*>(io.stage)[j * 32 + lane]
                                                   : g[kStash ? 0 : j]);
      float r;
      if (exclusive) {
        r = F::Out(b, x[j], prev, first);
        b = fma(gate, b, gj);
      } else {
        b = fma(gate, b, gj);
        r = F::Out(b, x[j], o[j], false);
      }
      prev = o[j];
      o[j] = r;
    }
    __syncwarp();  // io.stage read by every lane before the stores write it
  }
};

}  // namespace scan_gpu
}  // namespace funcs
}  // namespace phi
