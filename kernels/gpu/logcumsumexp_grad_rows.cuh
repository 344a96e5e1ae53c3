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
//     ~1e-7 |1 - gate|, a factor's ~2e-7). |d| > 80 or NaN take the float64 exp; a first step,
//     an out of -inf, equal outputs and an x of -inf are the op's special cases;
//   - the recurrence stays float64: each lane folds its steps' (gate, out_grad) pairs, a
//     Kogge-Stone scan across the warp gives what lies before each lane (carry included), and
//     the lane walks its steps again for the outputs. Nothing depends on the data's range, so
//     no tile falls back; the combination order depends on the shape alone (deterministic).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

#include "kernels/funcs/gpu/scan_agent.cuh"
#include "kernels/impl/cum_scan_ops.h"

#ifndef PO_LSE_GRAD_ITEMS
#define PO_LSE_GRAD_ITEMS 8
#endif

namespace phi {
namespace funcs {
namespace scan_gpu {

struct LseGradRowMath {
  using State = GatedState<double>;
  static constexpr float kInf = std::numeric_limits<float>::infinity();

  // exp(d) for the difference d of two float outputs; kGate: as 1 + expm1 (see above).
  template <bool kGate>
  __device__ static double Exp(double d) {
    if (fabs(d) <= 80.0) {
      const float df = static_cast<float>(d);
      const double e = kGate ? 1.0 + static_cast<double>(expm1f(df)) : static_cast<double>(expf(df));
      return fma(e, d - static_cast<double>(df), e);
    }
    return exp(d);
  }
  // The op's gate of a step with output o after the output `prev` (first: the line's first step).
  __device__ static double Gate(float o, float prev, bool first) {
    if (first || o == -kInf) return 0.0;
    return o == prev ? 1.0 : Exp<true>(static_cast<double>(o) - static_cast<double>(prev));
  }
  // x_grad from the recurrence's b and the output that x first feeds (`o`; none: `none`).
  __device__ static float Out(double b, float x, float o, bool none) {
    if (none || x == -kInf) return 0.f;
    return static_cast<float>(b * Exp<false>(static_cast<double>(x) - static_cast<double>(o)));
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

}  // namespace scan_gpu
}  // namespace funcs
}  // namespace phi
