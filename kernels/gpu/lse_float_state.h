// The per-lane float32 arithmetic of logcumsumexp's float-state row tiles
// (kernels/gpu/logcumsumexp_tiles.cuh with -DPO_LSE_FLOAT_STATE=1; off by default, not yet run
// on a GPU). Host and device code: the device passes the special-function unit's ex2/lg2, the
// host emulation (tools/dev/harness/scan/lse_float_state_emu.cc) passes libm's, perturbed or
// not, so that both run the same float32 sequence.
//
// A full warp's group of 32 lanes x N steps (blocked: lane l holds steps l*N .. l*N+N-1):
//  1. each lane sums its terms against its own maximum ml, sl = sum_j 2^((x_j - ml) log2 e)
//     (>= 1: the maximum's own term is 1, so a term's error counts at most its own size);
//  2. the lanes' totals, moved to the group's reference R (one exp of an exact difference per
//     lane), are scanned in float64 (as before), and each lane's exclusive prefix is moved to
//     MP, the largest element before the lane (an exclusive max scan; the prefix's sum there is
//     >= 1 for the same reason);
//  3. each lane walks its steps from (MP, prefix) keeping a float32 running maximum m and a sum
//     scaled to it, in two parts (Take): s' = s * 2^(-(x - m) log2 e) + 1 when x > m, else
//     s + 2^((x - m) log2 e); out = m + log2(p + s) ln 2. Per step: a subtraction, a multiply,
//     ex2, a compare, a multiply, a fused multiply-add or an add, three selects, an add, lg2
//     and an fma. The sum is >= 1 throughout, so every term's error (the rounded difference,
//     ex2's ~2 ulp) counts relative to its own size, which exp(d) |d| bounds: at most 2.2e-8 of
//     the sum from the difference's rounding.
// No NaN, +inf or single-term prefix reaches this path (the tile's checks send those groups to
// the float64 steps), and every output it writes is at least LseFast::kLean from 0.
#pragma once

#include <cmath>
#include <limits>

#include "paddle_ops/common/macros.h"

namespace phi {
namespace funcs {
namespace lse_fs {

constexpr float kLog2e = 1.44269504088896340736f;
constexpr float kLn2 = 0.693147180559945309417f;
// The running maximum's floor: a lane whose steps are all -inf sums against it, so that
// x - m is -inf (a zero term) and never NaN.
constexpr float kFloor = -3.40282346638528859812e+38f;

#if defined(__CUDACC__)
// The special-function unit: 2^t and log2(s), approximate (about 2 ulp), denormals flushed.
struct DeviceMath {
  __device__ static float Ex2(float t) {
    float r;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(t));
    return r;
  }
  __device__ static float Lg2(float s) {
    float r;
    asm("lg2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(s));
    return r;
  }
  __device__ static float Exp(float v) { return expf(v); }  // libdevice's, 2 ulp
  __device__ static float Mul(float a, float b) { return __fmul_rn(a, b); }  // never fused
  __device__ static float Sub(float a, float b) { return __fsub_rn(a, b); }
};
#endif

// exp(a - b) for a <= b (or a = -inf: 0), the difference taken exactly (TwoSum): rounding a - b
// would cost up to |a - b| 2^-24 of the result, 4.8e-6 at |a - b| = 80.
template <typename M>
HOSTDEVICE inline float ExpDiff(float a, float b) {
  const float s = M::Sub(a, b);
  const float bb = M::Sub(s, a);
  const float err = M::Sub(a, M::Sub(s, bb)) + M::Sub(-b, bb);
  const float e = M::Exp(s);
  const float r = fmaf(e, err, e);
  return a == -std::numeric_limits<float>::infinity() ? 0.f : r;
}

// Step 1: the lane's maximum (kFloor when every step is -inf) and its sum against it.
template <typename M, int N>
HOSTDEVICE inline float LaneMax(const float (&x)[N]) {
  float ml = kFloor;
#pragma unroll
  for (int j = 0; j < N; ++j) ml = fmaxf(ml, x[j]);
  return ml;
}
template <typename M, int N>
HOSTDEVICE inline float LaneSum(const float (&x)[N], float ml) {
  float s = 0.f;
#pragma unroll
  for (int j = 0; j < N; ++j) s += M::Ex2(M::Mul(M::Sub(x[j], ml), kLog2e));
  return s;
}

// Step 3, one step: the running state takes x in. Its sum is kept in two parts against the
// running maximum m, the prefix p (the lane's start, only ever rescaled) and the lane's own
// terms s, and an output rounds p + s once: adding each small term into one large float sum
// would round once per step (up to 16 half-ulps of the sum along a lane, ~1e-6 of an output
// near kLean).
template <typename M>
HOSTDEVICE inline void Take(float x, float* m, float* p, float* s) {
  const float d = M::Sub(x, *m);
  const float e = M::Ex2(M::Mul(-fabsf(d), kLog2e));  // x = -inf: d = -inf, e = 0
  const bool up = d > 0.f;
  *p = up ? M::Mul(*p, e) : *p;
  *s = up ? fmaf(*s, e, 1.f) : *s + e;
  *m = up ? x : *m;
}
template <typename M>
HOSTDEVICE inline float Out(float m, float p, float s) {
  return fmaf(M::Lg2(p + s), kLn2, m);
}

// Step 3 over the lane's N steps from the prefix state (m, p): the outputs, inclusive or
// exclusive.
template <typename M, bool kExclusive, int N, typename T>
HOSTDEVICE inline void LaneOutputs(const float (&x)[N], float m, float p, T (&o)[N]) {
  float s = 0.f;
#pragma unroll
  for (int j = 0; j < N; ++j) {
    if (kExclusive) o[j] = static_cast<T>(Out<M>(m, p, s));
    Take<M>(x[j], &m, &p, &s);
    if (!kExclusive) o[j] = static_cast<T>(Out<M>(m, p, s));
  }
}

}  // namespace lse_fs
}  // namespace funcs
}  // namespace phi
